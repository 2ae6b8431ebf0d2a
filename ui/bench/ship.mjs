// Benchmark of the desk UI in Debian's Chromium against the real packdesk-server: cold page load
// to the Ship screen ready (scan field focused), and Ctrl+Enter to the label preview shown.
// `node ui/bench/ship.mjs [rounds]` (after `npm run --prefix ui build` and a server build).
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

const rounds = Number(process.argv[2] ?? 20);
const srv = await startServer('packdesk-uibench-');
const { base, key } = srv;
await fetch(base + '/v3/shipper-accounts', {
  method: 'POST',
  headers: { 'service-api-key': key, 'content-type': 'application/json' },
  body: JSON.stringify({ slug: 'yodel', description: 'Yodel desk', credentials: { identity: 'i', password: 'p', account_number: '1' },
    address: { contact_name: 'Packdesk Ltd', street1: '1 Dock Road', city: 'London', postal_code: 'E16 2AA', country: 'GBR' } }),
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loads = [];
const ships = [];
for (let i = 0; i < rounds; i++) {
  const page = await browser.newPage();
  const t0 = performance.now();
  await page.goto(base + '/');
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'scan');
  loads.push(performance.now() - t0);
  const to = { contact_name: 'Jane Doe', street1: '22 High Street', city: 'Manchester', postal_code: 'M1 1AE', country: 'GBR' };
  for (const [k, v] of Object.entries(to)) await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
  // The desk labels weighed parcels only: the operator types (or the scale gives) the weight.
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('1,2');
  await page.getByTestId('scan').focus();
  await page.keyboard.type(`BENCH-${i}`);
  const t1 = performance.now();
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('preview').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="preview"]')?.complete);
  ships.push(performance.now() - t1);
  await page.close();
}
console.log(`page load to Ship screen ready  median ${median(loads).toFixed(0)} ms  worst ${Math.max(...loads).toFixed(0)} ms  (${rounds} rounds)`);
console.log(`Ctrl+Enter to preview shown     median ${median(ships).toFixed(0)} ms  worst ${Math.max(...ships).toFixed(0)} ms`);
await browser.close();
srv.stop();
