// How other machines reach the desk (issue 39), in Settings at 1366 x 768, keyboard only: a desk
// serving HTTPS with the warehouse's certificate shows its fingerprint (the one openssl computes)
// and gives the certificate file for a WMS's trusted certificates; a desk on this machine only
// says so and how to open it to the network, and when its last daily backup was made.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesk } from './support.mjs';

const shots = process.env.SCREENSHOTS ?? '/tmp';
const desks = [];
const pki = mkdtempSync(join(tmpdir(), 'packdesk-https-'));
after(async () => {
  for (const d of desks) await d.stop();
  rmSync(pki, { recursive: true, force: true });
});

async function settings(desk) {
  await desk.account('yodel', 'Yodel desk');
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  await page.keyboard.press('Alt+9');
  await page.getByTestId('https').waitFor();
  return page;
}

test("Settings shows the certificate other machines are served, and gives its file", async () => {
  const cert = join(pki, 'desk.crt');
  const key = join(pki, 'desk.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '365', '-subj', '/CN=desk-3.warehouse.lan', '-addext', 'subjectAltName=DNS:desk-3.warehouse.lan,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const fingerprint = execFileSync('openssl', ['x509', '-in', cert, '-noout', '-fingerprint', '-sha256']).toString().trim().split('=')[1];
  const desk = await startDesk('packdesk-https-', { args: ['--tls-cert', cert, '--tls-key', key] });
  desks.push(desk);
  const page = await settings(desk);
  const shown = page.getByTestId('https');
  await shown.scrollIntoViewIfNeeded();
  assert.equal((await page.getByTestId('https-fingerprint').textContent()).trim(), fingerprint);
  const text = (await shown.textContent()).replace(/\s+/g, ' ');
  assert.match(text, /over HTTPS, with the warehouse's certificate/);
  assert.match(text, /desk-3\.warehouse\.lan, 127\.0\.0\.1/);
  assert.match(await page.getByTestId('https-url').textContent(), /^https:\/\/127\.0\.0\.1:\d+$/);
  await page.screenshot({ path: `${shots}/https-settings-1366x768.png` });
  await page.getByTestId('https-download').focus();
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  assert.equal(download.suggestedFilename(), 'packdesk-desk.crt');
  assert.equal(readFileSync(await download.path(), 'utf8'), readFileSync(cert, 'utf8'));
  await page.close();
});

test('a desk on this machine only says so, and how to open it to the network', async () => {
  const desk = await startDesk('packdesk-local-');
  desks.push(desk);
  const page = await settings(desk);
  const text = await page.getByTestId('https-local').textContent();
  assert.match(text, /answers this machine only/);
  assert.match(text, /--listen 0\.0\.0\.0:4780/);
  assert.equal(await page.getByTestId('https-download').count(), 0);
  // The Backups section says when the last daily backup was made, as the desk lists them.
  const listed = (await desk.api('GET', '/desk/backups', undefined, desk.liveKey)).data.backups;
  const said = (await page.getByTestId('last-backup').textContent()).replace(/\s+/g, ' ');
  if (listed.length) assert.match(said, new RegExp(`Last backup: .*\\(${listed.length} kept\\)`));
  else assert.match(said, /No backup made yet/);
  await page.getByTestId('last-backup').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/settings-backups-1366x768.png` });
  await page.close();
});
