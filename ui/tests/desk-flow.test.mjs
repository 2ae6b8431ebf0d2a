// The desk as packers work it (issue 35), in a real browser (Debian's Chromium) against the real
// packdesk-server, keyboard only: a parcel nobody weighed makes no label; `1,5` is 1.5 kg on the
// printed label; a weight far above the order's asks first; the weight field starts empty; the
// scan field is emptied after every scan, whatever its result, with the result's colour and sound.
// The printer is a raw port listener of the test's own; the decimal parser is run as it is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeUiModules, importUiModule, ok, rawPrinter, startDesk } from './support.mjs';

let desk, printer;
const api = (...args) => desk.api(...args);
const es = (name, postal) => ({ contact_name: name, street1: 'Calle Mayor 1', city: 'Madrid', postal_code: postal, country: 'ESP' });
const weightField = '[data-field="shipment.parcels[0].weight.value"]';
const shots = process.env.SCREENSHOTS ?? '/tmp';

before(async () => {
  desk = await startDesk('packdesk-desk-flow-');
  printer = await rawPrinter();
  const zebra = await ok(api('POST', '/desk/printers', { name: 'Zebra', transport: 'raw', address: `127.0.0.1:${printer.port}`, format: 'zpl' }, desk.liveKey));
  await ok(api('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, desk.liveKey));
  const tipsa = (await ok(api('POST', '/v3/shipper-accounts', { slug: 'tipsa', description: 'Tipsa', credentials: { password: 'p', agency_code: '1', customer_code: '2', department_code: '3' } }))).id;
  await ok(api('POST', '/desk/presets', { name: 'Spain', shipper_account: { id: tipsa }, service_type: 'tipsa_10_horas', file_type: 'zpl', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true }));
});

after(async () => {
  printer?.close();
  await desk?.stop();
  await closeUiModules();
});

const waitFor = async (f, what) => {
  for (let i = 0; i < 200; i++) {
    if (f()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`waited for ${what}`);
};

/** The Ship screen at 1366 x 768, in `locale`, with every tone the page plays recorded (its pitch). */
async function deskPage(locale = 'en-US') {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 }, locale });
  await page.addInitScript(() => {
    window.tones = [];
    const start = OscillatorNode.prototype.start;
    OscillatorNode.prototype.start = function (...args) {
      window.tones.push(this.frequency.value);
      return start.apply(this, args);
    };
  });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  return page;
}

/** The tones played since the last call. */
const tones = (page) => page.evaluate(() => window.tones.splice(0));
const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.getAttribute('data-field'));
const labelCount = async () => (await ok(api('GET', '/v3/labels?created_at_min=2000-01-01'))).labels.length;

test('the decimal parser reads 1,5 and 1.5 alike in every locale and refuses what is not a number', async () => {
  // numbers.ts runs here as the page runs it (loaded by Vite with what it imports).
  const { parseDecimal, formatDecimal } = await importUiModule('numbers.ts');
  const cases = [
    ['1,5', 'es-ES', 1.5],
    ['1.5', 'es-ES', 1.5],
    ['1,5', 'en-US', 1.5],
    ['1.5', 'en-US', 1.5],
    ['1,5', 'de-DE', 1.5],
    ['1,5', 'pl-PL', 1.5],
    ['1,5', 'fr-FR', 1.5],
    [' 0,354 ', 'pl-PL', 0.354],
    [',5', 'de-DE', 0.5],
    ['12', 'en-US', 12],
    ['1.234,5', 'es-ES', 1234.5],
    ['1.234,5', 'de-DE', 1234.5],
    ['1,234.5', 'en-US', 1234.5],
    ['1,234', 'en-US', 1234],
    ['1,234', 'es-ES', 1.234],
    ['1 234,5', 'fr-FR', 1234.5],
    ['1.234.567', 'de-DE', 1234567],
    ['0', 'en-US', 0],
    ['-2', 'en-US', -2],
    ['', 'en-US', null],
    ['   ', 'es-ES', null],
    ['abc', 'en-US', null],
    ['1,5 kg', 'es-ES', null],
    ['1e3', 'en-US', null],
    ['1,2,3', 'en-US', null],
    ['1.2,5', 'es-ES', null],
    ['1,23,456.7', 'en-US', null],
    ['.', 'en-US', null],
  ];
  for (const [text, locale, expected] of cases) assert.equal(parseDecimal(text, locale), expected, `${JSON.stringify(text)} in ${locale}`);
  assert.equal(formatDecimal(1.5, 'es-ES'), '1,5');
  assert.equal(formatDecimal(0.354, 'en-US'), '0.354');
  assert.equal(parseDecimal(formatDecimal(0.354, 'de-DE'), 'de-DE'), 0.354, 'what the desk writes it reads back');
});

test('a parcel nobody weighed makes no label; 1,5 typed on a Spanish desk is 1.5 kg on the printed label', async () => {
  // The browser is Spanish, the desk sets no language: the screens speak Spanish.
  const i18n = await importUiModule('i18n/index.svelte.ts');
  await i18n.setLanguage('es');
  const weigh = i18n.t('shipForm.weighTheParcel');
  const notAWeight = i18n.t('shipForm.notAWeight', { text: 'uno' });
  await i18n.setLanguage('en');
  const page = await deskPage('es-ES');
  for (const [k, v] of Object.entries(es('Ana Ruiz', '08001'))) await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
  assert.equal(await page.locator(weightField).inputValue(), '', 'no 1 kg start: the field is empty until weighed');
  const printed = printer.jobs.length;
  const error = page.locator('[data-error="shipment.parcels[0].weight.value"]');

  // Emptied weight, Ctrl+Enter: the error beside the field, the cursor in it, nothing made.
  await page.getByTestId('scan').focus();
  await page.keyboard.press('Control+Enter');
  await error.waitFor();
  assert.equal(await error.textContent(), weigh);
  assert.equal(await focused(page), 'shipment.parcels[0].weight.value', 'the cursor is in the weight field');
  await page.screenshot({ path: `${shots}/ship-weight-error-1366x768.png` });
  // 0 is no weight either; text that is not a number is named, never read as 0.
  await page.keyboard.type('0');
  await error.waitFor({ state: 'detached' });
  await page.keyboard.press('Control+Enter');
  await error.waitFor();
  assert.equal(await error.textContent(), weigh);
  await page.keyboard.press('Backspace');
  await page.keyboard.type('uno');
  await page.keyboard.press('Control+Enter');
  await error.filter({ hasText: notAWeight }).waitFor();
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await labelCount(), 0, 'no label was made');
  assert.equal(printer.jobs.length, printed, 'nothing reached the printer');

  // 1,5 with the Spanish decimal comma: 1.5 kg on the label the printer gets (not 15).
  await page.locator(weightField).press('Control+A');
  await page.keyboard.type('1,5');
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('tracking').waitFor();
  await waitFor(() => printer.jobs.length > printed, 'the label at the printer');
  const zpl = printer.jobs[printed].toString();
  assert.ok(zpl.includes((await page.getByTestId('tracking').textContent()).trim()), 'the label printed is the one made');
  assert.match(zpl, /WEIGHT 1\.50? kg/, 'the ZPL label says 1.5 kg (not 15)');
  // The next parcel starts unweighed: no weight kept from this one.
  assert.equal(await page.locator(weightField).inputValue(), '', 'the weight field is empty for the next parcel');
  assert.equal(await focused(page), 'scan');
  await page.close();
});

test('a weight far above the order’s asks first: Esc goes back to the field, Enter makes the label', async () => {
  await ok(api('POST', '/desk/orders', { orders: [{ order_number: 'FAR-1', ship_to: es('Luis Gil', '08001'), items: [{ description: 'Taza', quantity: 2, weight: { value: 0.4, unit: 'kg' } }] }] }));
  const page = await deskPage();
  await page.keyboard.type('FAR-1');
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Order FAR-1' }).waitFor();
  assert.equal(await page.locator(weightField).inputValue(), '0.8', 'the order gives its weight: 2 × 0.4 kg');
  const printed = printer.jobs.length;

  await page.locator(weightField).focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('55');
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('weight-question').waitFor();
  assert.equal(await page.getByTestId('weight-question').textContent(), 'Is 55 kg right?');
  assert.equal(await focused(page), 'weight-yes', 'Enter answers yes');
  await page.screenshot({ path: `${shots}/ship-weight-question-1366x768.png` });
  await page.keyboard.press('Escape');
  await page.getByTestId('weight-check').waitFor({ state: 'detached' });
  assert.equal(await focused(page), 'shipment.parcels[0].weight.value', 'Esc: back to the weight');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(printer.jobs.length, printed, 'no label yet');

  // Asked again and confirmed with Enter: the label says 55 kg.
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('weight-question').waitFor();
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Shipped FAR-1' }).waitFor();
  await waitFor(() => printer.jobs.length > printed, 'the label at the printer');
  assert.match(printer.jobs[printed].toString(), /WEIGHT 55 kg/);
  assert.equal(await page.locator(weightField).inputValue(), '');
  await page.close();
});

test('the scan station never jams: the field is emptied after every scan, each result has its colour and sound', async () => {
  await ok(api('PUT', '/desk/settings', { ship_on_scan: true, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await ok(api('POST', '/desk/orders', { orders: ['SCAN-1', 'SCAN-2'].map((n) => ({ order_number: n, ship_to: es(`Cliente ${n}`, '08001'), items: [{ description: 'Taza', quantity: 1 }] })) }));
  const page = await deskPage();
  const scan = page.getByTestId('scan');
  const note = page.getByTestId('scan-note');
  const printed = printer.jobs.length;
  const afterScan = async (code) => {
    assert.equal(await scan.inputValue(), '', `the field is empty after ${code}`);
    assert.equal(await focused(page), 'scan', `the cursor is in the scan field after ${code}`);
    assert.equal(await page.getByTestId('last-scan').textContent(), `Last scan: ${code}`);
  };

  // An unknown number: said in the error colour with the error's buzz; the field is emptied.
  await page.keyboard.type('#1001');
  await page.keyboard.press('Enter');
  await note.filter({ hasText: 'No open order has the number “#1001”.' }).waitFor();
  await afterScan('#1001');
  assert.equal(await note.getAttribute('data-kind'), 'error');
  assert.deepEqual(await tones(page), [180], 'the error sound');

  // The good order scanned next is read on its own (not appended to the last scan) and ships.
  await page.keyboard.type('SCAN-1');
  await page.keyboard.press('Enter');
  await note.filter({ hasText: 'Shipped SCAN-1' }).waitFor();
  await afterScan('SCAN-1');
  await waitFor(() => printer.jobs.length > printed, 'the label at the printer');
  assert.ok(printer.jobs[printed].toString().includes((await page.getByTestId('tracking').textContent()).trim()));
  assert.equal(await note.getAttribute('data-kind'), 'success');
  assert.deepEqual(await tones(page), [1320], 'the success sound');

  // Already shipped: a warning, in the warning colour (not the error's), with its two beeps.
  await page.keyboard.type('SCAN-1');
  await page.keyboard.press('Enter');
  await note.filter({ hasText: 'Order SCAN-1 is already shipped' }).waitFor();
  await afterScan('SCAN-1');
  assert.equal(await note.getAttribute('data-kind'), 'warning');
  const colour = (sel) => page.evaluate((s) => getComputedStyle(document.querySelector(s)).color, sel);
  assert.equal(await colour('[data-testid="scan-note"]'), 'rgb(125, 78, 0)', 'the warning colour');
  assert.deepEqual(await tones(page), [660, 660], 'the warning sound');
  await page.screenshot({ path: `${shots}/ship-scan-warning-1366x768.png` });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 1366, `no sideways scrolling (${width} px)`);

  // The sounds are a desk setting: off in Settings, a scan is silent.
  await page.locator('[data-nav="settings"]').click();
  await page.getByTestId('scan-sounds').uncheck();
  for (let i = 0; i < 100 && (await ok(api('GET', '/desk/settings'))).scan_sounds !== false; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal((await ok(api('GET', '/desk/settings'))).scan_sounds, false);
  const read = page.waitForResponse((r) => r.url().endsWith('/desk/settings'));
  await page.locator('[data-nav="ship"]').click();
  await read;
  await scan.waitFor();
  await scan.focus();
  await page.keyboard.type('SCAN-2');
  await page.keyboard.press('Enter');
  await note.filter({ hasText: 'Shipped SCAN-2' }).waitFor();
  await afterScan('SCAN-2');
  assert.deepEqual(await tones(page), [], 'no sound');
  await ok(api('PUT', '/desk/settings', { ship_on_scan: false, weight_unit: 'kg', dimension_unit: 'cm' }, desk.liveKey));
  await page.close();
});
