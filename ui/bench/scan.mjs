// Benchmark of the scan station in Debian's Chromium against the real packdesk-server: with
// ship_on_scan on and a ZPL preset, from Enter after a scanned order number to the label's last
// byte at a raw 9100 printer (a listener of this script's own), warm (page loaded once).
// `node ui/bench/scan.mjs [orders]` (after `npm run --prefix ui build` and a release server build).
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

const rounds = Number(process.argv[2] ?? 100);
const srv = await startServer('packdesk-scanbench-');
const { base, key, live } = srv;
const call = async (method, path, body, k = key) => {
  const r = await fetch(base + path, { method, headers: { 'service-api-key': k, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const v = await r.json();
  if (v.meta.code !== 200) throw new Error(`${path}: ${JSON.stringify(v.meta)}`);
  return v.data;
};

// The printer: when each label's last byte arrived.
const arrivals = [];
const printer = createServer((c) => c.on('data', () => {}).on('end', () => arrivals.push(performance.now())));
await new Promise((r) => printer.listen(0, '127.0.0.1', r));
const zebra = await call('POST', '/desk/printers', { name: 'Zebra', transport: 'raw', address: `127.0.0.1:${printer.address().port}`, format: 'zpl' }, live);
await call('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, live);
await call('PUT', '/desk/settings', { ship_on_scan: true, weight_unit: 'kg', dimension_unit: 'cm' }, live);
const es = (name, postal) => ({ contact_name: name, street1: 'Calle Mayor 1', city: 'Madrid', postal_code: postal, country: 'ESP' });
const acct = await call('POST', '/v3/shipper-accounts', { slug: 'tipsa', description: 'Tipsa', credentials: { password: 'p', agency_code: '1', customer_code: '2', department_code: '3' } });
await call('POST', '/desk/presets', { name: 'Spain', shipper_account: { id: acct.id }, service_type: 'tipsa_10_horas', file_type: 'zpl', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true });
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
await browser.close();
printer.close();
srv.stop();
