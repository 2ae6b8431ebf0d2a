// People at the desk (issue 38), keyboard only, in a real browser (Debian's Chromium) at
// 1366 x 768 against the real packdesk-server: a packer signs in with their badge, ships an
// order by scanning it, and finds no Void (the API refuses it too); a supervisor's badge scanned
// into the scan field, and her PIN, take over and void the label; Today counts each operator's
// work; the audit log names each step's operator; Switch operator (Alt+O) hands the desk back; the
// desk signs an idle operator out. An admin makes a named integration key in Settings, shown once.
// No answer the page receives holds an API key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ok, startDesk } from './support.mjs';

let desk;
const shots = process.env.SCREENSHOTS ?? '/tmp';
const es = (name, postal) => ({ contact_name: name, street1: 'Calle Mayor 1', city: 'Madrid', postal_code: postal, country: 'ESP' });

before(async () => {
  desk = await startDesk('packdesk-people-');
  const tipsa = await desk.account('tipsa', 'TIPSA desk');
  const api = (m, p, b) => ok(desk.api(m, p, b, desk.liveKey));
  await ok(desk.api('POST', '/desk/presets', { name: 'Spain', shipper_account: { id: tipsa }, service_type: 'tipsa_10_horas', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true }));
  await ok(desk.api('POST', '/desk/orders', { orders: [{ order_number: 'PO-1', ship_to: es('Cliente PO-1', '08001'), items: [{ description: 'Taza', quantity: 1, sku: 'TAZA-1' }] }] }));
  await api('POST', '/desk/operators', { name: 'Ada Admin', code: 'B-ADA', role: 'admin', pin: '1357' });
  await api('POST', '/desk/operators', { name: 'Sue Supervisor', code: 'B-SUE', role: 'supervisor', pin: '2468' });
  await api('POST', '/desk/operators', { name: 'Pat Packer', code: 'B-PAT', role: 'packer' });
  await api('PUT', '/desk/settings', { ship_on_scan: true, require_sign_in: true, idle_sign_out_minutes: 2 });
});
after(async () => {
  await desk?.stop();
});

/** Signs in at the sign-in screen by typing the badge (and PIN) and Enter, as a scanner would. */
async function badge(page, code, pin) {
  await page.getByTestId('badge').waitFor();
  const started = Date.now();
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  if (pin) {
    await page.getByTestId('pin').waitFor();
    await page.keyboard.type(pin);
    await page.keyboard.press('Enter');
  }
  await page.getByTestId('operator').waitFor();
  return Date.now() - started;
}

test('a packer ships and cannot void; a supervisor takes over by badge and PIN and voids; the log says who; idle signs out', async () => {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.clock.install();
  const bodies = [];
  page.on('response', async (r) => bodies.push(await r.text().catch(() => '')));
  await page.goto(desk.base + '/');
  await page.getByTestId('sign-in').waitFor();
  await page.screenshot({ path: `${shots}/people-sign-in-1366x768.png` });
  // An unknown badge signs nobody in, says so, and the field is ready for the next scan.
  await page.keyboard.type('B-NOBODY');
  await page.keyboard.press('Enter');
  await page.getByTestId('sign-in-message').filter({ hasText: 'no operator has this badge' }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'badge');

  const took = await badge(page, 'B-PAT');
  console.log(`# badge scan to signed in: ${took} ms (the page's own clock)`);
  assert.equal(await page.getByTestId('operator').textContent(), 'Pat Packer');
  // The scan station: the order's number and Enter make its label.
  await page.getByTestId('scan').waitFor();
  await page.keyboard.type('PO-1');
  await page.keyboard.press('Enter');
  await page.getByTestId('scan-note').filter({ hasText: 'Shipped PO-1' }).waitFor();
  const label = (await ok(desk.api('GET', '/v3/labels?limit=1'))).labels[0];
  // History: the label says who made it; no Void for a packer, and the API refuses it too.
  await page.keyboard.press('Alt+3');
  const row = page.getByTestId('row').first();
  await row.getByTestId('made-by').filter({ hasText: 'by Pat Packer' }).waitFor();
  assert.equal(await row.getByTestId('void').count(), 0, 'a packer finds no Void');
  const refused = await page.evaluate(async (id) => {
    const token = sessionStorage.getItem('packdesk.token');
    const r = await fetch('/v3/cancel-labels', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ label: { id } }) });
    return [r.status, await r.json()];
  }, label.id);
  assert.equal(refused[0], 403, JSON.stringify(refused[1]));
  assert.match(refused[1].meta.details[0].info, /only a supervisor or an admin may do this/);
  await page.screenshot({ path: `${shots}/people-packer-history-1366x768.png` });

  // Orders (Alt+2): the order says who shipped it.
  await page.keyboard.press('Alt+2');
  await page.getByTestId('orders-status').selectOption('shipped');
  await page.getByTestId('order-row').filter({ hasText: 'PO-1' }).getByTestId('order-shipped-by').filter({ hasText: 'by Pat Packer' }).waitFor();

  // The supervisor scans her badge into the scan field (Ship): she takes over; her PIN is asked.
  await page.keyboard.press('Alt+1');
  await page.getByTestId('scan').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'scan');
  await page.keyboard.type('B-SUE');
  await page.keyboard.press('Enter');
  await page.getByTestId('pin').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'pin');
  await page.keyboard.type('2468');
  await page.keyboard.press('Enter');
  await page.getByTestId('operator').filter({ hasText: 'Sue Supervisor' }).waitFor();
  await page.keyboard.press('Alt+3');
  const void_ = page.getByTestId('row').first().getByTestId('void');
  await void_.focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('confirm-ok').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('row').first().getByTestId('status').filter({ hasText: 'Voided' }).waitFor();

  // The audit log (Alt+0), newest first: the void by Sue, the label by Pat, the sign-ins.
  await page.keyboard.press('Alt+0');
  await page.getByTestId('audit-row').first().waitFor();
  const rows = await page.getByTestId('audit-row').evaluateAll((rs) => rs.map((r) => [r.querySelector('[data-testid="audit-what"]').textContent, r.querySelector('[data-testid="audit-actor"]').textContent]));
  const find = (what, who) => rows.findIndex(([w, a]) => w === what && a === who);
  for (const [what, who] of [['label.voided', 'Sue Supervisor'], ['operator.sign_in', 'Sue Supervisor'], ['operator.sign_out', 'Pat Packer'], ['order.shipped', 'Pat Packer'], ['label.created', 'Pat Packer'], ['operator.sign_in', 'Pat Packer']]) {
    assert.ok(find(what, who) >= 0, `${what} by ${who} in ${JSON.stringify(rows)}`);
  }
  assert.ok(find('label.voided', 'Sue Supervisor') < find('label.created', 'Pat Packer'), 'newest first');
  await page.screenshot({ path: `${shots}/people-audit-1366x768.png` });

  // Today (Alt+6): each operator's labels, orders and items.
  await page.keyboard.press('Alt+6');
  const pat = page.getByTestId('today-operator').filter({ hasText: 'Pat Packer' });
  await pat.waitFor();
  assert.deepEqual(
    [await pat.getByTestId('today-operator-labels').textContent(), await pat.getByTestId('today-operator-orders').textContent(), await pat.getByTestId('today-operator-items').textContent()],
    ['1', '1', '1'],
  );
  await page.screenshot({ path: `${shots}/people-today-1366x768.png` });

  // Alt+O: Switch operator; the packer's badge (no PIN) signs him in again.
  await page.keyboard.press('Alt+o');
  await badge(page, 'B-PAT');
  assert.equal(await page.getByTestId('operator').textContent(), 'Pat Packer');

  // Idle for longer than the desk's two minutes: signed out, the sign-in screen waits.
  await page.clock.fastForward('03:00');
  await page.getByTestId('sign-in').waitFor();
  assert.equal(await page.getByTestId('operator').count(), 0);

  assert.ok(bodies.length > 10);
  for (const key of [desk.key, desk.liveKey]) {
    assert.ok(!bodies.some((b) => b.includes(key)), 'no answer the page received holds an API key');
  }
  await page.close();
});

test('an admin makes a named integration key in Settings: shown once, it opens its scope only', async () => {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  const bodies = [];
  page.on('response', async (r) => bodies.push(await r.text().catch(() => '')));
  await page.goto(desk.base + '/');
  await badge(page, 'B-ADA', '1357');
  await page.keyboard.press('Alt+9');
  await page.getByTestId('api-keys').waitFor();
  await page.getByTestId('api-key-name').focus();
  await page.keyboard.type('Shop');
  await page.getByTestId('add-api-key').focus();
  await page.keyboard.press('Enter');
  const key = await page.getByTestId('api-key-value').textContent();
  assert.match(key, /^pdk_live_[0-9a-f]{48}$/);
  await page.getByTestId('api-keys').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/people-api-key-1366x768.png` });
  await page.getByTestId('api-key-row').filter({ hasText: 'Shop' }).waitFor();
  // Its scope (labels, the default): a label list opens; the orders do not.
  const call = (path, k) => fetch(desk.base + path, { headers: { 'service-api-key': k } });
  assert.equal((await call('/v3/labels', key)).status, 200);
  assert.equal((await call('/desk/printers', key)).status, 403);
  // Shown once: reloaded, the page lists the key without it.
  await page.reload();
  await page.locator('[data-nav="settings"]').waitFor(); // the page is drawn once its words are loaded
  await page.keyboard.press('Alt+9');
  await page.getByTestId('api-key-row').filter({ hasText: 'Shop' }).waitFor();
  assert.equal(await page.getByTestId('api-key-value').count(), 0);
  // Revoked (keyboard: Revoke, then the confirmation): refused at once.
  await page.getByTestId('api-key-revoke').first().focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('confirm-ok').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('api-key-row').filter({ hasText: 'revoked' }).waitFor();
  assert.equal((await call('/v3/labels', key)).status, 401);
  // The one answer that held the key was its creation's.
  assert.equal(bodies.filter((b) => b.includes(key)).length, 1);
  for (const k of [desk.key, desk.liveKey]) assert.ok(!bodies.some((b) => b.includes(k)));
  await page.close();
});
