// The everyday rough edges of the desk, in a real browser (Debian's Chromium) against the real
// packdesk-server: the Ship screen at 1366 x 768 with Create in view, a postal code checked as it
// is typed (blocking Create until corrected or confirmed, the override recorded), the ship date
// after the account's cut-off, History's columns, End of day's later labels and reprint, asking
// before switching sandbox and live, Settings for operators with Integrations apart, files
// without a key, and every screen by keyboard alone with visible focus.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fillShipTo, shipPage, startDesk } from './support.mjs';

let desk, carriers;
const api = (...args) => desk.api(...args);
const gb = (name, postal = 'M1 1AE') => ({ contact_name: name, street1: '22 High Street', city: 'Manchester', postal_code: postal, country: 'GBR' });
const creds = (c) => Object.fromEntries(c.credential_fields.map((f) => [f.name, `test-${f.name}`]));

async function ok(p) {
  const r = await p;
  assert.equal(r.meta.code, 200, JSON.stringify(r.meta));
  return r.data;
}

let yodel;
before(async () => {
  desk = await startDesk('packdesk-everyday-');
  carriers = (await api('GET', '/desk/carriers')).data.carriers;
  const c = carriers.find((x) => x.slug === 'yodel');
  yodel = (await ok(api('POST', '/v3/shipper-accounts', { slug: 'yodel', description: 'Yodel desk', credentials: creds(c), timezone: 'Europe/London', address: gb('Packdesk Ltd', 'E16 2AA') }))).id;
});

after(() => desk?.stop());



test('the Ship screen fits a 1366 x 768 desk monitor with Create in view', async () => {
  const page = await shipPage(desk);
  const inView = async () => {
    const box = await page.getByTestId('create').boundingBox();
    return box && box.y >= 0 && box.y + box.height <= 768;
  };
  assert.ok(await inView(), 'Create is visible without scrolling');
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/ship-start-1366x768.png` });
  assert.match(await page.getByTestId('create').textContent(), /Ctrl\+Enter/);
  // With a second parcel and customs items the form grows; Create stays in view.
  await page.getByTestId('add-parcel').click();
  await fillShipTo(page, { ...gb('Jean Dupont'), postal_code: '75001', city: 'Paris', country: 'FRA' });
  assert.ok(await inView(), 'Create is still visible with a longer form');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 1366, `no sideways scrolling (${width} px)`);
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/ship-1366x768.png` });
  await page.close();
});

test('a postal code that cannot exist shows as it is typed and blocks Create until confirmed', async () => {
  const page = await shipPage(desk);
  await fillShipTo(page, gb('Jane Doe', '1234'));
  // Shown while the cursor is still in the field: no blur needed.
  const error = page.locator('[data-error="shipment.ship_to.postal_code"]');
  await error.waitFor();
  assert.match(await error.textContent(), /does not look like a postcode of United Kingdom/);
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('1.2');
  await page.keyboard.press('Control+Enter');
  // Said once, beside the postcode (with its "Ship to this postcode anyway"), the cursor taken there.
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-field') === 'shipment.ship_to.postal_code');
  assert.match(await error.textContent(), /check it, or confirm it as typed/);
  assert.equal(await page.getByTestId('general-error').count(), 0, 'not repeated above the form');
  assert.equal((await ok(api('GET', '/v3/labels?created_at_min=2000-01-01'))).labels.length, 0, 'nothing was labelled');
  // Corrected: the message goes as the operator types.
  await page.locator('[data-field="shipment.ship_to.postal_code"]').fill('m11ae');
  await error.waitFor({ state: 'detached' });
  // Back to the impossible one, confirmed by the operator: the label is made and says so.
  await page.locator('[data-field="shipment.ship_to.postal_code"]').fill('1234');
  await page.getByTestId('postal-override').check();
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('tracking').waitFor();
  const labels = (await ok(api('GET', '/v3/labels?created_at_min=2000-01-01'))).labels;
  assert.equal(labels.length, 1);
  assert.equal(labels[0].postal_code_override, true);
  await page.close();
});

test('after the account cut-off the Ship screen says when the label ships', async () => {
  const page = await shipPage(desk);
  assert.equal(await page.getByTestId('ship-date-note').count(), 0, 'no cut-off: ships today');
  // A cut-off of 00:00 set elsewhere while the screen stays open: every moment of the day is
  // after it. The label made next ships the next day, and the screen says so from then on
  // (it asks again after each label, and every minute).
  await ok(api('PUT', `/v3/shipper-accounts/${yodel}`, { settings: { cutoff_time: '00:00', collection_days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] } }));
  await fillShipTo(page, gb('Tomorrow Person'));
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('2');
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('tracking').waitFor();
  const expected = (await ok(api('GET', `/desk/shipper-accounts/${yodel}/ship-date`))).ship_date;
  const made = (await ok(api('GET', '/v3/labels?created_at_min=2000-01-01&s=Tomorrow'))).labels[0];
  assert.equal(made.ship_date, expected);
  await page.getByTestId('ship-date-note').waitFor();
  const day = new Date(`${expected}T12:00:00`).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'short' });
  assert.equal(await page.getByTestId('ship-date-note').textContent(), `After the 00:00 cut-off: this label ships ${day} and goes on that day's manifest.`);
  await page.reload();
  await page.getByTestId('ship-date-note').waitFor();

  // End of day shows it apart, as waiting for its day.
  await page.locator('[data-nav="end-of-day"]').click();
  const later = page.getByTestId('eod-later').first();
  await later.waitFor();
  assert.equal(await later.textContent(), `ships ${day}: 1`);
  assert.match(await page.getByTestId('eod-row').first().textContent(), /cut-off 00:00/);
  await ok(api('PUT', `/v3/shipper-accounts/${yodel}`, { settings: { cutoff_time: '' } }));
  await page.close();
});

test('History shows recipient, service name, order number and print state', async () => {
  const body = {
    service_type: 'yodel_std',
    shipper_account: { id: yodel },
    order_number: 'SO-77',
    shipment: { ship_from: gb('Packdesk Ltd', 'E16 2AA'), ship_to: { ...gb('Ada Lovelace'), company_name: 'Engines Ltd' }, parcels: [{ weight: { value: 1, unit: 'kg' } }] },
  };
  const label = await ok(api('POST', '/v3/labels', body));
  const page = await shipPage(desk);
  await page.locator('[data-nav="history"]').click();
  await page.getByTestId('search').fill('SO-77');
  await page.getByTestId('search').press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="row"]').length === 1);
  const row = page.getByTestId('row');
  assert.equal(await row.getByTestId('recipient').textContent(), 'Ada Lovelace, Engines Ltd');
  assert.equal(await row.getByTestId('city').textContent(), 'Manchester, GBR');
  assert.equal(await row.getByTestId('service-name').textContent(), 'UK Express 24');
  assert.equal(await row.getByTestId('order').textContent(), 'SO-77');
  assert.equal(await row.getByTestId('print-state').textContent(), 'Not sent');
  // A printer that is off: the label's job fails and History says so.
  const printer = await ok(api('POST', '/desk/printers', { name: 'Off', transport: 'raw', address: '127.0.0.1:9', format: 'pdf' }, desk.liveKey));
  await api('POST', '/desk/print', { label_id: label.id, printer_id: printer.id });
  await page.getByTestId('search').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="print-state"]')?.textContent === 'Not printed');
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/history-1366x768.png` });
  await page.close();
});

test('End of day lists today’s manifests to reprint', async () => {
  const page = await shipPage(desk);
  await page.locator('[data-nav="end-of-day"]').click();
  await page.getByTestId('close-out-all').click();
  await page.getByTestId('confirm-ok').click(); // it asks first
  await page.getByTestId('manifest-today').first().waitFor();
  await page.getByTestId('reprint-manifest').first().click();
  await page.getByTestId('eod-message').waitFor();
  // No manifest printer on this desk: the operator is told where to set one.
  assert.equal(await page.getByTestId('eod-message').textContent(), 'No printer is set for manifests: choose one on the Printers screen, or download the PDF.');
  // The driver's collection sheet beside it, likewise.
  await page.getByTestId('reprint-collection-sheet').first().click();
  await page.getByTestId('eod-message').filter({ hasText: 'No printer is set for collection sheets' }).waitFor();
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/end-of-day-1366x768.png` });
  await page.close();
});

test('switching sandbox and live asks first and shows which one is on', async () => {
  const page = await shipPage(desk);
  const env = page.getByTestId('env');
  assert.equal(await env.textContent(), 'SANDBOX');
  // The desk's own dialog asks: Esc changes nothing.
  await env.click();
  await page.getByTestId('confirm').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('confirm').waitFor({ state: 'detached' });
  assert.equal(await env.textContent(), 'SANDBOX', 'dismissed: nothing changes');
  await env.click();
  const asked = await page.getByTestId('confirm').textContent();
  await page.getByTestId('confirm-ok').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="env"]')?.textContent === 'LIVE');
  assert.match(asked, /real shipments/);
  assert.equal(await page.locator('nav.live').count(), 1, 'the top bar is live-coloured');
  await env.click();
  await page.getByTestId('confirm-ok').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="env"]')?.textContent === 'SANDBOX');
  await page.close();
});

test('Settings is for operators first; keys and webhook are under Integrations', async () => {
  const page = await shipPage(desk);
  await page.locator('[data-nav="settings"]').click();
  await page.getByTestId('integrations').waitFor();
  const order = await page.locator('h2, h3').allTextContents();
  const at = (t) => order.findIndex((h) => h.startsWith(t));
  for (const operator of ['Printers', 'Scan station and units', 'Environment', 'Data folder']) {
    assert.ok(at(operator) >= 0 && at(operator) < at('Integrations'), `${operator} comes before Integrations: ${order}`);
  }
  assert.ok(at('API keys') > at('Integrations') && at('Webhook') > at('Integrations'), order.join(' | '));
  assert.equal(await page.getByTestId('integrations').getByTestId('key-sandbox').count(), 1);
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/settings-1366x768.png`, fullPage: true });
  await page.locator('[data-nav="accounts"]').click();
  await page.getByTestId('edit-account').first().click();
  await page.getByTestId('cutoff-time').waitFor();
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/accounts-1366x768.png`, fullPage: true });
  await page.close();
});

test('the Accounts screen sets the cut-off and the days the carrier collects', async () => {
  const page = await shipPage(desk);
  await page.locator('[data-nav="accounts"]').click();
  await page.getByTestId('edit-account').first().click();
  await page.getByTestId('cutoff-time').fill('17:30');
  for (const d of ['mon', 'tue', 'wed', 'thu', 'fri']) await page.locator(`[data-day="${d}"]`).check();
  for (const d of ['sat', 'sun']) await page.locator(`[data-day="${d}"]`).uncheck();
  await page.getByTestId('save-account').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="cutoff"]')?.textContent === '17:30');
  const a = await ok(api('GET', `/v3/shipper-accounts/${yodel}`));
  assert.deepEqual([a.settings.cutoff_time, a.settings.collection_days], ['17:30', ['mon', 'tue', 'wed', 'thu', 'fri']]);
  // Cleared again: no cut-off.
  await page.getByTestId('edit-account').first().click();
  await page.getByTestId('cutoff-time').fill('');
  await page.getByTestId('save-account').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="cutoff"]')?.textContent === 'none');
  await page.close();
});

test('the favicon and other files outside the interface need no key', async () => {
  for (const path of ['/favicon.ico', '/favicon.svg', '/']) {
    const r = await fetch(desk.base + path);
    assert.equal(r.status, 200, path);
  }
  assert.equal((await fetch(desk.base + '/robots.txt')).status, 404);
  assert.equal((await fetch(desk.base + '/v3/labels')).status, 401, 'the interface still needs its key');
});

test('every screen is reachable by keyboard alone, in a sensible order, with visible focus', async () => {
  const page = await shipPage(desk);
  // The cursor starts in the scan field.
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'scan');
  /** Tab until `pick(element)` is true (at most 200 presses); the tab stops seen on the way. */
  const tabTo = async (selector, back = false) => {
    for (let i = 0; i < 200; i++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return i + 1;
    }
    throw new Error(`${selector} is not reachable by Tab`);
  };
  // The Ship form in reading order: scan, account, service, ..., the recipient, ..., Create.
  const order = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.getAttribute('data-field'));
    if (id) order.push(id);
    if (id === 'create') break;
  }
  const pos = (id) => order.indexOf(id);
  for (const [a, b] of [['account', 'service'], ['service', 'shipment.ship_to.contact_name'], ['shipment.ship_to.contact_name', 'shipment.ship_to.postal_code'], ['shipment.ship_to.postal_code', 'shipment.parcels[0].weight.value'], ['shipment.parcels[0].weight.value', 'create']]) {
    assert.ok(pos(a) >= 0 && pos(a) < pos(b), `${a} before ${b}: ${order.join(' > ')}`);
  }
  // Focus is visible: an outline on the focused control.
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'the focused Create button shows its focus');

  // Every screen from the top bar, by Tab and Enter; each opens and its first control takes Tab.
  const screens = ['orders', 'history', 'end-of-day', 'today', 'accounts', 'printers', 'settings', 'ship'];
  for (const s of screens) {
    await tabTo(`[data-nav="${s}"]`);
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(ring, 'none', `${s}: the nav button shows its focus`);
    await page.keyboard.press('Enter');
    await page.waitForFunction((s) => document.querySelector(`[data-nav="${s}"]`)?.getAttribute('aria-current') === 'page', s);
  }
  // End of day's close-out by keyboard: Tab to the button, Enter.
  await tabTo('[data-nav="end-of-day"]');
  await page.keyboard.press('Enter');
  await page.getByTestId('close-out-all').waitFor();
  await tabTo('[data-testid="close-out-all"]:not([disabled]), [data-testid="reprint-manifest"]');
  await page.close();
});

test('a country is taken as people type it: its English or local name, alpha-2 or alpha-3', async () => {
  const page = await shipPage(desk);
  const country = page.locator('[data-field="shipment.ship_to.country"]');
  for (const [typed, alpha3] of [['England', 'GBR'], ['UK', 'GBR'], ['Great Britain', 'GBR'], ['España', 'ESP'], ['espana', 'ESP'], ['Deutschland', 'DEU'], ['gb', 'GBR']]) {
    await country.fill(typed);
    // Leaving the field (Tab, as an operator does) settles it.
    await country.press('Tab');
    assert.equal(await country.inputValue(), alpha3, `${typed} is ${alpha3}`);
  }
  await page.close();
});
