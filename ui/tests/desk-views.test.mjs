// The desk shows what fits and what is current (issue 35, points 4, 12 and 13), in a real browser
// (Debian's Chromium) at 1366 x 768 against the real packdesk-server: the Ship form offers the
// services of the parcel's route, sorted, and starts with the one last used for that kind of
// route; a dangerous click (close-out, removing a printer, disabling an account) asks first and
// Esc cancels; Esc closes History's preview; a failed attempt leaves no earlier label on screen;
// a label printed again shows no Retry beside it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fillShipTo, freePort, ok, rawPrinter, shipPage, startDesk } from './support.mjs';

let desk, carriers, yodel, skynet;
const api = (...args) => desk.api(...args);
const creds = (c) => Object.fromEntries(c.credential_fields.map((f) => [f.name, `test-${f.name}`]));
const gb = (name, postal = 'M1 1AE') => ({ contact_name: name, street1: '22 High Street', city: 'Manchester', postal_code: postal, country: 'GBR' });
const de = (name) => ({ contact_name: name, street1: 'Hauptstrasse 5', city: 'Berlin', postal_code: '10115', country: 'DEU' });
const shots = process.env.SCREENSHOTS ?? '/tmp';
const byName = (a, b) => a.localeCompare(b, undefined, { numeric: true });

async function account(slug, description) {
  const c = carriers.find((x) => x.slug === slug);
  return (await ok(api('POST', '/v3/shipper-accounts', { slug, description, credentials: creds(c), timezone: 'Europe/London', address: gb('Packdesk Ltd', 'E16 2AA') }))).id;
}

before(async () => {
  desk = await startDesk('packdesk-desk-views-');
  carriers = (await api('GET', '/desk/carriers')).data.carriers;
  yodel = await account('yodel', 'Yodel desk');
  skynet = await account('skynetworldwide', 'SkyNet desk');
});
after(() => desk?.stop());



/** The services the form offers, as [service_type, name without its rate]. */
const offered = (page) =>
  page.getByTestId('service').locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent.replace(/ — .*$/, '')]));
const scopeOf = (slug, type) => carriers.find((c) => c.slug === slug).service_types.find((s) => s.service_type === type).scope;

/** A label made through the API (the desk's own labels for End of day, History and printing). */
const label = (accountId, service_type) =>
  ok(api('POST', '/v3/labels', { service_type, shipper_account: { id: accountId }, shipment: { ship_from: gb('Packdesk Ltd', 'E16 2AA'), ship_to: gb('Jane Doe'), parcels: [{ weight: { value: 1, unit: 'kg' } }] } }));

test('the Ship form offers the services of the route, sorted, without returns unless asked', async () => {
  const page = await shipPage(desk);
  await page.getByTestId('account').selectOption(yodel);
  await fillShipTo(page, gb('Jane Doe'));
  let list = await offered(page);
  assert.ok(list.length > 5, 'Yodel runs many services in the UK');
  assert.deepEqual(list.filter(([t]) => scopeOf('yodel', t) === 'international'), [], 'UK to UK: no international-only service');
  assert.deepEqual(list.map(([, n]) => n), list.map(([, n]) => n).sort(byName), 'sorted by name');
  assert.equal(await page.getByTestId('service').inputValue(), list[0][0], 'nothing used yet: the first of the list');
  await page.screenshot({ path: `${shots}/ship-services-1366x768.png` });
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 1366, 'no sideways scrolling');

  // SkyNet runs one service each way: the route decides which one the form offers.
  await page.getByTestId('account').selectOption(skynet);
  await fillShipTo(page, gb('Jane Doe'));
  assert.deepEqual(await offered(page), [['skynetworldwide_domestic_next_day', 'Skynet Worldwide Domestic Next Day']]);
  await fillShipTo(page, de('Max Muster'));
  list = await offered(page);
  assert.deepEqual(list.filter(([t]) => scopeOf('skynetworldwide', t) === 'domestic'), [], 'UK to Germany: no domestic-only service');
  assert.equal(await page.getByTestId('service').inputValue(), 'skynetworldwide_international');
  // Asked for: every service of the carrier, still sorted.
  await page.getByTestId('all-services').check();
  assert.equal((await offered(page)).length, 2);

  // DPD UK's return services are left out of an everyday parcel's list until asked for.
  await page.getByTestId('all-services').uncheck();
  const dpd = await account('dpd-uk', 'DPD desk');
  await page.reload();
  await page.getByTestId('account').selectOption(dpd);
  await fillShipTo(page, gb('Jane Doe'));
  assert.ok(!(await offered(page)).some(([, n]) => /return/i.test(n)), 'no return service');
  await page.getByTestId('all-services').check();
  assert.ok((await offered(page)).some(([, n]) => /return/i.test(n)), 'all services: the return service too');
  await page.close();
});

test('a label made on a chosen service makes it the next form’s default for that kind of route', async () => {
  const page = await shipPage(desk);
  await page.getByTestId('account').selectOption(yodel);
  await fillShipTo(page, gb('Jane Doe'));
  const list = await offered(page);
  const chosen = list[3][0];
  await page.getByTestId('service').selectOption(chosen);
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('1');
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('tracking').waitFor();
  const made = (await ok(api('GET', `/v3/labels?tracking_numbers=${(await page.getByTestId('tracking').textContent()).trim()}`))).labels[0];
  assert.equal(made.service_type, chosen);

  // A new form (the desk opened again): a UK parcel starts on that service, an export does not.
  await page.reload();
  await page.getByTestId('account').selectOption(yodel);
  await fillShipTo(page, gb('John Roe'));
  assert.equal(await page.getByTestId('service').inputValue(), chosen, 'the last domestic service');
  await fillShipTo(page, { country: 'FRA', postal_code: '75001', city: 'Paris' });
  const abroad = await offered(page);
  assert.equal(await page.getByTestId('service').inputValue(), abroad[0][0], 'no export made yet: the first of the list');
  await fillShipTo(page, { country: 'GBR', postal_code: 'M1 1AE', city: 'Manchester' });
  assert.equal(await page.getByTestId('service').inputValue(), chosen, 'back in the UK: the last domestic service again');
  await page.close();
});

test('Close out all accounts names what it closes and asks; Esc cancels', async () => {
  await label(yodel, 'yodel_hdn');
  await label(yodel, 'yodel_hdn');
  const waiting = async () => (await ok(api('GET', '/desk/end-of-day'))).accounts.find((a) => a.shipper_account.id === yodel).labels_waiting;
  const n = await waiting(); // these two and the one the test before made
  const page = await shipPage(desk);
  await page.locator('[data-nav="end-of-day"]').click();
  const all = page.getByTestId('close-out-all');
  await page.waitForFunction(() => !document.querySelector('[data-testid="close-out-all"]')?.disabled);
  await all.focus();
  await page.keyboard.press('Enter');
  const ask = page.getByTestId('confirm');
  await ask.waitFor();
  assert.equal(await page.getByTestId('confirm-list').textContent(), `Yodel desk (Yodel): ${n} labels`);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'confirm-cancel', 'the safe choice has the cursor');
  await page.screenshot({ path: `${shots}/close-out-confirm-1366x768.png` });
  await page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('close-out-results').count(), 0, 'nothing closed');
  assert.equal(await waiting(), n);
  // Enter on the safe choice closes nothing either.
  await all.focus();
  await page.keyboard.press('Enter');
  await ask.waitFor();
  await page.keyboard.press('Enter');
  await ask.waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('close-out-results').count(), 0, 'nothing closed');
  // Asked and confirmed: closed, and the button waits for the next labels.
  await all.focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.getByTestId('close-out-results').waitFor();
  assert.match(await page.getByTestId('close-out-result').first().textContent(), new RegExp(`Yodel desk\\s*${n} labels manifested`));
  await page.waitForFunction(() => document.querySelector('[data-testid="close-out-all"]')?.disabled);
  await page.close();
});

test('removing a printer names the documents that lose it and asks; disabling an account asks', async () => {
  const zebra = await ok(api('POST', '/desk/printers', { name: 'Zebra packing 2', transport: 'raw', address: '127.0.0.1:9', format: 'zpl' }, desk.liveKey));
  await ok(api('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: false }, desk.liveKey));
  const page = await shipPage(desk);
  await page.locator('[data-nav="printers"]').click();
  const row = page.getByTestId('printer-row').filter({ hasText: 'Zebra packing 2' });
  await row.getByTestId('remove-printer').click();
  const ask = page.getByTestId('confirm');
  await ask.waitFor();
  assert.match(await ask.textContent(), /Remove the printer Zebra packing 2\?/);
  assert.match(await page.getByTestId('confirm-profiles').textContent(), /It prints the label: that document prints nowhere/);
  await page.screenshot({ path: `${shots}/printer-remove-confirm-1366x768.png` });
  await page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached' });
  assert.equal((await ok(api('GET', '/desk/printers'))).printers.length, 1, 'still there');
  await row.getByTestId('remove-printer').click();
  await page.getByTestId('confirm-ok').click();
  await row.waitFor({ state: 'detached' });
  assert.equal((await ok(api('GET', '/desk/printers'))).printers.length, 0);

  await page.locator('[data-nav="accounts"]').click();
  const yodelRow = page.getByTestId('account-row').filter({ hasText: 'Yodel desk' });
  await yodelRow.getByTestId('disable-account').click();
  await ask.waitFor();
  assert.match(await ask.textContent(), /Disable Yodel desk\?/);
  await page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached' });
  const status = async () => (await ok(api('GET', `/v3/shipper-accounts/${yodel}`))).status;
  assert.equal(await status(), 'enabled', 'Esc: still enabled');
  await page.close();
});

test('Esc closes the History preview', async () => {
  const made = await label(yodel, 'yodel_hdn');
  const page = await shipPage(desk);
  await page.locator('[data-nav="history"]').click();
  const row = page.getByTestId('row').filter({ hasText: made.tracking_numbers[0] });
  await row.getByRole('button', { name: 'Preview' }).click();
  await page.getByTestId('history-preview').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('history-preview').waitFor({ state: 'detached' });
  // The cursor is back on the row's Preview button.
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Preview');
  await page.close();
});

test('History says when a search finds no label, and not while it shows labels', async () => {
  const made = await label(yodel, 'yodel_hdn');
  const page = await shipPage(desk);
  await page.locator('[data-nav="history"]').click();
  await page.getByTestId('row').filter({ hasText: made.tracking_numbers[0] }).waitFor();
  assert.equal(await page.getByTestId('none-found').count(), 0, 'labels shown: no "No label found."');
  await page.getByTestId('search').fill('Nobody Of This Name');
  await page.getByTestId('search').press('Enter');
  await page.getByTestId('none-found').waitFor();
  assert.equal(await page.getByTestId('none-found').textContent(), 'No label found.');
  assert.equal(await page.getByTestId('row').count(), 0);
  // A rare word: every label was searched, so History does not say how far back.
  assert.equal(await page.getByTestId('searched-back-to').count(), 0);
  await page.screenshot({ path: `${shots}/history-none-found-1366x768.png` });
  await page.close();
});

test('a failed attempt leaves no earlier label on the Ship screen', async () => {
  const page = await shipPage(desk);
  await page.getByTestId('account').selectOption(yodel);
  await fillShipTo(page, gb('Jane Doe'));
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('1');
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('preview').waitFor();
  // The next parcel: the service refuses it (no street); the label before it is no longer shown.
  await fillShipTo(page, { ...gb('John Roe'), street1: '' });
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('2');
  await page.keyboard.press('Control+Enter');
  await page.locator('[data-error="shipment.ship_to.street1"]').waitFor();
  assert.equal(await page.getByTestId('tracking').count(), 0, 'no tracking number of the last label');
  assert.equal(await page.getByTestId('preview').count(), 0, 'no preview of the last label');
  await page.close();
});


test('a label that did not print and was printed again shows Printed and no Retry', async () => {
  const port = await freePort();
  const zebra = await ok(api('POST', '/desk/printers', { name: 'Zebra off', transport: 'raw', address: `127.0.0.1:${port}`, format: 'zpl' }, desk.liveKey));
  await ok(api('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, desk.liveKey));
  const made = await label(yodel, 'yodel_hdn');
  const page = await shipPage(desk);
  await page.locator('[data-nav="history"]').click();
  const row = page.getByTestId('row').filter({ hasText: made.tracking_numbers[0] });
  await row.getByTestId('documents').click();
  const docs = page.getByTestId('documents-row');
  await docs.getByTestId('retry-print').waitFor({ timeout: 15000 });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="print-state"]')].some((c) => c.textContent === 'Not printed'));
  await page.getByTestId('print-alert').filter({ hasText: 'refused' }).waitFor({ timeout: 10000 });
  // The printer is back; the operator prints the label from its documents.
  const printer = await rawPrinter(port);
  try {
    await docs.getByTestId('print-document').first().click();
    await page.getByTestId('history-message').filter({ hasText: 'Sent to the printer.' }).waitFor();
    await docs.locator('[data-testid="print-job"][data-status="printed"]').waitFor();
    assert.deepEqual(await docs.getByTestId('print-job-state').allTextContents(), ['Printed'], 'the label shows how it printed last, once');
    assert.equal(await docs.getByTestId('retry-print').count(), 0, 'no Retry one click from a second copy');
    assert.equal(await row.getByTestId('print-state').textContent(), 'Printed', 'the row says Printed too');
    // The notice of the first attempt goes too, with its Retry (within its 5 s check).
    await page.getByTestId('print-alerts').waitFor({ state: 'detached', timeout: 7000 });
  } finally {
    printer.close();
    await page.close();
  }
});
