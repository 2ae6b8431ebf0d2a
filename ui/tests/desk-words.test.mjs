// Errors in the operator's words (issue "The desk as packers really work it", point 7): the
// service's failures, taken from the real packdesk-server, read with the field as the form calls
// it, what is wrong and what to do, once, without request paths, codes or the contract's generic
// message. problems.ts runs here as the page runs it (types stripped); the Ship and Settings
// screens show its words in Debian's Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeUiModules, importUiModule, ok, startDesk } from './support.mjs';

let desk, words, tipsa, skynet;
const api = (...args) => desk.api(...args);
const es = { contact_name: 'Ana Ruiz', street1: 'Calle Mayor 1', city: 'Madrid', postal_code: '28001', country: 'ESP' };
const gb = { contact_name: 'Packdesk Ltd', street1: '1 Dock Road', city: 'London', postal_code: 'E16 2AA', country: 'GBR' };
const label = (account, service, from, to, more = {}) => ({
  shipper_account: { id: account },
  service_type: service,
  shipment: { ship_from: from, ship_to: to, parcels: [{ weight: { value: 1, unit: 'kg' } }] },
  ...more,
});
const heard = []; // everything the desk said of the service's refusals
/** What the desk says of a label request the service refuses. */
const refusal = async (body) => {
  const r = await api('POST', '/v3/labels', body);
  assert.notEqual(r.meta.code, 200, 'the service refuses it');
  heard.push(words.failureWords(r.meta));
  return heard.at(-1);
};
/** What no operator should read: request paths, snake_case names, codes, the contract's generic text. */
const developerSpeak = /shipment\.|ship_to|\w_\w|\b4\d{3}\b|`|request was invalid|service_type/;

before(async () => {
  desk = await startDesk('packdesk-words-');
  words = await importUiModule('problems.ts');
  words.nameCountries((await ok(api('GET', '/desk/countries'))).countries);
  const carriers = (await ok(api('GET', '/desk/carriers'))).carriers;
  const account = async (slug) => {
    const credentials = Object.fromEntries(carriers.find((c) => c.slug === slug).credential_fields.map((f) => [f.name, 'x']));
    return (await ok(api('POST', '/v3/shipper-accounts', { slug, description: slug, credentials }))).id;
  };
  tipsa = await account('tipsa');
  skynet = await account('skynetworldwide');
  await ok(api('POST', '/desk/presets', { name: 'Spain', shipper_account: { id: tipsa }, service_type: 'tipsa_10_horas', ship_from: { ...es, contact_name: 'Almacén' }, parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true }));
});

after(async () => {
  desk?.stop();
  await closeUiModules();
});

test('a request path reads as the form names the field', () => {
  const cases = {
    'shipment.ship_to.postal_code': 'Recipient postcode',
    'shipment.ship_from.city': 'Sender city',
    'shipment.parcels[0].weight.value': 'Weight',
    'shipment.parcels[1].weight.value': 'Parcel 2 weight',
    'shipment.parcels[0].dimension.width': 'Width',
    'shipment.parcels[0].items[1].origin_country': 'Item 2 origin country',
    'shipment.parcels[0].items[0].hs_code': 'Item 1 HS code',
    'customs.importer_address.city': 'Customs importer city',
    'service_type': 'Service',
    'shipper_account.id': 'Account',
    'order_number': 'Order number',
    'ship_to.country': 'Recipient country',
    'references[0]': 'Reference',
    'service_options[0].cod_value': 'COD amount',
    'settings.cutoff_time': 'Cut-off time',
    'rules[2].when.weight_max': 'Rule 3 weight to',
    'printer_id': 'Printer',
    'address.postal_code': 'Postcode',
  };
  for (const [path, want] of Object.entries(cases)) assert.equal(words.fieldLabel(path), want, path);
  assert.equal(words.fieldLabel('credentials.licence_key', { 'credentials.licence_key': 'Licence key' }), 'Licence key', 'a form names its own fields');
});

test('the service refusing a label reads in the form’s words, each problem once', async () => {
  // An empty recipient name, a 256-character street (TIPSA takes 255), an empty reference.
  assert.equal(
    await refusal(label(tipsa, 'tipsa_10_horas', es, { ...es, contact_name: '', street1: 'x'.repeat(256) }, { references: [''] })),
    'Reference is empty: fill it in; Recipient name is empty: fill it in; Recipient street is too long for TIPSA: at most 255 characters (256 typed)',
  );
  // A Manchester postcode typed for Spain.
  assert.equal(
    await refusal(label(tipsa, 'tipsa_10_horas', es, { ...es, postal_code: 'M1 1AE' })),
    'Recipient postcode does not look like a postcode of Spain (00000): check it, or confirm it as typed',
  );
  // A domestic service for a parcel that leaves the country.
  assert.equal(
    await refusal(label(skynet, 'skynetworldwide_domestic_next_day', gb, es)),
    'Service cannot carry this parcel (Skynet Worldwide Domestic Next Day is for parcels within one country, this one goes from United Kingdom to Spain): choose another service',
  );
  // Several fields of a second parcel and its item, and an option without its amount.
  const item = { description: '', quantity: 0, price: { amount: 1, currency: 'XX' }, weight: { value: 1, unit: 'kg' }, origin_country: 'QQQ' };
  const many = label(tipsa, 'tipsa_10_horas', es, es, { service_options: [{ type: 'cod' }] });
  many.shipment.parcels.push({ weight: { value: 9999, unit: 'kg' }, items: [item] });
  const said = await refusal(many);
  for (const line of [
    'Parcel 2 weight must be between 0 and 2000 kg',
    'Parcel 2 item 1 description is empty: fill it in',
    'Parcel 2 item 1 origin country: “QQQ” is not a country the desk knows: choose one from the list',
    'COD amount is empty: cash on delivery needs it',
  ]) assert.ok(said.split('; ').includes(line), `${line} in: ${said}`);
  // A value the contract spells as an enum, and a date in the past.
  assert.equal(await refusal(label(tipsa, 'tipsa_10_horas', es, es, { paper_size: 'a9' })), 'Paper size: “a9” is not one the desk offers: choose one from the list');
  assert.match(await refusal(label(tipsa, 'tipsa_10_horas', es, es, { ship_date: '2020-01-01' })), /^Ship date is in the past \(2020-01-01\): choose today or a later day$/);
  for (const said of heard) assert.doesNotMatch(said, developerSpeak);
});

test('a failure says each field once, and the code’s words only when no detail says more', () => {
  const twice = { code: 4104, message: 'The request was invalid or cannot be otherwise served.', details: [
    { path: 'shipment.ship_to.postal_code', info: '`M1 1AE` is not a postal code of ESP (format 00000); correct it, or confirm it with postal_code_override: true' },
    { path: 'shipment.ship_to.postal_code', info: 'is required for ESP' },
  ] };
  assert.equal(words.failureWords(twice), 'Recipient postcode does not look like a postcode of Spain (00000): check it, or confirm it as typed');
  assert.equal(words.failureWords({ code: 4104, message: 'The request was invalid or cannot be otherwise served.', details: [] }), 'Some fields need attention');
  // A problem the screen shows beside its field is not said again in the screen's message line.
  const two = { code: 4104, message: '', details: [{ path: 'timezone', info: '`Europe/Londn` is not an IANA timezone (e.g. Europe/London)' }, { path: 'description', info: 'length must be 1..200 characters' }] };
  assert.equal(words.failureWords(two, (p) => p === 'timezone'), 'Name on the desk must be 1 to 200 characters long');
  assert.equal(words.failureWords(two, () => true), '');
  assert.equal(words.detailWords(two.details[0]), 'Time zone: “Europe/Londn” is not a time zone: give one such as Europe/London');
  assert.equal(words.detailWords({ path: 'credentials.username', info: 'Username (username) is required by SkyNet Worldwide' }, { 'credentials.username': 'User name' }), 'User name is empty: SkyNet Worldwide needs it');
  assert.equal(words.detailWords({ path: 'service_options[0].type', info: 'TIPSA does not offer `cod` options (offers: insurance)' }), 'TIPSA does not offer cash on delivery: untick it');
  // The route checks in the service's wordings, older and newer: one sentence for the operator.
  for (const info of ['Skynet Worldwide Domestic Next Day is a domestic service; this shipment goes GBR to ESP', 'Skynet Worldwide Domestic Next Day stays within one country and this parcel goes GBR to ESP']) {
    assert.equal(words.detailWords({ path: 'service_type', info }), 'Service cannot carry this parcel (Skynet Worldwide Domestic Next Day is for parcels within one country, this one goes from United Kingdom to Spain): choose another service');
  }
  for (const info of ['Delhivery ships to IND only', 'Delhivery ships to IND only, not ESP']) {
    assert.equal(words.detailWords({ path: 'shipment.ship_to.country', info }), 'Recipient country is not served by Delhivery (it ships to India only): choose another account');
  }
  assert.equal(words.detailWords({ path: 'rules[1].name', info: '`Big` is also rules[0]' }), 'Rule 2 name: “Big” is also rule 1');
  assert.equal(words.failureWords({ code: 4100, message: 'Internal Error.', details: [{ path: '', info: 'database is locked' }] }), 'Something went wrong inside Packdesk: try again, and tell support if it happens again');
  assert.equal(words.errorWords(new TypeError('Failed to fetch')), 'Packdesk did not answer: check that it is running, then try again');
  assert.equal(words.bulkDownloadWords({ status: 'failed', invalid_labels: [] }), 'The download could not be made: try again, or download the labels one by one');
  assert.equal(words.bulkDownloadWords({ status: 'failed', invalid_labels: [{ id: 'a' }, { id: 'b' }] }), 'The download could not be made: 2 of the chosen labels have no file (voided, or not made yet). Choose others and try again');
});

test('a batch’s failed order and an import’s refused row name the field, not its path', async () => {
  await ok(api('PUT', '/desk/import-mappings/words', { columns: { N: 'order_number', C: 'ship_to.contact_name', S: 'ship_to.street1', Ci: 'ship_to.city', P: 'ship_to.postal_code', Co: 'ship_to.country', A: 'items.description', Q: 'items.quantity' } }, desk.liveKey));
  const csv = 'N;C;S;Ci;P;Co;A;Q\r\nW-1;Ana;Calle 1;Madrid;M1 1AE;ESP;Taza;1\r\nW-2;;Calle 2;Sevilla;41001;ESP;Plato;1\r\n';
  const r = await fetch(`${desk.base}/desk/orders/import?dry_run=false&mapping=words`, { method: 'POST', headers: { 'service-api-key': desk.key, 'content-type': 'text/csv' }, body: csv });
  const imported = (await r.json()).data;
  assert.equal(imported.failed.length, 1);
  assert.equal(words.textWords(imported.failed[0].info), 'Recipient name is empty: fill it in');
  const [w1] = (await ok(api('GET', '/desk/orders?s=W-1'))).orders;
  assert.equal(w1.order_number, 'W-1');
  let batch = await ok(api('POST', '/desk/orders/ship', { order_ids: [w1.id] }));
  while (batch.status !== 'done') {
    await new Promise((r) => setTimeout(r, 100));
    batch = await ok(api('GET', `/desk/batches/${batch.id}`));
  }
  assert.match(batch.orders[0].info, /^shipment\.ship_to\.postal_code: /, 'the service writes the path');
  assert.equal(words.textWords(batch.orders[0].info), 'Recipient postcode does not look like a postcode of Spain (00000): check it, or confirm it as typed');
  // A text that is only the contract's message reads as the code's words.
  assert.equal(words.textWords('The service_type is not available for this shipment.'), 'This service cannot carry this parcel: choose another service');
});

test('on the Ship form each address error shows beside its field in the same words, once', async () => {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  const to = (k) => page.locator(`[data-field="shipment.ship_to.${k}"]`);
  const error = (k) => page.locator(`[data-error="shipment.ship_to.${k}"]`);
  // No name, a street one character over TIPSA's limit: Ctrl+Enter.
  for (const [k, v] of Object.entries({ ...es, contact_name: '', street1: 'x'.repeat(256) })) await to(k).fill(v);
  await page.locator('[data-field="shipment.parcels[0].weight.value"]').fill('1');
  await page.getByTestId('scan').focus();
  await page.keyboard.press('Control+Enter');
  await error('contact_name').waitFor();
  assert.equal(await error('contact_name').textContent(), 'Recipient name is empty: fill it in');
  assert.equal(await error('street1').textContent(), 'Recipient street is too long for TIPSA: at most 255 characters (256 typed)');
  await page.screenshot({ path: '/tmp/words-ship-errors.png' });
  // A Manchester postcode typed for Spain: the desk sees it as it is typed, in the words the
  // service's refusal of the same postcode reads in.
  // The street corrected, its error goes; the name's stays until the name is typed.
  await to('street1').fill('Calle Mayor 1');
  assert.equal(await error('street1').count(), 0);
  assert.equal(await error('contact_name').count(), 1);
  await to('postal_code').fill('M1 1AE');
  const served = await refusal(label(tipsa, 'tipsa_10_horas', es, { ...es, postal_code: 'M1 1AE' }));
  await error('postal_code').filter({ hasText: 'does not look like' }).waitFor();
  assert.equal(await error('postal_code').textContent(), served);
  const recipient = page.locator('.grid', { has: to('postal_code') });
  assert.equal(await recipient.getByText('does not look like').count(), 1, 'the recipient’s fields say it once');
  assert.equal(await page.getByLabel('Postcode').first().inputValue(), 'M1 1AE', 'the field is called Postcode, as the message calls it');
  await page.screenshot({ path: '/tmp/words-ship-postcode.png' });
  await page.close();
});

test('a refused setting reads in words on its screen', async () => {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.locator('[data-nav="settings"]').click();
  await page.getByTestId('webhook-url').fill('ftp://wms.example/hook');
  await page.getByTestId('webhook-on').click();
  const message = page.getByTestId('settings-message');
  await message.waitFor();
  assert.equal(await message.textContent(), 'URL must be an http or https URL, not ftp');
  await page.close();
});
