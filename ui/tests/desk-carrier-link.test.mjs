// The carrier receives the day's data (issue 37), as an operator sets it up and checks it, in a
// real browser (Debian's Chromium) at 1366 x 768 against the real packdesk-server: Accounts sets
// the account's manifest transport (a folder here, the carrier's upload tool watching it) and
// "Save and test connection" says in words whether it is reachable; End of day shows each
// manifest's data as sent, or why not with "Send again", which sends it once the folder is there;
// the banner says a manifest has not reached its carrier until it has. An account can instead be
// served by an upstream label service (a second real packdesk-server here): the operator connects
// it, "Save and test connection" reads the account there, and the list says who makes its labels.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gb, ok, startDesk } from './support.mjs';

let desk, account, place;
const shots = process.env.SCREENSHOTS ?? '/tmp';

before(async () => {
  desk = await startDesk('packdesk-carrier-link-');
  account = await desk.account('yodel', 'Yodel desk');
  place = mkdtempSync(join(tmpdir(), 'packdesk-outbox-'));
});
after(async () => {
  await desk?.stop();
  if (place) rmSync(place, { recursive: true, force: true });
});

test('an operator sets the folder transport, tests it, and End of day sends the data once the folder is there', async () => {
  const outbox = join(place, 'outbox');
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="accounts"]').click();
  await page.getByTestId('edit-account').first().click();
  const form = page.getByTestId('manifest-transport');
  await form.locator('[data-field="settings.manifest_transport.kind"]').selectOption('folder');
  await form.locator('[data-field="settings.manifest_transport.path"]').fill('outbox');
  await form.getByTestId('save-transport').click();
  // A relative path is refused beside its field, in words.
  await form.locator('.err', { hasText: 'a full path' }).waitFor();
  await form.locator('[data-field="settings.manifest_transport.path"]').fill(outbox);
  await form.getByTestId('test-transport').click();
  const result = form.getByTestId('transport-result');
  await result.waitFor();
  assert.match(await result.textContent(), /Not reached: .*does not exist/);
  await page.screenshot({ path: join(shots, 'carrier-link-accounts.png') });

  // Labels, a close-out while the folder is missing: End of day says why and offers Send again.
  const l = await desk.label(account, 'yodel_std');
  await ok(desk.api('POST', '/v3/manifests', { shipper_account: { id: account } }));
  await page.locator('[data-nav="end-of-day"]').click();
  const cell = page.getByTestId('transmission').first();
  await cell.locator('text=/Not sent: .*does not exist/').waitFor({ timeout: 15000 });
  await page.getByTestId('desk-status').locator('text=/has not reached its carrier/').waitFor({ timeout: 15000 });
  await page.screenshot({ path: join(shots, 'carrier-link-end-of-day-failed.png') });

  mkdirSync(outbox);
  await cell.getByTestId('send-again').click();
  await cell.locator('text=/^Sent /').waitFor();
  const files = readdirSync(outbox);
  assert.equal(files.length, 1, `one file: ${files}`);
  assert.ok(readFileSync(join(outbox, files[0]), 'utf8').includes(l.tracking_numbers[0]), 'the label is in the data');
  assert.ok(!existsSync(join(outbox, `.${files[0]}.part`)));
  await page.screenshot({ path: join(shots, 'carrier-link-end-of-day-sent.png') });
  await page.close();
});

test('an operator connects an account to an upstream label service and tests it', async () => {
  const upstream = await startDesk('packdesk-upstream-');
  try {
    const remote = await upstream.account('yodel', 'Head office Yodel');
    const local = await desk.account('yodel', 'Yodel via head office');
    const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
    await page.goto(desk.base + '/');
    await page.locator('[data-nav="accounts"]').click();
    await page.getByTestId('account-row').filter({ hasText: 'Yodel via head office' }).getByTestId('edit-account').click();
    const form = page.getByTestId('account-connection');
    await form.locator('[data-field="settings.connection.kind"]').selectOption('upstream');
    await form.locator('[data-field="settings.connection.base_url"]').fill('labels.example.com');
    await form.getByTestId('save-connection').click();
    // Each missing or wrong field is named beside it, in words.
    await form.locator('.err', { hasText: 'a web address' }).waitFor();
    await form.locator('.err', { hasText: 'API key' }).waitFor();
    await form.locator('[data-field="settings.connection.base_url"]').fill(upstream.base + '/v3');
    await form.locator('[data-field="settings.connection.api_key"]').fill(upstream.key);
    await form.locator('[data-field="settings.connection.shipper_account_id"]').fill(remote);
    await form.getByTestId('test-connection').click();
    const result = form.getByTestId('connection-result');
    await result.waitFor();
    assert.match(await result.textContent(), /Connected to .*Head office Yodel.* is enabled/);
    await form.getByText('Set; leave empty to keep it.').waitFor();
    await page.screenshot({ path: join(shots, 'carrier-link-upstream.png') });

    // A label of the account is made upstream, and the list says who makes them.
    const made = await desk.api('POST', '/v3/labels', { service_type: 'yodel_std', shipper_account: { id: local }, shipment: { ship_from: gb('Packdesk Ltd', 'E16 2AA', 'London'), ship_to: gb('Jane Doe'), parcels: [{ weight: { value: 1, unit: 'kg' } }] } });
    if (made.meta.code !== 200) console.log(JSON.stringify(made.meta));
    const l = made.data;
    const there = await ok(upstream.api('GET', `/v3/labels?shipper_account_id=${remote}`));
    assert.deepEqual(there.labels.map((x) => x.tracking_numbers), [l.tracking_numbers]);
    await page.locator('[data-nav="today"]').click();
    await page.locator('[data-nav="accounts"]').click();
    const row = page.getByTestId('account-row').filter({ hasText: 'Yodel via head office' });
    assert.match(await row.getByTestId('numbers-left').textContent(), /made by 127\.0\.0\.1:\d+/);
    await page.close();
  } finally {
    await upstream.stop();
  }
});
