// The desk in the operator's language (issue 41), in Debian's Chromium against the real
// packdesk-server: with the desk set to German, then switched to Polish in Settings, no
// navigation entry, button or heading of any screen reads as English (checked against the
// catalogues: a text that is English's and not the language's own); dates and weights are written
// the local way; a bad postcode is said in the language; an operator with a language of their own
// sees theirs. Screenshots at 1366 x 768.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ok, startDesk } from './support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = process.env.SCREENSHOTS ?? '/tmp';
const catalogue = (tag) => JSON.parse(readFileSync(join(here, '..', 'src', 'i18n', 'messages', `${tag}.json`), 'utf8'));
const flatten = (o, p = '', into = {}) => {
  for (const [k, v] of Object.entries(o)) {
    if (v && typeof v === 'object') flatten(v, `${p}${k}.`, into);
    else into[`${p}${k}`] = v;
  }
  return into;
};
const english = flatten(catalogue('en'));

/** The English texts a screen in `tag` must not show: English's messages that the language
 * words otherwise (a message the language writes the same, "PDF" or "Manifest", may show). */
function englishOnly(tag) {
  const own = flatten(catalogue(tag));
  const ownTexts = new Set(Object.values(own).map((v) => v.trim()));
  return new Set(
    Object.entries(english)
      .filter(([k, v]) => own[k] !== v && !/[{}]/.test(v) && !ownTexts.has(v.trim()))
      .map(([, v]) => v.trim()),
  );
}

let desk, yodel;
const api = (...args) => desk.api(...args);

before(async () => {
  desk = await startDesk('packdesk-languages-');
  yodel = await desk.account('yodel', 'Yodel desk');
  await desk.label(yodel, 'yodel_std', { parcels: [{ weight: { value: 1.5, unit: 'kg' } }] });
  const settings = await ok(api('GET', '/desk/settings'));
  await ok(api('PUT', '/desk/settings', { ...settings, language: 'de' }, desk.liveKey));
});

after(() => desk?.stop());

/** Every screen's navigation entry, buttons and headings that read as English in `tag`. */
async function englishOnScreens(page, tag) {
  const forbidden = englishOnly(tag);
  assert.ok(forbidden.size > 500, `English's own texts: ${forbidden.size}`);
  const found = [];
  let read = 0;
  const screens = await page.locator('nav [data-nav]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-nav')));
  assert.ok(screens.length >= 10, `the screens: ${screens}`);
  for (const id of screens) {
    await page.locator(`[data-nav="${id}"]`).click();
    await page.locator(`[data-nav="${id}"][aria-current="page"]`).waitFor();
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(150);
    const texts = await page
      .locator('nav button, main button, main h2, main h3, main h4, main th, main summary, main legend')
      .evaluateAll((es) => es.filter((e) => e.offsetParent !== null).map((e) => e.textContent.trim()).filter(Boolean));
    read += texts.length;
    for (const text of texts) if (forbidden.has(text)) found.push(`${id}: ${text}`);
    await page.screenshot({ path: `${shots}/language-${tag}-${id}-1366x768.png` });
  }
  assert.ok(read > 150, `texts read on the screens: ${read}`);
  return found;
}

test('in German every screen speaks German, writes 1,5 kg and 27.11. dates, and says a bad postcode in German', async () => {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 }, locale: 'en-US' });
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="ship"]').filter({ hasText: 'Versenden' }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
  assert.deepEqual(await englishOnScreens(page, 'de'), [], 'no English left on a German desk');

  // History: the weight with a decimal comma, the date as Germans write it.
  await page.locator('[data-nav="history"]').click();
  const row = page.getByTestId('row').first();
  await row.waitFor();
  assert.equal(await row.getByTestId('weight').textContent(), '1,5 kg');
  assert.match(await row.textContent(), /\b\d{1,2}\.\d{1,2}\.\d{2,4}\b/, 'a date as dd.mm.yy');

  // Ship: a Manchester postcode for Spain is refused as it is typed, in German, Spain by its German name.
  await page.locator('[data-nav="ship"]').click();
  await page.locator('[data-field="shipment.ship_to.country"]').fill('ESP');
  await page.locator('[data-field="shipment.ship_to.postal_code"]').fill('M1 1AE');
  await page.locator('[data-field="shipment.ship_to.contact_name"]').click();
  const said = page.locator('[data-error="shipment.ship_to.postal_code"]');
  await said.waitFor();
  const words = await said.textContent();
  assert.match(words, /Spanien/, words);
  assert.match(words, /Postleitzahl|PLZ/, words);
  assert.doesNotMatch(words, /postcode|postal code|does not/i, words);
  await page.screenshot({ path: `${shots}/language-de-bad-postcode-1366x768.png` });
  await page.close();
});

test('switched to Polish in Settings, the screen redraws in Polish at once; an operator with English keeps English', async () => {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 }, locale: 'en-US' });
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="settings"]').click();
  await page.getByTestId('desk-language').selectOption('pl');
  // No reload: the same page, now Polish.
  await page.locator('[data-nav="settings"]').filter({ hasText: 'Ustawienia' }).waitFor();
  assert.equal(await page.getByTestId('desk-language').inputValue(), 'pl');
  assert.deepEqual(await englishOnScreens(page, 'pl'), [], 'no English left on a Polish desk');
  await page.locator('[data-nav="history"]').click();
  const row = page.getByTestId('row').first();
  await row.waitFor();
  assert.equal(await row.getByTestId('weight').textContent(), '1,5 kg');
  assert.match(await row.textContent(), /\b\d{1,2}\.\d{1,2}\.\d{4}\b/, 'a date as dd.mm.yyyy');
  await page.close();

  // An operator whose own language is English signs in at the Polish desk: the screens speak English.
  await ok(api('POST', '/desk/operators', { name: 'Ada Admin', code: 'B-ADA', role: 'admin', language: 'en' }, desk.liveKey));
  const settings = await ok(api('GET', '/desk/settings'));
  await ok(api('PUT', '/desk/settings', { ...settings, require_sign_in: true }, desk.liveKey));
  const signed = await desk.browser.newPage({ viewport: { width: 1366, height: 768 }, locale: 'en-US' });
  await signed.goto(desk.base + '/');
  await signed.getByTestId('badge').fill('B-ADA');
  await signed.getByTestId('badge').press('Enter');
  await signed.locator('[data-nav="settings"]').filter({ hasText: 'Settings' }).waitFor();
  await signed.close();
  await ok(api('PUT', '/desk/settings', { ...settings, require_sign_in: false }, desk.liveKey));
});

test('Reports shows the labels made by carrier, with a chart, and downloads them as CSV', async () => {
  const settings = await ok(api('GET', '/desk/settings'));
  await ok(api('PUT', '/desk/settings', { ...settings, language: 'en' }, desk.liveKey));
  const made = await desk.label(yodel, 'yodel_std', { parcels: [{ weight: { value: 2, unit: 'kg' } }, { weight: { value: 0.5, unit: 'kg' } }] });
  const voided = await desk.label(yodel, 'yodel_std');
  await ok(api('POST', '/v3/cancel-labels', { label: { id: voided.id } }));
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 }, locale: 'en-US', acceptDownloads: true });
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="reports"]').click();
  await page.getByTestId('report-group').selectOption('carrier');
  const yodelRow = page.locator('[data-testid="report-row"][data-group="yodel"]');
  await yodelRow.waitFor();
  // The first test's 1.5 kg label, this one's two parcels (2 + 0.5 kg), and one voided.
  const cell = (col) => yodelRow.locator(`[data-col="${col}"]`).textContent();
  assert.deepEqual([await cell('labels'), await cell('voided'), await cell('parcels'), await cell('weight')], ['3', '1', '3', '4 kg']);
  assert.ok(made.tracking_numbers.length === 2);
  assert.ok(await page.getByTestId('report-chart').evaluate((c) => c.width > 600 && c.height > 200), 'a chart drawn across the card');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-csv').click()]);
  const csv = readFileSync(await download.path(), 'utf8');
  assert.match(csv, /^group,name,labels,voided,parcels,weight_kg/);
  assert.match(csv, /\nyodel,Yodel,3,1,3,4\.000,/);
  await page.screenshot({ path: `${shots}/reports-by-carrier-1366x768.png` });
  await page.close();
});
