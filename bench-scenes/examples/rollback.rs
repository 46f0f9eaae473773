//! Rollback netcode in one process: two peers simulate the same world, each steering its
//! own player box, and learn the other's input three frames late. Each predicts the
//! missing input (the last one it knows), and when the real input arrives and differs, it
//! restores the state saved at that frame and re-simulates the frames since with the right
//! inputs. At the end both peers hold the same world, bit for bit.
//!
//! `cargo run --release -p impetus-scenes --example rollback`

use impetus::{BodyDef, BodyId, BodyType, ShapeDef, Vec3, World, WorldDef};
use std::collections::VecDeque;

const DT: f32 = 1.0 / 60.0;
/// Frames an input takes to reach the other peer.
const DELAY: usize = 3;
const FRAMES: usize = 600;

/// A player's input of one frame: which way it pushes.
type Input = [i8; 2];

/// Player `p`'s input at `frame` (a scripted stand-in for a gamepad).
fn script(p: usize, frame: usize) -> Input {
    let phase = (frame / (37 + 11 * p)) % 4;
    [[1, 0], [0, 1], [-1, 0], [0, -1]][phase]
}

fn build() -> (World, [BodyId; 2]) {
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
    // A heap of crates for the players to shove around.
    for k in 0..60 {
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(
                    (k % 5) as f32 - 2.0,
                    0.5 + (k / 25) as f32,
                    ((k / 5) % 5) as f32 - 2.0,
                ),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.45)))
            .unwrap();
    }
    let players = [-6.0f32, 6.0].map(|x| {
        let b = w
            .create_body(&BodyDef {
                position: Vec3::new(x, 0.6, 0.0),
                ..Default::default()
            })
            .unwrap();
        w.add_shape(b, &ShapeDef::cuboid(Vec3::splat(0.6)).with_density(400.0))
            .unwrap();
        b
    });
    (w, players)
}

/// One peer: its world, the inputs it knows or guessed, and a state per recent frame.
struct Peer {
    me: usize,
    world: World,
    players: [BodyId; 2],
    /// Per frame, both players' inputs as this peer used them, and whether the remote one
    /// was a guess.
    inputs: Vec<([Input; 2], bool)>,
    /// The state before each frame still open to correction.
    states: VecDeque<(usize, Vec<u8>)>,
    rollbacks: usize,
    resimulated: usize,
}

impl Peer {
    fn push(&mut self, frame: usize) {
        let [a, b] = self.inputs[frame].0;
        for (p, i) in [a, b].iter().enumerate() {
            let f = Vec3::new(i[0] as f32, 0.0, i[1] as f32) * 4000.0;
            self.world
                .apply_force_to_center(self.players[p], f)
                .unwrap();
        }
    }

    /// Runs `frame` with the local input and a guess of the remote one.
    fn advance(&mut self, frame: usize) {
        let remote = 1 - self.me;
        let guess = frame
            .checked_sub(1)
            .map_or([0, 0], |f| self.inputs[f].0[remote]);
        let mut both = [[0, 0]; 2];
        both[self.me] = script(self.me, frame);
        both[remote] = guess;
        self.inputs.push((both, true));
        // The state before this frame, in the buffer of the oldest frame no input can
        // reach any more (no allocation once the ring is full).
        let mut state = if self.states.len() > DELAY + 1 {
            self.states.pop_front().unwrap().1
        } else {
            Vec::new()
        };
        self.world.save_state(&mut state);
        self.states.push_back((frame, state));
        self.push(frame);
        self.world.step(DT).unwrap();
    }

    /// The remote input of `frame` arrives; rolls back if the guess was wrong.
    fn receive(&mut self, frame: usize, input: Input, now: usize) {
        let remote = 1 - self.me;
        let (used, _) = self.inputs[frame];
        self.inputs[frame] = (
            {
                let mut both = used;
                both[remote] = input;
                both
            },
            false,
        );
        // Later frames guessed from this one: guess again from the truth.
        for f in frame + 1..self.inputs.len() {
            if self.inputs[f].1 {
                self.inputs[f].0[remote] = self.inputs[f - 1].0[remote];
            }
        }
        if used[remote] == input {
            return;
        }
        let (_, state) = self
            .states
            .iter()
            .find(|(f, _)| *f == frame)
            .expect("the state of every frame still open is kept");
        let state = state.clone();
        self.world.restore_state(&state).unwrap();
        self.rollbacks += 1;
        for f in frame..now {
            if f > frame {
                let slot = self.states.iter_mut().find(|(g, _)| *g == f).unwrap();
                self.world.save_state(&mut slot.1);
            }
            self.push(f);
            self.world.step(DT).unwrap();
            self.resimulated += 1;
        }
    }
}

fn main() {
    let mut peers: Vec<Peer> = (0..2)
        .map(|me| {
            let (world, players) = build();
            Peer {
                me,
                world,
                players,
                inputs: Vec::new(),
                states: VecDeque::new(),
                rollbacks: 0,
                resimulated: 0,
            }
        })
        .collect();
    for frame in 0..FRAMES + DELAY {
        if frame < FRAMES {
            for p in &mut peers {
                p.advance(frame);
            }
        }
        // Inputs sent DELAY frames ago arrive now.
        if let Some(sent) = frame.checked_sub(DELAY).filter(|&f| f < FRAMES) {
            let now = (frame + 1).min(FRAMES);
            for p in &mut peers {
                let remote = 1 - p.me;
                p.receive(sent, script(remote, sent), now);
            }
        }
    }
    let (a, b) = (&peers[0], &peers[1]);
    println!(
        "{FRAMES} frames, inputs {DELAY} frames late: peer 0 rolled back {} times ({} frames re-simulated), peer 1 {} times ({})",
        a.rollbacks, a.resimulated, b.rollbacks, b.resimulated
    );
    println!(
        "state hash peer 0 {:016x}, peer 1 {:016x}; deep hash {:016x} / {:016x}",
        a.world.state_hash(),
        b.world.state_hash(),
        a.world.deep_hash(),
        b.world.deep_hash()
    );
    // And both equal a world that knew every input in time.
    let (mut truth, players) = build();
    for frame in 0..FRAMES {
        for (p, &id) in players.iter().enumerate() {
            let i = script(p, frame);
            let f = Vec3::new(i[0] as f32, 0.0, i[1] as f32) * 4000.0;
            truth.apply_force_to_center(id, f).unwrap();
        }
        truth.step(DT).unwrap();
    }
    println!(
        "state hash with every input in time {:016x}",
        truth.state_hash()
    );
    assert!(
        a.rollbacks > 0 && b.rollbacks > 0,
        "the script must mispredict"
    );
    assert_eq!(a.world.deep_hash(), b.world.deep_hash());
    assert_eq!(a.world.state_hash(), truth.state_hash());
}
