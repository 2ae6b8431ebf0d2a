// Benchmark of scan to verify (issue 40) in Debian's Chromium against the real packdesk-server:
// with verify_items and ship_on_scan on and a ZPL preset, each order of 3 items (2 × A, 1 × B) is
// scanned, then its items. Measured: each item's scan (Enter) to its count on the packing list
// on screen, and the last item's scan to the label's last byte at a raw 9100 printer (a listener
// of this script's own); warm (page loaded once, the first 3 orders left out).
// `node ui/bench/pack.mjs [orders]` (after `npm run --prefix ui build` and a release server build).
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

const rounds = Number(process.argv[2] ?? 50);
const srv = await startServer('packdesk-packbench-');
const { base, key, live } = srv;
const call = async (method, path, body, k = key) => {
  const r = await fetch(base + path, { method, headers: { 'service-api-key': k, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const v = await r.json();
  if (v.meta.code !== 200) throw new Error(`${path}: ${JSON.stringify(v.meta)}`);
  return v.data;
};

const arrivals = [];
const printer = createServer((c) => c.on('data', () => {}).on('end', () => arrivals.push(performance.now())));
await new Promise((r) => printer.listen(0, '127.0.0.1', r));
const zebra = await call('POST', '/desk/printers', { name: 'Zebra', transport: 'raw', address: `127.0.0.1:${printer.address().port}`, format: 'zpl' }, live);
await call('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, live);
await call('PUT', '/desk/settings', { ship_on_scan: true, verify_items: true, weight_unit: 'kg', dimension_unit: 'cm' }, live);
const es = (name, postal) => ({ contact_name: name, street1: 'Calle Mayor 1', city: 'Madrid', postal_code: postal, country: 'ESP' });
const acct = await call('POST', '/v3/shipper-accounts', { slug: 'tipsa', description: 'Tipsa', credentials: { password: 'p', agency_code: '1', customer_code: '2', department_code: '3' } });
await call('POST', '/desk/presets', { name: 'Spain', shipper_account: { id: acct.id }, service_type: 'tipsa_10_horas', file_type: 'zpl', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true });
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
await browser.close();
printer.close();
srv.stop();
