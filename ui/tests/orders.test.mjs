// The scan station and the Orders screen in a real browser (Debian's Chromium) against the real
// packdesk-server: orders scanned to printed labels with the keyboard only, an unknown number
// named, a shipped order not shipped twice without asking; a shop's CSV imported with a saved
// mapping, and a batch shipped with its progress. The printer is a raw port listener of the test's own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, rawPrinter, startDesk } from './support.mjs';

let desk, printer, tipsa;
const api = (...args) => desk.api(...args);

const es = (name, postal) => ({ contact_name: name, street1: 'Calle Mayor 1', city: 'Madrid', postal_code: postal, country: 'ESP' });
const order = (number) => ({ order_number: number, ship_to: es(`Cliente ${number}`, '08001'), items: [{ description: 'Taza', quantity: 1, sku: 'TAZA-1' }] });

before(async () => {
  desk = await startDesk('packdesk-orders-');
  printer = await rawPrinter();
  const zebra = await ok(api('POST', '/desk/printers', { name: 'Zebra', transport: 'raw', address: `127.0.0.1:${printer.port}`, format: 'zpl' }, desk.liveKey));
  await ok(api('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, desk.liveKey));
  tipsa = (await ok(api('POST', '/v3/shipper-accounts', { slug: 'tipsa', description: 'Tipsa', credentials: { password: 'p', agency_code: '1', customer_code: '2', department_code: '3' } }))).id;
  await ok(api('POST', '/desk/presets', { name: 'Spain', shipper_account: { id: tipsa }, service_type: 'tipsa_10_horas', file_type: 'zpl', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true }));
});

after(async () => {
  printer?.close();
  await desk?.stop();
});

const waitFor = async (f, what) => {
  for (let i = 0; i < 200; i++) {
    if (f()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`waited for ${what}`);
};

/** The Ship screen at 1366 x 768, its scan field ready; `scan` types a code and Enter as a
 * scanner does, `note` waits for the scan note to say `text`. */
const scanStation = async () => {
  const page = await desk.browser.newPage();
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  const scan = async (code) => {
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
  };
  const note = (text) => page.getByTestId('scan-note').filter({ hasText: text }).waitFor();
  return { page, scan, note };
};

test('scan to printed label twice in a row with the keyboard only; an unknown number is named; a shipped one asks first', async () => {
  await ok(api('PUT', '/desk/settings', { ship_on_scan: true, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await ok(api('POST', '/desk/orders', { orders: [order('SO-1'), order('SO-2'), order('SO-3')] }));
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  const before = printer.jobs.length;
  for (const [i, number] of ['SO-1', 'SO-2'].entries()) {
    // What a barcode scanner does: the characters, then Enter, into whatever has focus.
    await page.keyboard.type(number);
    await page.keyboard.press('Enter');
    await page.getByTestId('scan-note').filter({ hasText: `Shipped ${number}` }).waitFor();
    await waitFor(() => printer.jobs.length >= before + i + 1, `label ${i + 1} at the printer`);
    const tracking = (await page.getByTestId('tracking').textContent()).trim();
    assert.ok(printer.jobs[before + i].toString().includes(tracking), `${number}'s label is the one printed`);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'scan', 'focus is back in the scan field');
  }
  await page.keyboard.type('NOPE-9');
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'No open order has the number “NOPE-9”.' }).waitFor();

  // Scanning a shipped order warns; shipping it again asks first.
  await page.getByTestId('scan').fill('SO-1');
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Order SO-1 is already shipped' }).waitFor();
  await page.getByTestId('ship-again').click();
  await page.getByTestId('confirm').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('confirm').waitFor({ state: 'detached' });
  const so1 = (await ok(api('GET', '/desk/orders?s=SO-1&status=shipped'))).orders.find((o) => o.order_number === 'SO-1');
  assert.equal(so1.label_ids.length, 1, 'dismissed: no second label');

  // Without ship on scan, Enter loads the order and a second Enter ships it.
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await page.reload();
  await page.getByTestId('scan').waitFor();
  await page.keyboard.type('SO-3');
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'preset Spain. Enter ships it.' }).waitFor();
  assert.equal(await page.locator('[data-field="shipment.ship_to.contact_name"]').inputValue(), 'Cliente SO-3', 'the order is in the form');
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Shipped SO-3' }).waitFor();
  await page.close();
});

test('a CSV imports with a saved mapping after a check, and a batch ships with its progress and failures', async () => {
  await ok(api('PUT', '/desk/import-mappings/tienda', { columns: { Pedido: 'order_number', Cliente: 'ship_to.contact_name', Calle: 'ship_to.street1', Ciudad: 'ship_to.city', CP: 'ship_to.postal_code', Pais: 'ship_to.country', Articulo: 'items.description', Cantidad: 'items.quantity', Plantilla: 'preset' } }, desk.liveKey));
  const csv = 'Pedido;Cliente;Calle;Ciudad;CP;Pais;Articulo;Cantidad;Plantilla\r\n' +
    'T-1;Ana;Calle 1;Madrid;28001;Spain;Taza;2;\r\n' +
    'T-2;Luis;Calle 2;Sevilla;41001;ES;Plato;1;Express\r\n' +
    'T-3;Eva;Calle 3;Bilbao;48001;Atlantis;Vaso;1;\r\n';
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="orders"]').click();
  await page.getByTestId('import-mapping').fill('tienda');
  await page.getByTestId('import-file').setInputFiles({ name: 'pedidos.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
  const check = page.getByTestId('import-check');
  await check.filter({ hasText: '2 new and 0 changed orders; 1 row cannot be imported.' }).waitFor();
  assert.match(await check.textContent(), /Line 4, Pais: Recipient country: “Atlantis” is not a country/);
  await page.getByTestId('import').click();
  await page.getByTestId('import-result').filter({ hasText: 'Imported 2 new' }).waitFor();

  await page.getByTestId('orders-search').fill('T-');
  await page.getByTestId('order-row').filter({ hasText: 'T-2' }).waitFor();
  for (const n of ['T-1', 'T-2']) await page.getByTestId('order-row').filter({ hasText: n }).locator('input[type=checkbox]').check();
  await page.getByTestId('ship-selected').click();
  await page.getByTestId('batch-progress').filter({ hasText: '2 of 2 — 1 shipped, 1 failed' }).waitFor();
  assert.match(await page.getByTestId('batch-failed').textContent(), /T-2: Preset: order T-2 names preset “Express”/);
  await page.close();
});

test('units and countries: the desk weighs in lb, 55 lb typed stays 55 lb on the label, Spain becomes ESP', async () => {
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, weight_unit: 'lb', dimension_unit: 'in' }, desk.liveKey));
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="parcel-weight-unit"]')?.value === 'lb');
  assert.equal(await page.getByTestId('parcel-dimension-unit').inputValue(), 'in');
  for (const [k, v] of Object.entries(es('Ana Ruiz', '08001'))) await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
  // A country typed by name becomes its alpha-3 code.
  await page.locator('[data-field="shipment.ship_to.country"]').fill('spain');
  await page.locator('[data-field="shipment.ship_to.country"]').press('Tab');
  assert.equal(await page.locator('[data-field="shipment.ship_to.country"]').inputValue(), 'ESP');
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('55');
  await page.getByTestId('scan').focus();
  await page.keyboard.press('Control+Enter');
  const tracking = (await page.getByTestId('tracking').textContent()).trim();
  const label = (await ok(api('GET', `/v3/labels?tracking_numbers=${tracking}`))).labels[0];
  const file = await fetch(new URL(label.files.label.url).toString());
  assert.match(await file.text(), /WEIGHT 55 lb/, 'the ZPL label says 55 lb');
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await page.close();
});

test('several parcels: add, copy and remove; the label has a tracking number per parcel', async () => {
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  for (const [k, v] of Object.entries(es('Ana Ruiz', '08001'))) await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('2');
  await page.getByTestId('copy-parcel').click();
  await page.getByTestId('add-parcel').click();
  await page.locator('[data-field="shipment.parcels[2].weight.value"]').fill('7');
  await page.getByTestId('copy-parcel').click();
  assert.equal(await page.locator('[data-field="shipment.parcels[3].weight.value"]').inputValue(), '7', 'a copy of the last parcel');
  assert.equal(await page.locator('[data-field="shipment.parcels[1].weight.value"]').inputValue(), '2', 'a copy of the first');
  await page.getByTestId('remove-parcel').nth(1).click(); // parcel 3 goes; 7 kg stays as parcel 3
  assert.equal(await page.getByTestId('more-parcel').count(), 2);
  await page.getByTestId('scan').focus();
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('tracking').waitFor();
  const tracking = (await page.getByTestId('tracking').textContent()).trim().split(', ');
  assert.equal(tracking.length, 3, 'three parcels, three tracking numbers');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="more-parcel"]').length === 0, null, { timeout: 5000 });
  assert.equal(await page.getByTestId('more-parcel').count(), 0, 'the next shipment starts with one parcel');
  await page.close();
});

test('rules are edited as rows: saved when right, refused with the field named when not', async () => {
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="orders"]').click();
  await page.getByTestId('preset-row').filter({ hasText: 'Spain' }).waitFor();
  await page.getByTestId('add-rule').click();
  await page.locator('[data-field="rules[0].name"]').fill('Heavy');
  await page.locator('[data-field="rules[0].when.weight_min"]').fill('20');
  await page.locator('[data-field="rules[0].when.weight_max"]').fill('5');
  await page.getByTestId('save-rules').click();
  await page.getByTestId('presets-message').filter({ hasText: 'Rule 1 weight to' }).waitFor();
  assert.deepEqual((await ok(api('GET', '/desk/rules'))).rules, [], 'nothing saved');
  await page.locator('[data-field="rules[0].when.weight_max"]').fill('');
  await page.locator('[data-field="rules[0].when.ship_to_country"]').fill('Spain');
  await page.getByTestId('save-rules').click();
  await page.getByTestId('presets-message').filter({ hasText: 'Rules saved.' }).waitFor();
  const saved = (await ok(api('GET', '/desk/rules'))).rules;
  assert.equal(saved.length, 1);
  assert.deepEqual([saved[0].preset, saved[0].when.ship_to_country, saved[0].when.weight_min], ['Spain', 'ESP', 20]);
  await ok(api('PUT', '/desk/rules', { rules: [] }));
  await page.close();
});

test('an unknown file: its first rows shown, a column mapped by hand, saved as a mapping, then imported', async () => {
  const csv = 'Bestellung;Empfänger;Straße;Ort;PLZ;Land\r\nD-1;Jörg Weber;Hauptstraße 5;Köln;50667;Deutschland\r\nD-2;Eva Roth;Ring 2;Bonn;53111;DE\r\n';
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="orders"]').click();
  await page.getByTestId('import-file').setInputFiles({ name: 'bestellungen.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
  const check = page.getByTestId('import-check');
  await check.filter({ hasText: 'no column is the order number' }).waitFor();
  assert.match(await page.getByTestId('import-preview').textContent(), /Jörg Weber.*Eva Roth/s, 'the first rows are shown');
  for (const [col, field] of [['Bestellung', 'order_number'], ['Empfänger', 'ship_to.contact_name'], ['Straße', 'ship_to.street1'], ['Ort', 'ship_to.city'], ['PLZ', 'ship_to.postal_code'], ['Land', 'ship_to.country']]) {
    await page.locator(`select[data-column="${col}"]`).selectOption(field);
  }
  await page.getByTestId('mapping-name').fill('shop-de');
  await page.getByTestId('save-mapping').click();
  await check.filter({ hasText: '2 new and 0 changed orders; 0 rows cannot be imported.' }).waitFor();
  await page.getByTestId('import').click();
  await page.getByTestId('import-result').filter({ hasText: 'Imported 2 new' }).waitFor();
  const saved = await ok(api('GET', '/desk/import-mappings/shop-de'));
  assert.equal(saved.columns.PLZ, 'ship_to.postal_code');
  await page.close();
});

test('a desk that checks every item: the packer scans the order and each item; a wrong item and one too many are refused; the label prints once all are in the box', async () => {
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, verify_items: true, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  const items = [
    { description: 'Taza azul', quantity: 2, sku: 'TAZA-A', barcode: '8412345678905' },
    { description: 'Plato', quantity: 1, sku: 'PLATO-B' },
  ];
  await ok(api('POST', '/desk/orders', { orders: [{ ...order('PK-1'), items }, { ...order('PK-2'), items: [{ description: 'Vaso', quantity: 1, sku: 'VASO-C' }] }] }));
  const { page, scan } = await scanStation();
  const before = printer.jobs.length;
  const packedOf = (line) => page.locator(`[data-testid="pack-line"][data-line="${line}"]`).getAttribute('data-packed');

  await scan('PK-1');
  await page.getByTestId('packing').waitFor();
  await page.getByTestId('scan-note').filter({ hasText: 'scan each item into the box (2 × Taza azul, 1 × Plato)' }).waitFor();
  await scan('8412345678905');
  await page.getByTestId('scan-note').filter({ hasText: 'Taza azul: 1 of 2 packed.' }).waitFor();
  await scan('PLATO-B');
  await page.getByTestId('scan-note').filter({ hasText: 'Plato: 1 of 1 packed.' }).waitFor();
  // Another order's item: refused in words, with the error's colour, and counted.
  await scan('VASO-C');
  const refused = page.getByTestId('scan-note').filter({ hasText: '“VASO-C” is not an item of order PK-1: take it out of the box.' });
  await refused.waitFor();
  assert.equal(await refused.getAttribute('data-kind'), 'error');
  await page.getByTestId('pack-refused').filter({ hasText: '1 wrong item scanned' }).waitFor();
  // Enter before the box is complete ships nothing.
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Order PK-1 is not packed yet: scan 1 × Taza azul.' }).waitFor();
  assert.equal(printer.jobs.length, before, 'nothing printed before the box is complete');
  await scan('8412345678905');
  await page.getByTestId('scan-note').filter({ hasText: 'Every item of order PK-1 is packed. Enter ships it.' }).waitFor();
  assert.equal(await packedOf(1), '2');
  await scan('8412345678905');
  await page.getByTestId('scan-note').filter({ hasText: 'all packed already: take the extra one out of the box' }).waitFor();
  await page.getByTestId('pack-refused').filter({ hasText: '2 wrong items scanned' }).waitFor();
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/ship-packing.png` });
  assert.equal(printer.jobs.length, before, 'still nothing printed');

  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Shipped PK-1' }).waitFor();
  await waitFor(() => printer.jobs.length > before, 'the label at the printer');
  const tracking = (await page.getByTestId('tracking').textContent()).trim();
  assert.ok(printer.jobs[before].toString().includes(tracking), 'the printed label is PK-1’s');
  assert.equal(await page.getByTestId('packing').count(), 0, 'the packing list is done with');
  const pk1 = (await ok(api('GET', '/desk/orders?s=PK-1&status=shipped'))).orders.find((o) => o.order_number === 'PK-1');
  assert.equal(pk1.contents_verified, true);
  await page.locator('[data-nav="orders"]').click();
  await page.getByTestId('orders-status').selectOption('shipped');
  await page.getByTestId('orders-search').fill('PK-1');
  await page.getByTestId('order-row').filter({ hasText: 'PK-1' }).getByTestId('order-verified').waitFor();

  // A mug is out of stock: what is packed ships now (after the desk's question), the rest later.
  await ok(api('POST', '/desk/orders', { ...order('PK-3'), items }));
  await page.locator('[data-nav="ship"]').click();
  await page.getByTestId('scan').waitFor();
  await page.getByTestId('scan').focus();
  await scan('PK-3');
  await page.getByTestId('packing').waitFor();
  await scan('8412345678905');
  await page.getByTestId('scan-note').filter({ hasText: 'Taza azul: 1 of 2 packed.' }).waitFor();
  const printed = printer.jobs.length;
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/ship-packing-part.png` });
  await page.getByTestId('ship-packed').click();
  await page.getByTestId('confirm').filter({ hasText: 'the rest (1 × Taza azul, 1 × Plato) stays on the order' }).waitFor();
  await page.getByTestId('confirm-ok').click();
  await page.getByTestId('scan-note').filter({ hasText: 'Shipped PK-3 (part; 1 × Taza azul, 1 × Plato still to ship)' }).waitFor();
  await waitFor(() => printer.jobs.length > printed, 'the part’s label at the printer');
  const pk3 = (await ok(api('GET', '/desk/orders?s=PK-3&status=partially_shipped'))).orders.find((o) => o.order_number === 'PK-3');
  assert.deepEqual(pk3.partial_shipments[0].quantities, [1, 0]);
  // Scanned again, it opens with what is left to pack.
  await scan('PK-3');
  await page.getByTestId('scan-note').filter({ hasText: 'scan each item into the box (1 × Taza azul, 1 × Plato)' }).waitFor();

  // The command sheet, as printed and read by the scanner: its codes drive the screen.
  const sheet = await fetch(`${desk.base}/desk/command-sheet.pdf`, { headers: { 'service-api-key': desk.key } });
  const dir = mkdtempSync(join(tmpdir(), 'packdesk-commands-'));
  writeFileSync(join(dir, 'commands.pdf'), Buffer.from(await sheet.arrayBuffer()));
  execFileSync('pdftoppm', ['-r', '200', '-png', join(dir, 'commands.pdf'), join(dir, 'page')]);
  const codes = execFileSync('zbarimg', ['--raw', '-q', '-Sdisable', '-Scode128.enable', join(dir, 'page-1.png')]).toString().trim().split('\n');
  rmSync(dir, { recursive: true, force: true });
  const code = (prefix) => codes.find((c) => c.endsWith(prefix)) ?? assert.fail(`no ${prefix} on the sheet: ${codes}`);
  await scan('PLATO-B');
  await page.getByTestId('scan-note').filter({ hasText: 'Plato: 1 of 1 packed.' }).waitFor();
  await scan(code('RESTART-PACKING'));
  await page.getByTestId('scan-note').filter({ hasText: 'Packing of order PK-3 started again: scan each item.' }).waitFor();
  assert.equal(await packedOf(2), '0');
  await scan('PLATO-B');
  await page.getByTestId('scan-note').filter({ hasText: 'Plato: 1 of 1 packed.' }).waitFor();
  const before3 = printer.jobs.length;
  await scan(code('SHIP-PACKED'));
  await page.getByTestId('scan-note').filter({ hasText: 'Shipped PK-3 (part; 1 × Taza azul still to ship)' }).waitFor();
  await waitFor(() => printer.jobs.length > before3, 'the second part’s label at the printer');
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, verify_items: false, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await page.close();
});

test('returns: the preset puts a return label in the box on its own printer; the parcel back is scanned in by its return label, its items counted by scan, and recorded', async () => {
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, verify_items: false, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  const returnsPrinter = await rawPrinter();
  const zebra = await ok(api('POST', '/desk/printers', { name: 'Zebra returns', transport: 'raw', address: `127.0.0.1:${returnsPrinter.port}`, format: 'zpl' }, desk.liveKey));
  await ok(api('PUT', '/desk/print-profiles/return_label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, desk.liveKey));
  await ok(api('POST', '/desk/presets', { name: 'Spain with returns', shipper_account: { id: tipsa }, service_type: 'tipsa_10_horas', file_type: 'zpl', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, return_label: 'with_outbound' }));
  const items = [
    { description: 'Taza azul', quantity: 2, sku: 'TAZA-A', barcode: '8412345678905' },
    { description: 'Plato', quantity: 1, sku: 'PLATO-B' },
  ];
  await ok(api('POST', '/desk/orders', { ...order('RT-1'), items, preset: 'Spain with returns' }));
  const page = await desk.browser.newPage();
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  const [labelsBefore, returnsBefore] = [printer.jobs.length, returnsPrinter.jobs.length];
  const type = async (text) => {
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
  };
  await type('RT-1');
  await page.getByTestId('scan-note').filter({ hasText: 'preset Spain with returns. Enter ships it.' }).waitFor();
  await page.keyboard.press('Enter');
  const shipped = page.getByTestId('scan-note').filter({ hasText: 'Shipped RT-1' });
  await shipped.waitFor();
  const back = (await shipped.textContent()).match(/return label (\d+)/)?.[1] ?? assert.fail(`no return label said: ${await shipped.textContent()}`);
  await waitFor(() => printer.jobs.length > labelsBefore && returnsPrinter.jobs.length > returnsBefore, 'the label and its return label at their printers');
  assert.ok(returnsPrinter.jobs[returnsBefore].toString().includes(back), 'the return label went to the returns printer');
  assert.ok(returnsPrinter.jobs[returnsBefore].toString().includes('RETURN'), 'it says it is a return');

  // The parcel comes back: Returns (Alt+4), its return label scanned, then its items.
  await page.keyboard.press('Alt+4');
  await page.getByTestId('return-scan').waitFor();
  await page.getByTestId('return-scan').focus();
  await type('NOPE-7');
  const note = page.getByTestId('return-note');
  await note.filter({ hasText: 'no order and no label of an order has the number NOPE-7' }).waitFor();
  assert.equal(await note.getAttribute('data-kind'), 'error');
  await type(back);
  await note.filter({ hasText: 'Order RT-1, found by its return label' }).waitFor();
  await type('8412345678905');
  await note.filter({ hasText: 'Taza azul (TAZA-A): 1 back.' }).waitFor();
  await type('PLATO-B');
  await type('PLATO-B');
  await note.filter({ hasText: 'Plato (PLATO-B): 1 can come back, and 1 are counted already.' }).waitFor();
  // Save without a reason: the desk asks for it in words.
  await page.getByTestId('return-save').click();
  await note.filter({ hasText: 'Choose why Taza azul (TAZA-A) came back.' }).waitFor();
  const line = (n) => page.locator(`[data-testid="return-line"][data-line="${n}"]`);
  await line(1).getByTestId('return-reason').selectOption('Wrong size');
  await line(2).getByTestId('return-reason').selectOption('Damaged in transit');
  await line(2).getByTestId('return-condition').selectOption('damaged');
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/returns-scan.png` });
  await page.getByTestId('return-save').click();
  await note.filter({ hasText: 'Return of order RT-1 recorded: 2 items. Scan the next parcel.' }).waitFor();
  await page.getByTestId('return-row').filter({ hasText: '1 × Taza azul (Wrong size, resellable); 1 × Plato (Damaged in transit, damaged)' }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'return-scan', 'ready for the next parcel');
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/returns-recorded.png` });
  const recorded = (await ok(api('GET', '/desk/returns'))).returns[0];
  assert.deepEqual(recorded.items.map((i) => [i.line, i.quantity, i.reason, i.condition]), [[1, 1, 'Wrong size', 'resellable'], [2, 1, 'Damaged in transit', 'damaged']]);
  assert.equal(recorded.scanned, back);
  returnsPrinter.close();
  await page.close();
});

test('boxes: "Next box" from the command sheet closes the box; each box ships as a parcel of the label', async () => {
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, verify_items: true, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await ok(api('POST', '/desk/orders', { ...order('BX-1'), items: [{ description: 'Taza azul', quantity: 2, sku: 'TAZA-A', barcode: '8412345678905' }, { description: 'Plato', quantity: 1, sku: 'PLATO-B' }] }));
  const { page, scan, note } = await scanStation();
  await scan('BX-1');
  await page.getByTestId('packing').waitFor();
  await scan('PDCMD-NEXT-BOX');
  await note(/box 1 of order BX-1 is empty: scan an item into it before starting the next box/i);
  await scan('8412345678905');
  await scan('8412345678905');
  await note('Taza azul: 2 of 2 packed.');
  await scan('PDCMD-NEXT-BOX');
  await note('Box 2 of order BX-1 started: the items scanned now go into it.');
  await scan('PLATO-B');
  await note('Every item of order BX-1 is packed. Enter ships it.');
  assert.equal(await page.getByTestId('pack-box').textContent(), '2');
  assert.deepEqual(await page.getByTestId('pack-boxes').allTextContents(), ['box 1: 2', 'box 2: 1']);
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/ship-packing-boxes.png` });
  const before = printer.jobs.length;
  await page.keyboard.press('Enter');
  await note('Shipped BX-1');
  await waitFor(() => printer.jobs.length > before, 'the label at the printer');
  const bx = (await ok(api('GET', '/desk/orders?s=BX-1&status=shipped'))).orders.find((o) => o.order_number === 'BX-1');
  assert.equal(bx.tracking_numbers.length, 2, 'a parcel for each box');
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, verify_items: false, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await page.close();
});

test('boxes for a carrier of one parcel a label: each box is weighed on the scale as it is closed and gets a label of its own', async () => {
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, verify_items: true, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  // Whistl labels one parcel a shipment (`parcels_per_label` 1).
  const whistl = (await ok(api('POST', '/v3/shipper-accounts', { slug: 'whistl', description: 'Whistl', timezone: 'Europe/London', credentials: { client_code: 'c', site_code: 's', customer_number: '1' } }))).id;
  const uk = (name, postal, city) => ({ contact_name: name, street1: '1 High Street', city, postal_code: postal, country: 'GBR' });
  await ok(api('POST', '/desk/presets', { name: 'UK by Whistl', shipper_account: { id: whistl }, service_type: 'whistl_tracked48', ship_from: uk('Warehouse', 'E16 2AA', 'London') }));
  await ok(api('POST', '/desk/orders', { order_number: 'WH-1', preset: 'UK by Whistl', ship_to: uk('Jane Doe', 'M1 1AE', 'Manchester'), items: [{ description: 'Blue mug', quantity: 2, sku: 'MUG-1', barcode: '5012345678900' }, { description: 'Shirt', quantity: 1, sku: 'SHIRT-1' }] }));
  // The desk scale: a FIFO stands in for its /dev/hidrawN (6-byte HID reports, stable, kg, 10 g steps).
  const dir = mkdtempSync(join(tmpdir(), 'packdesk-hidraw-'));
  const device = join(dir, 'hidraw6');
  execFileSync('mkfifo', [device]);
  await ok(api('PUT', '/desk/scale', { device }, desk.liveKey));
  const fd = openSync(device, 'w');
  let reports = 0;
  const scaleShows = async (centiKg) => {
    // A weight counts once the scale repeats it.
    for (let i = 0; i < 2; i++) writeSync(fd, Buffer.from([3, 4, 3, 0xfe, centiKg & 0xff, centiKg >> 8]));
    reports += 2;
    for (let i = 0; i < 200; i++) {
      const s = await ok(api('GET', '/desk/scale'));
      if (s.reports === reports && s.stable) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail(`the scale at ${centiKg / 100} kg`);
  };
  const { page, scan, note } = await scanStation();
  await scan('WH-1');
  await page.getByTestId('packing').waitFor();
  // The form shows the account the order's preset makes its labels with.
  assert.equal(await page.getByTestId('account').inputValue(), whistl);
  await scan('5012345678900');
  await scan('5012345678900');
  await note('Blue mug: 2 of 2 packed.');
  // Box 1 on the scale as it is closed.
  await scaleShows(120);
  await scan('PDCMD-NEXT-BOX');
  await note('Box 1 weighs 1.2 kg. Box 2 of order WH-1 started: the items scanned now go into it.');
  assert.equal(await page.getByTestId('box-weights').textContent(), 'Box 1 weighs 1.2 kg');
  await scan('SHIRT-1');
  await note('Every item of order WH-1 is packed. Enter ships it.');
  // Enter with nothing on the scale: no label, the box named and what to do, nothing lost.
  await scaleShows(0);
  await page.keyboard.press('Enter');
  await note(/Order WH-1 is not shipped: .*box 2 of order WH-1 is not on the scale .*put the box on the scale and ship again/);
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/ship-packing-box-not-weighed.png` });
  assert.equal((await ok(api('GET', '/desk/orders?s=WH-1'))).orders.find((o) => o.order_number === 'WH-1').label_ids.length, 0, 'no label made');
  // Box 2 on the scale as the labels are made.
  await scaleShows(45);
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/ship-packing-box-weighed.png` });
  const before = printer.jobs.length;
  await page.keyboard.press('Enter');
  await note('Shipped WH-1');
  await waitFor(() => printer.jobs.length >= before + 2, 'a label for each box at the printer');
  const wh = (await ok(api('GET', '/desk/orders?s=WH-1&status=shipped'))).orders.find((o) => o.order_number === 'WH-1');
  assert.equal(wh.label_ids.length, 2, 'a label for each box');
  assert.equal(wh.contents_verified, true);
  const text = await page.getByTestId('scan-note').textContent();
  for (const n of wh.tracking_numbers) assert.ok(text.includes(n), `${n} said: ${text}`);
  const history = await ok(api('GET', '/desk/history?created_at_min=2000-01-01&s=WH-1'));
  const weights = history.rows.map((r) => [r.label.order_number, r.weight.value]).sort();
  assert.deepEqual(weights, [['WH-1', 1.2], ['WH-1-2', 0.45]], 'each label weighs its box on the scale');
  closeSync(fd);
  await ok(api('PUT', '/desk/scale', { device: null }, desk.liveKey));
  rmSync(dir, { recursive: true, force: true });
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, verify_items: false, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await page.close();
});
