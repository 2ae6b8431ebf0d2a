// Benchmark of switching the desk's language in Debian's Chromium against the real packdesk-server
// (issue 41: redrawn within 100 ms): on the Settings screen (its longest form), the desk's language
// chosen (saved, then the screens switched; each catalogue loaded once before), timed from the
// choice to the next frame painted in the new language; and the first switch to each language
// (its catalogue loaded from the server). Reports the UI bundle's size beside it.
// `node ui/bench/language.mjs [rounds]` (after `npm run --prefix ui build` and a release server build).
import { chromium } from 'playwright-core';
import { readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './server.mjs';

const rounds = Number(process.argv[2] ?? 50);
const here = dirname(fileURLToPath(import.meta.url));
const srv = await startServer('packdesk-langbench-');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
await page.goto(srv.base + '/');

// The desk language chosen in Settings as an operator chooses it (the select's change: saved,
// then every screen switched), timed in the page to the first frame after the nav reads the
// language's word.
await page.locator('[data-nav="settings"]').click();
await page.getByTestId('desk-language').waitFor();
const switchTo = (tag, word) =>
  page.evaluate(
    async ([tag, word]) => {
      const select = document.querySelector('[data-testid="desk-language"]');
      const nav = document.querySelector('[data-nav="settings"]');
      const t0 = performance.now();
      select.value = tag;
      select.dispatchEvent(new Event('change', { bubbles: true }));
      while (nav.textContent !== word) await new Promise((r) => requestAnimationFrame(r));
      await new Promise((r) => requestAnimationFrame(r));
      return performance.now() - t0;
    },
    [tag, word],
  );

const first = {};
for (const [tag, word] of [['de', 'Einstellungen'], ['pl', 'Ustawienia'], ['en', 'Settings']]) first[tag] = await switchTo(tag, word);
const times = [];
for (let i = 0; i < rounds; i++) {
  const [tag, word] = i % 2 ? ['en', 'Settings'] : ['de', 'Einstellungen'];
  times.push(await switchTo(tag, word));
}
times.sort((a, b) => a - b);
const at = (p) => times[Math.min(times.length - 1, Math.ceil(times.length * p) - 1)];
console.log(`language chosen in Settings to the next frame in it  median ${at(0.5).toFixed(1)} ms  p95 ${at(0.95).toFixed(1)} ms  worst ${times[times.length - 1].toFixed(1)} ms  (${rounds} switches)`);
console.log(`first switch, its catalogue loaded from the server: de ${first.de.toFixed(1)} ms, pl ${first.pl.toFixed(1)} ms`);

const assets = join(here, '..', 'dist', 'assets');
const sizes = readdirSync(assets).map((f) => [f, statSync(join(assets, f)).size]);
const kb = (n) => `${(n / 1000).toFixed(1)} kB`;
const main = sizes.find(([f]) => /^index-.*\.js$/.test(f));
console.log(`bundle: main ${kb(main[1])}; each catalogue ${sizes.filter(([f]) => /^(en|de|es|fr|it|nl|pl|pt)-.*\.js$/.test(f)).map(([f, n]) => `${f.slice(0, 2)} ${kb(n)}`).join(', ')}; Reports ${kb(sizes.find(([f]) => /^Reports-.*\.js$/.test(f))[1])}`);
await browser.close();
srv.stop();
