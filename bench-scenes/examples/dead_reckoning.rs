//! Dead reckoning: a server simulates a world and sends its state every 6 steps; each state
//! reaches the client 6 steps (100 ms) late. The client restores it into its own copy of
//! the world, re-simulates the 6 steps to the present, and simulates on by itself until
//! the next state arrives. What the server did that the client could not know (here, kicks
//! the server gives a crate every now and then) shows as a correction when a state arrives;
//! the client draws each body with the correction's offset fading over a few frames, so
//! bodies glide to where they belong instead of jumping.
//!
//! `cargo run --release -p impetus-scenes --example dead_reckoning`

use impetus::{BodyDef, BodyId, BodyType, ShapeDef, Vec3, World, WorldDef};
use std::collections::VecDeque;

const DT: f32 = 1.0 / 60.0;
/// Steps between two states the server sends.
const SEND_EVERY: usize = 6;
/// Steps a state takes to reach the client.
const LATENCY: usize = 6;
/// How much of a correction's offset is left after each drawn frame.
const FADE: f32 = 0.75;
const STEPS: usize = 900;

fn build() -> (World, Vec<BodyId>) {
    let mut w = World::new(WorldDef {
        worker_count: 1,
        ..Default::default()
    })
    .unwrap();
    let ground = w
        .create_body(&BodyDef {
            body_type: BodyType::Static,
            ..Default::default()
        })
        .unwrap();
    w.add_shape(ground, &ShapeDef::plane(Vec3::Y, 0.0)).unwrap();
    let crates = (0..40)
        .map(|k| {
            let b = w
                .create_body(&BodyDef {
                    position: Vec3::new(
                        (k % 8) as f32 * 1.5 - 5.0,
                        0.5 + (k / 8) as f32 * 1.2,
                        0.0,
                    ),
                    ..Default::default()
                })
                .unwrap();
            w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.45)))
                .unwrap();
            b
        })
        .collect();
    (w, crates)
}

fn main() {
    let (mut server, crates) = build();
    let (mut client, _) = build();
    // States in flight: (the server step they were saved after, bytes).
    let mut wire: VecDeque<(usize, Vec<u8>)> = VecDeque::new();
    // The offset each crate is drawn with (display - simulated), fading to zero.
    let mut offset = vec![Vec3::ZERO; crates.len()];
    let (mut worst_error, mut worst_jump, mut worst_raw_jump) = (0.0f32, 0.0f32, 0.0f32);
    let mut shown: Vec<Vec3> = crates
        .iter()
        .map(|&c| client.body_position(c).unwrap())
        .collect();
    let mut corrections = 0;
    let mut bytes = 0;
    for step in 1..=STEPS {
        // The server: kicks the client does not know about, then the step.
        if step % 97 == 0 {
            let c = crates[(step / 97) % crates.len()];
            // 6 m/s up and 3 m/s sideways.
            let kick = server.body_mass_properties(c).unwrap().mass * Vec3::new(0.0, 6.0, 3.0);
            server
                .apply_linear_impulse(c, kick, server.body_position(c).unwrap())
                .unwrap();
        }
        server.step(DT).unwrap();
        if step % SEND_EVERY == 0 {
            let mut state = Vec::new();
            server.save_state(&mut state);
            bytes += state.len();
            wire.push_back((step, state));
        }
        // The client: its own prediction of this step.
        client.step(DT).unwrap();
        // A state that arrives now: restore it and catch up to the present.
        if wire.front().is_some_and(|(sent, _)| sent + LATENCY == step) {
            let (sent, state) = wire.pop_front().unwrap();
            let before: Vec<Vec3> = crates
                .iter()
                .map(|&c| client.body_position(c).unwrap())
                .collect();
            client.restore_state(&state).unwrap();
            for _ in sent..step {
                client.step(DT).unwrap();
            }
            for (k, &c) in crates.iter().enumerate() {
                let jump = before[k] - client.body_position(c).unwrap();
                worst_raw_jump = worst_raw_jump.max(jump.length());
                offset[k] += jump;
            }
            corrections += 1;
        }
        // Draw: the simulated pose plus the fading offset.
        for (k, &c) in crates.iter().enumerate() {
            let p = client.body_position(c).unwrap() + offset[k];
            let truth = server.body_position(c).unwrap();
            worst_error = worst_error.max((p - truth).length());
            worst_jump = worst_jump.max((p - shown[k]).length());
            shown[k] = p;
            offset[k] *= FADE;
        }
    }
    println!(
        "{STEPS} steps, a state every {SEND_EVERY} steps arriving {LATENCY} steps late: {corrections} corrections, {} bytes a state",
        bytes / corrections.max(1)
    );
    println!(
        "largest correction {worst_raw_jump:.3} m; drawn, the largest move in one frame is {worst_jump:.3} m (a kicked crate flies), the largest distance from the server's pose {worst_error:.3} m"
    );
    // Without kicks the client would match the server exactly: the same world, the same
    // steps. Check it on the last state.
    let (sent, state) = (STEPS, {
        let mut s = Vec::new();
        server.save_state(&mut s);
        s
    });
    client.restore_state(&state).unwrap();
    assert_eq!(
        client.deep_hash(),
        server.deep_hash(),
        "restored at step {sent}"
    );
}
