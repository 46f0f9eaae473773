// The viewer's reader (impr.js) on a recorded fixture: `node --test tools/viewer/test/`.
// fixtures/fall.impr is `cargo run -p impetus-recorder --example fall --
// tools/viewer/test/fixtures/fall.impr` (one box falling onto a ground box, 120 steps),
// written before the format had particles. fixtures/cloth.impr is `cargo run -p
// impetus-recorder --example cloth -- tools/viewer/test/fixtures/cloth.impr 120 --grid 10
// --churn` (a 16 x 16 cloth falling onto a sphere; its last row removed before step 40,
// three loose particles added in the freed slots before step 50; positions on a 2^-10 m
// grid). fixtures/joints.impr is `cargo run -p impetus-recorder --example joints --
// tools/viewer/test/fixtures/joints.impr` (a hinged bar and a chain of three ball-jointed
// links swinging down, 120 steps; the chain's last joint removed before step 60). With
// IMPR_FILE set (CI: the pile recording), that file is read and checked too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzip, loadImpr, parseImpr, poseHash, poseHashBigInt, particleHash, firstDifference, ImprError, EMPTY_HASH } from '../impr.js';

const fixture = readFileSync(fileURLToPath(new URL('./fixtures/fall.impr', import.meta.url)));
const clothFixture = readFileSync(fileURLToPath(new URL('./fixtures/cloth.impr', import.meta.url)));
const jointsFixture = readFileSync(fileURLToPath(new URL('./fixtures/joints.impr', import.meta.url)));

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

test('a file from before particles reads, with none', async () => {
  const rec = await loadImpr(fixture);
  assert.deepEqual(rec.particles, []);
  for (const f of rec.frames) {
    assert.equal(f.particles.length, 0);
    assert.equal(f.particlePositions.length, 0);
    assert.equal(f.particleHash, EMPTY_HASH);
  }
});

test('the cloth fixture: the particle table, ids, radii, comings and goings', async () => {
  const rec = await loadImpr(clothFixture);
  assert.equal(rec.frames.length, 121);
  assert.equal(rec.particles.length, 259, '256 of the cloth and 3 loose ones');
  rec.particles.slice(0, 256).forEach((p, k) => {
    assert.deepEqual(p, { idIndex: k, idGeneration: 1, radius: Math.fround(0.02), firstFrame: 0, removedAt: k >= 240 ? 40 : null });
  });
  // The loose particles reuse the freed slots, with a new generation.
  for (const p of rec.particles.slice(256)) {
    assert.ok(p.idIndex >= 240 && p.idIndex < 256 && p.idGeneration === 2, JSON.stringify(p));
    assert.equal(p.radius, Math.fround(0.05));
    assert.equal(p.firstFrame, 50);
    assert.equal(p.removedAt, null);
  }
  const counts = rec.frames.map((f) => f.particles.length);
  assert.deepEqual([counts[0], counts[39], counts[40], counts[49], counts[50], counts[120]], [256, 256, 240, 240, 243, 243]);
  assert.deepEqual([...rec.frames[50].particles.slice(-4)], [239, 256, 257, 258], 'ascending numbers');
});

test('the cloth fixture: particle hashes match, positions on the grid, the cloth falls onto the sphere', async () => {
  const rec = await loadImpr(clothFixture);
  for (const f of rec.frames) {
    assert.equal(f.computedParticleHash, f.particleHash, `frame ${f.frame}`);
    const bits = new Uint32Array(f.particlePositions.buffer, f.particlePositions.byteOffset, f.particlePositions.length);
    assert.equal(poseHashBigInt(f.particles, bits, 3), f.particleHash, `frame ${f.frame} (BigInt reference)`);
    assert.equal(particleHash(f.particles, bits), f.particleHash);
    for (const v of f.particlePositions) assert.ok(Number.isInteger(v * 1024), `frame ${f.frame}: ${v} on the 2^-10 grid`);
  }
  const ys = (f) => [...rec.frames[f].particlePositions.filter((_, i) => i % 3 === 1)];
  assert.ok(ys(0).every((y) => Math.abs(y - 1.6) < 1e-3), 'flat at 1.6 m');
  const top = Math.max(...ys(120).slice(0, 240));
  const low = Math.min(...ys(120));
  assert.ok(top > 1.0 && top < 1.1, `the cloth lies on the sphere (top at ${top})`);
  assert.ok(low < 0.8, `its rim hangs down (to ${low})`);
  // The state hash covers the particles: it changes every frame while the cloth falls.
  assert.notEqual(rec.frames[10].stateHash, rec.frames[11].stateHash);
});

test('two cloth recordings: a particle hash difference is a difference', async () => {
  const a = await loadImpr(clothFixture);
  const b = await loadImpr(clothFixture);
  assert.equal(firstDifference(a, b), null);
  b.frames[77] = { ...b.frames[77], particleHash: b.frames[77].particleHash ^ 1n };
  assert.equal(firstDifference(a, b), 77);
});

/** The records of a decompressed stream: { at, tag, len }. */
function records(raw) {
  const out = [];
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  for (let at = 28; at < raw.length; ) {
    const len = view.getUint32(at + 1, true);
    out.push({ at, tag: raw[at], len });
    at += 5 + len;
  }
  return out;
}

test('bad files with particles throw an ImprError naming the fault', async () => {
  const raw = await gunzip(new Uint8Array(clothFixture));
  await assert.rejects(loadImpr(clothFixture.subarray(0, clothFixture.length - 20)), (e) => e instanceof ImprError && /cut short or corrupt/.test(e.message));
  const cleanly = (bytes, what) => {
    try {
      return parseImpr(bytes);
    } catch (e) {
      assert.ok(e instanceof ImprError, `${what}: ${e}`);
      assert.match(e.message, /at byte \d+ \(decompressed\)/, what);
      return null;
    }
  };
  // Truncations: every byte up to the end of frame 1, and at and just after the start of
  // every particle record and in the middle of it.
  const recs = records(raw);
  const frame1 = recs.filter((r) => r.tag === 3)[1];
  for (let n = 0; n <= frame1.at + 5 + frame1.len; n++) {
    const rec = cleanly(raw.subarray(0, n), `cut at ${n}`);
    if (rec) assert.ok(rec.frames.length <= 2, `cut at ${n}`);
  }
  for (const r of recs.filter((r) => r.tag === 5 || r.tag === 6)) {
    for (const n of [r.at, r.at + 1, r.at + 5, r.at + 5 + (r.len >> 1), r.at + 5 + r.len - 1]) {
      const rec = cleanly(raw.subarray(0, n), `cut at ${n}`);
      if (rec) assert.ok(rec.frames.length < 121 && n === r.at, `cut at ${n}`);
    }
  }
  // Cut right after a particle frame: its frame is missing.
  const p60 = recs.filter((r) => r.tag === 6)[60];
  assert.throws(() => parseImpr(raw.subarray(0, p60.at + 5 + p60.len)), (e) => e instanceof ImprError && e.message.includes(`at byte ${p60.at + 5} `) && /the particles of frame 60 and then no frame/.test(e.message));
  // Flipped bits anywhere, and in the particle records especially.
  let s = 7;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  const particleBytes = recs.filter((r) => r.tag === 5 || r.tag === 6);
  for (let k = 0; k < 80; k++) {
    const flipped = raw.slice();
    const r = particleBytes[rand() % particleBytes.length];
    const at = k % 2 ? rand() % raw.length : r.at + (rand() % (5 + r.len));
    flipped[at] ^= 1 << (rand() >>> 29);
    cleanly(flipped, `flip ${k} at ${at}`);
  }
  // A flipped position bit in frame 60's particles (tag, length, frame, hash, n: 21 bytes,
  // then the gaps' 4 planes): the particle hash check names the frame.
  const n60 = new DataView(raw.buffer, raw.byteOffset + p60.at + 17, 4).getUint32(0, true);
  const bad = raw.slice();
  bad[p60.at + 21 + 4 * n60 + 2] ^= 0x10;
  await assert.rejects(loadImpr(await gzip(bad)), /frame 60 particles: the particles decode to particle hash/);
  // A particle frame for the wrong frame, a particle past the table, a removed particle,
  // two particle frames for one frame.
  const p5 = recs.filter((r) => r.tag === 6)[45];
  let b = raw.slice();
  b[p5.at + 5] = 44;
  assert.throws(() => parseImpr(b), /the particles of frame 44 where those of frame 45 belong/);
  b = raw.slice();
  b[p5.at + 21 + 3 * 240] = 1; // the first gap's high byte (240 particles): particle 2^24
  assert.throws(() => parseImpr(b), /frame 45 particles: particle 16777216, but the particle table has 256/);
  b = raw.slice();
  b[p5.at + 21 + 239] = 1; // the last gap: particle 240, removed at frame 40
  assert.throws(() => parseImpr(b), /frame 45 particles: particle 240, which left the world at frame 40/);
  b = new Uint8Array(raw.length + 5 + p5.len);
  b.set(raw.subarray(0, p5.at + 5 + p5.len));
  b.set(raw.subarray(p5.at), p5.at + 5 + p5.len);
  assert.throws(() => parseImpr(b), /a second particle frame for frame 45/);
});

/** Body `b`'s pose at frame `f` of `rec` (its last recorded pose at or before `f`). */
function poseAt(rec, b, f) {
  for (let k = f; k >= 0; k--) {
    const j = rec.frames[k].bodies.indexOf(b);
    if (j >= 0) return [...rec.frames[k].poses.slice(7 * j, 7 * j + 7)];
  }
  return rec.bodies[b].pose;
}

/** The pose `p` times the local pose `l` (7 floats each): p + q l.p, q l.q. */
function compose(p, l) {
  const [x, y, z, w] = p.slice(3);
  const rotate = (v) => {
    const t = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])];
    return [v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]), v[2] + w * t[2] + (x * t[1] - y * t[0])];
  };
  const d = rotate(l);
  const [a, b, c, e] = l.slice(3);
  return [
    p[0] + d[0], p[1] + d[1], p[2] + d[2],
    w * a + x * e + y * c - z * b, w * b - x * c + y * e + z * a, w * c + x * b - y * a + z * e, w * e - x * a - y * b - z * c,
  ];
}

test('the joints fixture: the joint table, both frames of each joint at its anchor, a removal', async () => {
  const rec = await loadImpr(jointsFixture);
  assert.equal(rec.frames.length, 121);
  assert.equal(rec.bodies.length, 7, 'ground, two blocks, the bar, three links');
  assert.deepEqual(rec.joints.map((j) => j.kind), ['hinge', 'ball', 'ball', 'ball']);
  assert.deepEqual(rec.joints.map((j) => [j.bodyA, j.bodyB]), [[1, 2], [3, 4], [4, 5], [5, 6]]);
  assert.deepEqual(rec.joints.map((j) => j.firstFrame), [0, 0, 0, 0]);
  assert.deepEqual(rec.joints.map((j) => j.removedAt), [null, null, null, 60]);
  const anchors = [[-1, 3, 0], [1.5, 3, 0], [2, 3, 0], [2.5, 3, 0]];
  for (const f of [0, 30, 59, 120]) {
    rec.joints.forEach((j, k) => {
      if (j.removedAt !== null && f >= j.removedAt) return;
      const a = compose(poseAt(rec, j.bodyA, f), j.frameA);
      const b = compose(poseAt(rec, j.bodyB, f), j.frameB);
      // The joints hold: the two frames' origins meet (to a few mm while swinging).
      const gap = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      assert.ok(gap < (f === 0 ? 1e-6 : 0.01), `frame ${f}, joint ${k}: frames ${gap} m apart`);
      if (k === 0 || f === 0) {
        // The hinge's block and the chain's top block are static: those anchors stay.
        const d = Math.hypot(a[0] - anchors[k][0], a[1] - anchors[k][1], a[2] - anchors[k][2]);
        assert.ok(d < 1e-5, `frame ${f}, joint ${k}: anchor ${a.slice(0, 3)}`);
      }
    });
  }
  // The chain's last link, let go at frame 60, falls to the ground; the bar swings.
  assert.ok(poseAt(rec, 6, 59)[1] > 1, `the link hangs at y = ${poseAt(rec, 6, 59)[1]}`);
  assert.ok(poseAt(rec, 6, 120)[1] < 0.3, `the loose link lies at y = ${poseAt(rec, 6, 120)[1]}`);
  assert.ok(poseAt(rec, 2, 24)[1] < 2.6, 'the bar hangs down a quarter period after its release');
});

test('a file from before joints reads with none; bad joint records throw an ImprError naming the fault', async () => {
  assert.deepEqual((await loadImpr(fixture)).joints, []);
  const raw = await gunzip(new Uint8Array(jointsFixture));
  const withRecord = (tag, payload) => {
    const b = new Uint8Array(raw.length + 5 + payload.length);
    b.set(raw);
    b[raw.length] = tag;
    new DataView(b.buffer).setUint32(raw.length + 1, payload.length, true);
    b.set(payload, raw.length + 5);
    return b;
  };
  const joint = (bodyB, kind) => {
    const p = new Uint8Array(17 + 56);
    const v = new DataView(p.buffer);
    [9, 1, 0, bodyB].forEach((x, i) => v.setUint32(4 * i, x, true));
    p[16] = kind;
    v.setFloat32(17 + 24, 1, true);
    v.setFloat32(17 + 52, 1, true);
    return p;
  };
  const u32 = (x) => new Uint8Array(new Uint32Array([x]).buffer);
  const fails = (bytes, pattern) => assert.throws(() => parseImpr(bytes), (e) => e instanceof ImprError && pattern.test(e.message));
  fails(withRecord(7, joint(1000, 1)), /joint 4: body 1000, which is not in the world/);
  fails(withRecord(7, joint(1, 9)), /joint 4: unknown joint kind 9/);
  fails(withRecord(8, u32(3)), /removal of joint 3, which is not in the world/);
  fails(withRecord(8, u32(7)), /removal of joint 7, which is not in the world/);
  fails(withRecord(7, joint(1, 3).subarray(0, 40)), /joint 4: needs 4 bytes, the (record|file) has 3 left/);
  const rec = parseImpr(withRecord(7, joint(1, 3)));
  assert.equal(rec.joints[4].kind, 'fixed');
  assert.equal(rec.joints[4].firstFrame, 121);
});

test('IMPR_FILE (if set) reads and its pose hashes match', { skip: !process.env.IMPR_FILE && 'IMPR_FILE not set' }, async () => {
  const t0 = performance.now();
  const rec = await loadImpr(readFileSync(process.env.IMPR_FILE));
  const ms = performance.now() - t0;
  for (const f of rec.frames) assert.equal(f.computedPoseHash, f.poseHash, `frame ${f.frame}`);
  console.log(`${process.env.IMPR_FILE}: ${rec.bodies.length} bodies, ${rec.frames.length} frames, read in ${ms.toFixed(0)} ms`);
});
