// The Ship screen as packers work it (issue "The desk as packers really work it", points 6, 9, 10
// and 12), in a real browser against the real packdesk-server: each label says where each of its
// documents went and a document that did not print stays a red notice until dismissed; what was
// typed survives other screens; the sender follows the account unless typed for this parcel;
// "Save as preset" makes a new preset and leaves the default alone unless the operator says so;
// Ship again and sandbox/live ask first in the desk's own dialog.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, ok, rawPrinter, shipPage, startDesk } from './support.mjs';

let desk, tipsa, yodel;
const api = (...args) => desk.api(...args);
const shots = process.env.SCREENSHOTS ?? '/tmp';
const es = (name, postal) => ({ contact_name: name, street1: 'Calle Mayor 1', city: 'Madrid', postal_code: postal, country: 'ESP' });
const madrid = { contact_name: 'Tipsa Madrid Warehouse', street1: 'Calle Alcalá 100', city: 'Madrid', postal_code: '28009', country: 'ESP' };
const london = { contact_name: 'London Warehouse', street1: '1 Dock Road', city: 'London', postal_code: 'E16 2AA', country: 'GBR' };
const field = (page, path) => page.locator(`[data-field="${path}"]`);
const weightField = 'shipment.parcels[0].weight.value';

before(async () => {
  desk = await startDesk('packdesk-ship-');
  tipsa = (await ok(api('POST', '/v3/shipper-accounts', { slug: 'tipsa', description: 'Tipsa Madrid', address: madrid, credentials: { password: 'p', agency_code: '1', customer_code: '2', department_code: '3' } }))).id;
  yodel = (await ok(api('POST', '/v3/shipper-accounts', { slug: 'yodel', description: 'Yodel London', address: london, credentials: { identity: 'i', password: 'p', account_number: '1' } }))).id;
  // The desk's default: Tipsa from the Almacén, ZPL labels.
  await ok(api('POST', '/desk/presets', { name: 'Spain', shipper_account: { id: tipsa }, service_type: 'tipsa_10_horas', file_type: 'zpl', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true }));
});

after(() => desk?.stop());

/** Types a recipient in Spain and a weight, then Ctrl+Enter from the scan field, as the operator
 * does; answers the new label's tracking number (`previous`: the one the screen showed before). */
async function makeLabel(page, name, previous = null) {
  for (const [k, v] of Object.entries(es(name, '08001'))) await field(page, `shipment.ship_to.${k}`).fill(v);
  await field(page, weightField).fill('1,5');
  await page.getByTestId('scan').focus();
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction((prev) => {
    const shown = document.querySelector('[data-testid="tracking"]')?.textContent?.trim();
    return !!shown && shown !== prev;
  }, previous);
  return (await page.getByTestId('tracking').textContent()).trim();
}

/** The Ship screen once the desk set it up with its default preset (Tipsa, from the Almacén). */
async function deskPage() {
  const page = await shipPage(desk);
  await page.waitForFunction(() => document.querySelector('[data-field="shipment.ship_from.contact_name"]')?.value === 'Almacén');
  return page;
}

/** The notice of a label (by its tracking number). */
const documentsOf = (page, tracking) => page.getByTestId('documents').filter({ hasText: tracking });

test('a label with no printer for labels stays a red notice until dismissed; with a printer, the line names it and it prints', async () => {
  const page = await deskPage();
  const first = await makeLabel(page, 'Ana Ruiz');
  const notice = documentsOf(page, first);
  await notice.getByTestId('document-line').waitFor();
  assert.equal(await notice.getAttribute('data-failed'), 'true', 'a label that did not print is a failure');
  assert.equal(await notice.getAttribute('role'), 'alert');
  assert.equal(await notice.getByTestId('document-line').textContent().then((t) => t.trim()), 'Label → not printed: no printer set for labels. Set one in Printers, then print it from History.');
  await page.screenshot({ path: `${shots}/ship-no-printer-1366x768.png` });

  // The next parcel is an order scanned and shipped: its own notice (label and packing slip), and the first one stays.
  await ok(api('PUT', '/desk/settings', { ship_on_scan: true, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await ok(api('POST', '/desk/orders', { orders: [{ order_number: 'SO-1', ship_to: es('Cliente SO-1', '08001'), items: [{ description: 'Taza', quantity: 1, sku: 'TAZA-1' }] }] }));
  // To Orders and back (the Ship screen reads the new setting as it opens): the notice is still there.
  await page.keyboard.press('Alt+2');
  await page.getByTestId('scan').waitFor({ state: 'detached' });
  await page.keyboard.press('Alt+1');
  await page.getByTestId('scan').waitFor();
  assert.equal(await documentsOf(page, first).count(), 1, 'the notice stays on the screen opened again');
  await page.keyboard.type('SO-1');
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Shipped SO-1' }).waitFor();
  const so1 = page.getByTestId('documents').filter({ hasText: 'Order SO-1' });
  await so1.getByTestId('document-line').nth(1).waitFor();
  assert.deepEqual(
    (await so1.getByTestId('document-line').allTextContents()).map((t) => t.trim()),
    ['Label → not printed: no printer set for labels. Set one in Printers, then print it from History.', 'Packing slip → not printed: no printer set for packing slips. Set one in Printers, then print it from History.'],
  );
  assert.equal(await documentsOf(page, first).getAttribute('data-failed'), 'true', 'the first failure is still there after the next scan');

  // Dismissed with the keyboard: Tab from the scan field reaches the first notice's Dismiss.
  await page.getByTestId('scan').focus();
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => [document.activeElement?.getAttribute('data-testid'), document.activeElement?.closest('[data-testid="documents"]')?.textContent]);
    if (at[0] === 'dismiss-documents' && at[1].includes(first)) break;
  }
  await page.keyboard.press('Enter');
  await documentsOf(page, first).waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'scan', 'the cursor is back for the next scan');
  assert.equal(await so1.count(), 1, 'the other notice stays until it is dismissed itself');

  // A raw ZPL printer set for labels: the next label's line names it, and the printer got the label.
  const printer = await rawPrinter();
  try {
    const zebra = await ok(api('POST', '/desk/printers', { name: 'Zebra ZD421', transport: 'raw', address: `127.0.0.1:${printer.port}`, format: 'zpl' }, desk.liveKey));
    await ok(api('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, desk.liveKey));
    const printed = await makeLabel(page, 'Berta Gil', (await page.getByTestId('tracking').textContent()).trim());
    const line = documentsOf(page, printed).locator('[data-testid="document-line"][data-status="printed"]');
    await line.waitFor();
    assert.equal((await line.textContent()).trim(), 'Label → Zebra ZD421 — Printed');
    assert.equal(await documentsOf(page, printed).getAttribute('data-failed'), 'false', 'a printed label is no notice');
    assert.equal(await documentsOf(page, printed).getByTestId('dismiss-documents').count(), 0);
    assert.equal(printer.jobs.length, 1);
    const zpl = printer.jobs[0].toString();
    assert.ok(zpl.startsWith('^XA') && zpl.includes(printed), 'the printer received the ZPL of that label');
    assert.equal(await so1.getAttribute('data-failed'), 'true', 'SO-1 still did not print: its notice stays');
    assert.match(await so1.getByTestId('document-line').first().textContent(), /no printer set for labels/, 'as it was when it was made');
    await page.screenshot({ path: `${shots}/ship-printed-1366x768.png` });
  } finally {
    printer.close();
    await api('DELETE', '/desk/print-profiles/label', undefined, desk.liveKey);
    await ok(api('PUT', '/desk/settings', { ship_on_scan: false, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
    await page.close();
  }
});

test('a label the printer refused says so with Retry, once; retried and printed, its notice goes', async () => {
  const port = await freePort();
  const zebra = await ok(api('POST', '/desk/printers', { name: 'Zebra off', transport: 'raw', address: `127.0.0.1:${port}`, format: 'zpl' }, desk.liveKey));
  await ok(api('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, desk.liveKey));
  const page = await deskPage();
  let printer;
  try {
    const tracking = await makeLabel(page, 'Carla Ruiz');
    const notice = documentsOf(page, tracking);
    const failed = notice.locator('[data-testid="document-line"][data-status="failed"]');
    await failed.waitFor({ timeout: 15000 });
    assert.match(await failed.textContent(), /^\s*Label → not printed on Zebra off: .*refused/);
    assert.equal(await notice.getAttribute('data-failed'), 'true');
    // Elsewhere the desk's corner notice says it; back on Ship, the Ship screen's notice alone does.
    await page.keyboard.press('Alt+3');
    await page.getByTestId('print-alert').filter({ hasText: 'refused' }).waitFor({ timeout: 10000 });
    await page.keyboard.press('Alt+1');
    await page.getByTestId('scan').waitFor();
    assert.equal(await page.getByTestId('print-alerts').count(), 0, 'the corner does not repeat the notice on Ship');
    assert.equal(await notice.getAttribute('data-failed'), 'true', 'the notice is still there');
    // The printer is back; Retry prints it, and nothing says "Not printed" any more.
    printer = await rawPrinter(port);
    await notice.getByTestId('retry-print').click();
    await notice.waitFor({ state: 'detached' });
    assert.ok(printer.jobs.some((j) => j.toString().includes(tracking)), 'the printer received the label');
    assert.equal(await page.getByTestId('retry-print').count(), 0);
  } finally {
    printer?.close();
    await api('DELETE', '/desk/print-profiles/label', undefined, desk.liveKey);
    await page.close();
  }
});

test('labels made while no printer is set share one notice, and the form stays on the screen', async () => {
  const page = await deskPage();
  try {
    const made = [];
    for (const name of ['Dora Sanz', 'Eva Mora', 'Flor Vidal', 'Gema Ríos']) made.push(await makeLabel(page, name, made.at(-1)));
    const last = made.at(-1);
    await documentsOf(page, last).getByTestId('document-line').waitFor();
    assert.equal(await documentsOf(page, last).getAttribute('data-failed'), 'true', 'the label just made has its own notice');
    const earlier = page.getByTestId('unprinted-notice');
    await page.waitForFunction(() => document.querySelector('[data-testid="unprinted-notice"]')?.getAttribute('data-count') === '3');
    const text = await earlier.textContent();
    assert.match(text, /3 earlier labels not printed/);
    assert.match(text, /No printer is set for labels\. Set one in Printers, then print them from History\./);
    for (const tracking of made.slice(0, 3)) assert.ok(text.includes(tracking), `${tracking} is named`);
    assert.equal(await page.getByTestId('documents').count(), 1, 'one notice for the earlier labels, not one each');
    const account = await page.getByTestId('account').boundingBox();
    assert.ok(account && account.y + account.height <= 768, `the form's first field is on the screen (${JSON.stringify(account)})`);
    await page.screenshot({ path: `${shots}/ship-unprinted-1366x768.png` });
    await earlier.getByTestId('dismiss-unprinted').click();
    await earlier.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'scan', 'the cursor is back for the next scan');
    assert.equal(await documentsOf(page, last).count(), 1, 'the label just made keeps its notice');
  } finally {
    await page.close();
  }
});

test('what was typed survives History and back, and is cleared once the label is made', async () => {
  const page = await deskPage();
  const to = es('Lucía Gómez', '08001');
  for (const [k, v] of Object.entries(to)) await field(page, `shipment.ship_to.${k}`).fill(v);
  await field(page, weightField).fill('2,5');
  await page.getByTestId('ship-from').locator('summary').click();
  await field(page, 'shipment.ship_from.contact_name').fill('Almacén Norte');
  await page.keyboard.press('Alt+3');
  await page.getByTestId('search').waitFor();
  assert.equal(await page.getByTestId('scan').count(), 0, 'History shows');
  await page.keyboard.press('Alt+1');
  await page.getByTestId('scan').waitFor();
  for (const [k, v] of Object.entries(to)) assert.equal(await field(page, `shipment.ship_to.${k}`).inputValue(), v, `ship to ${k} kept`);
  assert.equal(await field(page, weightField).inputValue(), '2,5', 'the weight kept');
  assert.equal(await field(page, 'shipment.ship_from.contact_name').inputValue(), 'Almacén Norte', 'the sender typed kept');
  assert.equal(await page.getByTestId('account').inputValue(), tipsa);

  await page.getByTestId('scan').focus();
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('tracking').waitFor();
  assert.equal(await field(page, 'shipment.ship_to.contact_name').inputValue(), '', 'the next parcel starts empty');
  assert.equal(await field(page, weightField).inputValue(), '');
  assert.equal(await field(page, 'shipment.ship_from.contact_name').inputValue(), 'Almacén', 'the sender is the desk’s again');
  await page.close();
});

test('another account brings its address as the sender, unless the sender was typed for this parcel', async () => {
  const page = await deskPage();
  const from = (k) => field(page, `shipment.ship_from.${k}`).inputValue();
  assert.equal(await page.getByTestId('account').inputValue(), tipsa, 'the default preset’s account');
  await page.getByTestId('account').selectOption(yodel);
  await page.waitForFunction(() => document.querySelector('[data-field="shipment.ship_from.city"]')?.value === 'London');
  assert.equal(await from('contact_name'), 'London Warehouse');
  assert.equal(await from('postal_code'), 'E16 2AA');
  await page.getByTestId('account').selectOption(tipsa);
  await page.waitForFunction(() => document.querySelector('[data-field="shipment.ship_from.city"]')?.value === 'Madrid');
  assert.equal(await from('contact_name'), 'Tipsa Madrid Warehouse', 'the Madrid account’s own address');

  // Typed for this parcel: it stays whatever the account.
  await page.getByTestId('ship-from').locator('summary').click();
  await field(page, 'shipment.ship_from.contact_name').fill('Ana, shop counter');
  await page.getByTestId('account').selectOption(yodel);
  await page.getByTestId('service').locator('option').first().waitFor({ state: 'attached' });
  assert.equal(await from('contact_name'), 'Ana, shop counter');
  assert.equal(await from('city'), 'Madrid', 'the sender typed stays');
  await page.getByTestId('clear-form').click();
  assert.equal(await from('contact_name'), 'London Warehouse', 'cleared: the sender follows the account again');
  await page.close();
});

test('Save as preset makes a new preset; the default changes only when the operator ticks it', async () => {
  const page = await deskPage();
  const presets = async () => (await ok(api('GET', '/desk/presets'))).presets;
  const defaults = async () => (await presets()).filter((p) => p.is_default).map((p) => p.name);
  const count = (await presets()).length;

  // Esc cancels: nothing saved.
  await page.getByTestId('save-default').click();
  await page.getByTestId('preset-dialog').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('preset-dialog').waitFor({ state: 'detached' });
  assert.equal((await presets()).length, count);

  // A suggested name, the default unticked; Enter saves a new preset.
  await page.getByTestId('save-default').click();
  const name = page.getByTestId('preset-dialog-name');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'preset-dialog-name', 'the cursor is in the name');
  assert.match(await name.inputValue(), /^TIPSA 10 Horas from Almacén$/);
  assert.equal(await page.getByTestId('preset-dialog-default').isChecked(), false);
  assert.match(await page.getByTestId('preset-dialog').textContent(), /every order without its own preset or rule will ship with it/);
  await page.screenshot({ path: `${shots}/ship-save-preset-1366x768.png` });
  const suggested = await name.inputValue();
  await page.keyboard.press('Enter');
  await page.getByTestId('preset-note').filter({ hasText: 'The default preset for orders is unchanged.' }).waitFor();
  const saved = (await presets()).find((p) => p.name === suggested);
  assert.ok(saved, 'a new preset');
  assert.equal(saved.is_default, false);
  assert.deepEqual(await defaults(), ['Spain'], 'the default preset unchanged');

  // Ticked by the operator: the new one is the default.
  await page.getByTestId('save-default').click();
  await name.fill('Desk afternoon');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await page.getByTestId('preset-dialog-save').click();
  await page.getByTestId('preset-note').filter({ hasText: 'the default' }).waitFor();
  assert.deepEqual(await defaults(), ['Desk afternoon']);
  assert.equal((await presets()).length, count + 2);

  // The same name again is refused in words, and nothing is overwritten.
  await page.getByTestId('save-default').click();
  await name.fill('Desk afternoon');
  await page.keyboard.press('Enter');
  assert.match(await page.getByTestId('preset-dialog-problem').textContent(), /^Not saved: another preset is named “Desk afternoon”\.$/);
  await page.keyboard.press('Escape');
  assert.equal((await presets()).length, count + 2);
  await ok(api('PUT', `/desk/presets/${(await presets()).find((p) => p.name === 'Spain').id}`, { name: 'Spain', shipper_account: { id: tipsa }, service_type: 'tipsa_10_horas', file_type: 'zpl', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true }));
  await page.close();
});

test('Ship again and sandbox/live ask first in the desk’s dialog: Esc changes nothing, confirming does it', async () => {
  await ok(api('POST', '/desk/orders', { orders: [{ order_number: 'SO-9', ship_to: es('Cliente SO-9', '08001'), items: [{ description: 'Taza', quantity: 1, sku: 'TAZA-1' }] }] }));
  const labelsOf = async () => (await ok(api('GET', '/desk/orders?s=SO-9'))).orders.find((o) => o.order_number === 'SO-9');
  await ok(api('POST', `/desk/orders/${(await labelsOf()).id}/ship`, {}));
  const page = await deskPage();
  await page.keyboard.type('SO-9');
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Order SO-9 is already shipped' }).waitFor();
  await page.getByTestId('ship-again').click();
  const ask = page.getByTestId('confirm');
  await ask.waitFor();
  assert.match(await ask.textContent(), /Ship order SO-9 again\?.*Another label is a second shipment/s);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'confirm-cancel', 'the safe choice has the cursor');
  await page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached' });
  assert.equal((await labelsOf()).label_ids.length, 1, 'Esc: no second label');
  // Weighed, asked again and confirmed: a second label.
  await field(page, weightField).fill('1');
  await page.getByTestId('ship-again').click();
  await page.getByTestId('confirm-ok').click();
  await page.getByTestId('scan-note').filter({ hasText: 'Shipped SO-9' }).waitFor();
  assert.equal((await labelsOf()).label_ids.length, 2, 'confirmed: a second label');

  const env = page.getByTestId('env');
  assert.equal(await env.textContent(), 'SANDBOX');
  await env.click();
  await ask.waitFor();
  assert.match(await ask.textContent(), /Live labels are real shipments: the carrier collects them and charges for each one/);
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Stay in sandbox (Esc)');
  await page.screenshot({ path: `${shots}/ship-live-confirm-1366x768.png` });
  await page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached' });
  assert.equal(await env.textContent(), 'SANDBOX', 'Esc: still sandbox');
  await env.click();
  await page.getByTestId('confirm-ok').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="env"]')?.textContent === 'LIVE');
  await env.click();
  assert.match(await ask.textContent(), /Sandbox labels are samples/);
  await page.getByTestId('confirm-ok').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="env"]')?.textContent === 'SANDBOX');
  await page.close();
});
