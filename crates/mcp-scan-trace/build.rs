//! Compiles the BPF program (src/bpf/trace.bpf.c) with clang and generates its libbpf-rs skeleton.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    #[cfg(feature = "ebpf")]
    ebpf();
}

#[cfg(feature = "ebpf")]
fn ebpf() {
    use std::path::PathBuf;
    let src = "src/bpf/trace.bpf.c";
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let clang = std::env::var_os("CLANG").unwrap_or_else(|| "clang".into());
    if let Err(e) = libbpf_cargo::SkeletonBuilder::new()
        .source(src)
        .clang(&clang)
        .clang_args(["-Wall", "-Wno-unused-function", "-Isrc/bpf"])
        .build_and_generate(out.join("trace.skel.rs"))
    {
        // The usual cause on a fresh machine: no clang (scripts/test-deps installs it).
        panic!("building {src} with {clang:?} failed: {e:#}\n(install clang: scripts/test-deps)");
    }
    println!("cargo::rerun-if-changed={src}");
    println!("cargo::rerun-if-changed=src/bpf/kernel.h");
}
