use super::*;

#[test]
fn inverse_of_a_spd_block() {
    let mut m = Block::zero(6, 6);
    for r in 0..6 {
        for c in 0..6 {
            let x = 1.0 / (1.0 + r as f64 + c as f64);
            m.set(r, c, x + if r == c { 2.0 } else { 0.0 });
        }
    }
    let inv = m.inverse().unwrap();
    for r in 0..6 {
        for c in 0..6 {
            let s: f64 = (0..6).map(|k| m.at(r, k) * inv.at(k, c)).sum();
            assert!((s - if r == c { 1.0 } else { 0.0 }).abs() < 1e-12);
        }
    }
    assert!(Block::zero(3, 3).inverse().is_none());
}
