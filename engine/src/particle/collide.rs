//! Each step, every particle's contacts with the rigid shapes: a sphere of its radius
//! against each shape whose fat bounds meet the particle's swept box, through the rigid
//! pair functions (a mesh or height field: each triangle near it). Up to
//! [`MAX_CONTACTS`] per particle, the deepest, anchored in the shape's body frame.

use super::store::{Contact, ParticleStore};
use super::MAX_CONTACTS;
use crate::body::BodyStore;
use crate::broadphase::BroadPhase;
use crate::collision::{collide, collide_triangle, Manifold, Tolerance};
use crate::math::{Aabb, Transform};
use crate::parallel::for_each_chunk_maybe_par;
use crate::shape::store::ShapeStore;
use crate::shape::Shape;
use glam::{Quat, Vec3};

/// Particles a task when the contacts are found in parallel.
const CHUNK: usize = 256;

/// The particles' contacts for a step of `dt`: a shape is a contact when the particle's
/// sphere lies within `margin` plus the particle's motion in the step of its surface.
#[allow(clippy::too_many_arguments)]
pub(crate) fn find_contacts(
    store: &mut ParticleStore,
    shapes: &ShapeStore,
    bodies: &BodyStore,
    broadphase: &BroadPhase,
    margin: f32,
    slop: f32,
    dt: f32,
    parallel: bool,
) {
    let ParticleStore {
        pool,
        position,
        velocity,
        radius,
        filter,
        friction,
        restitution,
        contacts,
        contact_count,
        ..
    } = store;
    let counts = crate::parallel::DisjointPtr::new(contact_count);
    let work = |chunk: usize, out: &mut [[Contact; MAX_CONTACTS]]| {
        for (j, slots) in out.iter_mut().enumerate() {
            let i = chunk * CHUNK + j;
            let count = counts.get_mut(i as u32);
            *count = 0;
            if !pool.is_alive(i) {
                continue;
            }
            let (x, r) = (position[i], radius[i]);
            let reach = margin + velocity[i].length() * dt;
            if !reach.is_finite() {
                continue;
            }
            let bb = Aabb {
                min: x - Vec3::splat(r + reach),
                max: x + Vec3::splat(r + reach),
            };
            let sphere = Shape::Sphere { radius: r };
            let xf_p = Transform::new(x, Quat::IDENTITY);
            // The deepest contacts, sorted by separation.
            let mut found: [(f32, Contact); MAX_CONTACTS] = Default::default();
            let mut n = 0usize;
            broadphase.query_aabb(&bb, true, |s| {
                let d = &shapes.data[s as usize];
                if d.is_sensor || !d.filter.collides_with(&filter[i]) {
                    return;
                }
                let b = d.body as usize;
                let body_xf = bodies.transform(b);
                let xf_s = d.pose(&body_xf);
                // What the particle and the shape's surface can close in the step.
                let closing = bodies.linear_velocity[b].length()
                    + bodies.angular_velocity[b].length() * d.reach();
                let tol = Tolerance {
                    speculative: reach + closing * dt,
                    linear_slop: slop,
                };
                let m = match &d.shape {
                    Shape::Mesh { mesh } => {
                        let local = local_box(&xf_s, x, r + reach);
                        deepest(
                            |f| mesh.query_aabb(&local, f),
                            |t| collide_triangle(&sphere, &xf_p, &mesh.triangle(t), &xf_s, tol),
                        )
                    }
                    Shape::HeightField { field } => {
                        let local = local_box(&xf_s, x, r + reach);
                        deepest(
                            |f| field.query_aabb(&local, f),
                            |t| collide_triangle(&sphere, &xf_p, &field.triangle(t), &xf_s, tol),
                        )
                    }
                    shape => collide(&sphere, &xf_p, shape, &xf_s, tol),
                };
                if m.count == 0 {
                    return;
                }
                let p = &m.points[0];
                // The shape's surface point, and the normal from the shape to the particle.
                let surface = p.point + 0.5 * p.separation * m.normal;
                let c = Contact {
                    body: d.body,
                    normal: body_xf.inv_transform_vector(-m.normal),
                    point: body_xf.inv_transform_point(surface),
                    friction: (friction[i] * d.friction).sqrt(),
                    restitution: restitution[i].max(d.restitution),
                    active: false,
                    approach: 0.0,
                    held: false,
                };
                // Insert by separation (ties: the earlier shape first, as the broadphase
                // visits in a fixed order).
                let mut k = n.min(MAX_CONTACTS);
                while k > 0 && found[k - 1].0 > p.separation {
                    if k < MAX_CONTACTS {
                        found[k] = found[k - 1];
                    }
                    k -= 1;
                }
                if k < MAX_CONTACTS {
                    found[k] = (p.separation, c);
                    n = (n + 1).min(MAX_CONTACTS);
                }
            });
            for (slot, (_, c)) in slots.iter_mut().zip(&found[..n]) {
                *slot = *c;
            }
            *count = n as u8;
        }
    };
    for_each_chunk_maybe_par(contacts, CHUNK, parallel, 1, work);
}

/// The box, in the frame `xf`, around a sphere of radius `r` at world point `x`.
fn local_box(xf: &Transform, x: Vec3, r: f32) -> Aabb {
    let c = xf.inv_transform_point(x);
    Aabb {
        min: c - Vec3::splat(r),
        max: c + Vec3::splat(r),
    }
}

/// The manifold of least separation among the triangles `query` visits.
fn deepest(
    query: impl FnOnce(&mut dyn FnMut(u32)),
    mut collide: impl FnMut(u32) -> Manifold,
) -> Manifold {
    let mut best = Manifold::default();
    query(&mut |t| {
        let m = collide(t);
        if m.count > 0 && (best.count == 0 || m.points[0].separation < best.points[0].separation) {
            best = m;
        }
    });
    best
}
