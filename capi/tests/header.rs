//! The committed header `include/impetus.h` is what cbindgen generates from the sources
//! now. `IMPETUS_BLESS_HEADER=1` rewrites it instead of failing.

use std::path::Path;

#[test]
fn header_is_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen parses the crate");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("utf-8 header");
    let path = dir.join("include/impetus.h");
    if std::env::var_os("IMPETUS_BLESS_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("writing include/impetus.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "capi/include/impetus.h is stale: regenerate it with \
         `IMPETUS_BLESS_HEADER=1 cargo test -p impetus-capi --test header` and commit it"
    );
}
