// How long a stable weight takes from the scale's report to the Ship screen: the real server
// reads a FIFO standing in for /dev/hidrawN (no scale on this machine), Debian's Chromium shows
// the Ship screen; each sample writes a new stable weight and waits for its text on the screen.
//   PACKDESK_SERVER_BIN=target/release/packdesk-server node ui/bench/scale-latency.mjs [samples]  (default 50)
// Needs ui/dist (npm run --prefix ui build); without PACKDESK_SERVER_BIN, target/debug/packdesk-server.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, writeSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesk } from '../tests/support.mjs';

const samples = Number(process.argv[2] ?? 50);
const desk = await startDesk('packdesk-scale-bench-');
const dir = mkdtempSync(join(tmpdir(), 'packdesk-hidraw-'));
const device = join(dir, 'hidraw0');
execFileSync('mkfifo', [device]);
try {
  // A desk with an account opens on Ship (a first start asks for one).
  const yodel = (await desk.api('GET', '/desk/carriers')).data.carriers.find((c) => c.slug === 'yodel');
  const credentials = Object.fromEntries(yodel.credential_fields.map((f) => [f.name, `test-${f.name}`]));
  await desk.api('POST', '/v3/shipper-accounts', { slug: 'yodel', description: 'Yodel desk', credentials, timezone: 'Europe/London' });
  await desk.api('PUT', '/desk/scale', { device }, desk.liveKey);
  const fd = openSync(device, 'w');
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  const report = (grams) => Buffer.from([3, 4, 2, 0, grams & 0xff, grams >> 8]);
  writeSync(fd, report(1000));
  writeSync(fd, report(1000)); // the first reading counts once repeated
  await page.locator('[data-testid="scale"][data-stable="true"]').waitFor();
  const times = [];
  for (let i = 0; i < samples; i++) {
    const grams = 1001 + i;
    // Reports come at random moments relative to the screen's polling, as on a desk.
    await new Promise((r) => setTimeout(r, Math.random() * 100));
    const start = performance.now();
    writeSync(fd, report(grams));
    await page.waitForFunction((w) => document.querySelector('[data-testid="scale-reading"]')?.textContent?.includes(`${w} g`), grams, { polling: 'raf' });
    times.push(performance.now() - start);
  }
  closeSync(fd);
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(0);
  console.log(`scale report -> Ship screen, ${samples} samples: median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${times.at(-1).toFixed(0)} ms (goal: 300 ms)`);
} finally {
  await desk.stop();
  rmSync(dir, { recursive: true, force: true });
}
