// Benchmark of scan to verify (issue 40) in Debian's Chromium against the real packdesk-server:
// with verify_items and ship_on_scan on and a ZPL preset, each order of 3 items (2 × A, 1 × B) is
// scanned, then its items. Measured: each item's scan (Enter) to its count on the packing list
// on screen, and the last item's scan to the label's last byte at a raw 9100 printer (a listener
// of this script's own); warm (page loaded once, the first 3 orders left out).
// `node ui/bench/pack.mjs [orders]` (after `npm run --prefix ui build` and a release server build).
import { chromium } from 'playwright-core';
import { scanDesk } from './server.mjs';

const rounds = Number(process.argv[2] ?? 50);
const { base, call, arrivals, es, stop } = await scanDesk('packdesk-packbench-', { ship_on_scan: true, verify_items: true });
const items = [
  { description: 'Taza', quantity: 2, sku: 'TAZA-A', barcode: '8412345678905' },
  { description: 'Plato', quantity: 1, sku: 'PLATO-B' },
];
const orders = Array.from({ length: rounds + 3 }, (_, i) => ({ order_number: `PACK-${i}`, ship_to: es(`Cliente ${i}`, '08001'), items }));
await call('POST', '/desk/orders', { orders });

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
await page.goto(base + '/');
await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan');
const itemTimes = [];
const labelTimes = [];
const scan = async (code) => {
  await page.keyboard.type(code);
  const t = performance.now();
  await page.keyboard.press('Enter');
  return t;
};
for (let i = 0; i < rounds + 3; i++) {
  await scan(`PACK-${i}`);
  await page.locator('[data-testid="packing"]').waitFor();
  for (const [code, line, count] of [['8412345678905', 1, 1], ['PLATO-B', 2, 1]]) {
    const t = await scan(code);
    await page.waitForFunction(([l, n]) => document.querySelector(`[data-testid="pack-line"][data-line="${l}"]`)?.getAttribute('data-packed') === String(n), [line, count], { polling: 'raf' });
    if (i >= 3) itemTimes.push(performance.now() - t);
  }
  const before = arrivals.length;
  const t = await scan('8412345678905'); // the last item: complete, and shipped on scan
  while (arrivals.length === before) await new Promise((r) => setTimeout(r, 1));
  if (i >= 3) labelTimes.push(arrivals[before] - t);
  await page.getByTestId('scan-note').filter({ hasText: `Shipped PACK-${i}` }).waitFor();
}
const at = (xs, p) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * p) - 1)].toFixed(0);
console.log(`item scan to the packing list on screen  median ${at(itemTimes, 0.5)} ms  p95 ${at(itemTimes, 0.95)} ms  (${itemTimes.length} scans; goal p95 50 ms)`);
console.log(`last item's scan to the label at the printer  median ${at(labelTimes, 0.5)} ms  p95 ${at(labelTimes, 0.95)} ms  (${labelTimes.length} orders; goal median 150 ms)`);
// What `.ci/bench` reads.
console.log(`BENCH item_scan_p95_ms=${at(itemTimes, 0.95)}`);
console.log(`BENCH last_item_to_label_median_ms=${at(labelTimes, 0.5)}`);
await browser.close();
stop();
