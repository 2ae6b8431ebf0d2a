// Benchmark of the scan station in Debian's Chromium against the real packdesk-server: with
// ship_on_scan on and a ZPL preset, from Enter after a scanned order number to the label's last
// byte at a raw 9100 printer (a listener of this script's own), warm (page loaded once).
// `node ui/bench/scan.mjs [orders]` (after `npm run --prefix ui build` and a release server build).
import { chromium } from 'playwright-core';
import { scanDesk } from './server.mjs';

const rounds = Number(process.argv[2] ?? 100);
const { base, call, arrivals, es, stop } = await scanDesk('packdesk-scanbench-', { ship_on_scan: true });
const orders = Array.from({ length: rounds + 3 }, (_, i) => ({ order_number: `SCAN-${i}`, ship_to: es(`Cliente ${i}`, '08001'), items: [{ description: 'Taza', quantity: 1 }] }));
await call('POST', '/desk/orders', { orders });

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage();
await page.goto(base + '/');
await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan');
const times = [];
for (let i = 0; i < rounds + 3; i++) {
  await page.keyboard.type(`SCAN-${i}`);
  const before = arrivals.length;
  const t = performance.now();
  await page.keyboard.press('Enter');
  while (arrivals.length === before) await new Promise((r) => setTimeout(r, 1));
  if (i >= 3) times.push(arrivals[before] - t); // the first three warm up
  await page.getByTestId('scan-note').filter({ hasText: `Shipped SCAN-${i}` }).waitFor();
}
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.ceil(times.length * p) - 1)];
console.log(`scan (Enter) to label at the printer  median ${at(0.5).toFixed(0)} ms  p99 ${at(0.99).toFixed(0)} ms  worst ${times[times.length - 1].toFixed(0)} ms  (${rounds} orders)`);
// What `.ci/bench` reads.
console.log(`BENCH scan_to_label_median_ms=${at(0.5).toFixed(1)}`);
console.log(`BENCH scan_to_label_p99_ms=${at(0.99).toFixed(1)}`);
await browser.close();
stop();
