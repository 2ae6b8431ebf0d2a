// A figure, not a test (`node ui/tests/figures-badge.mjs`, with PACKDESK_SERVER_BIN naming a
// release build): badge scan to signed in, in Chromium at 1366 x 768 against the real
// packdesk-server. A scanner types the badge's code and Enter; the time runs from the first key
// to the operator's name in the top bar, three rounds, each on a fresh page. Every request the
// page makes on the way is listed with its time.
import { startDesk, ok } from './support.mjs';

const desk = await startDesk('packdesk-badge-');
try {
  await ok(desk.api('POST', '/desk/operators', { name: 'Ada', code: 'B-ADA', role: 'admin', pin: '1357' }, desk.liveKey));
  await ok(desk.api('POST', '/desk/operators', { name: 'Pat Packer', code: 'B-PAT', role: 'packer' }, desk.liveKey));
  await ok(desk.api('PUT', '/desk/settings', { require_sign_in: true }, desk.liveKey));
  for (let round = 1; round <= 3; round++) {
    const page = await desk.browser.newPage({ viewport: { width: 1366, height: 768 } });
    let t0 = 0;
    page.on('response', (r) => t0 && console.log(`  ${Date.now() - t0} ms  ${r.request().method()} ${r.url().replace(desk.base, '')}`));
    await page.goto(desk.base + '/');
    await page.getByTestId('badge').waitFor();
    t0 = Date.now();
    await page.keyboard.type('B-PAT');
    const typed = Date.now() - t0;
    await page.keyboard.press('Enter');
    await page.getByTestId('operator').waitFor();
    console.log(`round ${round}: signed in ${Date.now() - t0} ms after the first key (the typing took ${typed} ms)`);
    await page.close();
  }
} finally {
  await desk.stop();
}
