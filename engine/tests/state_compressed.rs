//! Compressed states and images restore as plain ones do; the bulk position and rotation
//! getters agree with the per-body ones.

mod common;

use common::{ground_plane, world, DT};
use impetus::{BodyDef, Quat, ShapeDef, Vec3, World};

fn scene() -> World {
    let mut w = world(Vec3::new(0.0, -9.81, 0.0), 1);
    ground_plane(&mut w);
    for k in 0..20 {
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new((k % 4) as f32 * 0.4, 0.6 + k as f32 * 1.05, 0.0),
                rotation: Quat::from_rotation_y(0.1 * k as f32),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.5))).unwrap();
        if k % 5 == 0 {
            // A shape off the origin: the body's origin is not its centre of mass.
            w.add_shape(
                b,
                &ShapeDef::sphere(0.3).with_offset(Vec3::new(0.6, 0.0, 0.0)),
            )
            .unwrap();
        }
    }
    w
}

fn hashes(w: &mut World, steps: usize) -> Vec<u64> {
    (0..steps)
        .map(|_| {
            w.step(DT).unwrap();
            w.state_hash()
        })
        .collect()
}

#[test]
fn compressed_states_and_images_restore_bit_for_bit() {
    let mut w = scene();
    hashes(&mut w, 90);
    let (mut plain, mut packed, mut image) = (Vec::new(), Vec::new(), Vec::new());
    w.save_state(&mut plain);
    w.save_state_compressed(&mut packed, 6).unwrap();
    w.save_image_compressed(&mut image, 1).unwrap();
    assert!(packed.starts_with(b"IMPZ") && packed.len() < plain.len());
    let deep = w.deep_hash();
    let reference = hashes(&mut w, 60);
    w.restore_state(&packed).unwrap();
    assert_eq!(w.deep_hash(), deep);
    assert_eq!(hashes(&mut w, 60), reference);
    let mut loaded = World::from_image(&image).unwrap();
    assert_eq!(loaded.deep_hash(), deep);
    assert_eq!(hashes(&mut loaded, 60), reference);
    // Level 0 stores; a level over 9 is refused, naming it.
    w.restore_state(&plain).unwrap();
    w.save_state_compressed(&mut packed, 0).unwrap();
    w.step(DT).unwrap();
    w.restore_state(&packed).unwrap();
    assert_eq!(w.deep_hash(), deep);
    let err = w.save_state_compressed(&mut packed, 10).unwrap_err();
    assert!(err.to_string().contains("level"), "{err}");
    // A corrupt stream is an error naming the state, and changes nothing.
    let mut bad = Vec::new();
    w.save_state_compressed(&mut bad, 6).unwrap();
    let n = bad.len();
    bad[n / 2] ^= 0x5a;
    let err = w.restore_state(&bad).unwrap_err();
    assert!(err.to_string().contains("state"), "{err}");
    assert_eq!(w.deep_hash(), deep);
    bad.truncate(n / 2);
    assert!(World::from_image(&bad).is_err());
}

#[test]
fn bulk_getters_match_the_per_body_ones() {
    let mut w = scene();
    hashes(&mut w, 30);
    // A removed body leaves a hole in the slots: rows follow `bodies()`.
    let gone = w.bodies().nth(3).unwrap();
    w.remove_body(gone).unwrap();
    let n = w.body_count();
    let mut positions = vec![[0.0f32; 3]; n];
    let mut rotations = vec![[0.0f32; 4]; n];
    w.body_positions_into(&mut positions).unwrap();
    w.body_rotations_into(&mut rotations).unwrap();
    for (k, id) in w.bodies().enumerate() {
        assert_eq!(positions[k], w.body_position(id).unwrap().to_array());
        assert_eq!(rotations[k], w.body_rotation(id).unwrap().to_array());
    }
    let err = w
        .body_positions_into(&mut vec![[0.0; 3]; n + 1])
        .unwrap_err();
    assert!(err.to_string().contains("out"), "{err}");
    assert!(w.body_rotations_into(&mut []).is_err());
}
