// Choosing the warehouse's shared database in Settings, in a real browser (Debian's Chromium)
// against the real packdesk-server and a database of the test cluster (tests/postgres.sh,
// PACKDESK_TEST_POSTGRES): checked when saved, in use once the desk starts again, the join code
// shown for the next desk; an address that does not answer is refused where it was typed; the
// CA file of a database serving TLS is taken beside the address.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesk } from './support.mjs';

const cluster = process.env.PACKDESK_TEST_POSTGRES;
const folder = mkdtempSync(join(tmpdir(), 'packdesk-database-'));
let desk;
after(async () => {
  await desk?.stop();
  rmSync(folder, { recursive: true, force: true });
});

test('Settings moves a desk onto the shared database for its next start, and says so', async () => {
  assert.ok(cluster, 'PACKDESK_TEST_POSTGRES: run with the README test command');
  const name = `ui_settings_${process.pid}`;
  execFileSync('psql', [cluster, '-q', '-c', `CREATE DATABASE ${name}`]);
  // The address as a warehouse writes it, with a password (trust ignores it; Settings hides it).
  const url = cluster.replace('postgres@', 'postgres:s3cret@').replace(/\/postgres$/, `/${name}`);

  desk = await startDesk('', { dataDir: folder });
  let page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="settings"]').click();
  await page.getByTestId('database-now').filter({ hasText: 'keeps its records in its data folder' }).waitFor();

  // A database that does not answer is refused, nothing saved.
  await page.getByTestId('database-url').fill('postgres://nobody@127.0.0.1:1/none');
  await page.getByTestId('database-save').click();
  await page.getByTestId('settings-message').filter({ hasText: 'url' }).waitFor();
  assert.equal(await page.getByTestId('database-next').count(), 0);

  // The warehouse's CA file, mistyped: said beside its field, nothing saved; then the right one
  // (the test cluster serves TLS for 127.0.0.1 from a CA of the run's own): checked in full.
  await page.getByTestId('database-url').fill(url);
  await page.getByTestId('database-ca').fill('/nonexistent/warehouse-ca.crt');
  await page.getByTestId('database-save').click();
  const caField = page.locator('label.field', { has: page.getByTestId('database-ca') });
  await caField.locator('[role="alert"]').filter({ hasText: 'cannot be read' }).waitFor();
  assert.equal(await page.getByTestId('database-next').count(), 0);
  await page.getByTestId('database-ca').fill(process.env.PACKDESK_TEST_POSTGRES_CA);
  await page.getByTestId('database-desk').fill('Desk 7');
  await page.getByTestId('database-save').click();
  await page.getByTestId('settings-message').filter({ hasText: 'when it starts again' }).waitFor();
  const next = await page.getByTestId('database-next').textContent();
  assert.ok(next.includes(`/${name}`) && !next.includes('s3cret'), next);
  assert.ok(next.includes('sslmode=verify-full'), next);
  // "Restart now": packdesk-server (no desktop app around it) says who restarts it.
  await page.getByTestId('database-restart').click();
  await page.getByTestId('confirm-ok').click(); // it asks first
  await page.getByTestId('settings-message').filter({ hasText: 'restarted by whoever runs it' }).waitFor();
  const still = await desk.api('GET', '/desk/database');
  assert.equal(still.data.restart_needed, true, 'the server still runs, on its data folder');
  await page.close();
  await desk.stop();

  // Started again on the same folder (no --database): the desk is on the shared database.
  desk = await startDesk('', { dataDir: folder });
  page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="settings"]').click();
  const now = page.getByTestId('database-now');
  await now.filter({ hasText: 'Desk 7 on the warehouse' }).waitFor();
  assert.ok(!(await now.textContent()).includes('s3cret'), 'the password is never shown');
  await now.getByRole('button', { name: 'Show' }).click();
  assert.match(await page.getByTestId('join-code').textContent(), /^[0-9a-f]{64}$/);
  await page.getByTestId('database-now').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/settings-database.png` });
  const r = await desk.api('GET', '/desk/database');
  assert.equal(r.data.shared, true);
  assert.equal(r.data.desk, 'Desk 7');
  await page.close();
});
