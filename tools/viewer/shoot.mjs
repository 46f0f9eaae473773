#!/usr/bin/env node
// Still images of a recording: loads an .impr file in the viewer (headless Chromium, software
// GL, see headless.mjs), seeks each frame and writes one PNG per frame, without the HUD.
//
//   node tools/viewer/shoot.mjs RECORDING --frames 0,40,80,240 --out DIR [options]
//
// writes DIR/NAME-0000.png, DIR/NAME-0040.png, ... (NAME: the recording's file name without
// .impr, or --name). Options:
//   --camera px,py,pz,tx,ty,tz   camera position and the point it looks at, in m (the viewer's
//                                `camera=` URL parameter; default: the viewer's own framing)
//   --size WxH                   image size in pixels (default 960x540)
//   --name NAME                  file name prefix
//   --contacts                   show the contact points and normals (if recorded)
//   --no-particles               hide the particles
//   --hud                        keep the viewer's HUD (frame, hashes) in the picture
//   --no-aa                      no antialiasing (faster, jagged)
// Needs `npm ci` in tools/viewer (playwright-core) and Chromium (CHROMIUM, else
// /usr/bin/chromium). Example (docs/img, see docs/img/README.md):
//   node tools/viewer/shoot.mjs target/cloth_drape.impr --frames 0,40,80,240 --out docs/img \
//     --camera 0,3.2,6.4,0,1,0
import { mkdirSync, existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serve, launch, chromiumPath } from './headless.mjs';

const usage = 'usage: node shoot.mjs RECORDING --frames 0,40,... --out DIR [--camera px,py,pz,tx,ty,tz] [--size WxH] [--name NAME] [--contacts] [--no-particles] [--hud] [--no-aa]';
const fail = (msg) => {
  console.error(`shoot: ${msg}\n${usage}`);
  process.exit(2);
};

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: {
      frames: { type: 'string' },
      out: { type: 'string' },
      camera: { type: 'string' },
      size: { type: 'string', default: '960x540' },
      name: { type: 'string' },
      contacts: { type: 'boolean', default: false },
      'no-particles': { type: 'boolean', default: false },
      hud: { type: 'boolean', default: false },
      'no-aa': { type: 'boolean', default: false },
    },
  });
} catch (e) {
  fail(e.message);
}
const { values: o, positionals } = args;
if (positionals.length !== 1 || !o.frames || !o.out) fail('a recording, --frames and --out are required');
const recording = resolve(positionals[0]);
if (!existsSync(recording)) fail(`no file ${recording}`);
const frames = o.frames.split(',').map((s) => Number(s));
if (frames.some((f) => !Number.isInteger(f) || f < 0)) fail(`bad --frames ${o.frames}`);
const size = /^(\d+)x(\d+)$/.exec(o.size);
if (!size) fail(`bad --size ${o.size}`);
const [width, height] = [+size[1], +size[2]];
if (o.camera !== undefined) {
  const c = o.camera.split(',').map(Number);
  if (c.length !== 6 || c.some((v) => !Number.isFinite(v))) fail(`bad --camera ${o.camera} (px,py,pz,tx,ty,tz)`);
}
if (!existsSync(chromiumPath)) fail(`no Chromium at ${chromiumPath} (set CHROMIUM)`);
const name = o.name ?? basename(recording).replace(/\.impr$/, '');

const query = new URLSearchParams({ file: '/rec/r.impr' });
if (o.camera !== undefined) query.set('camera', o.camera);
if (o.contacts) query.set('contacts', '1');
if (o['no-particles']) query.set('particles', '0');
if (o['no-aa']) query.set('aa', '0');

mkdirSync(o.out, { recursive: true });
const server = await serve({ 'r.impr': recording });
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`http://127.0.0.1:${server.address().port}/?${query}`);
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 300000 });
  const err = await page.evaluate(() => document.body.dataset.error || '');
  if (err) throw new Error(`the viewer: ${err}`);
  if (!o.hud) await page.addStyleTag({ content: '#hud, #pick { display: none !important; }' });
  const n = await page.evaluate(() => window.viewer.recording.frames.length);
  const late = frames.find((f) => f >= n);
  if (late !== undefined) throw new Error(`frame ${late}: the recording has frames 0 to ${n - 1}`);
  for (const f of frames) {
    await page.evaluate((f) => window.viewer.seek(f), f);
    const path = join(o.out, `${name}-${String(f).padStart(4, '0')}.png`);
    const png = await page.screenshot({ path });
    console.log(`${path}: frame ${f} of ${n - 1}, ${width}x${height}, ${png.length} bytes`);
  }
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
} catch (e) {
  console.error(`shoot: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
  server.close();
}
