// The carrier receives the day's data (issue 37), as an operator sets it up and checks it, in a
// real browser (Debian's Chromium) at 1366 x 768 against the real packdesk-server: Accounts sets
// the account's manifest transport (a folder here, the carrier's upload tool watching it) and
// "Save and test connection" says in words whether it is reachable; End of day shows each
// manifest's data as sent, or why not with "Send again", which sends it once the folder is there;
// the banner says a manifest has not reached its carrier until it has.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, startDesk } from './support.mjs';

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
