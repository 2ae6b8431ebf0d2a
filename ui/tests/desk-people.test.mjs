// People at the desk (issue 38), keyboard only, in a real browser (Debian's Chromium) at
// 1366 x 768 against the real packdesk-server: a packer signs in with their badge, ships an
// order by scanning it, and finds no Void (the API refuses it too); a supervisor's badge and PIN
// take over (Alt+O, Switch operator) and void the label; the audit log names each step's operator;
// the desk signs an idle operator out. No answer the page receives holds an API key.
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

  // Alt+O: Switch operator; the supervisor's badge asks for the PIN.
  await page.keyboard.press('Alt+o');
  await badge(page, 'B-SUE', '2468');
  assert.equal(await page.getByTestId('operator').textContent(), 'Sue Supervisor');
  await page.keyboard.press('Alt+3');
  const void_ = page.getByTestId('row').first().getByTestId('void');
  await void_.focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('confirm-ok').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('row').first().getByTestId('status').filter({ hasText: 'cancelled' }).waitFor();

  // The audit log (Alt+9), newest first: the void by Sue, the label by Pat, the sign-ins.
  await page.keyboard.press('Alt+9');
  await page.getByTestId('audit-row').first().waitFor();
  const rows = await page.getByTestId('audit-row').evaluateAll((rs) => rs.map((r) => [r.querySelector('[data-testid="audit-what"]').textContent, r.querySelector('[data-testid="audit-actor"]').textContent]));
  const find = (what, who) => rows.findIndex(([w, a]) => w === what && a === who);
  for (const [what, who] of [['label.voided', 'Sue Supervisor'], ['operator.sign_in', 'Sue Supervisor'], ['operator.sign_out', 'Pat Packer'], ['order.shipped', 'Pat Packer'], ['label.created', 'Pat Packer'], ['operator.sign_in', 'Pat Packer']]) {
    assert.ok(find(what, who) >= 0, `${what} by ${who} in ${JSON.stringify(rows)}`);
  }
  assert.ok(find('label.voided', 'Sue Supervisor') < find('label.created', 'Pat Packer'), 'newest first');
  await page.screenshot({ path: `${shots}/people-audit-1366x768.png` });

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
