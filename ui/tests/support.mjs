// The desk the UI tests run against: the real packdesk-server on 127.0.0.1 serving ui/dist from a
// fresh data folder, its sandbox key, and Debian's Chromium through playwright-core.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createServer } from 'node:net';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

/** The data of an API answer that must have worked. */
export async function ok(answer) {
  const r = await answer;
  assert.equal(r.meta.code, 200, JSON.stringify(r.meta));
  return r.data;
}

/** Made-up credentials for every credential field of a carrier (sandbox calls no carrier). */
export const creds = (carrier) => Object.fromEntries(carrier.credential_fields.map((f) => [f.name, `test-${f.name}`]));

/** A British address: a sender's or a recipient's. */
export const gb = (name, postal = 'M1 1AE', city = 'Manchester') => ({ contact_name: name, street1: '22 High Street', city, postal_code: postal, country: 'GBR' });

/** A raw printer port of the test's own (`port`, or any free one): each connection's bytes land in `jobs`. */
export function rawPrinter(port = 0) {
  const jobs = [];
  const srv = createServer((c) => {
    const parts = [];
    c.on('data', (d) => parts.push(d));
    // A status check opens and closes a connection without sending: that is no job.
    c.on('end', () => parts.length && jobs.push(Buffer.concat(parts)));
  });
  return new Promise((resolve) => srv.listen(port, '127.0.0.1', () => resolve({ port: srv.address().port, jobs, close: () => srv.close() })));
}


const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.PACKDESK_SERVER_BIN ?? join(here, '..', '..', 'target', 'debug', 'packdesk-server');

/** A packdesk-server on a new data folder (or `dataDir`, which is then kept at stop), with more
 * of its options in `args`. */
export async function startDesk(prefix, { dataDir: given, args = [] } = {}) {
  const dataDir = given ?? mkdtempSync(join(tmpdir(), prefix));
  const server = spawn(bin, ['--data-dir', dataDir, '--listen', '127.0.0.1:0', '--ui-dir', join(here, '..', 'dist'), ...args]);
  const stopServer = () => {
    server.kill('SIGKILL');
    if (!given) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const base = await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d) => {
        out += d;
        const m = out.match(/listening on (https?:\/\/\S+)/);
        // A desk serving HTTPS answers this machine over plain HTTP too (the desk's own window).
        if (m) resolve(m[1].replace(/^https:/, 'http:'));
      });
      server.on('exit', (c) => reject(new Error(`server exited ${c}: ${out}`)));
    });
    const keys = execFileSync(bin, ['keys', '--data-dir', dataDir]).toString();
    const key = keys.match(/^sandbox (\S+)/m)[1];
    const liveKey = keys.match(/^live (\S+)/m)[1];
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const desk = {
      base,
      key, // the tests follow a rotation by setting it
      liveKey, // printers and print profiles are the desk's: only the live key changes them
      dataDir,
      browser,
      /** A call to the API with the desk's key (or another), answering the envelope. */
      async api(method, path, body, withKey = desk.key) {
        const r = await fetch(base + path, {
          method,
          headers: { 'service-api-key': withKey, 'content-type': 'application/json' },
          body: body && JSON.stringify(body),
        });
        return r.json();
      },
      /** A shipper account of the carrier `slug`, made through the API; its id. */
      async account(slug, description, more = {}) {
        const carriers = (await ok(desk.api('GET', '/desk/carriers'))).carriers;
        const carrier = carriers.find((c) => c.slug === slug);
        return (await ok(desk.api('POST', '/v3/shipper-accounts', { slug, description, credentials: creds(carrier), timezone: 'Europe/London', ...more }))).id;
      },
      /** A label made through the API from a London sender (`shipment` replaces parts of the 1 kg parcel to Manchester). */
      label(accountId, serviceType, shipment = {}) {
        const parcels = [{ weight: { value: 1, unit: 'kg' } }];
        return ok(desk.api('POST', '/v3/labels', { service_type: serviceType, shipper_account: { id: accountId }, shipment: { ship_from: gb('Packdesk Ltd', 'E16 2AA', 'London'), ship_to: gb('Jane Doe'), parcels, ...shipment } }));
      },
      async stop() {
        await browser.close();
        stopServer();
      },
    };
    return desk;
  } catch (e) {
    stopServer();
    throw e;
  }
}

/** The desk in a new page at 1366 x 768, on the Ship screen with the cursor in the scan field. */
export async function shipPage(desk) {
  const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(desk.base + '/');
  await page.getByTestId('scan').waitFor();
  return page;
}

/** Types each field of the Ship form's recipient (`to`: contact_name, city, ...). */
export async function fillShipTo(page, to) {
  for (const [k, v] of Object.entries(to)) await page.locator(`[data-field="shipment.ship_to.${k}"]`).fill(v);
}

/** A free port on loopback (nobody listens on it until the test says so: a printer that is off). */
export function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A module of ui/src with what it imports (the catalogues, runes compiled as for the page), loaded
 * by Vite as the page's build would, to run here in node. The loader is closed by `closeUiModules`. */
let vite = null;
export async function importUiModule(name) {
  if (!vite) {
    const { createServer: createVite } = await import('vite');
    vite = await createVite({ root: join(here, '..'), configFile: join(here, '..', 'vite.config.ts'), server: { middlewareMode: true, hmr: false }, appType: 'custom', logLevel: 'error', optimizeDeps: { noDiscovery: true } });
  }
  await (await vite.ssrLoadModule('/src/i18n/index.svelte.ts')).ready();
  return vite.ssrLoadModule(`/src/${name}`);
}

export async function closeUiModules() {
  await vite?.close();
  vite = null;
}
