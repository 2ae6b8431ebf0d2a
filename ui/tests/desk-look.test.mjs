// The desk as packers see it (issue "The desk as packers really work it", points 12, 14 and 15),
// in a real browser (Debian's Chromium) at 1366 x 768 against the real packdesk-server: every
// checkbox a real box with clickable words, an error below its input leaving it as tall as its
// neighbours, help grey and success green; History's city, weight (as the desk writes numbers)
// and charge; an account's time zone chosen from the IANA list, a new one starting on the desk's;
// Void and a new API key asking in the desk's dialog, Esc cancelling; the order and preset editors'
// inputs level and as tall as their neighbours beside an error, each unit inside its column.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gb, ok, startDesk } from './support.mjs';

let desk, yodel, parcel;
const shots = process.env.SCREENSHOTS ?? '/tmp';
const viewport = { width: 1366, height: 768 };

before(async () => {
  desk = await startDesk('packdesk-desk-look-');
  yodel = await desk.account('yodel', 'Yodel desk');
  // One and a half kilos to Leeds: the label History shows.
  parcel = await desk.label(yodel, 'yodel_hdn', { ship_to: gb('Ada Lovelace', 'LS1 4AP', 'Leeds'), parcels: [{ weight: { value: 1.5, unit: 'kg' } }] });
});
after(() => desk?.stop());

async function deskPage(options = {}) {
  const page = await desk.browser.newPage({ viewport, ...options });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  return page;
}

/** Width and height of every checkbox on the screen (or in a part of it), with what it is for. */
const boxes = (page) =>
  page.locator('input[type="checkbox"]').evaluateAll((cs) => cs.map((c) => ({ what: c.dataset.testid ?? c.dataset.day ?? c.getAttribute('aria-label') ?? c.closest('label')?.textContent?.trim(), width: c.getBoundingClientRect().width, height: c.getBoundingClientRect().height })));

function realBoxes(list, screen) {
  assert.ok(list.length > 0, `${screen} has checkboxes`);
  for (const b of list) assert.ok(b.width >= 13 && b.height >= 13, `${screen}: the box “${b.what}” is ${b.width} x ${b.height} px`);
}

const colour = (locator) => locator.evaluate((e) => getComputedStyle(e).color);
const height = (locator) => locator.evaluate((e) => e.getBoundingClientRect().height);
/** Where an element is on the screen. */
const box = (locator) => locator.evaluate((e) => e.getBoundingClientRect().toJSON());
const noSidewaysScroll = async (page) => assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width, 'no sideways scrolling');

test('Settings: real checkboxes, their words clickable; help is grey, a saved setting says so in green', async () => {
  const page = await deskPage();
  await page.locator('[data-nav="settings"]').click();
  await page.getByTestId('ship-on-scan').waitFor();
  realBoxes(await boxes(page), 'Settings');
  await page.screenshot({ path: `${shots}/look-settings-1366x768.png` });
  await noSidewaysScroll(page);

  // A click on the words ticks the box, and the desk says it is saved.
  const was = (await ok(desk.api('GET', '/desk/settings'))).ship_on_scan;
  await page.getByText('Ship on scan', { exact: true }).click();
  const saved = page.getByTestId('settings-message');
  await saved.filter({ hasText: 'Desk settings saved.' }).waitFor();
  assert.equal(await page.getByTestId('ship-on-scan').isChecked(), !was);
  assert.equal((await ok(desk.api('GET', '/desk/settings'))).ship_on_scan, !was);

  // The note under it is help, not a success: not the saved message's green.
  const help = page.getByText('Enter on a complete order makes and prints its label.');
  const [helpColour, savedColour] = [await colour(help), await colour(saved)];
  assert.notEqual(helpColour, savedColour, 'help and success look different');
  const [r, g, b] = helpColour.match(/\d+/g).map(Number);
  assert.ok(!(g > r + 30 && g > b + 30), `help text is not green: ${helpColour}`);
  await page.getByTestId('ship-on-scan').click(); // back as it was
  await page.close();
});

test('Accounts: an error below the time zone leaves it as tall as the fields beside it; the days are real boxes', async () => {
  const page = await deskPage();
  await page.locator('[data-nav="accounts"]').click();
  await page.getByTestId('edit-account').first().click();
  const editor = page.getByTestId('account-editor');
  // An existing account shows its own time zone.
  assert.equal(await editor.getByTestId('timezone').inputValue(), 'Europe/London');
  const cutoff = editor.getByTestId('cutoff-time');
  const firstCredential = editor.locator('[data-field^="credentials."]').first();
  const before = { timezone: await height(editor.getByTestId('timezone')), cutoff: await height(cutoff) };
  assert.equal(before.timezone, before.cutoff, 'a time field is as tall as a text field');

  await editor.getByTestId('timezone').fill('Mars/Olympus');
  await page.getByTestId('save-account').click();
  const error = editor.locator('.field', { has: page.getByTestId('timezone') }).locator('.err');
  await error.waitFor();
  assert.match(await error.textContent(), /Not a time zone: type a city and choose from the list/);
  assert.equal(await height(editor.getByTestId('timezone')), before.timezone, 'the erring field keeps its height');
  assert.equal(await height(cutoff), before.cutoff, 'its neighbour too');
  assert.equal(await height(firstCredential), before.timezone, 'and the fields below');
  assert.equal((await ok(desk.api('GET', `/v3/shipper-accounts/${yodel}`))).timezone, 'Europe/London', 'nothing saved');
  realBoxes(await boxes(page), 'Accounts');
  await page.screenshot({ path: `${shots}/look-account-error-1366x768.png` });
  await noSidewaysScroll(page);

  // Chosen from the list: saved.
  await editor.getByTestId('timezone').fill('Europe/Dublin');
  await page.getByTestId('save-account').click();
  await editor.waitFor({ state: 'detached' });
  assert.equal((await ok(desk.api('GET', `/v3/shipper-accounts/${yodel}`))).timezone, 'Europe/Dublin');
  await ok(desk.api('PUT', `/v3/shipper-accounts/${yodel}`, { timezone: 'Europe/London' }));
  await page.close();
});

test('a new account starts on the desk’s time zone, offers the IANA list and refuses a zone not in it', async () => {
  const page = await deskPage({ timezoneId: 'America/Chicago' });
  await page.locator('[data-nav="accounts"]').click();
  await page.getByTestId('add-account').click();
  await page.getByTestId('onboard-carrier').selectOption('yodel');
  const zone = page.getByTestId('timezone');
  assert.equal(await zone.inputValue(), 'America/Chicago', "the desk's own time zone");
  const offered = await zone.evaluate((input) => [...input.list.options].map((o) => o.value));
  assert.ok(offered.length > 300, `the IANA list: ${offered.length} zones`);
  for (const z of ['UTC', 'Europe/London', 'Asia/Tokyo', 'America/Chicago']) assert.ok(offered.includes(z), z);

  const accounts = async () => (await ok(desk.api('GET', '/v3/shipper-accounts?limit=200'))).shipper_accounts;
  const known = new Set((await accounts()).map((a) => a.id));
  const count = known.size;
  await zone.fill('Chicago');
  await page.getByTestId('onboard-create').click();
  const error = page.locator('.field', { has: zone }).locator('.err');
  await error.waitFor();
  assert.match(await error.textContent(), /Not a time zone: type a city and choose from the list/);
  assert.equal((await accounts()).length, count, 'no account made');
  await page.screenshot({ path: `${shots}/look-new-account-1366x768.png` });

  await zone.fill('America/Chicago');
  await page.getByTestId('onboard-create').click();
  await page.getByTestId('add-account').filter({ hasText: 'Add account' }).waitFor();
  const made = (await accounts()).filter((a) => !known.has(a.id));
  assert.deepEqual(made.map((a) => a.timezone), ['America/Chicago']);
  await page.close();
});

test('History shows the city, the weight as the desk writes numbers and the charge, and fits the screen', async () => {
  const page = await deskPage({ locale: 'de-DE' });
  await page.locator('[data-nav="history"]').click();
  await page.getByTestId('row').first().waitFor();
  const row = page.getByTestId('row').filter({ hasText: parcel.tracking_numbers[0] });
  assert.equal(await row.getByTestId('city').textContent(), 'Leeds, GBR');
  assert.equal(await row.getByTestId('weight').textContent(), '1,5 kg');
  const charge = parcel.rate.total_charge;
  assert.ok(charge.amount > 0, JSON.stringify(charge));
  const expected = new Intl.NumberFormat('de-DE', { style: 'currency', currency: charge.currency }).format(charge.amount);
  assert.equal((await row.getByTestId('charge').textContent()).replace(/\s/g, ' '), expected.replace(/\s/g, ' '));
  assert.match(expected, /,\d\d/, 'a comma before the pence');
  realBoxes(await boxes(page), 'History');
  await page.screenshot({ path: `${shots}/look-history-1366x768.png` });
  await noSidewaysScroll(page);
  await page.close();
});

test('Void asks in the desk’s dialog, naming the label; Esc keeps it, the yes voids it', async () => {
  const label = await desk.label(yodel, 'yodel_hdn', { ship_to: gb('Grace Hopper', 'M1 1AE') });
  const tracking = label.tracking_numbers[0];
  const page = await deskPage();
  await page.locator('[data-nav="history"]').click();
  await page.getByTestId('search').fill(tracking);
  await page.getByTestId('search').press('Enter');
  await page.getByTestId('row').filter({ hasText: tracking }).waitFor();
  const row = page.getByTestId('row').filter({ hasText: tracking });

  await row.getByTestId('void').click();
  const ask = page.getByTestId('confirm');
  await ask.waitFor();
  assert.match(await ask.locator('h3').textContent(), new RegExp(`Void the label ${tracking}\\?`));
  assert.match(await ask.getByTestId('void-which').textContent(), /Grace Hopper, Manchester, GBR/);
  assert.match(await ask.textContent(), /cannot be printed or shipped/);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'confirm-cancel', 'the safe choice has the cursor');
  await page.screenshot({ path: `${shots}/look-void-confirm-1366x768.png` });
  await page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached' });
  assert.equal((await ok(desk.api('GET', `/v3/labels/${label.id}`))).status, 'created', 'Esc: not voided');
  assert.equal(await row.getByTestId('status').textContent(), 'Made');

  await row.getByTestId('void').click();
  await page.getByTestId('confirm-ok').click();
  await row.getByTestId('status').filter({ hasText: 'Voided' }).waitFor();
  assert.equal((await ok(desk.api('GET', `/v3/labels/${label.id}`))).status, 'cancelled');
  assert.equal(await row.getByTestId('void').count(), 0);
  await page.close();
});

test('a new API key asks in the desk’s dialog first; Esc keeps the old key working', async () => {
  const page = await deskPage();
  await page.locator('[data-nav="settings"]').click();
  const rotate = page.getByTestId('key-sandbox').getByTestId('key-rotate');
  await rotate.click();
  const ask = page.getByTestId('confirm');
  await ask.waitFor();
  assert.match(await ask.textContent(), /Systems still using the old sandbox key stop working at once/);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'confirm-cancel');
  await page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached' });
  assert.equal((await desk.api('GET', '/v3/shipper-accounts')).meta.code, 200, 'Esc: the old key still works');

  await rotate.click();
  await page.getByTestId('confirm-ok').click();
  await page.getByTestId('settings-message').filter({ hasText: 'New sandbox key made' }).waitFor();
  assert.equal((await desk.api('GET', '/v3/shipper-accounts')).meta.code, 401, 'the old key is gone');
  desk.key = await page.getByTestId('key-sandbox').getByTestId('key-value').textContent();
  assert.equal((await desk.api('GET', '/v3/shipper-accounts')).meta.code, 200, 'the new one works');
  await page.close();
});

test('Printers: a printer added without a name or address is refused beside each field in plain words', async () => {
  const page = await deskPage();
  await page.locator('[data-nav="printers"]').click();
  await page.getByTestId('add-printer').click();
  const errorOf = (field) => page.locator('.field', { has: page.locator(`[data-field="${field}"]`) }).locator('.err');
  assert.equal(await errorOf('name').textContent(), 'Give the printer a name, for example “Zebra at desk 3”.');
  assert.equal(await errorOf('address').textContent(), 'Type its address and port, for example 192.168.1.50:9100.');
  assert.equal(await height(page.locator('[data-field="name"]')), await height(page.locator('[data-field="format"]')), 'the erring field is as tall as the list beside it');
  assert.equal(await page.getByTestId('printer-row').count(), 0, 'nothing added');
  realBoxes(await boxes(page), 'Printers');
  await page.screenshot({ path: `${shots}/look-printers-1366x768.png` });
  await noSidewaysScroll(page);
  await page.close();
});

test('the order editor: an input with an error is as tall as its neighbours and level with them; the unit stays in its column', async () => {
  await ok(desk.api('POST', '/desk/orders', { orders: [{ order_number: 'LOOK-1', ship_to: gb('Mary Seacole', 'M1 1AE'), items: [{ description: 'Mug', quantity: 2 }] }] }));
  const page = await deskPage();
  await page.locator('[data-nav="orders"]').click();
  await page.getByTestId('order-row').filter({ hasText: 'LOOK-1' }).click();
  const editor = page.getByTestId('order-editor');
  const field = (name) => editor.locator(`[data-field="${name}"]`);
  await field('ship_to.postal_code').waitFor();
  realBoxes(await boxes(page), 'Orders');

  await field('ship_to.postal_code').fill('12');
  await field('items[0].weight.value').fill('0,7,5');
  await field('weight.value').fill('x');
  await page.getByTestId('order-save').click();
  await editor.locator('[data-error="items[0].weight.value"]').filter({ hasText: '“0,7,5” is not a number' }).waitFor();
  await editor.locator('[data-error="weight.value"]').filter({ hasText: '“x” is not a number' }).waitFor();
  await editor.locator('[data-error="ship_to.postal_code"]').waitFor();

  // Each erring input beside a neighbour without an error: the same height, the same top.
  for (const [erring, neighbour] of [
    ['ship_to.postal_code', 'ship_to.state'],
    ['items[0].weight.value', 'items[0].description'],
    ['weight.value', 'preset'],
  ]) {
    const [a, b] = [await box(field(erring)), await box(field(neighbour))];
    assert.equal(a.height, b.height, `${erring} is as tall as ${neighbour}`);
    assert.equal(a.top, b.top, `${erring} is level with ${neighbour}`);
  }
  // The whole order's unit beside its number, not under the preset beside it.
  const [unit, preset] = [await box(field('weight.unit')), await box(field('preset'))];
  assert.ok(unit.right <= preset.left, `the unit (right edge ${unit.right}) ends before the preset (${preset.left})`);
  assert.equal(unit.top, preset.top, 'the unit is on the number’s line');
  await page.screenshot({ path: `${shots}/look-order-editor-1366x768.png` });
  await noSidewaysScroll(page);
  await page.keyboard.press('Escape');
  await editor.waitFor({ state: 'detached' });
  await page.close();
});

test('the preset editor: the default box is a real box its words tick; an erring input keeps its neighbours’ height; the size fits the dialog', async () => {
  const page = await deskPage();
  await page.locator('[data-nav="orders"]').click();
  await page.getByTestId('new-preset').click();
  const editor = page.getByTestId('preset-editor');
  const field = (name) => editor.locator(`[data-field="${name}"]`);
  await field('name').waitFor();
  realBoxes(await boxes(editor), 'The preset editor');
  await editor.getByText('Default preset (orders no rule matches ship with it)').click();
  assert.equal(await field('is_default').isChecked(), true, 'a click on the words ticks the box');

  const count = (await ok(desk.api('GET', '/desk/presets'))).presets.length;
  await field('parcel.weight.value').fill('x');
  await field('parcel.dimension.width').fill('10');
  await page.getByTestId('preset-save').click();
  await editor.locator('[data-error="parcel.weight.value"]').filter({ hasText: '“x” is not a number' }).waitFor();
  await editor.locator('[data-error="parcel.dimension"]').waitFor();
  for (const [erring, neighbour] of [
    ['parcel.weight.value', 'box'],
    ['parcel.dimension.width', 'box'],
  ]) {
    const [a, b] = [await box(field(erring)), await box(field(neighbour))];
    assert.equal(a.height, b.height, `${erring} is as tall as ${neighbour}`);
    assert.equal(a.top, b.top, `${erring} is level with ${neighbour}`);
  }
  // Width, height, depth and their unit inside the dialog, not cut off at its edge.
  const inside = await editor.evaluate((d) => d.getBoundingClientRect().right - parseFloat(getComputedStyle(d).paddingRight));
  const sizeUnit = await box(editor.getByLabel('Size unit'));
  assert.ok(sizeUnit.right <= inside + 0.5, `the size's unit (right edge ${sizeUnit.right}) is inside the dialog (${inside})`);
  await page.screenshot({ path: `${shots}/look-preset-editor-1366x768.png` });

  // Then the name, which only the service checks: refused beside the field, as tall as the account.
  await field('parcel.weight.value').fill('1');
  await field('parcel.dimension.width').fill('');
  await page.getByTestId('preset-save').click();
  await editor.locator('[data-error="name"]').waitFor();
  assert.equal(await height(field('name')), await height(field('shipper_account.id')), 'the name is as tall as the account beside it');
  assert.equal((await box(field('name'))).top, (await box(field('shipper_account.id'))).top, 'and level with it');
  assert.equal((await ok(desk.api('GET', '/desk/presets'))).presets.length, count, 'nothing saved');
  await page.keyboard.press('Escape');
  await editor.waitFor({ state: 'detached' });
  await page.close();
});
