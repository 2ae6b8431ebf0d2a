// The desk's USB scale in a real browser against the real packdesk-server. The scale itself is
// not on this machine: a FIFO stands in for its /dev/hidrawN and gets the 6-byte HID reports a
// Dymo or Mettler postal scale sends (report id 3, status, unit, exponent, weight LE).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, writeSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesk } from './support.mjs';

let desk, dir, device;
const report = (status, unit, exponent, raw) => Buffer.from([3, status, unit, exponent & 0xff, raw & 0xff, raw >> 8]);
const STABLE = 4, MOTION = 3, G = 2, OZ = 11;

before(async () => {
  desk = await startDesk('packdesk-scale-');
  // A desk with an account opens on Ship (a first start asks for one).
  const yodel = (await desk.api('GET', '/desk/carriers')).data.carriers.find((c) => c.slug === 'yodel');
  const credentials = Object.fromEntries(yodel.credential_fields.map((f) => [f.name, `test-${f.name}`]));
  const made = await desk.api('POST', '/v3/shipper-accounts', { slug: 'yodel', description: 'Yodel desk', credentials, timezone: 'Europe/London' });
  assert.equal(made.meta.code, 200, JSON.stringify(made.meta));
  dir = mkdtempSync(join(tmpdir(), 'packdesk-hidraw-'));
  device = join(dir, 'hidraw4');
  execFileSync('mkfifo', [device]);
});

after(() => {
  desk?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the operator sets the scale in Settings, Ship shows the live weight and F2 or the desk takes it', async () => {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  await page.locator('[data-nav="settings"]').click();
  await page.getByTestId('scale-mode').selectOption('device');
  await page.getByTestId('scale-device').fill(device);
  await page.getByTestId('scale-device').press('Tab');
  await page.getByText('Scale saved.').waitFor();
  const fd = openSync(device, 'w'); // the scale is plugged in
  await page.getByTestId('scale-state').getByText('Connected, waiting for a reading').waitFor();

  await page.locator('[data-nav="ship"]').click();
  const weight = page.locator('[data-field="shipment.parcels[0].weight.value"]');
  const reading = page.getByTestId('scale-reading');
  // 12.5 oz, settled: shown at once, taken only once the scale repeats it.
  writeSync(fd, report(STABLE, OZ, -1, 125));
  await page.getByTestId('scale-message').getByText('waiting for the scale to repeat it').waitFor();
  assert.match(await reading.textContent(), /12\.5 oz/);
  assert.ok(await page.getByTestId('take-weight').isDisabled(), 'an unconfirmed weight is not taken');
  writeSync(fd, report(STABLE, OZ, -1, 125));
  await page.locator('[data-testid="scale"][data-stable="true"]').waitFor();
  await weight.fill('1');
  await page.keyboard.press('F2');
  assert.equal(await weight.inputValue(), '0.354', '12.5 oz in the desk unit (kg)');
  // In motion: shown, not takeable.
  writeSync(fd, report(MOTION, G, 0, 800));
  await reading.getByText('Settling').waitFor();
  assert.ok(await page.getByTestId('take-weight').isDisabled());
  await page.getByTestId('take-weight').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${process.env.SCREENSHOTS ?? '/tmp'}/ship-scale-1366x768.png` });

  // With the setting on, each new stable weight goes into the parcel by itself.
  const settings = (await desk.api('GET', '/desk/settings')).data;
  await desk.api('PUT', '/desk/settings', { ...settings, scale_auto_weight: true }, desk.liveKey);
  await page.reload();
  await page.getByTestId('scan').waitFor();
  writeSync(fd, report(STABLE, G, 0, 1500));
  await page.waitForFunction(() => document.querySelector('[data-field="shipment.parcels[0].weight.value"]')?.value === '1.5');
  // A weight the operator types stays while the scale says the same.
  await weight.fill('2');
  writeSync(fd, report(STABLE, G, 0, 1500));
  await page.waitForTimeout(400);
  assert.equal(await weight.inputValue(), '2');

  closeSync(fd); // unplugged
  await reading.getByText('Not connected').waitFor();
  assert.match(await page.getByTestId('scale-message').textContent(), /disconnected/);
  await page.close();
});
