use super::*;
use crate::collision::test_util::Rng;
use glam::Vec3;
use std::collections::BTreeSet;

/// A point in the unit cube.
fn unit3(rng: &mut Rng) -> Vec3 {
    Vec3::new(rng.unit(), rng.unit(), rng.unit())
}

/// One test proxy: box, static flag, body, alive.
#[derive(Clone, Copy)]
struct P {
    bb: Aabb,
    is_static: bool,
    body: u32,
    alive: bool,
}

fn brute(ps: &[P]) -> BTreeSet<u64> {
    let mut v = BTreeSet::new();
    for i in 0..ps.len() {
        for j in i + 1..ps.len() {
            let (a, b) = (&ps[i], &ps[j]);
            if a.alive
                && b.alive
                && a.body != b.body
                && !(a.is_static && b.is_static)
                && a.bb.overlaps(&b.bb)
            {
                v.insert(pair_key(i as u32, j as u32));
            }
        }
    }
    v
}

fn live_pairs(bp: &BroadPhase) -> BTreeSet<u64> {
    bp.pairs.list.iter().map(|e| e.key).collect()
}

/// A random box: mostly small ones in a 60 m region, some spanning many cells, a few
/// huge (the large list) and a few far outside any sensible region.
fn random_box(rng: &mut Rng) -> Aabb {
    let kind = rng.unit();
    let (c, e) = if kind < 0.80 {
        (unit3(rng) * 60.0 - 30.0, unit3(rng) * 1.5 + 0.05)
    } else if kind < 0.92 {
        (unit3(rng) * 60.0 - 30.0, unit3(rng) * 12.0 + 2.0)
    } else if kind < 0.96 {
        (
            unit3(rng) * 60.0 - 30.0,
            Vec3::new(500.0, 1.0, 500.0) * (rng.unit() + 0.5),
        )
    } else {
        (
            (unit3(rng) - 0.5) * 2.0e7,
            Vec3::splat(1.0e6) * rng.unit() + Vec3::splat(0.5),
        )
    };
    Aabb {
        min: c - e,
        max: c + e,
    }
}

/// Runs random rounds of moves, removals and re-creations and checks the pair set and
/// the begun/ended lists against brute force after every update.
fn check_against_brute_force(
    seed: u64,
    pool: Option<&rayon::ThreadPool>,
    cell: f32,
    move_fraction: f32,
) {
    let mut rng = Rng::new(seed);
    // Queries draw from their own stream, so the scene's sequence stays as it was.
    let mut query_rng = Rng::new(seed ^ 0x5eed);
    let n = 400;
    let mut ps = Vec::new();
    let mut bp = BroadPhase::new(cell);
    for i in 0..n {
        let p = P {
            bb: random_box(&mut rng),
            is_static: rng.unit() < 0.2,
            body: if rng.unit() < 0.1 {
                i as u32 / 2
            } else {
                1000 + i as u32
            },
            alive: true,
        };
        bp.create_proxy(i as u32, p.bb, p.is_static, p.body);
        ps.push(p);
    }
    bp.update(pool);
    assert!(bp.grid.cells.len() > 10 && !bp.large.is_empty());
    let mut model = BTreeSet::new();
    for round in 0..60 {
        let expected = brute(&ps);
        assert!(expected.len() > 100, "the scene has pairs to find");
        assert_eq!(live_pairs(&bp), expected, "seed {seed:x} round {round}");
        // The begun/ended lists are sorted and turn the previous set into this one.
        assert!(bp.begun().windows(2).all(|w| w[0] < w[1]));
        assert!(bp.ended().windows(2).all(|w| w[0].0 < w[1].0));
        for &(k, _) in bp.ended() {
            assert!(model.remove(&k), "ended pair {k:x} was not live");
        }
        for &k in bp.begun() {
            assert!(model.insert(k), "begun pair {k:x} was live");
        }
        assert_eq!(model, expected, "round {round}: begun/ended disagree");
        check_queries(&bp, &ps, &mut query_rng);
        for (i, p) in ps.iter_mut().enumerate() {
            if !p.alive || rng.unit() >= move_fraction {
                continue;
            }
            let step = if rng.unit() < 0.1 { 20.0 } else { 2.0 };
            let d = (unit3(&mut rng) - 0.5) * step;
            p.bb = Aabb {
                min: p.bb.min + d,
                max: p.bb.max + d,
            };
            if rng.unit() < 0.03 {
                p.bb = random_box(&mut rng);
            }
            bp.move_proxy(i as u32, p.bb, 0);
        }
        for _ in 0..3 {
            let victim = (rng.unit() * n as f32) as usize % n;
            if ps[victim].alive {
                ps[victim].alive = false;
                bp.destroy_proxy(victim as u32);
                // Removed pairs leave the model at once.
                model.retain(|&k| {
                    let (a, b) = pair_ids(k);
                    a != victim as u32 && b != victim as u32
                });
            } else {
                ps[victim].alive = true;
                ps[victim].bb = random_box(&mut rng);
                let p = ps[victim];
                bp.create_proxy(victim as u32, p.bb, p.is_static, p.body);
            }
        }
        // Between updates: moved, destroyed and re-created proxies are queued.
        check_queries(&bp, &ps, &mut query_rng);
        bp.update(pool);
    }
}

/// `query_aabb` against brute force over random query boxes: every overlapping live
/// proxy once, nothing else.
fn check_queries(bp: &BroadPhase, ps: &[P], rng: &mut Rng) {
    for k in 0..20 {
        let q = if k % 5 == 4 {
            random_box(rng)
        } else {
            let c = unit3(rng) * 60.0 - 30.0;
            let e = unit3(rng) * 8.0;
            Aabb {
                min: c - e,
                max: c + e,
            }
        };
        for include_dynamic in [false, true] {
            let mut got = Vec::new();
            bp.query_aabb(&q, include_dynamic, |id| got.push(id));
            let n = got.len();
            got.sort_unstable();
            got.dedup();
            assert_eq!(got.len(), n, "a proxy was reported twice");
            let expected: Vec<u32> = (0..ps.len() as u32)
                .filter(|&i| {
                    let p = &ps[i as usize];
                    p.alive && (include_dynamic || p.is_static) && p.bb.overlaps(&q)
                })
                .collect();
            assert_eq!(got, expected, "query {q:?} dynamic {include_dynamic}");
        }
    }
}

#[test]
fn grid_matches_brute_force() {
    check_against_brute_force(0x1234_5678_9abc_def1, None, 0.0, 0.6);
    check_against_brute_force(0x0bad_cafe_f00d_0001, None, 3.0, 0.6);
    // Few moves per round: cells scan around their moved members only.
    check_against_brute_force(0x3141_5926_5358_9793, None, 8.0, 0.03);
    check_against_brute_force(0x2718_2818_2845_9045, None, 0.0, 0.1);
    // Tiny cells: most proxies span many cells or go to the large list.
    check_against_brute_force(0x2222_3333_4444_5555, None, 0.4, 0.6);
}

#[test]
fn grid_matches_brute_force_in_parallel() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    check_against_brute_force(0x1234_5678_9abc_def1, Some(&pool), 0.0, 0.6);
    check_against_brute_force(0x7777_1111_2222_9999, Some(&pool), 2.0, 0.6);
    check_against_brute_force(0x7777_1111_2222_9999, Some(&pool), 8.0, 0.05);
}

#[test]
fn static_pairs_and_same_body_are_skipped() {
    let mut bp = BroadPhase::default();
    let bb = Aabb {
        min: Vec3::ZERO,
        max: Vec3::ONE,
    };
    bp.create_proxy(0, bb, true, 0);
    bp.create_proxy(1, bb, true, 1);
    bp.create_proxy(2, bb, false, 2);
    bp.create_proxy(3, bb, false, 2);
    bp.update(None);
    assert_eq!(
        bp.begun(),
        &[
            pair_key(0, 2),
            pair_key(0, 3),
            pair_key(1, 2),
            pair_key(1, 3)
        ]
    );
}

#[test]
fn auto_cell_size_follows_the_proxies() {
    let mut bp = BroadPhase::default();
    for i in 0..10 {
        let c = Vec3::new(i as f32 * 3.0, 0.0, 0.0);
        bp.create_proxy(
            i,
            Aabb {
                min: c - 0.5,
                max: c + 0.5,
            },
            false,
            i,
        );
    }
    bp.update(None);
    assert_eq!(bp.cell_size(), AUTO_CELL_FACTOR);
    assert_eq!(bp.pair_count(), 0);
}

#[test]
fn dead_proxies_do_not_choose_the_cell_size() {
    let mut bp = BroadPhase::default();
    let tiny = Aabb {
        min: Vec3::ZERO,
        max: Vec3::splat(0.01),
    };
    bp.create_proxy(0, tiny, false, 0);
    bp.destroy_proxy(0);
    bp.update(None);
    assert_eq!(bp.cell_size(), 0.0, "nothing alive to size the grid by");
    let unit = Aabb {
        min: Vec3::ZERO,
        max: Vec3::ONE,
    };
    bp.create_proxy(0, unit, false, 0);
    bp.create_proxy(1, unit, false, 1);
    bp.update(None);
    assert_eq!(bp.cell_size(), AUTO_CELL_FACTOR);
    assert_eq!(bp.begun(), &[pair_key(0, 1)]);
}
