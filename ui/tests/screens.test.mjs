// The desk's screens in a real browser (Debian's Chromium through playwright-core) against the
// real packdesk-server on 127.0.0.1 with a fresh data folder: the Ship form for one carrier group
// of each kind, customs items and address suggestions, History filters, paging and bulk work,
// End of day for two accounts, Today's counts, Accounts and Settings. Printers are raw port
// listeners of the test's own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { rawPrinter, startDesk } from './support.mjs';

let desk, carriers;
const api = (...args) => desk.api(...args);

const creds = (c) => Object.fromEntries(c.credential_fields.map((f) => [f.name, `test-${f.name}`]));
async function account(slug, description) {
  const c = carriers.find((x) => x.slug === slug);
  const r = await api('POST', '/v3/shipper-accounts', { slug, description, credentials: creds(c) });
  assert.equal(r.meta.code, 200, JSON.stringify(r.meta));
  return r.data.id;
}
const gb = (name) => ({ contact_name: name, street1: '22 High Street', city: 'Manchester', postal_code: 'M1 1AE', country: 'GBR' });
async function label(accountId, serviceType, references = []) {
  const r = await api('POST', '/v3/labels', {
    service_type: serviceType,
    shipper_account: { id: accountId },
    references,
    shipment: { ship_from: gb('Packdesk Ltd'), ship_to: gb('Jane Doe'), parcels: [{ weight: { value: 1, unit: 'kg' } }] },
  });
  assert.equal(r.meta.code, 200, JSON.stringify(r.meta));
  return r.data;
}
const yodelService = () => carriers.find((c) => c.slug === 'yodel').service_types.find((s) => s.scope !== 'international').service_type;

before(async () => {
  desk = await startDesk('packdesk-screens-');
  carriers = (await api('GET', '/desk/carriers')).data.carriers;
});

after(() => desk?.stop());

const values = (page, id) => page.getByTestId(id).locator('option').evaluateAll((os) => os.map((o) => o.value));
const OPTION_OF_VARIANT = { cod: 'cod', insurance: 'insurance', pickup: 'pickup', general: 'saturday_delivery' };

test('for one carrier group of each kind the Ship form offers exactly what the carrier allows', async () => {
  // A kind: what the form offers (file types or none, paper sizes, service option variants).
  const kinds = new Map();
  for (const c of carriers) {
    const kind = JSON.stringify([c.file_types, c.paper_sizes, [...c.service_options].sort()]);
    if (!kinds.has(kind)) kinds.set(kind, c);
  }
  assert.ok(kinds.size >= 8, `${kinds.size} kinds`);
  const ids = {};
  for (const c of kinds.values()) ids[c.slug] = await account(c.slug, `${c.name} kind`);
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  for (const c of kinds.values()) {
    await page.getByTestId('account').selectOption(ids[c.slug]);
    // Every service when asked for, by name (the route narrows the list: desk-views.test.mjs).
    await page.getByTestId('all-services').check();
    assert.deepEqual(await values(page, 'service'), [...c.service_types].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true })).map((s) => s.service_type), c.slug);
    assert.deepEqual(await values(page, 'paper'), c.paper_sizes, c.slug);
    assert.deepEqual(await values(page, 'file-type'), c.file_types ?? ['pdf'], c.slug);
    assert.equal(await page.getByTestId('file-type').isDisabled(), c.file_types === null, `${c.slug}: a group without file types takes none`);
    const offered = await page.locator('[data-option]').evaluateAll((es) => es.map((e) => e.getAttribute('data-option')));
    assert.deepEqual(offered.sort(), c.service_options.map((v) => OPTION_OF_VARIANT[v]).sort(), `${c.slug} options`);
    assert.equal(await page.getByTestId('order-number').count(), c.optional_fields.includes('order_number') ? 1 : 0, `${c.slug} order number`);
  }
  // An option the carrier allows goes into the label: DHL Germany with cash on delivery.
  const dhl = carriers.find((c) => c.slug === 'dhl-germany');
  await page.getByTestId('account').selectOption(ids['dhl-germany'] ?? (await account('dhl-germany', 'DHL desk')));
  const de = { contact_name: 'Max Muster', street1: 'Hauptstrasse 5', city: 'Berlin', postal_code: '10115', country: 'DEU' };
  for (const [k, v] of Object.entries(de)) {
    await page.locator(`[data-field="shipment.ship_from.${k}"]`).fill(v);
    await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
  }
  await page.getByTestId('service').selectOption(dhl.service_types.find((s) => s.scope !== 'international').service_type);
  await page.locator('[data-option="cod"]').check();
  await page.locator('[data-field="service_options[0].cod_value.amount"]').fill('42.50');
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('2');
  await page.getByTestId('scan').focus();
  await page.keyboard.type('COD-1');
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('tracking').waitFor();
  const tracking = (await page.getByTestId('tracking').textContent()).trim();
  const made = (await api('GET', `/v3/labels?tracking_numbers=${tracking}`)).data.labels[0];
  assert.deepEqual(made.service_options, [{ type: 'cod', cod_value: { amount: 42.5, currency: dhl.currency } }]);
  await page.close();
});

test('Ship shows rates, suggests a corrected address, and asks for items only across a border', async () => {
  const id = await account('yodel', 'Yodel desk');
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.getByTestId('account').selectOption(id);
  // The sender as the operator changes it: "Ship from" opened when it shows a summary.
  const from = page.getByTestId('ship-from');
  if (!(await from.evaluate((d) => d.open))) await from.locator('summary').click();
  for (const [k, v] of Object.entries(gb('Packdesk Ltd'))) await page.locator(`[data-field="shipment.ship_from.${k}"]`).fill(v);
  // The parcel weighed: a rate needs its weight.
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('1');
  const to = { ...gb('Jane Doe'), postal_code: 'm11ae', city: 'manchester' };
  for (const [k, v] of Object.entries(to)) await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
  await page.locator('[data-field="shipment.ship_to.country"]').press('Tab');
  // The rate of the chosen service, and of each service in the list.
  await page.getByTestId('rate').waitFor();
  assert.match(await page.getByTestId('rate').textContent(), /^\d+\.\d\d [A-Z]{3}$/);
  assert.match(await page.getByTestId('service').locator('option').first().textContent(), / — \d+\.\d\d [A-Z]{3}$/);
  // The address check offers the formatted postal code.
  await page.getByTestId('address-suggestion').waitFor();
  await page.getByTestId('use-suggestion').click();
  assert.equal(await page.locator('[data-field="shipment.ship_to.postal_code"]').inputValue(), 'M1 1AE');
  // A postal code that cannot be British: said once, beside the field, once the address check has answered.
  await page.locator('[data-field="shipment.ship_to.postal_code"]').fill('12');
  const checked = page.waitForResponse((r) => r.url().includes('/v3/address-validations'));
  await page.locator('[data-field="shipment.ship_to.postal_code"]').press('Tab');
  await checked;
  const postal = page.locator('[data-error="shipment.ship_to.postal_code"]');
  await postal.waitFor();
  assert.match(await postal.textContent(), /does not look like a postcode of United Kingdom/);
  assert.equal(await page.getByTestId('address-note').count(), 0, 'not repeated in the address note');
  assert.equal(await page.getByTestId('item').count(), 0, 'a domestic parcel has no customs items');
  // To France: the items appear; one missing description is shown beside its field.
  await page.locator('[data-field="shipment.ship_to.country"]').fill('FRA');
  await page.locator('[data-field="shipment.ship_to.postal_code"]').fill('75001');
  await page.locator('[data-field="shipment.ship_to.city"]').fill('Paris');
  await page.getByTestId('item').waitFor();
  const intl = carriers.find((c) => c.slug === 'yodel').service_types.find((s) => s.scope !== 'domestic');
  await page.getByTestId('service').selectOption(intl.service_type);
  await page.locator('[data-field="shipment.parcels[0].items[0].quantity"]').fill('2');
  await page.locator('[data-field="shipment.parcels[0].items[0].price.amount"]').fill('15');
  await page.locator('[data-field="shipment.parcels[0].items[0].weight.value"]').fill('0.4');
  await page.getByTestId('create').click();
  await page.locator('[data-error="shipment.parcels[0].items[0].description"]').waitFor();
  await page.locator('[data-field="shipment.parcels[0].items[0].description"]').fill('Cotton T-shirt');
  await page.getByTestId('invoice').check();
  await page.getByTestId('create').click();
  await page.getByTestId('tracking').waitFor();
  const tracking = (await page.getByTestId('tracking').textContent()).trim();
  const made = (await api('GET', `/v3/labels?tracking_numbers=${tracking}`)).data.labels[0];
  assert.ok(made.files.invoice, 'the invoice was asked for and made');
  await page.close();
});

test('History filters by account and status, pages through 120 labels, prints and merges a selection with progress', async () => {
  const a = await account('yodel', 'History A');
  const b = await account('tipsa', 'History B');
  const tipsaService = carriers.find((c) => c.slug === 'tipsa').service_types[0].service_type;
  const tipsaFrom = { contact_name: 'Tienda', street1: 'Calle Mayor 1', city: 'Madrid', postal_code: '28001', country: 'ESP' };
  const bLabel = (await api('POST', '/v3/labels', {
    service_type: tipsaService, shipper_account: { id: b }, references: ['ONLY-B'],
    shipment: { ship_from: tipsaFrom, ship_to: { ...tipsaFrom, contact_name: 'Ana' }, parcels: [{ weight: { value: 1, unit: 'kg' } }] },
  })).data;
  assert.ok(bLabel.id);
  for (let i = 0; i < 120; i++) await label(a, yodelService(), [`H-${i}`]);
  const printer = await rawPrinter();
  const p = await api('POST', '/desk/printers', { name: 'Raw', transport: 'raw', address: `127.0.0.1:${printer.port}`, format: 'pdf', dpi: 203 }, desk.liveKey);
  await api('PUT', '/desk/print-profiles/label', { printer_id: p.data.id }, desk.liveKey);

  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="history"]').click();
  await page.getByTestId('filter-account').selectOption(b);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="row"]').length === 1);
  assert.match(await page.getByTestId('row').textContent(), /ONLY-B/);
  await page.getByTestId('filter-account').selectOption(a);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="row"]').length === 50);
  assert.match(await page.getByTestId('row').first().textContent(), /H-119/);
  // Below the table, where the mouse is after reading the page.
  await page.getByTestId('next-page-bottom').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="row"]')?.textContent.includes('H-69'));
  await page.getByTestId('prev-page-bottom').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="row"]')?.textContent.includes('H-119'));
  // By keyboard, Older comes right after the filters (not after the 50 rows' buttons).
  await page.getByTestId('search').focus();
  const passed = [];
  while (passed.length < 60 && passed.at(-1) !== 'next-page') {
    await page.keyboard.press('Tab');
    passed.push(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')));
  }
  assert.deepEqual([...new Set(passed)], ['from', 'until', 'filter-account', 'filter-status', 'next-page']);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="row"]')?.textContent.includes('H-69'));
  // Enter on Older reaches the last page, whose disabled Older hands the focus to Newer (not to
  // the page, where the next Tab would start from the top).
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="row"]').length === 20);
  assert.ok(await page.getByTestId('next-page').isDisabled(), 'the last page has no older one');
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'prev-page');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="row"]')?.textContent.includes('H-69'));
  await page.getByTestId('filter-status').selectOption('cancelled');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="row"]').length === 0);
  assert.equal(await page.getByTestId('page').textContent(), 'Page 1');
  await page.getByTestId('filter-status').selectOption('');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="row"]').length === 50);
  // Every status a label can have is offered, in the desk's words (closing out too).
  const offered = await page.getByTestId('filter-status').locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(offered.map(([v]) => v), ['', 'created', 'manifesting', 'manifested', 'cancelled', 'creating', 'cancelling', 'failed']);
  assert.ok(offered.some(([v, text]) => v === 'manifesting' && text === 'Closing out'), JSON.stringify(offered));

  // Three chosen: print all (three jobs on the printer), then one PDF of them.
  for (let i = 0; i < 3; i++) await page.getByTestId('select').nth(i).check();
  await page.getByTestId('print-selected').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="progress"]')?.value === 3);
  await page.getByTestId('history-message').waitFor();
  assert.equal(await page.getByTestId('history-message').textContent(), '3 labels sent to the printer.');
  for (let i = 0; i < 50 && printer.jobs.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(printer.jobs.length, 3);
  assert.ok(printer.jobs.every((j) => j.subarray(0, 4).toString() === '%PDF'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-selected').click()]);
  const path = await download.path();
  const pdf = execFileSync('pdfinfo', [path]).toString();
  assert.match(pdf, /Pages:\s+3/);
  printer.close();
  await page.close();
});

test('End of day closes out two accounts with one button and prints both manifests', async () => {
  // A fresh environment view: close out what earlier tests left, then two accounts with labels.
  await api('POST', '/desk/close-out', {});
  const printer = await rawPrinter();
  const p = await api('POST', '/desk/printers', { name: 'Office', transport: 'raw', address: `127.0.0.1:${printer.port}`, format: 'pdf', dpi: 300 }, desk.liveKey);
  await api('PUT', '/desk/print-profiles/manifest', { printer_id: p.data.id }, desk.liveKey);
  const one = await account('yodel', 'EOD Yodel');
  const two = await account('dpd-uk', 'EOD DPD');
  const dpd = carriers.find((c) => c.slug === 'dpd-uk').service_types.find((s) => s.scope !== 'international').service_type;
  await label(one, yodelService());
  await label(one, yodelService());
  await label(two, dpd);
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="end-of-day"]').click();
  await page.getByTestId('eod-row').first().waitFor();
  const rows = await page.getByTestId('eod-row').evaluateAll((rs) => rs.map((r) => [r.cells[0].textContent, r.cells[2].textContent]));
  assert.deepEqual(rows.filter(([, n]) => n !== '0'), [['EOD Yodel', '2'], ['EOD DPD', '1']]);
  await page.getByTestId('close-out-all').click();
  await page.getByTestId('confirm-ok').click(); // it asks first
  await page.getByTestId('close-out-results').waitFor();
  const results = await page.getByTestId('close-out-result').allTextContents();
  assert.equal(results.length, 2);
  assert.match(results[0], /EOD Yodel\s*2 labels manifested\s*Manifest printed/);
  assert.match(results[1], /EOD DPD\s*1 label manifested\s*Manifest printed/);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="eod-waiting"]')].every((c) => c.textContent === '0'));
  for (let i = 0; i < 50 && printer.jobs.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(printer.jobs.length, 2);
  const manifests = (await api('GET', '/v3/manifests?limit=10')).data.manifests;
  assert.deepEqual(new Set(manifests.slice(0, 2).map((m) => m.shipper_account.id)), new Set([one, two]));
  await api('DELETE', '/desk/print-profiles/manifest', undefined, desk.liveKey);
  printer.close();
  await page.close();
});

test('Today counts the labels by carrier and charts the last 30 days', async () => {
  const all = (await api('GET', `/desk/today?utc_offset_minutes=${-new Date().getTimezoneOffset()}`)).data;
  assert.ok(all.total > 100);
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="today"]').waitFor(); // drawn once its words are loaded
  await page.keyboard.press('Alt+6'); // the Today screen, from the keyboard
  await page.getByTestId('today-total').waitFor();
  assert.equal(await page.getByTestId('today-total').textContent(), String(all.total));
  assert.equal(await page.getByTestId('today-carrier').count(), all.by_carrier.length);
  const bars = await page.locator('[data-testid="chart"] rect').evaluateAll((rs) => rs.map((r) => [r.getAttribute('data-date'), Number(r.getAttribute('data-labels')), Number(r.getAttribute('height'))]));
  assert.equal(bars.length, 30);
  assert.equal(bars[29][1], all.total);
  assert.equal(bars[29][2], 140, "today's bar is the tallest");
  assert.ok(bars.slice(0, 29).every(([, n, h]) => n === 0 && h === 0));
  await page.close();
});

test('Accounts shows the numbers left and saves a time zone; a wrong one is refused beside its field', async () => {
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="accounts"]').click();
  await page.getByTestId('account-row').first().waitFor();
  const row = page.getByTestId('account-row').filter({ hasText: 'EOD Yodel' });
  const left = Number((await row.getByTestId('numbers-left').textContent()).replace(/[^0-9]/g, ''));
  const acct = (await api('GET', '/v3/shipper-accounts?limit=200')).data.shipper_accounts.find((a) => a.description === 'EOD Yodel');
  assert.equal(left, acct.tracking_numbers_left.default);
  await row.getByTestId('edit-account').click();
  await page.locator('[data-field="timezone"]').fill('Mars/Olympus');
  await page.getByTestId('save-account').click();
  await page.getByTestId('account-editor').locator('.err').first().waitFor();
  await page.locator('[data-field="timezone"]').fill('Europe/London');
  await page.getByTestId('save-account').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid="account-editor"]'));
  assert.equal((await api('GET', `/v3/shipper-accounts/${acct.id}`)).data.timezone, 'Europe/London');
  await page.close();
});

test('Settings never holds a key, rotates one and shows the new key once: the old key stops working, the desk goes on', async () => {
  const page = await desk.browser.newPage();
  // Every answer the page receives, to check that none holds a key.
  const bodies = [];
  page.on('response', async (r) => bodies.push(await r.text().catch(() => '')));
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="settings"]').click();
  assert.match(await page.getByTestId('key-sandbox').getByTestId('key-value').textContent(), /packdesk-server keys/);
  await page.locator('[data-nav="history"]').click();
  await page.getByTestId('row').first().waitFor();
  await page.locator('[data-nav="settings"]').click();
  assert.ok(bodies.length > 5 && !bodies.some((b) => b.includes(desk.key) || b.includes(desk.liveKey)), 'no answer the page received holds a key');
  assert.equal(await page.getByTestId('data-dir').textContent(), desk.dataDir);
  // Where the log files are, for an operator asked to send them.
  assert.equal(await page.getByTestId('log-dir').textContent(), join(desk.dataDir, 'logs'));
  // The server keeps the vault key in the data folder (the desktop app asks for the OS keyring).
  const vaultKey = (await page.getByTestId('vault-key').textContent()).replace(/\s+/g, ' ');
  assert.ok(vaultKey.includes(`in the file ${join(desk.dataDir, 'vault.key')}, readable only by you`), vaultKey);
  assert.ok(vaultKey.includes('Back it up with the data folder'), vaultKey);
  await page.getByTestId('key-sandbox').getByTestId('key-rotate').click();
  await page.getByTestId('confirm-ok').click(); // it asks first
  // Shown once, in full, right after it was made.
  await page.getByTestId('settings-message').filter({ hasText: 'New sandbox key made' }).waitFor();
  const fresh = await page.getByTestId('key-sandbox').getByTestId('key-value').textContent();
  assert.match(fresh, /^pdk_sandbox_/);
  assert.equal((await api('GET', '/v3/shipper-accounts')).meta.code, 401);
  const old = desk.key;
  desk.key = fresh;
  assert.equal((await api('GET', '/v3/shipper-accounts')).meta.code, 200);
  assert.equal((await api('POST', '/ui/keys/sandbox/rotate', undefined, old)).meta.code, 401, 'the old key cannot rotate');
  // The page keeps working with the new key.
  await page.locator('[data-nav="history"]').click();
  await page.getByTestId('row').first().waitFor();
  await page.close();
});

test('Printers: add a raw printer, test-print it, make labels auto-print; Ship says the label printed', async () => {
  const printer = await rawPrinter();
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="printers"]').click();
  await page.locator('[data-field="name"]').fill('Zebra at desk 3');
  await page.locator('[data-field="address"]').fill(`127.0.0.1:${printer.port}`);
  await page.getByTestId('add-printer').click();
  const row = page.getByTestId('printer-row').filter({ hasText: 'Zebra at desk 3' });
  await row.waitFor();
  await row.getByTestId('test-print').click();
  await page.getByTestId('printers-message').filter({ hasText: 'Test page sent.' }).waitFor();
  for (let i = 0; i < 50 && printer.jobs.length < 1; i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(printer.jobs[0].toString(), /^\^XA/, 'the test page is ZPL for a ZPL printer');
  // A wrong address is refused beside its field.
  await page.locator('[data-field="name"]').fill('Broken');
  await page.locator('[data-field="address"]').fill('127.0.0.1:notaport');
  await page.getByTestId('add-printer').click();
  await page.locator('.field', { has: page.locator('[data-field="address"]') }).locator('.err').filter({ hasText: 'is not a port' }).waitFor();
  assert.equal(await page.getByTestId('printers-message').textContent(), 'The printer is not added: see the fields marked in red.');
  // Labels print to it automatically.
  const profile = page.getByTestId('profile-label');
  await profile.getByTestId('profile-printer').selectOption({ label: 'Zebra at desk 3' });
  await profile.getByTestId('profile-auto').check();
  await profile.getByTestId('save-profile').click();
  await page.getByTestId('printers-message').filter({ hasText: 'Profile for label saved.' }).waitFor();

  const tipsa = await account('tipsa', 'Auto-print Tipsa');
  await page.locator('[data-nav="ship"]').click();
  await page.getByTestId('account').selectOption(tipsa);
  await page.getByTestId('file-type').selectOption('zpl');
  const es = { contact_name: 'Ana Ruiz', street1: 'Calle Mayor 1', city: 'Madrid', postal_code: '28001', country: 'ESP' };
  for (const [k, v] of Object.entries(es)) {
    await page.locator(`[data-field="shipment.ship_from.${k}"]`).fill(v);
    await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
  }
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('2');
  await page.getByTestId('scan').focus();
  await page.keyboard.press('Control+Enter');
  await page.locator('[data-testid="document-line"][data-status="printed"]').waitFor();
  const tracking = (await page.getByTestId('tracking').textContent()).trim();
  for (let i = 0; i < 50 && printer.jobs.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(printer.jobs[1].toString().includes(tracking), 'the label on the printer is the one just made');
  await api('DELETE', '/desk/print-profiles/label', undefined, desk.liveKey);
  printer.close();
  await page.close();
});

test('a sandbox account takes two clicks: choose the carrier, Create', async () => {
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="accounts"]').click();
  await page.getByTestId('add-account').click();
  await page.getByTestId('onboard-carrier').selectOption('mondialrelay');
  await page.getByTestId('onboard-create').click();
  await page.getByTestId('account-row').filter({ hasText: 'Mondial Relay desk' }).waitFor();
  await page.close();
});

test('a carrier without listed credential fields takes the credentials as name/value rows', async () => {
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="accounts"]').click();
  await page.getByTestId('add-account').click();
  await page.getByTestId('onboard-carrier').selectOption('carrier-4');
  await page.locator('[data-field="description"]').fill('Carrier 4 real account');
  await page.locator('[data-field="free-name-0"]').fill('api_user');
  await page.locator('[data-field="free-value-0"]').fill('acme');
  await page.getByTestId('free-credential-add').click();
  await page.locator('[data-field="free-name-1"]').fill('api_secret');
  await page.locator('[data-field="free-value-1"]').fill('s3cr3t');
  await page.getByTestId('onboard-create').click();
  await page.getByTestId('account-row').filter({ hasText: 'Carrier 4 real account' }).waitFor();
  const accounts = (await api('GET', '/v3/shipper-accounts?slug=carrier-4')).data.shipper_accounts;
  assert.equal(accounts.filter((a) => a.description === 'Carrier 4 real account').length, 1, 'made with the rows typed');
  assert.ok(!JSON.stringify(accounts).includes('s3cr3t'), 'credentials are never answered back');
  await page.close();
});
