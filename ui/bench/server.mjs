// The release packdesk-server the UI benchmarks run against: a fresh data folder, its address and
// keys, and a stop that removes it.
import { spawn, execFileSync } from 'node:child_process';
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
