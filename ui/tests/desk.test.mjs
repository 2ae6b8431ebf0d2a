// The desk UI in a real browser (Debian's Chromium through playwright-core) against the real
// packdesk-server serving ui/dist on 127.0.0.1, with a fresh data folder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesk } from './support.mjs';

let desk;
const api = (...args) => desk.api(...args);

before(async () => {
  desk = await startDesk('packdesk-ui-');
});

after(() => desk?.stop());

test('a first start leads to a sandbox account, then ships with the keyboard and voids from history', async () => {
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  // The mode shows once the session is read (the button is empty until then).
  await page.getByTestId('env').filter({ hasText: /\S/ }).waitFor();
  assert.equal(await page.getByTestId('env').textContent(), 'SANDBOX');
  // Onboarding: the credential form comes from the carrier's fields.
  await page.getByTestId('onboard-carrier').selectOption('yodel');
  const carriers = (await api('GET', '/desk/carriers')).data.carriers;
  const yodel = carriers.find((c) => c.slug === 'yodel');
  for (const f of yodel.credential_fields) await page.locator(`[data-field="credentials.${f.name}"]`).fill(`test-${f.name}`);
  await page.getByTestId('onboard-create').click();
  // The Ship screen: the cursor is in the scan field; the selects offer what Yodel allows.
  await page.getByTestId('scan').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'scan');
  const options = async (id) => page.getByTestId(id).locator('option').evaluateAll((os) => os.map((o) => o.value));
  // Every service when asked for, by name (the route narrows the list: desk-views.test.mjs).
  await page.getByTestId('all-services').check();
  assert.deepEqual(await options('service'), [...yodel.service_types].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true })).map((s) => s.service_type));
  assert.deepEqual(await options('paper'), yodel.paper_sizes);
  assert.deepEqual(await options('file-type'), yodel.file_types ?? ['pdf']);
  // A wrong field gets its error beside it.
  const address = { contact_name: 'Jane Doe', street1: '22 High Street', city: 'Manchester', postal_code: 'M1 1AE', country: 'GBR' };
  const from = { contact_name: 'Packdesk Ltd', street1: '1 Dock Road', city: 'London', postal_code: 'E16 2AA', country: 'GBR' };
  for (const [k, v] of Object.entries(from)) await page.locator(`[data-field="shipment.ship_from.${k}"]`).fill(v);
  for (const [k, v] of Object.entries(address)) await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
  await page.locator('[data-field="shipment.ship_to.country"]').fill('XX');
  // The parcel weighed (the desk labels no parcel without a weight).
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('1.2');
  await page.getByTestId('scan').focus();
  await page.keyboard.type('ORDER-5001');
  await page.keyboard.press('Control+Enter');
  await page.locator('[data-error="shipment.ship_to.country"]').waitFor();
  // Fixed, then Ctrl+Enter again: the label is made, previewed, and the scan field is ready.
  await page.locator('[data-field="shipment.ship_to.country"]').fill('GBR');
  await page.getByTestId('scan').focus();
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('tracking').waitFor();
  const tracking = (await page.getByTestId('tracking').textContent()).trim();
  await page.getByTestId('preview').waitFor();
  assert.ok(await page.getByTestId('preview').evaluate((img) => img.complete && img.naturalWidth > 0));
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'scan');
  assert.equal(await page.getByTestId('scan').inputValue(), '');
  const found = (await api('GET', `/v3/labels?tracking_numbers=${tracking}`)).data.labels;
  assert.equal(found.length, 1);
  assert.deepEqual(found[0].references, ['ORDER-5001']);
  await page.screenshot({ path: join(tmpdir(), 'packdesk-ship.png'), fullPage: true });
  // History: find it by reference and void it.
  await page.getByRole('button', { name: 'History' }).click();
  await page.getByTestId('search').fill('ORDER-5001');
  await page.getByTestId('search').press('Enter');
  await page.getByTestId('row').first().waitFor();
  assert.equal(await page.getByTestId('row').count(), 1);
  // Void asks first: cancelled, nothing happens; confirmed, the label is voided.
  await page.getByTestId('void').click();
  await page.getByTestId('confirm-cancel').click();
  await page.getByTestId('confirm').waitFor({ state: 'detached' });
  assert.equal((await api('GET', `/v3/labels/${found[0].id}`)).data.status, 'created', 'cancelled: not voided');
  await page.getByTestId('void').click();
  await page.getByTestId('confirm-ok').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent === 'Voided');
  assert.equal((await api('GET', `/v3/labels/${found[0].id}`)).data.status, 'cancelled');
  assert.equal(await page.getByTestId('row').getByRole('button', { name: 'Reprint' }).count(), 0, 'a voided label offers no reprint');
  const reprint = await api('POST', '/desk/print', { label_id: found[0].id });
  assert.match(reprint.meta.details[0].info, /voided/, 'and the service refuses to print it');
});

test('a ZPL carrier offers ZPL, and only the paper sizes it allows', async () => {
  const tipsa = (await api('GET', '/desk/carriers')).data.carriers.find((c) => c.slug === 'tipsa');
  const creds = Object.fromEntries(tipsa.credential_fields.map((f) => [f.name, 'x']));
  const acct = await api('POST', '/v3/shipper-accounts', { slug: 'tipsa', description: 'A Tipsa desk', credentials: creds });
  assert.equal(acct.meta.code, 200);
  const page = await desk.browser.newPage();
  await page.goto(desk.base + '/');
  await page.getByTestId('account').selectOption(acct.data.id);
  const options = async (id) => page.getByTestId(id).locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(await options('file-type'), ['pdf', 'zpl']);
  assert.deepEqual(await options('paper'), tipsa.paper_sizes);
  await page.getByTestId('all-services').check();
  assert.deepEqual(await options('service'), [...tipsa.service_types].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true })).map((s) => s.service_type));
});
