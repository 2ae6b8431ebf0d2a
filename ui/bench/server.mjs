// The release packdesk-server the UI benchmarks run against: a fresh data folder, its address and
// keys, and a stop that removes it.
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.PACKDESK_SERVER_BIN ?? join(here, '..', '..', 'target', 'release', 'packdesk-server');

export async function startServer(prefix) {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const server = spawn(bin, ['--data-dir', dataDir, '--listen', '127.0.0.1:0', '--ui-dir', join(here, '..', 'dist')]);
  const base = await new Promise((resolve) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
  });
  const keys = execFileSync(bin, ['keys', '--data-dir', dataDir]).toString();
  return {
    base,
    key: keys.match(/^sandbox (\S+)/m)[1],
    live: keys.match(/^live (\S+)/m)[1],
    stop() {
      server.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A scan station's desk for the scan benchmarks: a release server whose labels print on a raw
 * 9100 printer of the script's own (`arrivals`: when each label's last byte came), a Tipsa
 * account and its default ZPL preset, the desk `settings` (ship on scan and the rest); `call`
 * answers `data` or throws; `es(name, postal)` is a Spanish address. */
export async function scanDesk(prefix, settings) {
  const srv = await startServer(prefix);
  const call = async (method, path, body, k = srv.key) => {
    const r = await fetch(srv.base + path, { method, headers: { 'service-api-key': k, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    const v = await r.json();
    if (v.meta.code !== 200) throw new Error(`${path}: ${JSON.stringify(v.meta)}`);
    return v.data;
  };
  const arrivals = [];
  const printer = createServer((c) => c.on('data', () => {}).on('end', () => arrivals.push(performance.now())));
  await new Promise((r) => printer.listen(0, '127.0.0.1', r));
  const zebra = await call('POST', '/desk/printers', { name: 'Zebra', transport: 'raw', address: `127.0.0.1:${printer.address().port}`, format: 'zpl' }, srv.live);
  await call('PUT', '/desk/print-profiles/label', { printer_id: zebra.id, stock: '4x6', auto_print: true }, srv.live);
  await call('PUT', '/desk/settings', { weight_unit: 'kg', dimension_unit: 'cm', ...settings }, srv.live);
  const es = (name, postal) => ({ contact_name: name, street1: 'Calle Mayor 1', city: 'Madrid', postal_code: postal, country: 'ESP' });
  const acct = await call('POST', '/v3/shipper-accounts', { slug: 'tipsa', description: 'Tipsa', credentials: { password: 'p', agency_code: '1', customer_code: '2', department_code: '3' } });
  await call('POST', '/desk/presets', { name: 'Spain', shipper_account: { id: acct.id }, service_type: 'tipsa_10_horas', file_type: 'zpl', ship_from: es('Almacén', '28001'), parcel: { weight: { value: 1, unit: 'kg' } }, is_default: true });
  return {
    base: srv.base,
    call,
    arrivals,
    es,
    stop() {
      printer.close();
      srv.stop();
    },
  };
}
