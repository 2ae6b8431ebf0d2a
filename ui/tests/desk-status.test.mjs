// Pausing the desk's printing from the Printers screen, as an operator reloading labels does: new
// labels wait (the banner on every screen says how many), Resume in the banner prints them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rawPrinter, startDesk } from './support.mjs';

let desk, printer;

before(async () => {
  desk = await startDesk('packdesk-status-');
  printer = await rawPrinter();
  const yodel = (await desk.api('GET', '/desk/carriers')).data.carriers.find((c) => c.slug === 'yodel');
  const credentials = Object.fromEntries(yodel.credential_fields.map((f) => [f.name, `test-${f.name}`]));
  const account = await desk.api('POST', '/v3/shipper-accounts', { slug: 'yodel', description: 'Yodel desk', credentials, timezone: 'Europe/London' });
  assert.equal(account.meta.code, 200, JSON.stringify(account.meta));
  desk.account = account.data.id;
  const zebra = await desk.api('POST', '/desk/printers', { name: 'Zebra desk 1', transport: 'raw', address: `127.0.0.1:${printer.port}`, format: 'zpl' }, desk.liveKey);
  const profile = await desk.api('PUT', '/desk/print-profiles/label', { printer_id: zebra.data.id, stock: '4x6', auto_print: true }, desk.liveKey);
  assert.equal(profile.meta.code, 200, JSON.stringify(profile.meta));
});

after(() => {
  printer?.close();
  desk?.stop();
});

const address = (name, postal) => ({ contact_name: name, street1: '1 Test Street', city: 'Testville', postal_code: postal, country: 'GBR' });
const label = () =>
  desk.api('POST', '/v3/labels', {
    service_type: 'yodel_std',
    shipper_account: { id: desk.account },
    shipment: { ship_from: address('Sender Co', 'E16 2AA'), ship_to: address('Jane Doe', 'M1 1AE'), parcels: [{ weight: { value: 1, unit: 'kg' } }] },
  });

test('paused printing holds the labels made meanwhile and the banner resumes them', async () => {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  assert.equal(await page.getByTestId('desk-status').count(), 0, 'a ready desk shows no banner');
  await page.locator('[data-nav="printers"]').click();
  await page.getByTestId('pause-printing').click();
  await page.getByTestId('desk-status-message').getByText('Printing paused: 0 print jobs waiting').waitFor();

  // Labels made at the desk or by a warehouse system while paused wait, on any screen.
  await page.locator('[data-nav="history"]').click();
  assert.equal((await label()).meta.code, 200);
  assert.equal((await label()).meta.code, 200);
  await page.getByTestId('desk-status-message').getByText('Printing paused: 2 print jobs waiting').waitFor();
  assert.equal(printer.jobs.length, 0, 'nothing reached the printer');

  await page.locator('[data-nav="printers"]').click();
  await page.getByTestId('resume-printing').click();
  await page.getByTestId('desk-status').waitFor({ state: 'detached' });
  // The Printers screen follows the banner's Resume.
  await page.getByTestId('pause-printing').getByText('Pause printing').waitFor();
  for (let i = 0; i < 100 && printer.jobs.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(printer.jobs.length, 2, 'both labels printed once resumed');
  assert.match(printer.jobs[0].toString(), /\^XA/);
  await page.close();
});
