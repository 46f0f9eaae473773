//! The joints of a world: creation, removal, queries, and their part of the step
//! (prepared with the contacts, coloured with them, stored and broken after the solve).

use super::World;
use crate::body::BodyType;
use crate::broadphase::pair_key;
use crate::error::Error;
use crate::id::NULL;
use crate::id::{BodyId, JointId};
use crate::joint::{JointBreak, JointData, JointDef, JointImpulses, JointKind};
use glam::Vec3;

impl World {
    /// Creates a joint. Both bodies must be live and different, and at least one dynamic.
    /// Unless `collide_connected`, contacts between the two bodies are removed and no new
    /// ones are made while the joint exists.
    pub fn create_joint(&mut self, def: &JointDef) -> Result<JointId, Error> {
        def.validate()?;
        let a = self.body_index(def.body_a)?;
        let b = self.body_index(def.body_b)?;
        if a == b {
            return Err(Error::invalid(
                "JointDef::body_b",
                "must be a different body from body_a",
            ));
        }
        let dynamic = |i: usize| self.bodies.body_type[i] == BodyType::Dynamic;
        if !dynamic(a) && !dynamic(b) {
            return Err(Error::invalid(
                "JointDef::body_b",
                "at least one of the two bodies must be dynamic",
            ));
        }
        let slot = |i: usize| if dynamic(i) { i as u32 } else { NULL };
        let (color, color_sides) = self.graph.coloring.assign(slot(a), slot(b));
        // The solver reads frames relative to the bodies' mass frames.
        let mut sim = *def;
        sim.frame_a = self.bodies.in_mass_frame(a, &def.frame_a);
        sim.frame_b = self.bodies.in_mass_frame(b, &def.frame_b);
        let data = JointData::new(sim, a as u32, b as u32, color, color_sides);
        self.joints.trees_dirty = true;
        self.joints.lists_dirty = true;
        let (index, generation, fresh) = self.joints.pool.alloc();
        if fresh {
            self.joints.slots.push(data);
        } else {
            self.joints.slots[index as usize] = data;
        }
        for body in [a, b] {
            if self.joints.of_body.len() <= body {
                self.joints.of_body.resize_with(body + 1, Vec::new);
            }
            self.joints.of_body[body].push(index);
        }
        if !def.collide_connected {
            self.disconnect(a, b);
        }
        self.link_bodies(a as u32, b as u32);
        self.wake_body(a);
        self.wake_body(b);
        self.update_driven(index);
        self.structure += 1;
        Ok(JointId { index, generation })
    }

    /// Removes a joint. Contacts between its bodies come back (unless another joint
    /// keeps them apart) when their shapes next overlap or, if they overlap now, at once.
    pub fn remove_joint(&mut self, id: JointId) -> Result<(), Error> {
        let j = self.joint_index(id)?;
        self.remove_joint_slot(j);
        self.structure += 1;
        Ok(())
    }

    pub(crate) fn remove_joint_slot(&mut self, j: usize) {
        // The slot is released (and may be reused): the ball batches' lanes must not write
        // into it later.
        self.graph.flush_ball_impulses(&mut self.joints.slots);
        let data = self.joints.slots[j];
        self.joints.trees_dirty = true;
        self.joints.lists_dirty = true;
        self.graph
            .coloring
            .release(data.color, data.color_sides, data.body_a, data.body_b);
        for body in [data.body_a, data.body_b] {
            self.joints.of_body[body as usize].retain(|&k| k as usize != j);
        }
        self.joints.pool.release(j as u32);
        self.joints.driven.retain(|&k| k as usize != j);
        self.unlink_bodies(data.body_a, data.body_b);
        self.wake_body(data.body_a as usize);
        self.wake_body(data.body_b as usize);
        if !data.def.collide_connected {
            self.reconnect(data.body_a as usize, data.body_b as usize);
        }
    }

    /// Lists joint `j` among the driven joints (a motor turning at a non-zero speed keeps
    /// its island awake however slowly it accelerates) or takes it off.
    fn update_driven(&mut self, j: u32) {
        self.joints.driven.retain(|&k| k != j);
        let driven = match self.joints.slots[j as usize].def.kind {
            JointKind::Hinge { motor, .. } | JointKind::Slider { motor, .. } => {
                motor.is_some_and(|m| m.speed != 0.0 && m.max_force > 0.0)
            }
            _ => false,
        };
        if driven {
            self.joints.driven.push(j);
        }
    }

    /// Whether a joint without `collide_connected` connects body slots `a` and `b`.
    pub(crate) fn joint_blocks(&self, a: u32, b: u32) -> bool {
        let (list, other) = match (
            self.joints.of_body.get(a as usize),
            self.joints.of_body.get(b as usize),
        ) {
            (Some(la), Some(lb)) if la.len() <= lb.len() => (la, b),
            (Some(_), Some(lb)) => (lb, a),
            _ => return false,
        };
        // The bodies first: they share the slot's first line, the definition's flag lies
        // further in (one line less to load for each of the body's other joints).
        list.iter().any(|&k| {
            let d = &self.joints.slots[k as usize];
            (d.body_a == other || d.body_b == other) && !d.def.collide_connected
        })
    }

    /// Destroys the contacts between body slots `a` and `b` (their pairs stay in the
    /// broadphase without a contact).
    fn disconnect(&mut self, a: usize, b: usize) {
        let (sa, sb) = (self.bodies.shapes[a].clone(), self.bodies.shapes[b].clone());
        for x in &sa {
            for y in &sb {
                let key = pair_key(x.index, y.index);
                let Some(contact) = self.broadphase.pair_value(key) else {
                    continue;
                };
                if contact == NULL {
                    continue;
                }
                self.destroy_pair_contact(contact, true);
                self.broadphase.set_pair_value(key, NULL);
            }
        }
    }

    /// Creates contacts for the broadphase pairs between body slots `a` and `b` that have
    /// none, unless a joint still keeps the bodies apart.
    fn reconnect(&mut self, a: usize, b: usize) {
        if self.joint_blocks(a as u32, b as u32) {
            return;
        }
        let (sa, sb) = (self.bodies.shapes[a].clone(), self.bodies.shapes[b].clone());
        for x in &sa {
            for y in &sb {
                let key = pair_key(x.index, y.index);
                if self.broadphase.pair_value(key) != Some(NULL) {
                    continue;
                }
                let (pa, pb) = crate::broadphase::pair_ids(key);
                self.create_pair_contact(key, pa, pb);
            }
        }
    }

    #[inline]
    pub(crate) fn joint_index(&self, id: JointId) -> Result<usize, Error> {
        self.joints.pool.check(id.index, id.generation, "JointId")
    }

    /// Every live joint, in slot order.
    pub fn joints(&self) -> impl Iterator<Item = JointId> + '_ {
        (0..self.joints.pool.capacity())
            .filter(|&i| self.joints.pool.is_alive(i))
            .map(|i| JointId {
                index: i as u32,
                generation: self.joints.pool.generation(i),
            })
    }

    /// Number of live joints.
    pub fn joint_count(&self) -> usize {
        self.joints.pool.live()
    }

    /// The definition a joint was created with (with any later [`set_joint_kind`]).
    ///
    /// [`set_joint_kind`]: World::set_joint_kind
    pub fn joint_def(&self, id: JointId) -> Result<JointDef, Error> {
        let data = &self.joints.slots[self.joint_index(id)?];
        let mut def = data.def;
        def.frame_a = self
            .bodies
            .in_body_frame(data.body_a as usize, &def.frame_a);
        def.frame_b = self
            .bodies
            .in_body_frame(data.body_b as usize, &def.frame_b);
        Ok(def)
    }

    /// Changes a joint's parameters (limits, motor speed, spring...) without touching its
    /// bodies or frames. The kind itself may change too; warm-start impulses restart then.
    pub fn set_joint_kind(&mut self, id: JointId, kind: JointKind) -> Result<(), Error> {
        let j = self.joint_index(id)?;
        self.graph.flush_ball_impulses(&mut self.joints.slots);
        let mut def = self.joints.slots[j].def;
        let same_kind = std::mem::discriminant(&def.kind) == std::mem::discriminant(&kind);
        def.kind = kind;
        def.validate()?;
        self.joints.slots[j].set_def(def);
        self.joints.trees_dirty |= !same_kind;
        self.joints.lists_dirty = true;
        self.update_driven(j as u32);
        let (a, b) = (self.joints.slots[j].body_a, self.joints.slots[j].body_b);
        self.wake_body(a as usize);
        self.wake_body(b as usize);
        if !same_kind {
            self.joints.slots[j].impulses = JointImpulses::default();
        }
        self.structure += 1;
        Ok(())
    }

    /// The force the joint applied to body B in the last step (at B's anchor, world
    /// frame), in N; A received the opposite.
    pub fn joint_reaction_force(&self, id: JointId) -> Result<Vec3, Error> {
        Ok(self.joint_impulses(self.joint_index(id)?).1)
    }

    /// The torque the joint applied to body B in the last step (world frame), in N·m,
    /// besides the moment of the reaction force about B's anchor.
    pub fn joint_reaction_torque(&self, id: JointId) -> Result<Vec3, Error> {
        Ok(self.joint_impulses(self.joint_index(id)?).2)
    }

    /// Joint slot `j`'s impulses, reaction force and reaction torque of the last step,
    /// from its ball batch while that holds them (see `ConstraintGraph::store_joints`).
    pub(crate) fn joint_impulses(&self, j: usize) -> (JointImpulses, Vec3, Vec3) {
        self.graph.pending_ball_joint(j).unwrap_or_else(|| {
            let d = &self.joints.slots[j];
            (d.impulses, d.reaction, d.angular_reaction)
        })
    }

    /// Joints that broke in the last step (removed; valid until the next step).
    pub fn joint_break_events(&self) -> &[JointBreak] {
        &self.joints.breaks
    }

    /// The joints of a body.
    pub fn body_joints(&self, id: BodyId) -> Result<Vec<JointId>, Error> {
        let b = self.body_index(id)?;
        Ok(self
            .joints
            .of_body
            .get(b)
            .map(|l| {
                l.iter()
                    .map(|&k| JointId {
                        index: k,
                        generation: self.joints.pool.generation(k as usize),
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// After the solve: keeps each joint's impulses for the next step's warm start,
    /// records its reaction, and breaks the joints whose step impulse passed their
    /// thresholds (in slot order, so the break records are the same for any thread count).
    pub(crate) fn store_joints(&mut self, substeps: u32, h: f32, parallel: bool) {
        self.joints.breaks.clear();
        let broken = self.graph.store_joints(
            &mut self.joints.slots,
            &mut self.solver.states,
            substeps,
            h,
            parallel,
        );
        for (j, impulse, angular_impulse) in broken {
            let d = &self.joints.slots[j as usize];
            let body = |slot: u32| BodyId {
                index: slot,
                generation: self.body_pool.generation(slot as usize),
            };
            let record = JointBreak {
                joint: JointId {
                    index: j,
                    generation: self.joints.pool.generation(j as usize),
                },
                body_a: body(d.body_a),
                body_b: body(d.body_b),
                impulse,
                angular_impulse,
            };
            self.remove_joint_slot(j as usize);
            self.joints.breaks.push(record);
        }
    }
}
