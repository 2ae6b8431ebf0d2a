// Printing as a desk lives it, in a real browser (Debian's Chromium) against the real
// packdesk-server, with one ZPL thermal printer (a raw port listener of the test's own): a PDF-only
// carrier's label prints on it as a raster whose barcode reads; a printer that is off shows as off,
// the job fails with its reason where the label was made, a notice says so wherever the desk is,
// and the label prints by itself once the printer is back. History offers every document.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ok, rawPrinter, startDesk } from './support.mjs';

let desk;
const api = (...args) => desk.api(...args);

before(async () => {
  desk = await startDesk('packdesk-printing-');
});
after(async () => {
  await desk?.stop();
});


/** What a ZPL printer prints from a ^GFA :Z64: label, read back as a PBM and decoded by zbarimg. */
function barcodeOfRaster(zpl) {
  const m = zpl.match(/\^GFA,(\d+),\d+,(\d+),:Z64:([A-Za-z0-9+/=]+):([0-9A-F]{4})/);
  assert.ok(m, `a compressed raster label: ${zpl.slice(0, 60)}`);
  const [, total, perRow, data] = m;
  const rows = inflateSync(Buffer.from(data, 'base64'));
  assert.equal(rows.length, Number(total));
  const dir = mkdtempSync(join(tmpdir(), 'raster-'));
  const file = join(dir, 'label.pbm');
  writeFileSync(file, Buffer.concat([Buffer.from(`P4\n${perRow * 8} ${total / perRow}\n`), rows]));
  try {
    return execFileSync('zbarimg', ['--quiet', '--raw', '-Sdisable', '-Scode128.enable', file]).toString().trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a PDF-only label on an off ZPL printer: off shown, failure with its reason, notice, printed by itself when it is back', async () => {
  const port = await freePort();
  const zebra = await ok(api('POST', '/desk/printers', { name: 'Zebra desk 1', transport: 'raw', address: `127.0.0.1:${port}`, format: 'zpl', dpi: 203 }, desk.liveKey));
  await ok(api('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, desk.liveKey));
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="printers"]').click();
  const row = page.getByTestId('printer-row').filter({ hasText: 'Zebra desk 1' });
  await row.getByTestId('printer-state').filter({ hasText: 'Off: printer 127.0.0.1' }).waitFor();

  // Yodel gives PDF only; the desk's one printer is ZPL.
  const yodel = await ok(api('POST', '/v3/shipper-accounts', { slug: 'yodel', description: 'Yodel', credentials: { identity: 'i', password: 'p', account_number: '1' } }));
  const uk = (name, postal) => ({ contact_name: name, street1: '1 High Street', city: 'London', postal_code: postal, country: 'GBR' });
  const label = await ok(api('POST', '/v3/labels', { service_type: 'yodel_hdn', shipper_account: { id: yodel.id }, shipment: { ship_from: uk('Warehouse', 'E16 2AA'), ship_to: uk('Jane Doe', 'M1 1AE'), parcels: [{ weight: { value: 1, unit: 'kg' } }] } }));
  assert.equal(label.files.label.file_type, 'pdf');

  // Wherever the desk is, a notice says the label did not print, and why.
  await page.getByTestId('print-alert').filter({ hasText: 'refused' }).waitFor({ timeout: 15000 });
  // History shows the label's documents and its print job failed, with the reason in words.
  await page.locator('[data-nav="history"]').click();
  const labelRow = page.getByTestId('row').filter({ hasText: label.tracking_numbers[0] });
  await labelRow.getByTestId('documents').click();
  const docs = page.getByTestId('documents-row');
  await docs.getByTestId('document-label').waitFor();
  await docs.locator('[data-testid="print-job"][data-status="failed"]').getByTestId('print-job-error').filter({ hasText: 'refused' }).waitFor();

  // The printer comes back: the desk prints the label by itself (the worker retries every 15 s).
  const printer = await rawPrinter(port);
  const jobs = printer.jobs;
  try {
    await docs.locator('[data-testid="print-job"][data-status="printed"]').waitFor({ timeout: 40000 });
    await page.getByTestId('print-alerts').waitFor({ state: 'detached', timeout: 10000 });
    assert.equal(jobs.length, 1, 'printed once');
    const zpl = jobs[0].toString();
    assert.ok(zpl.startsWith('^XA\n^CI28\n^PW812\n^LL1218'), 'a 4x6 raster at 203 dpi in UTF-8 mode');
    assert.equal(barcodeOfRaster(zpl), label.tracking_numbers[0], 'the printed barcode reads as the tracking number');
    // Printing it again from History: the desk counts it printed.
    await docs.getByTestId('print-document').first().click();
    await page.getByTestId('history-message').filter({ hasText: 'Sent to the printer.' }).waitFor();
    await page.locator('[data-nav="printers"]').click();
    await page.getByTestId('printer-row').filter({ hasText: 'Zebra desk 1' }).getByTestId('printer-state').filter({ hasText: 'Ready' }).waitFor();
  } finally {
    printer.close();
    await page.close();
  }
});
