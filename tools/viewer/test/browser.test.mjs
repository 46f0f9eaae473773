// The viewer in a real browser: headless Chromium (Debian's `chromium`, software GL through
// SwiftShader) driven by playwright-core. It loads fixtures/fall.impr (one box falling onto
// a ground box), screenshots frames 0 and 90 from a camera level with the ground's top
// face (so that face is a horizontal line on screen), and checks pixels: the box (orange)
// moves down and stops above the ground line (grey); the contact overlay (magenta points)
// shows at frame 90 and not at frame 0. Screenshots: target/viewer/fall-0.png, fall-90.png.
// Then the comparison of fall.impr with fall-nudged-45.impr (the same scene with a 1 mN·s
// nudge before step 45: `cargo run -p impetus-recorder --example fall --
// tools/viewer/test/fixtures/fall-nudged-45.impr 120 45`): the first difference is frame 45.
// Then particles: fixtures/cloth.impr (a 16 x 16 cloth falling onto a grey sphere, see
// reader.test.mjs) at frames 0 and 120: the particles (chartreuse) show, move down, are
// one draw call, and hide with the toggle (target/viewer/cloth-0.png, cloth-120.png).
// Then joints: fixtures/joints.impr (a hinged bar and a chain of three ball-jointed links,
// see reader.test.mjs) at frames 30 and 90: the joints' frames show (their green y and blue z axes),
// four joints and then three (the chain's last is removed at frame 60), and hide with the
// toggle (target/viewer/joints-30.png, joints-90.png).
// Then shoot.mjs on the cloth fixture (target/viewer/shoot/cloth-0000.png, cloth-0120.png).
//
// With PILE_FILE set (a recording of the pile), it also plays that file and prints the
// frame time (target/viewer/pile.png, target/viewer/pile-frame-time.json): PILE_BENCH_FRAMES
// frames (default 120), antialiased unless PILE_AA=0.
//
// Without Chromium (CHROMIUM, else /usr/bin/chromium) the test is skipped, saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { serve, launch, viewerDir, chromiumPath as chromium } from '../headless.mjs';

const repo = join(viewerDir, '..', '..');
const outDir = join(repo, 'target', 'viewer');
const haveChromium = existsSync(chromium);
if (!haveChromium) {
  console.log(`\n*** BROWSER TEST SKIPPED: no Chromium at ${chromium} (apt-get install chromium) ***\n`);
}

/** A minimal PNG decoder (8-bit RGB or RGBA, non-interlaced): what Chromium writes. */
function decodePng(buf) {
  let at = 8;
  let width = 0, height = 0, channels = 0;
  const idat = [];
  while (at < buf.length) {
    const len = buf.readUInt32BE(at);
    const type = buf.toString('ascii', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, 'bit depth 8');
      channels = { 2: 3, 6: 4 }[data[9]];
      assert.ok(channels, `colour type ${data[9]}`);
      assert.equal(data[12], 0, 'not interlaced');
    } else if (type === 'IDAT') idat.push(data);
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const px = new Uint8Array(width * height * 4);
  const prev = new Uint8Array(stride);
  const line = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels] : 0;
      const b = prev[i];
      const c = i >= channels ? prev[i - channels] : 0;
      let v = src[i];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[i] = v & 255;
    }
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < 3; k++) px[4 * (y * width + x) + k] = line[x * channels + k];
      px[4 * (y * width + x) + 3] = 255;
    }
    prev.set(line);
  }
  return { width, height, px };
}

/** Pixel classes: the box (orange, 0xff6a00 shaded), the ground (grey), the contact points (magenta). */
function analyse({ width, height, px }) {
  let boxN = 0, boxY = 0, boxMaxY = -1, magenta = 0;
  let groundTop = height;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = 4 * (y * width + x);
      const [r, g, b] = [px[o], px[o + 1], px[o + 2]];
      if (r > 90 && r - b > 70 && r - g > 35) {
        boxN++;
        boxY += y;
        boxMaxY = Math.max(boxMaxY, y);
      } else if (r > 200 && b > 200 && g < 90) {
        magenta++;
      } else if (Math.abs(r - g) < 12 && Math.abs(g - b) < 12 && r > 90 && x > width * 0.3 && x < width * 0.7) {
        groundTop = Math.min(groundTop, y);
      }
    }
  }
  return { boxN, centroidY: boxN ? boxY / boxN : NaN, boxBottom: boxMaxY, groundTop, magenta };
}

/** Pixels of the particles' colour (chartreuse 0xc8f040, shaded): green above red above blue. */
function particlePixels({ width, height, px }) {
  let n = 0, sumY = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = 4 * (y * width + x);
      const [r, g, b] = [px[o], px[o + 1], px[o + 2]];
      if (g > 80 && r > 0.5 * g && r < 0.95 * g && b < 0.5 * g) {
        n++;
        sumY += y;
      }
    }
  }
  return { n, centroidY: n ? sumY / n : NaN };
}

test('a box falls onto the ground: frames 0 and 90 on screen', { skip: !haveChromium && `no Chromium at ${chromium}`, timeout: 120000 }, async () => {
  mkdirSync(outDir, { recursive: true });
  const server = await serve({ 'fall.impr': join(viewerDir, 'test', 'fixtures', 'fall.impr') });
  // launch() makes a fresh profile in a temporary user data dir, removed on close.
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    const port = server.address().port;
    // The camera sits at the height of the ground's top face (y = 0), looking along -z.
    await page.goto(`http://127.0.0.1:${port}/?file=/rec/fall.impr&contacts=1&camera=0,0,14,0,0,0`);
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.body.dataset.error || ''), '', 'the page reports no error');
    const info = await page.evaluate(() => {
      const r = window.viewer.recording;
      return { frames: r.frames.length, bodies: r.bodies.length, gl: !!document.getElementById('view').getContext('webgl2') };
    });
    assert.equal(info.frames, 121);
    const shots = {};
    for (const f of [0, 90]) {
      await page.evaluate((f) => window.viewer.seek(f), f);
      const hud = await page.textContent('#frame');
      assert.match(hud, new RegExp(`frame ${f} /`));
      const png = await page.screenshot({ path: join(outDir, `fall-${f}.png`) });
      shots[f] = analyse(decodePng(png));
    }
    const [a, b] = [shots[0], shots[90]];
    console.log('frame 0:', JSON.stringify(a), '\nframe 90:', JSON.stringify(b), `\nscreenshots: ${outDir}/fall-0.png, fall-90.png`);
    assert.ok(a.boxN > 200 && b.boxN > 200, `the box shows in both frames (${a.boxN}, ${b.boxN} pixels)`);
    assert.ok(b.centroidY > a.centroidY + 50, `the box moves down: centroid row ${a.centroidY.toFixed(1)} -> ${b.centroidY.toFixed(1)}`);
    assert.ok(b.groundTop < 600, 'the ground shows');
    assert.ok(b.centroidY < b.groundTop, `the box's centroid (row ${b.centroidY.toFixed(1)}) is above the ground line (row ${b.groundTop})`);
    assert.ok(b.boxBottom <= b.groundTop + 2, `the box stops on the ground line: bottom row ${b.boxBottom}, ground row ${b.groundTop}`);
    assert.equal(a.magenta, 0, 'no contact overlay at frame 0 (nothing touches)');
    assert.ok(b.magenta > 10, `the contact overlay shows at frame 90 (${b.magenta} magenta pixels)`);
    // The HUD shows the hashes; picking the box shows its id and velocity.
    assert.match(await page.textContent('#hashes'), /state hash [0-9a-f]{16}\s+pose hash [0-9a-f]{16} \(matches/);
    await page.evaluate(() => window.viewer.pick(1));
    const pick = await page.textContent('#pick');
    assert.match(pick, /body 1 .*dynamic/);
    assert.match(pick, /velocity/);
    assert.match(pick, /box half extents 0\.5 × 0\.5 × 0\.5/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test('two recordings: the page names the first frame where they differ', { skip: !haveChromium && `no Chromium at ${chromium}`, timeout: 120000 }, async () => {
  const fixtures = join(viewerDir, 'test', 'fixtures');
  const server = await serve({ 'fall.impr': join(fixtures, 'fall.impr'), 'nudged.impr': join(fixtures, 'fall-nudged-45.impr') });
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const port = server.address().port;
    await page.goto(`http://127.0.0.1:${port}/?file=/rec/fall.impr&compare=/rec/fall.impr`);
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60000 });
    assert.match(await page.textContent('#compare'), /agree on all 121 frames/);
    await page.goto(`http://127.0.0.1:${port}/?file=/rec/fall.impr&compare=/rec/nudged.impr`);
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60000 });
    assert.match(await page.textContent('#compare'), /first difference at frame 45/);
    await page.click('#jump');
    assert.equal(await page.evaluate(() => window.viewer.frame), 45);
    assert.match(await page.textContent('#compare'), /\(differs\)/);
    await page.screenshot({ path: join(outDir, 'compare-45.png') });
  } finally {
    await browser.close();
    server.close();
  }
});

test('particles: a cloth falls onto a sphere, one draw call, toggled off and on', { skip: !haveChromium && `no Chromium at ${chromium}`, timeout: 120000 }, async () => {
  mkdirSync(outDir, { recursive: true });
  const server = await serve({ 'cloth.impr': join(viewerDir, 'test', 'fixtures', 'cloth.impr') });
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    // From the side and a little above, the sphere in the middle.
    await page.goto(`http://127.0.0.1:${server.address().port}/?file=/rec/cloth.impr&camera=0,1.6,3.4,0,0.8,0`);
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.body.dataset.error || ''), '', 'the page reports no error');
    const shots = {};
    for (const f of [0, 120]) {
      await page.evaluate((f) => window.viewer.seek(f), f);
      const png = await page.screenshot({ path: join(outDir, `cloth-${f}.png`) });
      shots[f] = { ...particlePixels(decodePng(png)), drawCalls: await page.evaluate(() => window.viewer.drawCalls) };
    }
    console.log('cloth frame 0:', JSON.stringify(shots[0]), '\ncloth frame 120:', JSON.stringify(shots[120]), `\nscreenshots: ${outDir}/cloth-0.png, cloth-120.png`);
    assert.ok(shots[0].n > 100, `the particles show at frame 0 (${shots[0].n} pixels)`);
    assert.ok(shots[120].n > 100, `the particles show at frame 120 (${shots[120].n} pixels)`);
    assert.ok(shots[120].centroidY > shots[0].centroidY + 20, `they move down: row ${shots[0].centroidY.toFixed(1)} -> ${shots[120].centroidY.toFixed(1)}`);
    assert.equal(shots[120].drawCalls, 3, 'the ground, the sphere and one for all the particles');
    const hud = await page.textContent('#hashes');
    assert.match(hud, /particles 243 \(259 in the recording\)\s+particle hash [0-9a-f]{16} \(matches the particles read\)/);
    assert.equal(await page.isVisible('#particles'), true, 'the toggle shows');
    // The toggle (P) hides them: no particle pixels, one draw call less; and back.
    await page.keyboard.press('p');
    await page.evaluate(() => window.viewer.seek(120));
    const off = particlePixels(decodePng(await page.screenshot()));
    assert.equal(off.n, 0, 'hidden');
    assert.equal(await page.evaluate(() => window.viewer.drawCalls), 2);
    await page.click('#particles');
    await page.evaluate(() => window.viewer.seek(120));
    assert.equal(particlePixels(decodePng(await page.screenshot())).n, shots[120].n, 'shown again, the same pixels');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});

/**
 * Pixels of the joint frames' y and z axes (green 0x33e633 and blue 0x3366ff, blended into
 * the background at their edges) above the HUD (which has blue controls of its own).
 */
function jointAxisPixels({ width, height, px }) {
  let n = 0;
  for (let y = 0; y < height * 0.8; y++) {
    for (let x = 0; x < width; x++) {
      const o = 4 * (y * width + x);
      const [r, g, b] = [px[o], px[o + 1], px[o + 2]];
      if ((b > 120 && b > 2.5 * r && b > 1.5 * g) || (g > 120 && g > 2.5 * r && g > 2.5 * b)) n++;
    }
  }
  return n;
}

test('joints: their frames show, four and then three, toggled off and on', { skip: !haveChromium && `no Chromium at ${chromium}`, timeout: 120000 }, async () => {
  mkdirSync(outDir, { recursive: true });
  const server = await serve({ 'joints.impr': join(viewerDir, 'test', 'fixtures', 'joints.impr') });
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    // From the front, to the right and above, so that the z axes (the hinge's axis) show.
    await page.goto(`http://127.0.0.1:${server.address().port}/?file=/rec/joints.impr&camera=2.5,3.5,4.5,0.7,2.2,0`);
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.body.dataset.error || ''), '', 'the page reports no error');
    assert.equal(await page.isVisible('#joints'), true, 'the toggle shows');
    const shots = {};
    for (const f of [30, 90]) {
      await page.evaluate((f) => window.viewer.seek(f), f);
      const png = await page.screenshot({ path: join(outDir, `joints-${f}.png`) });
      shots[f] = { blue: jointAxisPixels(decodePng(png)), drawn: await page.evaluate(() => window.viewer.jointsDrawn), hud: await page.textContent('#hashes') };
    }
    console.log('joints frame 30:', shots[30].blue, 'axis pixels; frame 90:', shots[90].blue, `\nscreenshots: ${outDir}/joints-30.png, joints-90.png`);
    assert.equal(shots[30].drawn, 4);
    assert.equal(shots[90].drawn, 3, 'the chain\'s last joint was removed at frame 60');
    assert.match(shots[30].hud, /joints 4/);
    assert.match(shots[90].hud, /joints 3/);
    assert.ok(shots[30].blue > 40 && shots[90].blue > 30, `the axes show (${shots[30].blue}, ${shots[90].blue} pixels)`);
    // The toggle (J) hides them; and back.
    await page.keyboard.press('j');
    await page.evaluate(() => window.viewer.seek(30));
    assert.equal(jointAxisPixels(decodePng(await page.screenshot())), 0, 'hidden');
    assert.equal(await page.evaluate(() => window.viewer.jointsDrawn), 0);
    await page.click('#joints');
    await page.evaluate(() => window.viewer.seek(30));
    assert.equal(jointAxisPixels(decodePng(await page.screenshot())), shots[30].blue, 'shown again, the same pixels');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test('shoot.mjs writes one PNG per frame, of the size asked; refuses a bad camera or frame', { skip: !haveChromium && `no Chromium at ${chromium}`, timeout: 120000 }, () => {
  const dir = join(outDir, 'shoot');
  rmSync(dir, { recursive: true, force: true });
  const shoot = (...args) => spawnSync(process.execPath, [join(viewerDir, 'shoot.mjs'), ...args], { encoding: 'utf8' });
  const cloth = join(viewerDir, 'test', 'fixtures', 'cloth.impr');
  const ok = shoot(cloth, '--frames', '0,120', '--out', dir, '--size', '320x200', '--camera', '0,1.6,3.4,0,0.8,0');
  assert.equal(ok.status, 0, ok.stderr);
  for (const f of ['0000', '0120']) {
    const png = decodePng(readFileSync(join(dir, `cloth-${f}.png`)));
    assert.deepEqual([png.width, png.height], [320, 200]);
    assert.ok(particlePixels(png).n > 50, `particles in frame ${f}`);
  }
  const bad = shoot(cloth, '--frames', '0', '--out', dir, '--camera', '1,2,3');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /bad --camera/);
  const late = shoot(cloth, '--frames', '0,999', '--out', join(dir, 'late'));
  assert.equal(late.status, 1);
  assert.match(late.stderr, /frame 999: the recording has frames 0 to 120/);
  assert.equal(existsSync(join(dir, 'late', 'cloth-0000.png')), false, 'nothing written');
});

test('the pile plays: frame time in headless Chromium (software GL)', { skip: (!haveChromium && `no Chromium at ${chromium}`) || (!process.env.PILE_FILE && 'PILE_FILE not set'), timeout: 240000 }, async () => {
  mkdirSync(outDir, { recursive: true });
  const server = await serve({ 'pile.impr': process.env.PILE_FILE });
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const aa = process.env.PILE_AA === '0' ? '&aa=0' : '';
    await page.goto(`http://127.0.0.1:${server.address().port}/?file=/rec/pile.impr${aa}`);
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 180000 });
    assert.equal(await page.evaluate(() => document.body.dataset.error || ''), '');
    const frames = Number(process.env.PILE_BENCH_FRAMES || 120);
    const result = await page.evaluate(async (n) => {
      await window.viewer.benchmark(10); // warm-up
      const r = await window.viewer.benchmark(n);
      return { ...r, drawCalls: window.viewer.drawCalls, loadMs: window.viewer.loadMs, bodies: window.viewer.recording.bodies.length };
    }, frames);
    await page.evaluate(() => window.viewer.seek(window.viewer.recording.frames.length - 1));
    await page.screenshot({ path: join(outDir, 'pile.png') });
    const text = JSON.stringify(result, null, 1);
    writeFileSync(join(outDir, 'pile-frame-time.json'), text + '\n');
    console.log(`pile in headless Chromium (SwiftShader), 1280x720${aa ? ', no antialiasing' : ''}: ${text}`);
    assert.ok(result.drawCalls <= 4, `one draw per shape (and the ground): ${result.drawCalls} draw calls`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});
