// Loads /v1/docs of a running server in Debian's headless Chromium
// (driven by playwright-core, which brings no browser of its own) at a
// desktop width of 1400 px and a phone width of 390 px, and checks:
//   - every operation of /v1/openapi.json is on the rendered page (Redoc
//     gives each one the id operation/<operationId>);
//   - the page does not overflow horizontally
//     (document.documentElement.scrollWidth <= window.innerWidth);
//   - the page asks nothing of another origin (any such request is
//     aborted and fails the check) and logs no error, the one exception
//     being the Redocly logo that Redoc's menu footer links from its CDN,
//     which the page's Content-Security-Policy refuses before any request.
// It saves a screenshot of the top of the page and one of an operation at
// each width into OUT_DIR.
//   node check.mjs http://127.0.0.1:PORT OUT_DIR
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [base, outDir] = process.argv.slice(2);
if (!base || !outDir) {
  console.error('usage: node check.mjs BASE_URL OUT_DIR');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const origin = new URL(base).origin;

const res = await fetch(`${base}/v1/openapi.json`);
if (!res.ok) throw new Error(`GET /v1/openapi.json: ${res.status}`);
const doc = await res.json();
const ops = [];
for (const item of Object.values(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (op && op.operationId) ops.push({ id: op.operationId, method: method.toUpperCase() });
  }
}
if (ops.length < 20) throw new Error(`only ${ops.length} operations in the description`);
const shown = 'getVariantSpecs'; // the operation of the second screenshot

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  // playwright adds --headless and a fresh --user-data-dir of its own
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  timeout: 60_000,
});
const failures = [];
const shots = [];
try {
  for (const width of [1400, 390]) {
    const context = await browser.newContext({ viewport: { width, height: width > 800 ? 900 : 844 }, deviceScaleFactor: 1 });
    const foreign = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(origin + '/') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const t = m.text();
      if (/image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates .*Content Security Policy/.test(t)) return;
      errors.push(t);
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    const t0 = Date.now();
    await page.goto(`${base}/v1/docs`, { waitUntil: 'networkidle', timeout: 60_000 });
    try {
      await page.waitForSelector(`[id="operation/${shown}"]`, { state: 'attached', timeout: 60_000 });
    } catch {
      failures.push(`${width} px: no operation/${shown} on the page after 60 s: the reference did not render`);
    }
    await page.waitForTimeout(500); // Redoc lays out the right panel after the first paint
    const loaded = Date.now() - t0;
    const missing = await page.evaluate((ids) => ids.filter((id) => !document.getElementById(`operation/${id}`)), ops.map((o) => o.id));
    for (const id of missing) failures.push(`${width} px: operation ${id} is not on the rendered page`);
    const overflow = await page.evaluate(() => {
      const vw = window.innerWidth;
      const sw = document.documentElement.scrollWidth;
      if (sw <= vw) return null;
      // name the widest offenders, for the log
      const wide = [];
      for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect();
        if (r.right > vw + 1 && r.width > 0) {
          const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '';
          wide.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${cls} (right edge ${Math.round(r.right)} px)`);
        }
      }
      return { vw, sw, wide: wide.slice(0, 8) };
    });
    if (overflow) failures.push(`${width} px: the page is ${overflow.sw} px wide, wider than the ${overflow.vw} px window:\n    ${overflow.wide.join('\n    ')}`);
    for (const u of foreign) failures.push(`${width} px: the page asked for ${u}`);
    for (const e of errors) failures.push(`${width} px: console error: ${e}`);

    const top = join(outDir, `docs-${width}.png`);
    await page.screenshot({ path: top });
    await page.evaluate((id) => document.getElementById(`operation/${id}`)?.scrollIntoView(), shown);
    await page.waitForTimeout(300);
    const op = join(outDir, `docs-${width}-${shown}.png`);
    await page.screenshot({ path: op });
    shots.push(top, op);
    console.log(`${width} px: ${ops.length - missing.length}/${ops.length} operations rendered in ${loaded} ms, ` +
      (overflow ? `overflow (${overflow.sw} px)` : 'no horizontal overflow') + `, ${foreign.length} foreign requests, ${errors.length} errors`);
    await context.close();
  }
} finally {
  await browser.close();
}
for (const s of shots) console.log(`screenshot: ${s}`);
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(`docs page: all ${ops.length} operations rendered by Chromium at 1400 and 390 px, no overflow, nothing loaded from elsewhere`);
