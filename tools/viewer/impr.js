// The .impr reader of the viewer: an ES module that runs in the browser and in node.
// The format is documented in tools/recorder/src/lib.rs; this reader follows it field by
// field and checks what it reads: a bad file throws an ImprError naming the place and the
// fault.

export const VERSION = 1;
export const UNKNOWN_BODY = 0xffffffff;
export const SHAPE_KINDS = ['sphere', 'capsule', 'box', 'hull', 'plane', 'mesh', 'heightfield'];
export const JOINT_KINDS = ['ball', 'hinge', 'slider', 'fixed', 'distance', 'conetwist', 'motor'];

/** A file that does not read. */
export class ImprError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ImprError';
  }
}

/** Decompresses gzip bytes with the platform's DecompressionStream. */
export async function gunzip(bytes) {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw new ImprError('not a valid .impr file: not gzip-compressed (no gzip magic 1f 8b at the start)');
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  try {
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (e) {
    throw new ImprError(`not a valid .impr file: the gzip stream is cut short or corrupt (${e.message})`);
  }
}

/** Reads an .impr file (gzip-compressed bytes: Uint8Array or ArrayBuffer). */
export async function loadImpr(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return parseImpr(await gunzip(u8));
}

const FNV_PRIME_LO = 0x1b3; // 0x100000001b3 = 2^40 + 0x1b3
/** The FNV-1a 64 offset basis: the pose or particle hash of nothing. */
export const EMPTY_HASH = 0xcbf29ce484222325n;

/**
 * The pose hash of the format: FNV-1a 64 over, per pose, the body number (u32) and the 7
 * f32 fields' bits, little-endian. `bodies`: Uint32Array(n); `bits`: Uint32Array(7n) of
 * the fields' bit patterns. Returns a BigInt. Computed on two 32-bit halves (exact: every
 * intermediate stays below 2^53), then joined.
 */
export function poseHash(bodies, bits) {
  return fnvRecords(bodies, bits, 7);
}

/**
 * The particle hash: the same over, per particle, its number (u32) and the 3 f32 bits of
 * its position. `particles`: Uint32Array(n); `bits`: Uint32Array(3n).
 */
export function particleHash(particles, bits) {
  return fnvRecords(particles, bits, 3);
}

/** FNV-1a 64 over records of `ids[i]` then `bits[k * i .. k * i + k]`, as u32 LE. */
function fnvRecords(ids, bits, k) {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const mixWord = (w) => {
    for (let s = 0; s < 32; s += 8) {
      lo = (lo ^ ((w >>> s) & 0xff)) >>> 0;
      const t = lo * FNV_PRIME_LO;
      const carry = Math.floor(t / 4294967296);
      hi = (Math.imul(hi, FNV_PRIME_LO) + carry + (lo << 8)) >>> 0;
      lo = t >>> 0;
    }
  };
  for (let i = 0; i < ids.length; i++) {
    mixWord(ids[i]);
    for (let j = 0; j < k; j++) mixWord(bits[k * i + j]);
  }
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** The same hash, byte by byte in BigInt: slow, the reference the tests compare with. */
export function poseHashBigInt(bodies, bits, k = 7) {
  const mask = (1n << 64n) - 1n;
  let h = 0xcbf29ce484222325n;
  const mix = (w) => {
    for (let s = 0; s < 32; s += 8) {
      h ^= BigInt((w >>> s) & 0xff);
      h = (h * 0x100000001b3n) & mask;
    }
  };
  for (let i = 0; i < bodies.length; i++) {
    mix(bodies[i]);
    for (let j = 0; j < k; j++) mix(bits[k * i + j]);
  }
  return h;
}

/** The first frame at which two recordings' state, pose or particle hashes differ, or null. */
export function firstDifference(a, b) {
  const n = Math.min(a.frames.length, b.frames.length);
  for (let i = 0; i < n; i++) {
    const x = a.frames[i];
    const y = b.frames[i];
    if (x.stateHash !== y.stateHash || x.poseHash !== y.poseHash || x.particleHash !== y.particleHash) return x.frame;
  }
  return null;
}

/** A 64-bit hash as 16 hex digits. */
export function hex64(h) {
  return h.toString(16).padStart(16, '0');
}

class Cursor {
  constructor(bytes, at, end) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = at;
    this.end = end;
  }
  fail(what) {
    return new ImprError(`not a valid .impr file: at byte ${this.at} (decompressed): ${what}`);
  }
  need(n, what) {
    if (this.end - this.at < n) {
      const where = this.end === this.bytes.length ? 'file' : 'record';
      throw this.fail(`${what}: needs ${n} bytes, the ${where} has ${this.end - this.at} left`);
    }
  }
  u8(what) {
    this.need(1, what);
    return this.bytes[this.at++];
  }
  u16(what) {
    this.need(2, what);
    const v = this.view.getUint16(this.at, true);
    this.at += 2;
    return v;
  }
  u32(what) {
    this.need(4, what);
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }
  u64(what) {
    this.need(8, what);
    const v = this.view.getBigUint64(this.at, true);
    this.at += 8;
    return v;
  }
  f32(what) {
    this.need(4, what);
    const v = this.view.getFloat32(this.at, true);
    this.at += 4;
    return v;
  }
  vec3(what) {
    return [this.f32(what), this.f32(what), this.f32(what)];
  }
  pose(what) {
    const p = new Array(7);
    for (let k = 0; k < 7; k++) p[k] = this.f32(what);
    return p;
  }
  fits(n, size, what) {
    if (n * size > this.end - this.at) {
      throw this.fail(`${what}: ${n} items of ${size} bytes do not fit in the ${this.end - this.at} bytes left`);
    }
  }
  count(size, what) {
    const n = this.u32(what);
    this.fits(n, size, what);
    return n;
  }
  /** `cols` columns of `n` u32 stored as byte planes, into `out` (Uint32Array(cols * n)). */
  planes(n, cols, what) {
    this.need(n * 4 * cols, what);
    const out = new Uint32Array(n * cols);
    const b = this.bytes;
    for (let c = 0; c < cols; c++) {
      const base = this.at + c * 4 * n;
      for (let i = 0; i < n; i++) {
        out[c * n + i] =
          (b[base + i] | (b[base + n + i] << 8) | (b[base + 2 * n + i] << 16) | (b[base + 3 * n + i] << 24)) >>> 0;
      }
    }
    this.at += n * 4 * cols;
    return out;
  }
}

function readShape(r, n) {
  const what = `shape ${n}`;
  const kind = r.u8(what);
  switch (kind) {
    case 0:
      return { kind: 'sphere', radius: r.f32(what) };
    case 1:
      return { kind: 'capsule', halfHeight: r.f32(what), radius: r.f32(what) };
    case 2:
      return { kind: 'box', halfExtents: r.vec3(what) };
    case 3: {
      const nv = r.u16(what);
      r.fits(nv, 12, what);
      const vertices = [];
      for (let i = 0; i < nv; i++) vertices.push(r.vec3(what));
      const nf = r.u16(what);
      r.fits(nf, 2, what);
      const faces = [];
      for (let f = 0; f < nf; f++) {
        const count = r.u16(what);
        r.fits(count, 2, what);
        const poly = [];
        for (let k = 0; k < count; k++) {
          const i = r.u16(what);
          if (i >= nv) throw r.fail(`${what}: face ${f} names vertex ${i} of ${nv}`);
          poly.push(i);
        }
        faces.push(poly);
      }
      return { kind: 'hull', vertices, faces };
    }
    case 4:
      return { kind: 'plane', normal: r.vec3(what), offset: r.f32(what) };
    case 5:
    case 6: {
      const nt = r.count(36, what);
      const triangles = new Float32Array(9 * nt);
      for (let i = 0; i < 9 * nt; i++) triangles[i] = r.f32(what);
      return { kind: kind === 5 ? 'mesh' : 'heightfield', triangles };
    }
    default:
      throw r.fail(`${what}: unknown shape kind ${kind}`);
  }
}

function readBody(r, rec) {
  const what = `body ${rec.bodies.length}`;
  const idIndex = r.u32(what);
  const idGeneration = r.u32(what);
  const type = r.u8(what);
  if (type > 2) throw r.fail(`${what}: unknown body type ${type}`);
  const colour = r.u32(what);
  const pose = r.pose(what);
  const ns = r.u16(what);
  r.fits(ns, 33, what);
  const shapes = [];
  for (let k = 0; k < ns; k++) {
    const shape = r.u32(what);
    if (shape >= rec.shapes.length) {
      throw r.fail(`${what}: shape ${shape}, but the shape table has ${rec.shapes.length} so far`);
    }
    shapes.push({ shape, localPose: r.pose(what), sensor: (r.u8(what) & 1) !== 0 });
  }
  return {
    idIndex,
    idGeneration,
    type: ['static', 'kinematic', 'dynamic'][type],
    colour,
    pose,
    shapes,
    firstFrame: rec.frames.length,
    removedAt: null,
  };
}

/** Tag 7: a joint into the table; its bodies must be in the world. */
function readJoint(r, rec, live) {
  const what = `joint ${rec.joints.length}`;
  const idIndex = r.u32(what);
  const idGeneration = r.u32(what);
  const bodyA = r.u32(what);
  const bodyB = r.u32(what);
  for (const b of [bodyA, bodyB]) {
    if (!live[b]) throw r.fail(`${what}: body ${b}, which is not in the world`);
  }
  const kind = r.u8(what);
  if (kind >= JOINT_KINDS.length) throw r.fail(`${what}: unknown joint kind ${kind}`);
  return {
    idIndex,
    idGeneration,
    bodyA,
    bodyB,
    kind: JOINT_KINDS[kind],
    frameA: r.pose(what),
    frameB: r.pose(what),
    firstFrame: rec.frames.length,
    removedAt: null,
  };
}

function readFrame(r, rec, last, live) {
  const expected = rec.frames.length;
  const frame = r.u32("a frame's number");
  if (frame !== expected) throw r.fail(`frame number ${frame} where frame ${expected} belongs`);
  const what = `frame ${frame}`;
  const stateHash = r.u64(what);
  const poseHashInFile = r.u64(what);

  const n = r.count(32, `${what} poses`);
  const cols = r.planes(n, 8, `${what} poses`);
  const bodies = new Uint32Array(n);
  const bits = new Uint32Array(7 * n);
  let body = -1;
  for (let i = 0; i < n; i++) {
    body += cols[i] + 1;
    if (body >= live.length || !live[body]) {
      throw r.fail(`${what}: a pose of body ${body}, which is not in the world (the body table has ${live.length})`);
    }
    bodies[i] = body;
    for (let k = 0; k < 7; k++) {
      const v = (last[7 * body + k] ^ cols[(k + 1) * n + i]) >>> 0;
      last[7 * body + k] = v;
      bits[7 * i + k] = v;
    }
  }
  const computed = poseHash(bodies, bits);
  if (computed !== poseHashInFile) {
    throw r.fail(`${what}: the poses decode to pose hash ${hex64(computed)}, the file says ${hex64(poseHashInFile)}`);
  }
  const poses = new Float32Array(bits.buffer);

  const bodyOk = (b) => b === UNKNOWN_BODY || b < live.length;
  const m = r.count(21, `${what} contacts`);
  const p = r.count(20, `${what} contact points`);
  r.need(m, `${what} contacts`);
  const counts = r.bytes.slice(r.at, r.at + m);
  r.at += m;
  let total = 0;
  for (const c of counts) total += c;
  if (total !== p) throw r.fail(`${what}: the contacts' point counts add up to ${total}, the frame says ${p}`);
  const cc = r.planes(m, 5, `${what} contacts`);
  const pc = r.planes(p, 5, `${what} contact points`);
  const contactBodies = cc.slice(0, 2 * m);
  for (let i = 0; i < 2 * m; i++) {
    if (!bodyOk(contactBodies[i])) throw r.fail(`${what}: contact ${i >> 1} names a body not in the table`);
  }
  // Normals as xyz triples; points as x, y, z, separation, impulse.
  const normals = new Float32Array(3 * m);
  const nf = new Float32Array(cc.buffer, 2 * m * 4, 3 * m);
  for (let i = 0; i < m; i++) for (let k = 0; k < 3; k++) normals[3 * i + k] = nf[k * m + i];
  const points = new Float32Array(5 * p);
  const pf = new Float32Array(pc.buffer);
  for (let j = 0; j < p; j++) for (let k = 0; k < 5; k++) points[5 * j + k] = pf[k * p + j];

  const pair = (name) => {
    const a = r.u32(name);
    const b = r.u32(name);
    if (!bodyOk(a) || !bodyOk(b)) throw r.fail(`${name}: names a body not in the table`);
    return [a, b];
  };
  const events = { contactBegin: [], contactEnd: [], hits: [], sensorBegin: [], sensorEnd: [], jointBreaks: [] };
  for (const [list, name] of [
    [events.contactBegin, 'contact begin events'],
    [events.contactEnd, 'contact end events'],
  ]) {
    const k = r.count(8, `${what} ${name}`);
    for (let i = 0; i < k; i++) list.push(pair(`${what} ${name}`));
  }
  {
    const name = `${what} hit events`;
    const k = r.count(36, name);
    for (let i = 0; i < k; i++) {
      const [a, b] = pair(name);
      events.hits.push({ bodyA: a, bodyB: b, point: r.vec3(name), normal: r.vec3(name), approachSpeed: r.f32(name) });
    }
  }
  for (const [list, name] of [
    [events.sensorBegin, 'sensor begin events'],
    [events.sensorEnd, 'sensor end events'],
  ]) {
    const k = r.count(8, `${what} ${name}`);
    for (let i = 0; i < k; i++) list.push(pair(`${what} ${name}`));
  }
  {
    const name = `${what} joint break events`;
    const k = r.count(20, name);
    for (let i = 0; i < k; i++) {
      const joint = r.u32(name);
      const [a, b] = pair(name);
      events.jointBreaks.push({ joint, bodyA: a, bodyB: b, impulse: r.f32(name), angularImpulse: r.f32(name) });
    }
  }
  return {
    frame,
    stateHash,
    poseHash: poseHashInFile,
    computedPoseHash: computed,
    bodies,
    poses,
    contactCounts: counts,
    contactBodies,
    contactNormals: normals,
    contactPoints: points,
    events,
    particles: NO_PARTICLES,
    particlePositions: NO_POSITIONS,
    particleHash: EMPTY_HASH,
    computedParticleHash: EMPTY_HASH,
  };
}

const NO_PARTICLES = new Uint32Array(0);
const NO_POSITIONS = new Float32Array(0);

/** Tag 5: new particles into the table. */
function readParticlesAdded(r, rec, ps) {
  const what = `particles added before frame ${rec.frames.length}`;
  const n = r.count(12, what);
  const cols = r.planes(n, 3, what);
  const radii = new Float32Array(cols.buffer, 8 * n, n);
  const total = rec.particles.length + n;
  if (total > 0xffffffff) throw r.fail(`${what}: over 2^32 - 1 particles`);
  if (3 * total > ps.last.length) {
    const grown = new Uint32Array(Math.max(2 * ps.last.length, 3 * total));
    grown.set(ps.last);
    ps.last = grown;
    const seen = new Float64Array(Math.max(2 * ps.seen.length, total)).fill(-1);
    seen.set(ps.seen);
    ps.seen = seen;
  }
  for (let i = 0; i < n; i++) {
    rec.particles.push({ idIndex: cols[i], idGeneration: cols[n + i], radius: radii[i], firstFrame: rec.frames.length, removedAt: null });
  }
  ps.added += n;
}

/** Tag 6: the particles of the next frame, decoded and held until its frame record. */
function readParticleFrame(r, rec, ps) {
  const start = r.at;
  const expected = rec.frames.length;
  const frame = r.u32("a particle frame's number");
  if (frame !== expected) throw r.fail(`the particles of frame ${frame} where those of frame ${expected} belong`);
  if (ps.pending) throw r.fail(`a second particle frame for frame ${frame}`);
  const what = `frame ${frame} particles`;
  const hashInFile = r.u64(what);
  const n = r.count(16, what);
  const cols = r.planes(n, 4, what);
  const numbers = new Uint32Array(n);
  const bits = new Uint32Array(3 * n);
  let number = -1;
  for (let i = 0; i < n; i++) {
    number += cols[i] + 1;
    if (number >= rec.particles.length) {
      throw r.fail(`${what}: particle ${number}, but the particle table has ${rec.particles.length}`);
    }
    const removed = rec.particles[number].removedAt;
    if (removed !== null) throw r.fail(`${what}: particle ${number}, which left the world at frame ${removed}`);
    numbers[i] = number;
    for (let k = 0; k < 3; k++) {
      const v = (ps.last[3 * number + k] ^ cols[(k + 1) * n + i]) >>> 0;
      ps.last[3 * number + k] = v;
      bits[3 * i + k] = v;
    }
  }
  const computed = particleHash(numbers, bits);
  if (computed !== hashInFile) {
    throw r.fail(`${what}: the particles decode to particle hash ${hex64(computed)}, the file says ${hex64(hashInFile)}`);
  }
  ps.pending = { numbers, positions: new Float32Array(bits.buffer), hash: hashInFile, computed };
  ps.pendingAt = start;
}

/**
 * At a frame record: its particles (the pending particle frame, or none); the particles
 * that were in the frame before, or added since, and are not in this one left the world.
 */
function endParticleFrame(f, rec, ps) {
  const p = ps.pending;
  ps.pending = null;
  if (p) {
    f.particles = p.numbers;
    f.particlePositions = p.positions;
    f.particleHash = p.hash;
    f.computedParticleHash = p.computed;
  }
  const n = f.particles.length;
  if (n !== ps.live + ps.added) {
    for (let i = 0; i < n; i++) ps.seen[f.particles[i]] = f.frame;
    rec.particles.forEach((q, k) => {
      if (q.removedAt === null && ps.seen[k] !== f.frame) q.removedAt = f.frame;
    });
  }
  ps.live = n;
  ps.added = 0;
}

/**
 * Reads the decompressed stream. Returns { dt, substeps, gravity, shapes, bodies, particles,
 * joints, frames }; particles is the particle table ({ idIndex, idGeneration, radius, firstFrame,
 * removedAt }); a frame has frame, stateHash, poseHash (BigInt), bodies (Uint32Array of
 * body numbers), poses (Float32Array, 7 per body: position, quaternion x y z w),
 * contactCounts (Uint8Array), contactBodies (Uint32Array, A and B per contact),
 * contactNormals (Float32Array, 3 per contact), contactPoints (Float32Array, 5 per point:
 * x y z separation impulse), events, particles (Uint32Array of the live particles'
 * numbers, ascending), particlePositions (Float32Array, x y z per particle) and
 * particleHash (BigInt; EMPTY_HASH for a frame without particles). joints is the joint
 * table ({ idIndex, idGeneration, bodyA, bodyB, kind (a JOINT_KINDS name), frameA, frameB
 * (7 floats each: the joint frame in its body's own frame), firstFrame, removedAt }).
 */
export function parseImpr(raw) {
  const c = new Cursor(raw, 0, raw.length);
  c.need(4, 'the magic');
  const magic = String.fromCharCode(raw[0], raw[1], raw[2], raw[3]);
  if (magic !== 'IMPR') throw c.fail(`the magic is ${JSON.stringify(magic)}, not "IMPR"`);
  c.at = 4;
  const version = c.u32('the version');
  if (version !== VERSION) throw c.fail(`version ${version}; this reader reads version ${VERSION}`);
  const rec = {
    dt: c.f32('dt'),
    substeps: c.u32('substeps'),
    gravity: c.vec3('gravity'),
    shapes: [],
    bodies: [],
    particles: [],
    joints: [],
    frames: [],
  };
  if (!(rec.dt > 0 && Number.isFinite(rec.dt))) throw c.fail(`dt ${rec.dt} is not a positive time step`);
  let last = new Uint32Array(7 * 64);
  const live = [];
  // The particles between records: per number the last position's bits (the XOR base)
  // and the last frame that had it; the particles of the last frame and added since.
  const ps = { last: new Uint32Array(3 * 64), seen: new Float64Array(64).fill(-1), live: 0, added: 0, pending: null, pendingAt: 0 };
  const f32bits = new Uint32Array(1);
  const f32view = new Float32Array(f32bits.buffer);
  while (c.at < raw.length) {
    const tag = c.u8("a record's tag");
    const len = c.u32("a record's length");
    c.fits(len, 1, 'the record');
    const end = c.at + len;
    const r = new Cursor(raw, c.at, end);
    if (tag === 1) {
      rec.shapes.push(readShape(r, rec.shapes.length));
    } else if (tag === 2) {
      const b = readBody(r, rec);
      const n = rec.bodies.length;
      if (7 * (n + 1) > last.length) {
        const grown = new Uint32Array(Math.max(last.length * 2, 7 * (n + 1)));
        grown.set(last);
        last = grown;
      }
      for (let k = 0; k < 7; k++) {
        f32view[0] = b.pose[k];
        last[7 * n + k] = f32bits[0];
      }
      live.push(true);
      rec.bodies.push(b);
    } else if (tag === 3) {
      const f = readFrame(r, rec, last, live);
      endParticleFrame(f, rec, ps);
      rec.frames.push(f);
    } else if (tag === 5) {
      readParticlesAdded(r, rec, ps);
    } else if (tag === 6) {
      readParticleFrame(r, rec, ps);
    } else if (tag === 7) {
      rec.joints.push(readJoint(r, rec, live));
    } else if (tag === 8) {
      const n = r.u32('a removed joint');
      const j = rec.joints[n];
      if (!j || j.removedAt !== null) throw r.fail(`removal of joint ${n}, which is not in the world`);
      j.removedAt = rec.frames.length;
    } else if (tag === 4) {
      const n = r.u32('a removed body');
      if (!live[n]) throw r.fail(`removal of body ${n}, which is not in the world`);
      live[n] = false;
      rec.bodies[n].removedAt = rec.frames.length;
    } else {
      r.at = end; // A later version's record: skipped.
    }
    if (r.at !== end) throw r.fail(`record of tag ${tag} has ${end - r.at} bytes past its fields`);
    c.at = end;
  }
  if (rec.frames.length === 0) throw c.fail('no frame (the file ends before frame 0)');
  if (ps.pending) {
    c.at = ps.pendingAt;
    throw c.fail(`the particles of frame ${rec.frames.length} and then no frame (the file ends)`);
  }
  return rec;
}
