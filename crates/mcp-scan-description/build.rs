//! Tests that read the benchmark data beside the repository (`../shared/data`, always present in
//! CI) are ignored, not passed, on a bare clone: `cfg(shared_data)` says the data is there.
//! After adding the data to a clone that was built without it, `touch` this file.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_data)");
    println!("cargo::rerun-if-changed=build.rs");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let dir = std::path::Path::new(&manifest).join("../../../shared/data");
    if dir.is_dir() {
        println!("cargo::rustc-cfg=shared_data");
        println!("cargo::rerun-if-changed={}", dir.display());
    }
}
