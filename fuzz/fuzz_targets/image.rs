//! `World::from_image` on arbitrary bytes: `Ok` or `Err`, never a panic. A world it loads
//! steps, and saves an image that loads to the same state.
//!
//! First byte, bit 0: the rest is XORed over the image of a small world with every kind of
//! geometry (a hull, a mesh, a height field, a compound body), joints and a cloth, and the
//! checksum is recomputed, so that mutations reach the section decoders
//! (`engine/tests/common/seal.rs`);
//! otherwise the rest is the image itself.
#![no_main]

#[path = "../../engine/tests/common/seal.rs"]
mod seal;

use impetus::{
    BodyDef, BodyType, ClothDef, ConvexHull, HeightField, JointDef, JointKind, ShapeDef, TriMesh,
    Vec3, World, WorldDef,
};
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

/// The image of the seed world, made once.
fn valid_image() -> &'static [u8] {
    static IMAGE: OnceLock<Vec<u8>> = OnceLock::new();
    IMAGE.get_or_init(|| {
        let mut w = World::new(WorldDef {
            worker_count: 1,
            ..Default::default()
        })
        .unwrap();
        let body = |w: &mut World, body_type, position: Vec3, shapes: &[ShapeDef]| {
            let b = w
                .create_body(&BodyDef {
                    body_type,
                    position,
                    ..Default::default()
                })
                .unwrap();
            for s in shapes {
                w.add_shape(b, s).unwrap();
            }
            b
        };
        let heights = (0..16).map(|k| 0.1 * (k % 4) as f32).collect();
        let field = HeightField::new(4, 4, heights, Vec3::new(2.0, 1.0, 2.0)).unwrap();
        body(
            &mut w,
            BodyType::Static,
            Vec3::new(-3.0, 0.0, -3.0),
            &[ShapeDef::height_field(Arc::new(field))],
        );
        let mesh = TriMesh::new(
            vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(4.0, 0.0, 0.0),
                Vec3::new(0.0, 0.0, 4.0),
                Vec3::new(4.0, 0.5, 4.0),
            ],
            vec![[0, 2, 1], [1, 2, 3]],
        )
        .unwrap();
        body(
            &mut w,
            BodyType::Static,
            Vec3::new(4.0, 0.0, 0.0),
            &[ShapeDef::mesh(Arc::new(mesh))],
        );
        let hull = ConvexHull::new(&[
            Vec3::new(-0.4, 0.0, -0.4),
            Vec3::new(0.4, 0.0, -0.4),
            Vec3::new(0.0, 0.0, 0.5),
            Vec3::new(0.0, 0.6, 0.0),
        ])
        .unwrap();
        let a = body(
            &mut w,
            BodyType::Dynamic,
            Vec3::new(0.0, 1.0, 0.0),
            &[ShapeDef::hull(Arc::new(hull))],
        );
        let b = body(
            &mut w,
            BodyType::Dynamic,
            Vec3::new(0.0, 2.0, 0.0),
            &[
                ShapeDef::cuboid(Vec3::splat(0.3)),
                ShapeDef::sphere(0.2).with_offset(Vec3::new(0.5, 0.0, 0.0)),
            ],
        );
        body(
            &mut w,
            BodyType::Kinematic,
            Vec3::new(2.0, 1.0, 0.0),
            &[ShapeDef::capsule(0.4, 0.2)],
        );
        let (xa, xb) = (w.body_transform(a).unwrap(), w.body_transform(b).unwrap());
        let hinge = JointKind::Hinge {
            limits: None,
            motor: None,
            spring: None,
        };
        w.create_joint(&JointDef::at_world(
            hinge,
            a,
            &xa,
            b,
            &xb,
            Vec3::new(0.0, 1.5, 0.0),
            Vec3::Z,
        ))
        .unwrap();
        w.create_cloth(&ClothDef {
            origin: Vec3::new(5.0, 2.0, 1.0),
            nx: 3,
            ny: 3,
            spacing: 0.3,
            mass: 0.2,
            ..Default::default()
        })
        .unwrap();
        for _ in 0..5 {
            w.step(1.0 / 60.0).unwrap();
        }
        let mut image = Vec::new();
        w.save_image(&mut image);
        image
    })
}

fuzz_target!(|data: &[u8]| {
    let image = match data.split_first() {
        Some((&flag, rest)) if flag & 1 == 1 => seal::xor_and_reseal(valid_image(), rest),
        Some((_, rest)) => rest.to_vec(),
        None => Vec::new(),
    };
    if let Ok(mut w) = World::from_image_with_workers(&image, 1) {
        let mut again = Vec::new();
        w.save_image(&mut again);
        let copy = World::from_image_with_workers(&again, 1).expect("a saved image loads");
        assert_eq!(copy.deep_hash(), w.deep_hash());
        let _ = w.step(1.0 / 60.0);
    }
});
