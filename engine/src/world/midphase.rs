//! The midphase: child contacts of convex shapes against triangle meshes and height fields.
//!
//! A broadphase pair of a convex shape and a mesh (or height field) gets a *parent*
//! contact, which is never solved: the table's entry for it computes nothing, so it never
//! touches. Every step, after the broadphase's new pairs are created, each parent whose
//! convex body is awake lists the triangles whose bounds overlap the convex shape's bounds
//! (its `ShapeData::aabb`, which is swept over the step's motion and grown by the
//! speculative distance) in the mesh frame, through the mesh's tree. The sorted list is
//! diffed against the parent's children: a new triangle gets an ordinary [`Contact`] with
//! `child` = the triangle (created in triangle order), a vanished one is destroyed as a
//! broadphase pair's end would be (end of touch, colour released). The queries run in
//! parallel, the changes serially in parent-contact order, so the result does not depend
//! on the thread count.
//!
//! Children are ordinary contacts for the narrowphase (`collide_triangle`), colouring,
//! the solver, islands, sleep, hit events and the contact modifier. Contact begin and end
//! *events* are aggregated on the parent: the pair begins touching when its first child
//! touches and ends when its last child stops (or the pair is destroyed), so a box sliding
//! across triangles reports one begin and one end, not one per triangle. Sensors do not
//! detect meshes (no parent is created for such a pair). `World::contacts` lists the
//! touching children, each with the two shapes' ids.

use super::World;
use crate::body::BodyType;
use crate::collision::box_box::NO_AXIS;
use crate::contact::{Contact, CONTACT_EVENTS};
use crate::id::NULL;
use crate::shape::local_aabb;
use crate::solver::color::NO_COLOR;
use impetus_profiling::zone;
use rayon::prelude::*;

/// Below this many awake parents the queries run on the calling thread.
const PARALLEL_MIN: usize = 16;

/// A parent contact with its children.
#[derive(Clone, Debug, Default)]
pub(crate) struct MeshPair {
    /// The parent contact's index.
    pub contact: u32,
    /// `(triangle, child contact)`, sorted by triangle.
    pub children: Vec<(u32, u32)>,
    /// Whether some child touched at the last aggregation (begin/end events).
    pub touching: bool,
    pub alive: bool,
    /// Scratch of the midphase: whether the pair was queried this step, and the
    /// triangles it found (sorted).
    listed: bool,
    found: Vec<u32>,
}

/// The mesh pairs by id (holes listed in `free`).
#[derive(Default)]
pub(crate) struct MeshPairs {
    pub list: Vec<MeshPair>,
    pub(super) free: Vec<u32>,
    /// Scratch: the queried pairs in parent-contact order.
    order: Vec<u32>,
}

impl MeshPairs {
    pub(super) fn alloc(&mut self, contact: u32) -> u32 {
        let pair = MeshPair {
            contact,
            alive: true,
            ..MeshPair::default()
        };
        match self.free.pop() {
            Some(i) => {
                self.list[i as usize] = pair;
                i
            }
            None => {
                self.list.push(pair);
                (self.list.len() - 1) as u32
            }
        }
    }

    /// Tells the pairs that contact `c` now lives at `index` (compaction moved it).
    pub fn moved(&mut self, c: &Contact, index: u32) {
        if c.link == NULL {
            return;
        }
        let pair = &mut self.list[c.link as usize];
        if c.child == NULL {
            pair.contact = index;
        } else if let Ok(k) = pair.children.binary_search_by_key(&c.child, |e| e.0) {
            pair.children[k].1 = index;
        }
    }
}

impl World {
    /// The midphase (see the module docs): brings every awake parent's children up to the
    /// triangles its convex shape's bounds overlap.
    pub(crate) fn update_mesh_children(&mut self) {
        if self.mesh_pairs.list.len() == self.mesh_pairs.free.len() {
            return;
        }
        zone!("Midphase", impetus_profiling::color::BROADPHASE);
        let (bodies, shapes, contacts) = (&self.bodies, &self.shapes, &self.contacts.contacts);
        let sleep = self.def.enable_sleep;
        // Each listed pair's triangles go to its own reused buffer (no allocation per
        // pair and step once the buffers have grown).
        let query = |pair: &mut MeshPair| {
            pair.found.clear();
            pair.listed = false;
            if !pair.alive {
                return;
            }
            let c = &contacts[pair.contact as usize];
            let b = c.body_a as usize;
            if sleep && bodies.body_type[b] == BodyType::Dynamic && !bodies.awake[b] {
                return;
            }
            pair.listed = true;
            let sb = &shapes.data[c.shape_b as usize];
            if let Some(mesh) = sb.shape.triangles() {
                let mesh_xf = sb.pose(&bodies.transform(sb.body as usize));
                let local = local_aabb(&shapes.bounds[c.shape_a as usize], &mesh_xf);
                mesh.query_aabb(&local, |t| pair.found.push(t));
            }
            pair.found.sort_unstable();
        };
        let list = &mut self.mesh_pairs.list;
        match &self.pool {
            Some(pool) if list.len() >= PARALLEL_MIN => {
                pool.install(|| list.par_iter_mut().for_each(query))
            }
            _ => list.iter_mut().for_each(query),
        }
        // Changes are applied in parent-contact order.
        let mut order = std::mem::take(&mut self.mesh_pairs.order);
        order.clear();
        order.extend((0..list.len() as u32).filter(|&i| list[i as usize].listed));
        order.sort_unstable_by_key(|&i| list[i as usize].contact);
        for &i in &order {
            let found = std::mem::take(&mut self.mesh_pairs.list[i as usize].found);
            self.diff_children(i, &found);
            self.mesh_pairs.list[i as usize].found = found;
        }
        self.mesh_pairs.order = order;
    }

    /// Destroys the children of pair `i` whose triangles are not in `tris` (sorted) and
    /// creates children for the new ones, in triangle order.
    fn diff_children(&mut self, i: u32, tris: &[u32]) {
        let old = std::mem::take(&mut self.mesh_pairs.list[i as usize].children);
        if old.iter().map(|e| e.0).eq(tris.iter().copied()) {
            self.mesh_pairs.list[i as usize].children = old;
            return;
        }
        let parent = self.mesh_pairs.list[i as usize].contact;
        let mut children = Vec::with_capacity(tris.len());
        let mut j = 0;
        for &t in tris {
            while j < old.len() && old[j].0 < t {
                self.destroy_one(old[j].1, false);
                j += 1;
            }
            if j < old.len() && old[j].0 == t {
                children.push(old[j]);
                j += 1;
                continue;
            }
            let p = &self.contacts.contacts[parent as usize];
            let child = Contact {
                child: t,
                link: i,
                flags: p.flags & !CONTACT_EVENTS,
                manifold: Default::default(),
                cache: Default::default(),
                recycled: false,
                touching: false,
                touch_changed: false,
                alive: true,
                color: NO_COLOR,
                color_sides: 0,
                separating: NO_AXIS,
                ..p.clone()
            };
            children.push((t, self.contacts.create(child)));
        }
        for &(_, k) in &old[j..] {
            self.destroy_one(k, false);
        }
        self.mesh_pairs.list[i as usize].children = children;
    }

    /// After the narrowphase: a pair whose first child began touching publishes a begin
    /// record, one whose last child stopped an end record (pair order).
    pub(crate) fn aggregate_mesh_touches(&mut self) {
        for i in 0..self.mesh_pairs.list.len() {
            let pair = &self.mesh_pairs.list[i];
            if !pair.alive {
                continue;
            }
            let contacts = &self.contacts.contacts;
            let touching = pair
                .children
                .iter()
                .any(|&(_, k)| contacts[k as usize].touching);
            if touching != pair.touching {
                let k = pair.contact;
                self.mesh_pairs.list[i].touching = touching;
                self.publish_pair_touch(k, touching, false);
            }
        }
    }
}

#[cfg(any(test, feature = "validate"))]
impl World {
    /// Panics unless the mesh pairs and their contacts agree: every live pair's parent is a
    /// live contact of its pair with no triangle, every child a live contact of its pair
    /// with its triangle, children sorted and never touching an unlisted triangle; and
    /// every live contact with a link is one of those.
    pub(crate) fn check_mesh_pairs(&self) {
        let contacts = &self.contacts.contacts;
        let mut seen = 0;
        for (i, pair) in self.mesh_pairs.list.iter().enumerate() {
            if !pair.alive {
                assert!(pair.children.is_empty(), "dead pair {i} holds children");
                continue;
            }
            let p = &contacts[pair.contact as usize];
            assert!(
                p.alive && p.link == i as u32 && p.child == NULL,
                "pair {i}: parent"
            );
            assert!(!p.touching, "pair {i}: a parent never touches");
            seen += 1;
            for w in pair.children.windows(2) {
                assert!(w[0].0 < w[1].0, "pair {i}: children out of order");
            }
            for &(t, k) in &pair.children {
                let c = &contacts[k as usize];
                assert!(
                    c.alive && c.link == i as u32 && c.child == t,
                    "pair {i}: child {k} for triangle {t}"
                );
                assert_eq!((c.shape_a, c.shape_b), (p.shape_a, p.shape_b));
                seen += 1;
            }
        }
        let linked = contacts
            .iter()
            .filter(|c| c.alive && c.link != NULL)
            .count();
        assert_eq!(linked, seen, "contacts linked to no pair");
    }
}

crate::codec::fields!(MeshPair {
    contact,
    children,
    touching,
    alive,
    listed,
    found
});
crate::codec::fields!(MeshPairs { list, free, order });

#[cfg(test)]
mod tests {
    use crate::mesh::TriMesh;
    use crate::{BodyDef, BodyType, Quat, ShapeDef, Vec3, World, WorldDef};
    use std::sync::Arc;

    /// Bodies sliding, tumbling, sleeping and being removed and re-added over a mesh and
    /// a height field, on two threads: the pair bookkeeping stays consistent every step
    /// (through compaction, sleep and removals).
    #[test]
    fn pairs_stay_consistent_under_churn() {
        let mut w = World::new(WorldDef {
            worker_count: 2,
            ..Default::default()
        })
        .unwrap();
        let n = 8;
        let mut v = Vec::new();
        for r in 0..=n {
            for c in 0..=n {
                let y = 0.3 * ((r * c) % 3) as f32;
                v.push(Vec3::new(c as f32 - 4.0, y, r as f32 - 4.0));
            }
        }
        let mut t = Vec::new();
        for r in 0..n {
            for c in 0..n {
                let id = |r: usize, c: usize| (r * (n + 1) + c) as u32;
                t.push([id(r, c), id(r + 1, c + 1), id(r, c + 1)]);
                t.push([id(r, c), id(r + 1, c), id(r + 1, c + 1)]);
            }
        }
        let ground = w
            .create_body(&BodyDef {
                body_type: BodyType::Static,
                ..Default::default()
            })
            .unwrap();
        let mesh = Arc::new(TriMesh::new(v, t).unwrap());
        w.add_shape(ground, &ShapeDef::mesh(mesh)).unwrap();
        let field = crate::HeightField::new(6, 6, vec![0.0; 36], Vec3::ONE).unwrap();
        let g2 = w
            .create_body(&BodyDef {
                body_type: BodyType::Static,
                position: Vec3::new(5.0, -0.5, -3.0),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(g2, &ShapeDef::height_field(Arc::new(field)))
            .unwrap();
        let mut bodies = Vec::new();
        for step in 0..400 {
            if step % 20 == 0 && bodies.len() < 24 {
                let k = bodies.len() as f32;
                let b = w
                    .create_body(&BodyDef {
                        position: Vec3::new((k * 1.7) % 8.0 - 3.0, 2.0, (k * 2.3) % 7.0 - 3.0),
                        rotation: Quat::from_rotation_x(k),
                        linear_velocity: Vec3::new(2.0, 0.0, 1.0),
                        ..Default::default()
                    })
                    .unwrap();
                let shape = match bodies.len() % 3 {
                    0 => ShapeDef::cuboid(Vec3::new(0.4, 0.2, 0.3)),
                    1 => ShapeDef::sphere(0.3),
                    _ => ShapeDef::capsule(0.3, 0.2),
                };
                w.add_shape(b, &shape).unwrap();
                bodies.push(b);
            }
            if step % 37 == 0 && bodies.len() > 4 {
                let b = bodies.remove(step % bodies.len());
                w.remove_body(b).unwrap();
            }
            w.step(1.0 / 60.0).unwrap();
            w.check_mesh_pairs();
        }
        assert!(w.contacts().count() > 10);
    }
}
