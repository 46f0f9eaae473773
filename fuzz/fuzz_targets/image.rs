//! `World::from_image` on arbitrary bytes: `Ok` or `Err`, never a panic. A world it loads
//! steps, and saves an image that loads to the same state.
#![no_main]

use impetus::World;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut w) = World::from_image_with_workers(data, 1) {
        let mut image = Vec::new();
        w.save_image(&mut image);
        let copy = World::from_image_with_workers(&image, 1).expect("a saved image loads");
        assert_eq!(copy.deep_hash(), w.deep_hash());
        let _ = w.step(1.0 / 60.0);
    }
});
