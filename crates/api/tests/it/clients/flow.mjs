// The interface's flow as a Node client makes it (fetch), over HTTPS trusting the desk's
// certificate through NODE_EXTRA_CA_CERTS as a WMS's Node process would: an account, a rate, a
// label, its PDF by the file link, its cancel, a manifest. Reads BASE and KEY; prints one JSON
// line of what it saw. Run by the api crate's https tests.
const base = process.env.BASE;
const headers = { 'service-api-key': process.env.KEY, 'content-type': 'application/json' };

async function call(method, path, body) {
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const envelope = await r.json();
  if (envelope.meta.code !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(envelope.meta)}`);
  return envelope.data;
}

const address = (name, postal) => ({ contact_name: name, street1: '1 Test Street', city: 'Testville', postal_code: postal, country: 'GBR' });
const account = await call('POST', '/v3/shipper-accounts', {
  slug: 'yodel', description: 'Yodel desk', timezone: 'Europe/London',
  credentials: { identity: 'i', password: 'p', account_number: '1' },
});
const shipment = { ship_from: address('Sender Co', 'E16 2AA'), ship_to: address('Jane Doe', 'M1 1AE'), parcels: [{ weight: { value: 1.5, unit: 'kg' } }] };
const rate = await call('POST', '/v3/rates', { shipper_accounts: [{ id: account.id }], shipment });
const label = await call('POST', '/v3/labels', { service_type: 'yodel_std', shipper_account: { id: account.id }, shipment });
const pdf = Buffer.from(await (await fetch(label.files.label.url)).arrayBuffer());
const cancel = await call('POST', '/v3/cancel-labels', { label: { id: label.id } });
const second = await call('POST', '/v3/labels', { service_type: 'yodel_std', shipper_account: { id: account.id }, shipment });
const manifest = await call('POST', '/v3/manifests', { shipper_account: { id: account.id } });
console.log(JSON.stringify({
  rates: rate.rates.length,
  label: label.status,
  file_url: label.files.label.url,
  pdf: pdf.subarray(0, 4).toString('latin1'),
  cancel: cancel.status,
  manifest: manifest.status,
  second: second.tracking_numbers,
}));
