// The viewer's reader (impr.js) on a recorded fixture: `node --test tools/viewer/test/`.
// fixtures/fall.impr is `cargo run -p impetus-recorder --example fall --
// tools/viewer/test/fixtures/fall.impr` (one box falling onto a ground box, 120 steps).
// With IMPR_FILE set (CI: the pile recording), that file is read and checked too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzip, loadImpr, parseImpr, poseHash, poseHashBigInt, firstDifference, ImprError } from '../impr.js';

const fixture = readFileSync(fileURLToPath(new URL('./fixtures/fall.impr', import.meta.url)));

test('the fixture reads: header, tables, 121 frames', async () => {
  const rec = await loadImpr(fixture);
  assert.equal(rec.frames.length, 121);
  assert.ok(Math.abs(rec.dt - 1 / 60) < 1e-7);
  assert.deepEqual(rec.gravity, [0, -10, 0]);
  assert.equal(rec.shapes.length, 2, 'ground box and unit box');
  assert.equal(rec.bodies.length, 2);
  assert.equal(rec.bodies[0].type, 'static');
  assert.equal(rec.bodies[1].type, 'dynamic');
  assert.deepEqual(rec.shapes[1], { kind: 'box', halfExtents: [0.5, 0.5, 0.5] });
});

test('the pose hash the reader computes equals the file\'s, in every frame', async () => {
  const rec = await loadImpr(fixture);
  for (const f of rec.frames) {
    assert.equal(f.computedPoseHash, f.poseHash, `frame ${f.frame}`);
    const bits = new Uint32Array(f.poses.buffer, f.poses.byteOffset, f.poses.length);
    assert.equal(poseHashBigInt(f.bodies, bits), f.poseHash, `frame ${f.frame} (BigInt reference)`);
  }
});

test('the box falls, lands and rests on the ground', async () => {
  const rec = await loadImpr(fixture);
  const yAt = (i) => {
    // The box is body 1; a frame without it (asleep) keeps the last pose.
    for (let k = i; k >= 0; k--) {
      const f = rec.frames[k];
      const j = f.bodies.indexOf(1);
      if (j >= 0) return f.poses[7 * j + 1];
    }
    return rec.bodies[1].pose[1];
  };
  assert.equal(yAt(0), 4);
  assert.ok(yAt(30) < yAt(0));
  assert.ok(Math.abs(yAt(120) - 0.5) < 0.02, `rests at y = ${yAt(120)}`);
  assert.ok(rec.frames[90].contactCounts.length >= 1, 'touching at frame 90');
  assert.ok(rec.frames.some((f) => f.events.contactBegin.length > 0), 'a contact begin event');
});

test('the hash on 32-bit halves equals the BigInt one on random data', () => {
  let s = 12345;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  for (let n = 0; n < 20; n++) {
    const bodies = Uint32Array.from({ length: n }, rand);
    const bits = Uint32Array.from({ length: 7 * n }, rand);
    assert.equal(poseHash(bodies, bits), poseHashBigInt(bodies, bits));
  }
  assert.equal(poseHash(new Uint32Array(0), new Uint32Array(0)), 0xcbf29ce484222325n);
});

test('two recordings: the first frame where they differ', async () => {
  const a = await loadImpr(fixture);
  const b = await loadImpr(fixture);
  assert.equal(firstDifference(a, b), null);
  b.frames[57] = { ...b.frames[57], stateHash: b.frames[57].stateHash ^ 1n };
  assert.equal(firstDifference(a, b), 57);
});

async function gzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

test('bad files throw an ImprError naming the fault, never anything else', async () => {
  const raw = await gunzip(new Uint8Array(fixture));
  await assert.rejects(loadImpr(new Uint8Array([1, 2, 3])), (e) => e instanceof ImprError && /gzip/.test(e.message));
  await assert.rejects(loadImpr(fixture.subarray(0, fixture.length - 20)), (e) => e instanceof ImprError && /cut short or corrupt/.test(e.message));
  // Every truncation of the decompressed stream fails cleanly, but one at a record
  // boundary after frame 0, which is a shorter recording (gzip's own trailer is what
  // tells a cut file, above).
  for (let n = 0; n < raw.length; n += 3) {
    try {
      const rec = parseImpr(raw.subarray(0, n));
      assert.ok(rec.frames.length < 121, `truncated at ${n}: all frames`);
    } catch (e) {
      assert.ok(e instanceof ImprError, `truncated at ${n}: ${e}`);
    }
  }
  // A flipped bit in a pose shows as a pose hash mismatch (frame 1's poses start 5 + 20 + 4
  // bytes into its record; the first frame record follows the header and the tables).
  const bad = raw.slice();
  bad[0] ^= 1;
  assert.throws(() => parseImpr(bad), /magic/);
  let s = 99;
  for (let k = 0; k < 300; k++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const flipped = raw.slice();
    flipped[s % raw.length] ^= 1 << (s >>> 29);
    try {
      parseImpr(flipped);
    } catch (e) {
      assert.ok(e instanceof ImprError, `flip ${k}: ${e}`);
    }
  }
  // Recompressed after a flip inside frame 60's poses: the pose hash check catches it.
  const flippedPose = raw.slice();
  let at = 28;
  let frame = -1;
  while (at < raw.length) {
    const len = new DataView(raw.buffer, raw.byteOffset + at + 1, 4).getUint32(0, true);
    if (raw[at] === 3 && ++frame === 60) break;
    at += 5 + len;
  }
  flippedPose[at + 5 + 20 + 4 + 4 + 2] ^= 0x10; // a low byte of the first pose field
  await assert.rejects(loadImpr(await gzip(flippedPose)), /frame 60: the poses decode to pose hash/);
});

test('IMPR_FILE (if set) reads and its pose hashes match', { skip: !process.env.IMPR_FILE && 'IMPR_FILE not set' }, async () => {
  const t0 = performance.now();
  const rec = await loadImpr(readFileSync(process.env.IMPR_FILE));
  const ms = performance.now() - t0;
  for (const f of rec.frames) assert.equal(f.computedPoseHash, f.poseHash, `frame ${f.frame}`);
  console.log(`${process.env.IMPR_FILE}: ${rec.bodies.length} bodies, ${rec.frames.length} frames, read in ${ms.toFixed(0)} ms`);
});
