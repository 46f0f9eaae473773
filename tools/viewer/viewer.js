// The impetus replay viewer: plays an .impr recording (tools/recorder) in the browser.
//
// Drawing: one InstancedMesh per distinct shape of the recording's shape table (a pile of
// 10,000 equal boxes is one draw call); every frame the instance matrices are written in
// place into the meshes' Float32Arrays, with no allocation per body. Seeking: the poses are
// rebuilt from keyframes (a copy of every body's pose each KEY frames, made when the file
// is loaded) plus the frames after it, since a frame stores only the awake bodies.
// Particles (cloth, soft bodies): one more InstancedMesh, of small spheres scaled to each
// particle's radius, whose first `count` instances are the frame's particles (every frame
// stores all of them, so seeking needs no keyframes for them).
// Joints: one LineSegments, drawn as impetus's debug draw draws them (World::debug_draw
// with its default palette and frame size): each joint frame (its body's pose at the frame
// times the recorded joint frame) as three axes 0.25 m long, x red, y green, z blue, and
// teal lines from each body's origin to its joint frame and between the two frames.
//
// URL parameters: file=URL (a recording to load), compare=URL (a second one, compared
// frame by frame), frame=N, contacts=1, particles=0 (hide them), joints=0 (hide them),
// camera=px,py,pz,tx,ty,tz, aa=0 (no antialiasing: much faster on software GL).
// window.viewer is the page's handle for tests and the console (see the end of the file).

import * as THREE from 'three';
import { OrbitControls } from './vendor/three/OrbitControls.js';
import { loadImpr, firstDifference, hex64 } from './impr.js';

const KEY = 30;
/** The particles' colour (chartreuse: no body colour and no overlay is near it). */
const PARTICLE_COLOUR = 0xc8f040;
/** The joints' segments, 9 a joint: the axes of frame A, of frame B, then the lines body A
 * to frame A, body B to frame B, frame A to frame B; their colours (sRGB) are the debug
 * draw's default palette (impetus::DebugPalette, lines::frame). */
const JOINT_SEGMENTS = 9;
const JOINT_AXIS = 0.25;
const JOINT_COLOURS = [
  [0.9, 0.2, 0.2], [0.2, 0.9, 0.2], [0.2, 0.4, 1.0],
  [0.9, 0.2, 0.2], [0.2, 0.9, 0.2], [0.2, 0.4, 1.0],
  [0.5, 0.8, 0.8], [0.5, 0.8, 0.8], [0.5, 0.8, 0.8],
];
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

const canvas = $('view');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: params.get('aa') !== '0', powerPreference: 'high-performance' });
renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
renderer.setClearColor(0x1b1f2a);
const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(45, 1, 0.05, 2000);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;
controls.addEventListener('change', () => requestRender());
scene.add(new THREE.HemisphereLight(0xffffff, 0x404050, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(0.4, 1, 0.7);
scene.add(sun);

let rec = null; // the recording
let other = null; // the one compared with it
let diffFrame = null;
let cur = null; // Float32Array(7 * bodies): the poses at frame `at`
let at = -1;
let keyframes = [];
let meshes = []; // InstancedMesh per (shape, sensor)
let instances = null; // per instance: body, mesh, slot, local pose (7 floats), identity
let world = null; // THREE.Group of the recording
let contactPoints = null;
let contactLines = null;
let particleMesh = null; // InstancedMesh of the particles, null for a recording without
let particleRadii = null; // Float32Array: per particle number, its radius
let jointLines = null; // LineSegments of the joints, null for a recording without
const jointA = new Float32Array(7); // scratch: a joint's frames in the world
const jointB = new Float32Array(7);
let playing = false;
let speed = 1;
let picked = -1;
let renderQueued = false;

function resize() {
  const w = canvas.clientWidth || window.innerWidth;
  const h = canvas.clientHeight || window.innerHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  requestRender();
}
window.addEventListener('resize', resize);

function requestRender() {
  if (renderQueued || playing) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    renderer.render(scene, camera);
  });
}

function showError(e) {
  console.error(e);
  $('error').hidden = false;
  $('error').textContent = String(e.message || e);
  document.body.dataset.error = String(e.message || e);
}

// ---------------------------------------------------------------------------------------
// Geometry of the shape table.

function geometryOf(s) {
  switch (s.kind) {
    case 'sphere':
      return new THREE.SphereGeometry(s.radius, 20, 14);
    case 'capsule':
      return new THREE.CapsuleGeometry(s.radius, 2 * s.halfHeight, 6, 16);
    case 'box':
      return new THREE.BoxGeometry(2 * s.halfExtents[0], 2 * s.halfExtents[1], 2 * s.halfExtents[2]);
    case 'hull': {
      const pos = [];
      for (const f of s.faces) {
        for (let k = 1; k + 1 < f.length; k++) {
          for (const i of [f[0], f[k], f[k + 1]]) pos.push(...s.vertices[i]);
        }
      }
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
      g.computeVertexNormals();
      return g;
    }
    case 'plane': {
      const g = new THREE.PlaneGeometry(400, 400);
      const n = new THREE.Vector3(...s.normal).normalize();
      g.applyQuaternion(new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 0, 1), n));
      g.translate(n.x * s.offset, n.y * s.offset, n.z * s.offset);
      return g;
    }
    case 'mesh':
    case 'heightfield': {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(s.triangles, 3));
      g.computeVertexNormals();
      return g;
    }
  }
  throw new Error(`unknown shape kind ${s.kind}`);
}

function describeShape(s) {
  const f = (v) => +v.toFixed(3);
  switch (s.kind) {
    case 'sphere':
      return `sphere r ${f(s.radius)}`;
    case 'capsule':
      return `capsule half height ${f(s.halfHeight)} r ${f(s.radius)}`;
    case 'box':
      return `box half extents ${s.halfExtents.map(f).join(' × ')}`;
    case 'hull':
      return `hull, ${s.vertices.length} vertices, ${s.faces.length} faces`;
    case 'plane':
      return `plane n (${s.normal.map(f).join(', ')}) offset ${f(s.offset)}`;
    default:
      return `${s.kind}, ${s.triangles.length / 9} triangles`;
  }
}

// ---------------------------------------------------------------------------------------
// Building the scene of a recording.

function colourOf(rgba) {
  return new THREE.Color().setRGB(((rgba >>> 24) & 255) / 255, ((rgba >>> 16) & 255) / 255, ((rgba >>> 8) & 255) / 255, THREE.SRGBColorSpace);
}

function build() {
  if (world) {
    scene.remove(world);
    world.traverse((o) => {
      if (o.geometry) o.geometry.dispose();
      if (o.material) o.material.dispose();
    });
  }
  world = new THREE.Group();
  scene.add(world);
  // Group the (body, shape) pairs by shape and sensor flag: one InstancedMesh each.
  const groups = new Map();
  rec.bodies.forEach((b, body) => {
    b.shapes.forEach((bs) => {
      const key = `${bs.shape}:${bs.sensor ? 1 : 0}`;
      if (!groups.has(key)) groups.set(key, { shape: bs.shape, sensor: bs.sensor, items: [] });
      groups.get(key).items.push({ body, local: bs.localPose });
    });
  });
  meshes = [];
  const list = [];
  for (const g of groups.values()) {
    const material = new THREE.MeshLambertMaterial({
      transparent: g.sensor,
      opacity: g.sensor ? 0.25 : 1,
      depthWrite: !g.sensor,
      side: rec.shapes[g.shape].kind === 'plane' || rec.shapes[g.shape].kind === 'mesh' ? THREE.DoubleSide : THREE.FrontSide,
    });
    const mesh = new THREE.InstancedMesh(geometryOf(rec.shapes[g.shape]), material, g.items.length);
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.frustumCulled = false;
    mesh.userData.items = [];
    g.items.forEach((it, slot) => {
      mesh.setColorAt(slot, colourOf(rec.bodies[it.body].colour));
      const identity = it.local[0] === 0 && it.local[1] === 0 && it.local[2] === 0 && it.local[6] === 1;
      const inst = { body: it.body, mesh: meshes.length, slot, local: Float32Array.from(it.local), identity, shape: g.shape };
      mesh.userData.items.push(list.length);
      list.push(inst);
    });
    meshes.push(mesh);
    world.add(mesh);
  }
  instances = list;
  // Contacts: points and normals, buffers sized for the busiest frame.
  let maxP = 1;
  for (const f of rec.frames) maxP = Math.max(maxP, f.contactPoints.length / 5);
  const pg = new THREE.BufferGeometry();
  pg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * maxP), 3).setUsage(THREE.DynamicDrawUsage));
  contactPoints = new THREE.Points(pg, new THREE.PointsMaterial({ color: 0xff00ff, size: 7, sizeAttenuation: false, depthTest: false }));
  const lg = new THREE.BufferGeometry();
  lg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * maxP), 3).setUsage(THREE.DynamicDrawUsage));
  contactLines = new THREE.LineSegments(lg, new THREE.LineBasicMaterial({ color: 0x00ffff, depthTest: false }));
  for (const o of [contactPoints, contactLines]) {
    o.frustumCulled = false;
    o.renderOrder = 10;
    o.visible = $('contacts').checked;
    world.add(o);
  }
  // Particles: one InstancedMesh of unit spheres, sized for the frame with the most.
  particleMesh = null;
  particleRadii = Float32Array.from(rec.particles, (p) => p.radius);
  let maxParticles = 0;
  for (const f of rec.frames) maxParticles = Math.max(maxParticles, f.particles.length);
  if (maxParticles > 0) {
    particleMesh = new THREE.InstancedMesh(
      new THREE.SphereGeometry(1, 10, 7),
      new THREE.MeshLambertMaterial({ color: new THREE.Color().setHex(PARTICLE_COLOUR, THREE.SRGBColorSpace) }),
      maxParticles,
    );
    particleMesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    particleMesh.frustumCulled = false;
    particleMesh.count = 0;
    particleMesh.visible = $('particles').checked;
    world.add(particleMesh);
  }
  $('particlesRow').hidden = !particleMesh;
  // Joints: the segments of every joint of the table, the live ones first each frame.
  jointLines = null;
  if (rec.joints.length > 0) {
    const n = JOINT_SEGMENTS * 2 * rec.joints.length;
    const colours = new Float32Array(3 * n);
    const c = new THREE.Color();
    for (let v = 0; v < n; v++) {
      const [r, g, b] = JOINT_COLOURS[(v >> 1) % JOINT_SEGMENTS];
      c.setRGB(r, g, b, THREE.SRGBColorSpace);
      colours.set([c.r, c.g, c.b], 3 * v);
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * n), 3).setUsage(THREE.DynamicDrawUsage));
    g.setAttribute('color', new THREE.BufferAttribute(colours, 3));
    jointLines = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false }));
    jointLines.frustumCulled = false;
    jointLines.renderOrder = 10;
    jointLines.visible = $('joints').checked;
    world.add(jointLines);
  }
  $('jointsRow').hidden = !jointLines;
  // Poses and keyframes.
  cur = new Float32Array(7 * rec.bodies.length);
  rec.bodies.forEach((b, i) => cur.set(b.pose, 7 * i));
  keyframes = [];
  for (let f = 0; f < rec.frames.length; f++) {
    applyFrame(f);
    if (f % KEY === 0) keyframes.push(cur.slice());
  }
  at = rec.frames.length - 1;
  $('scrub').max = rec.frames.length - 1;
}

function applyFrame(f) {
  const fr = rec.frames[f];
  const { bodies, poses } = fr;
  for (let i = 0; i < bodies.length; i++) {
    const o = 7 * bodies[i];
    const p = 7 * i;
    cur[o] = poses[p];
    cur[o + 1] = poses[p + 1];
    cur[o + 2] = poses[p + 2];
    cur[o + 3] = poses[p + 3];
    cur[o + 4] = poses[p + 4];
    cur[o + 5] = poses[p + 5];
    cur[o + 6] = poses[p + 6];
  }
}

/** The poses of frame `f` into `cur`: forward from where we are, or from a keyframe. */
function seekPoses(f) {
  if (f < at || f - at > KEY) {
    const k = Math.floor(f / KEY);
    cur.set(keyframes[k]);
    at = k * KEY;
  }
  while (at < f) applyFrame(++at);
}

/**
 * Writes every instance's matrix (body pose times local pose) into its mesh's array, in
 * place: no allocation per body (a body not in the world at this frame gets a zero matrix).
 */
function writeMatrices() {
  const bodies = rec.bodies;
  for (let i = 0; i < instances.length; i++) {
    const inst = instances[i];
    const m = meshes[inst.mesh].instanceMatrix.array;
    const o = 16 * inst.slot;
    const b = 7 * inst.body;
    const rb = bodies[inst.body];
    if (rb.firstFrame > at || (rb.removedAt !== null && at >= rb.removedAt)) {
      m.fill(0, o, o + 16);
      continue;
    }
    let px = cur[b], py = cur[b + 1], pz = cur[b + 2];
    let x = cur[b + 3], y = cur[b + 4], z = cur[b + 5], w = cur[b + 6];
    if (!inst.identity) {
      const l = inst.local;
      // p += q * lp; q = q * lq.
      const lx = l[0], ly = l[1], lz = l[2];
      const tx = 2 * (y * lz - z * ly), ty = 2 * (z * lx - x * lz), tz = 2 * (x * ly - y * lx);
      px += lx + w * tx + (y * tz - z * ty);
      py += ly + w * ty + (z * tx - x * tz);
      pz += lz + w * tz + (x * ty - y * tx);
      const qx = l[3], qy = l[4], qz = l[5], qw = l[6];
      const nx = w * qx + x * qw + y * qz - z * qy;
      const ny = w * qy - x * qz + y * qw + z * qx;
      const nz = w * qz + x * qy - y * qx + z * qw;
      const nw = w * qw - x * qx - y * qy - z * qz;
      x = nx; y = ny; z = nz; w = nw;
    }
    const x2 = x + x, y2 = y + y, z2 = z + z;
    const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
    const wx = w * x2, wy = w * y2, wz = w * z2;
    m[o] = 1 - (yy + zz); m[o + 1] = xy + wz; m[o + 2] = xz - wy; m[o + 3] = 0;
    m[o + 4] = xy - wz; m[o + 5] = 1 - (xx + zz); m[o + 6] = yz + wx; m[o + 7] = 0;
    m[o + 8] = xz + wy; m[o + 9] = yz - wx; m[o + 10] = 1 - (xx + yy); m[o + 11] = 0;
    m[o + 12] = px; m[o + 13] = py; m[o + 14] = pz; m[o + 15] = 1;
  }
  for (const mesh of meshes) {
    mesh.instanceMatrix.needsUpdate = true;
    // Picking's bounding sphere is recomputed lazily (on click).
    mesh.boundingSphere = null;
  }
}

/** The frame's particles into the particle mesh's first instances, in place. */
function writeParticles() {
  const fr = rec.frames[at];
  const n = fr.particles.length;
  const attr = particleMesh.instanceMatrix;
  const m = attr.array;
  const pos = fr.particlePositions;
  for (let i = 0; i < n; i++) {
    const r = particleRadii[fr.particles[i]];
    const o = 16 * i;
    m[o] = r; m[o + 1] = 0; m[o + 2] = 0; m[o + 3] = 0;
    m[o + 4] = 0; m[o + 5] = r; m[o + 6] = 0; m[o + 7] = 0;
    m[o + 8] = 0; m[o + 9] = 0; m[o + 10] = r; m[o + 11] = 0;
    m[o + 12] = pos[3 * i]; m[o + 13] = pos[3 * i + 1]; m[o + 14] = pos[3 * i + 2]; m[o + 15] = 1;
  }
  particleMesh.count = n;
  attr.clearUpdateRanges();
  attr.addUpdateRange(0, 16 * n);
  attr.needsUpdate = true;
  particleMesh.boundingSphere = null;
}

/** Body pose `cur[b..b + 7]` times the local pose `l`, into `out` (7 floats). */
function composeInto(out, b, l) {
  const px = cur[b], py = cur[b + 1], pz = cur[b + 2];
  const x = cur[b + 3], y = cur[b + 4], z = cur[b + 5], w = cur[b + 6];
  // p + q * lp; q * lq.
  const lx = l[0], ly = l[1], lz = l[2];
  const tx = 2 * (y * lz - z * ly), ty = 2 * (z * lx - x * lz), tz = 2 * (x * ly - y * lx);
  out[0] = px + lx + w * tx + (y * tz - z * ty);
  out[1] = py + ly + w * ty + (z * tx - x * tz);
  out[2] = pz + lz + w * tz + (x * ty - y * tx);
  const qx = l[3], qy = l[4], qz = l[5], qw = l[6];
  out[3] = w * qx + x * qw + y * qz - z * qy;
  out[4] = w * qy - x * qz + y * qw + z * qx;
  out[5] = w * qz + x * qy - y * qx + z * qw;
  out[6] = w * qw - x * qx - y * qy - z * qz;
}

/** A segment from (px, py, pz) to (px + dx, py + dy, pz + dz) into `P` at float `o`. */
function writeRay(P, o, px, py, pz, dx, dy, dz) {
  P[o] = px; P[o + 1] = py; P[o + 2] = pz;
  P[o + 3] = px + dx; P[o + 4] = py + dy; P[o + 5] = pz + dz;
}

/** A frame's three axes, JOINT_AXIS long, as 3 segments into `P` at float `o`. */
function writeAxes(P, o, f) {
  const px = f[0], py = f[1], pz = f[2];
  const x = f[3], y = f[4], z = f[5], w = f[6];
  const s = JOINT_AXIS;
  writeRay(P, o, px, py, pz, s * (1 - 2 * (y * y + z * z)), 2 * s * (x * y + w * z), 2 * s * (x * z - w * y));
  writeRay(P, o + 6, px, py, pz, 2 * s * (x * y - w * z), s * (1 - 2 * (x * x + z * z)), 2 * s * (y * z + w * x));
  writeRay(P, o + 12, px, py, pz, 2 * s * (x * z + w * y), 2 * s * (y * z - w * x), s * (1 - 2 * (x * x + y * y)));
}

/** The segment from body `b`'s origin (its pose in `cur`) to the frame `f`, into `P` at `o`. */
function writeLink(P, o, b, f) {
  writeRay(P, o, cur[b], cur[b + 1], cur[b + 2], f[0] - cur[b], f[1] - cur[b + 1], f[2] - cur[b + 2]);
}

/** The joints in the world at this frame into the joint segments, in place (no allocation). */
function writeJoints() {
  const attr = jointLines.geometry.attributes.position;
  const P = attr.array;
  let k = 0;
  for (const j of rec.joints) {
    if (j.firstFrame > at || (j.removedAt !== null && at >= j.removedAt)) continue;
    composeInto(jointA, 7 * j.bodyA, j.frameA);
    composeInto(jointB, 7 * j.bodyB, j.frameB);
    const o = 6 * JOINT_SEGMENTS * k;
    writeAxes(P, o, jointA);
    writeAxes(P, o + 18, jointB);
    writeLink(P, o + 36, 7 * j.bodyA, jointA);
    writeLink(P, o + 42, 7 * j.bodyB, jointB);
    writeRay(P, o + 48, jointA[0], jointA[1], jointA[2], jointB[0] - jointA[0], jointB[1] - jointA[1], jointB[2] - jointA[2]);
    k++;
  }
  jointLines.geometry.setDrawRange(0, 2 * JOINT_SEGMENTS * k);
  attr.clearUpdateRanges();
  attr.addUpdateRange(0, 6 * JOINT_SEGMENTS * k);
  attr.needsUpdate = true;
  jointLines.userData.live = k;
}

function writeContacts() {
  const fr = rec.frames[at];
  const np = fr.contactPoints.length / 5;
  const pp = contactPoints.geometry.attributes.position;
  const lp = contactLines.geometry.attributes.position;
  const P = pp.array;
  const L = lp.array;
  let j = 0;
  for (let c = 0; c < fr.contactCounts.length; c++) {
    const nx = fr.contactNormals[3 * c], ny = fr.contactNormals[3 * c + 1], nz = fr.contactNormals[3 * c + 2];
    for (let k = 0; k < fr.contactCounts[c]; k++, j++) {
      const x = fr.contactPoints[5 * j], y = fr.contactPoints[5 * j + 1], z = fr.contactPoints[5 * j + 2];
      P[3 * j] = x; P[3 * j + 1] = y; P[3 * j + 2] = z;
      L[6 * j] = x; L[6 * j + 1] = y; L[6 * j + 2] = z;
      L[6 * j + 3] = x + 0.4 * nx; L[6 * j + 4] = y + 0.4 * ny; L[6 * j + 5] = z + 0.4 * nz;
    }
  }
  contactPoints.geometry.setDrawRange(0, np);
  contactLines.geometry.setDrawRange(0, 2 * np);
  pp.clearUpdateRanges();
  pp.addUpdateRange(0, 3 * np);
  pp.needsUpdate = true;
  lp.clearUpdateRanges();
  lp.addUpdateRange(0, 6 * np);
  lp.needsUpdate = true;
}

// ---------------------------------------------------------------------------------------
// Frames, the HUD, picking.

function seek(f) {
  if (!rec) return;
  f = Math.max(0, Math.min(rec.frames.length - 1, Math.round(f)));
  seekPoses(f);
  writeMatrices();
  if (contactPoints.visible) writeContacts();
  if (particleMesh && particleMesh.visible) writeParticles();
  if (jointLines && jointLines.visible) writeJoints();
  updateHud();
  requestRender();
}

function updateHud() {
  const fr = rec.frames[at];
  $('scrub').value = at;
  $('frame').textContent = `frame ${at} / ${rec.frames.length - 1}  t = ${(at * rec.dt).toFixed(3)} s`;
  const ev = fr.events;
  const events = [
    ['begin', ev.contactBegin.length], ['end', ev.contactEnd.length], ['hits', ev.hits.length],
    ['sensor', ev.sensorBegin.length + ev.sensorEnd.length], ['broken joints', ev.jointBreaks.length],
  ].filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  const joints = rec.joints.length
    ? `   joints ${rec.joints.filter((j) => j.firstFrame <= at && (j.removedAt === null || at < j.removedAt)).length}`
    : '';
  const particles = rec.particles.length
    ? `\nparticles ${fr.particles.length} (${rec.particles.length} in the recording)   particle hash ${hex64(fr.particleHash)} (${fr.computedParticleHash === fr.particleHash ? 'matches the particles read' : 'MISMATCH'})`
    : '';
  $('hashes').textContent =
    `state hash ${hex64(fr.stateHash)}   pose hash ${hex64(fr.poseHash)} (${fr.computedPoseHash === fr.poseHash ? 'matches the poses read' : 'MISMATCH'})\n` +
    `awake ${fr.bodies.length} of ${rec.bodies.length} bodies   contacts ${fr.contactCounts.length} (${fr.contactPoints.length / 5} points)${joints}   events: ${events}` +
    particles;
  $('hashes').style.whiteSpace = 'pre';
  if (other) {
    const o = other.frames[at];
    const same = o && o.stateHash === fr.stateHash && o.poseHash === fr.poseHash && o.particleHash === fr.particleHash;
    const head = diffFrame === null
      ? `<span class="same">the recordings agree on all ${Math.min(rec.frames.length, other.frames.length)} frames they share</span>`
      : `<span class="diff">first difference at frame ${diffFrame}</span> <button id="jump">go there</button>`;
    $('compare').innerHTML = `${head}   other: ${o ? `state ${hex64(o.stateHash)} ${same ? '(same)' : '<span class="diff">(differs)</span>'}` : 'no such frame'}`;
    const jump = $('jump');
    if (jump) jump.onclick = () => { pause(); seek(diffFrame); };
  }
  if (picked >= 0) showPick();
}

/** Body `b`'s pose at frame `f` (its last recorded pose at or before `f`). */
function poseAt(b, f) {
  for (let k = f; k >= 0; k--) {
    const bodies = rec.frames[k].bodies;
    let lo = 0, hi = bodies.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (bodies[mid] < b) lo = mid + 1; else hi = mid;
    }
    if (lo < bodies.length && bodies[lo] === b) return rec.frames[k].poses.slice(7 * lo, 7 * lo + 7);
  }
  return Float32Array.from(rec.bodies[b].pose);
}

function showPick() {
  const b = rec.bodies[picked];
  const p = poseAt(picked, at);
  const q = at > 0 ? poseAt(picked, at - 1) : p;
  const dt = rec.dt;
  const v = [0, 1, 2].map((k) => (p[k] - q[k]) / dt);
  // ω ≈ 2 (q_now q_prev*)_xyz / dt.
  const [ax, ay, az, aw] = [p[3], p[4], p[5], p[6]];
  const [bx, by, bz, bw] = [-q[3], -q[4], -q[5], q[6]];
  let wx = aw * bx + ax * bw + ay * bz - az * by;
  let wy = aw * by - ax * bz + ay * bw + az * bx;
  let wz = aw * bz + ax * by - ay * bx + az * bw;
  const ww = aw * bw - ax * bx - ay * by - az * bz;
  const s = ww < 0 ? -2 / dt : 2 / dt;
  wx *= s; wy *= s; wz *= s;
  const f3 = (a) => a.map((x) => x.toFixed(3).padStart(8)).join(' ');
  const awake = rec.frames[at].bodies.includes(picked);
  $('pick').hidden = false;
  $('pick').textContent =
    `body ${picked}  (BodyId ${b.idIndex}v${b.idGeneration}, ${b.type}${b.type === 'static' ? '' : awake ? ', awake' : ', asleep'})\n` +
    `position  ${f3([p[0], p[1], p[2]])} m\n` +
    `rotation  ${f3([p[3], p[4], p[5], p[6]])}\n` +
    `velocity  ${f3(v)} m/s\n` +
    `angular   ${f3([wx, wy, wz])} rad/s\n` +
    `  (from frames ${Math.max(0, at - 1)} and ${at})\n` +
    b.shapes.map((bs, i) => `shape ${i}: ${describeShape(rec.shapes[bs.shape])}${bs.sensor ? ' (sensor)' : ''}`).join('\n') +
    '\n(click empty space to clear)';
}

const raycaster = new THREE.Raycaster();
let downAt = null;
canvas.addEventListener('pointerdown', (e) => (downAt = [e.clientX, e.clientY]));
canvas.addEventListener('pointerup', (e) => {
  if (!rec || !downAt || Math.hypot(e.clientX - downAt[0], e.clientY - downAt[1]) > 4) return;
  const r = canvas.getBoundingClientRect();
  const ndc = new THREE.Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const hits = raycaster.intersectObjects(meshes, false).filter((h) => h.instanceId !== undefined);
  pick(hits.length ? instances[hits[0].object.userData.items[hits[0].instanceId]].body : -1);
});

function pick(b) {
  // Unhighlight the old, highlight the new: instance colours of the body's shapes.
  const paint = (body, colour) => {
    for (const inst of instances) {
      if (inst.body !== body) continue;
      meshes[inst.mesh].setColorAt(inst.slot, colour);
      meshes[inst.mesh].instanceColor.needsUpdate = true;
    }
  };
  if (picked >= 0) paint(picked, colourOf(rec.bodies[picked].colour));
  picked = b;
  if (b >= 0) {
    paint(b, new THREE.Color(0x66ccff));
    showPick();
  } else {
    $('pick').hidden = true;
  }
  requestRender();
}

// ---------------------------------------------------------------------------------------
// Playing.

let clock = 0;
let lastT = null;
const frameTimes = [];

function loop(t) {
  if (!playing) return;
  if (lastT !== null) {
    frameTimes.push(t - lastT);
    if (frameTimes.length > 120) frameTimes.shift();
    clock += ((t - lastT) / 1000) * speed;
  }
  lastT = t;
  const steps = Math.floor(clock / rec.dt);
  if (steps > 0) {
    clock -= steps * rec.dt;
    if (at + steps >= rec.frames.length - 1) {
      seek(rec.frames.length - 1);
      pause();
    } else {
      seek(at + steps);
    }
  }
  renderer.render(scene, camera);
  if (frameTimes.length > 10) {
    const mean = frameTimes.reduce((a, b) => a + b, 0) / frameTimes.length;
    $('fps').textContent = `${mean.toFixed(1)} ms/frame`;
  }
  requestAnimationFrame(loop);
}

function play() {
  if (!rec) return;
  if (at >= rec.frames.length - 1) seek(0);
  playing = true;
  lastT = null;
  clock = 0;
  $('play').textContent = '❚❚';
  requestAnimationFrame(loop);
}

function pause() {
  playing = false;
  $('play').textContent = '▶︎';
  requestRender();
}

$('play').onclick = () => (playing ? pause() : play());
$('back').onclick = () => { pause(); seek(at - 1); };
$('fwd').onclick = () => { pause(); seek(at + 1); };
$('scrub').oninput = (e) => { pause(); seek(+e.target.value); };
$('speed').onchange = (e) => (speed = +e.target.value);
$('contacts').onchange = (e) => setContacts(e.target.checked);
$('particles').onchange = (e) => setParticles(e.target.checked);
$('joints').onchange = (e) => setJoints(e.target.checked);
window.addEventListener('keydown', (e) => {
  if (!rec || e.target.tagName === 'INPUT' && e.target.type !== 'range' && e.target.type !== 'checkbox') return;
  if (e.key === ' ') { e.preventDefault(); playing ? pause() : play(); }
  else if (e.key === 'ArrowRight') { pause(); seek(at + (e.shiftKey ? 10 : 1)); }
  else if (e.key === 'ArrowLeft') { pause(); seek(at - (e.shiftKey ? 10 : 1)); }
  else if (e.key === 'c' || e.key === 'C') { $('contacts').checked = !$('contacts').checked; setContacts($('contacts').checked); }
  else if (e.key === 'p' || e.key === 'P') setParticles(!$('particles').checked);
  else if (e.key === 'j' || e.key === 'J') setJoints(!$('joints').checked);
});

function setContacts(on) {
  $('contacts').checked = on;
  if (!contactPoints) return;
  contactPoints.visible = on;
  contactLines.visible = on;
  if (on) writeContacts();
  requestRender();
}

function setParticles(on) {
  $('particles').checked = on;
  if (!particleMesh) return;
  particleMesh.visible = on;
  if (on) writeParticles();
  requestRender();
}

function setJoints(on) {
  $('joints').checked = on;
  if (!jointLines) return;
  jointLines.visible = on;
  if (on) writeJoints();
  requestRender();
}

// ---------------------------------------------------------------------------------------
// Loading.

function frameCamera() {
  const v = params.get('camera');
  if (v) {
    const c = v.split(',').map(Number);
    camera.position.set(c[0], c[1], c[2]);
    controls.target.set(c[3], c[4], c[5]);
  } else {
    // The moving bodies' and the particles' positions at frame 0 (all bodies' if nothing
    // moves), seen from above at a slant, so that walls around them do not hide them.
    const box = new THREE.Box3();
    const p0 = rec.frames[0].particlePositions;
    const moving = rec.bodies.some((b) => b.type !== 'static') || p0.length > 0;
    rec.bodies.forEach((b, i) => {
      if (moving ? b.type === 'static' : b.shapes.some((s) => rec.shapes[s.shape].kind === 'plane')) return;
      box.expandByPoint(new THREE.Vector3(cur[7 * i], cur[7 * i + 1], cur[7 * i + 2]));
    });
    for (let i = 0; i < p0.length; i += 3) box.expandByPoint(new THREE.Vector3(p0[i], p0[i + 1], p0[i + 2]));
    if (box.isEmpty()) box.set(new THREE.Vector3(-5, 0, -5), new THREE.Vector3(5, 5, 5));
    // With the static bodies (but planes) near them: the ground under a lone box.
    const near = box.getCenter(new THREE.Vector3());
    const reach = Math.max(3, box.getSize(new THREE.Vector3()).length());
    rec.bodies.forEach((b, i) => {
      if (b.type !== 'static' || b.shapes.some((s) => rec.shapes[s.shape].kind === 'plane')) return;
      const p = new THREE.Vector3(cur[7 * i], cur[7 * i + 1], cur[7 * i + 2]);
      if (p.distanceTo(near) < reach) box.expandByPoint(p);
    });
    const c = box.getCenter(new THREE.Vector3());
    const r = Math.max(3, box.getSize(new THREE.Vector3()).length() / 2);
    const dir = new THREE.Vector3(0.35, 1.5, 0.7).normalize();
    camera.position.copy(c).addScaledVector(dir, 2.6 * r);
    controls.target.copy(c);
  }
  camera.far = Math.max(2000, camera.position.distanceTo(controls.target) * 20);
  camera.updateProjectionMatrix();
  controls.update();
}

async function open(bytes, compareBytes) {
  $('error').hidden = true;
  delete document.body.dataset.error;
  const t0 = performance.now();
  const [a, b] = await Promise.all([loadImpr(bytes), compareBytes ? loadImpr(compareBytes) : null]);
  rec = a;
  other = b;
  diffFrame = other ? firstDifference(rec, other) : null;
  pause();
  picked = -1;
  $('pick').hidden = true;
  build();
  seek(0);
  frameCamera();
  $('drop').hidden = true;
  $('hud').hidden = false;
  resize();
  viewer.loadMs = performance.now() - t0;
  console.log(`loaded ${rec.bodies.length} bodies, ${rec.frames.length} frames in ${viewer.loadMs.toFixed(0)} ms`);
}

async function compareWith(bytes) {
  other = await loadImpr(bytes);
  diffFrame = firstDifference(rec, other);
  updateHud();
}

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

const drop = $('drop');
window.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
window.addEventListener('dragleave', () => drop.classList.remove('over'));
window.addEventListener('drop', async (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const files = [...e.dataTransfer.files];
  try {
    const bytes = await Promise.all(files.slice(0, 2).map(async (f) => new Uint8Array(await f.arrayBuffer())));
    if (bytes.length) await open(bytes[0], bytes[1]);
  } catch (err) {
    showError(err);
  }
});
$('open').onchange = async (e) => {
  try {
    await open(new Uint8Array(await e.target.files[0].arrayBuffer()));
  } catch (err) {
    showError(err);
  }
};
$('compareFile').onchange = async (e) => {
  try {
    if (!rec) throw new Error('open a recording first');
    await compareWith(new Uint8Array(await e.target.files[0].arrayBuffer()));
  } catch (err) {
    showError(err);
  }
};

// ---------------------------------------------------------------------------------------
// The handle for tests and the console.

/**
 * Plays `n` frames as fast as requestAnimationFrame allows (one recording frame per
 * animation frame, wrapping around), and returns the frame times: the intervals between
 * animation frames (what a viewer sees) and the time spent in seek + render (the main
 * thread's share), in ms.
 */
function benchmark(n) {
  pause();
  return new Promise((resolve) => {
    const intervals = [];
    const work = [];
    let last = null;
    let i = 0;
    const tick = (t) => {
      if (last !== null) intervals.push(t - last);
      last = t;
      const w0 = performance.now();
      seekPoses((at + 1) % rec.frames.length);
      writeMatrices();
      if (particleMesh && particleMesh.visible) writeParticles();
      if (jointLines && jointLines.visible) writeJoints();
      renderer.render(scene, camera);
      work.push(performance.now() - w0);
      if (++i < n) requestAnimationFrame(tick);
      else {
        const stats = (v) => {
          const s = [...v].sort((a, b) => a - b);
          return { mean: v.reduce((a, b) => a + b, 0) / v.length, median: s[s.length >> 1], p95: s[Math.floor(s.length * 0.95)] };
        };
        resolve({ frames: n, interval: stats(intervals), work: stats(work) });
      }
    };
    requestAnimationFrame(tick);
  });
}

const viewer = {
  open,
  seek: (f) => {
    pause();
    seek(f);
    // Render now, so a screenshot right after sees the frame.
    renderer.render(scene, camera);
  },
  play,
  pause,
  pick,
  setContacts,
  setParticles,
  setJoints,
  benchmark,
  get frame() { return at; },
  get recording() { return rec; },
  get diffFrame() { return diffFrame; },
  get drawCalls() { return renderer.info.render.calls; },
  /** The joints drawn at this frame (0 while hidden or without joints). */
  get jointsDrawn() { return jointLines && jointLines.visible ? jointLines.userData.live : 0; },
  loadMs: null,
};
window.viewer = viewer;

resize();
viewer.ready = (async () => {
  try {
    const file = params.get('file');
    if (file) {
      const cmp = params.get('compare');
      await open(await fetchBytes(file), cmp ? await fetchBytes(cmp) : null);
      if (params.has('frame')) seek(+params.get('frame'));
      if (params.get('contacts') === '1') setContacts(true);
      if (params.get('particles') === '0') setParticles(false);
      if (params.get('joints') === '0') setJoints(false);
      renderer.render(scene, camera);
    }
    document.body.dataset.ready = '1';
  } catch (err) {
    showError(err);
    document.body.dataset.ready = 'error';
  }
})();
