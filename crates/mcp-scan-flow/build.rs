//! Embeds every language's API models: each folder `rules/models/<lang>/` becomes one entry of
//! `MODEL_DIRS` (its `*.toml` files in name order, `sensitive.toml` apart), so adding a
//! language's models is adding a folder, with no edit of this crate.
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let root = Path::new(&manifest).join("../../rules/models");
    println!("cargo::rerun-if-changed={}", root.display());
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.retain(|p| p.is_dir());
    dirs.sort();
    let mut out = String::from(
        "/// Every `rules/models/<lang>/` folder, embedded.\npub const MODEL_DIRS: &[ModelDir] = &[\n",
    );
    for dir in dirs {
        println!("cargo::rerun-if-changed={}", dir.display());
        let lang = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
        files.sort();
        let entry = |p: &Path| {
            println!("cargo::rerun-if-changed={}", p.display());
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let abs = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            format!(
                "(\"rules/models/{lang}/{name}\", include_str!({:?}))",
                abs.display().to_string()
            )
        };
        let sensitive = files
            .iter()
            .find(|p| p.file_name().is_some_and(|n| n == "sensitive.toml"))
            .map(|p| entry(p));
        let _ = writeln!(
            out,
            "    ModelDir {{\n        language: {lang:?},\n        files: &["
        );
        for f in files
            .iter()
            .filter(|p| p.file_name().is_none_or(|n| n != "sensitive.toml"))
        {
            let _ = writeln!(out, "            {},", entry(f));
        }
        let _ = writeln!(
            out,
            "        ],\n        sensitive: {},\n    }},",
            sensitive.map_or("None".to_string(), |s| format!("Some({s})"))
        );
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("model_dirs.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        panic!("cannot write {}: {e}", dest.display());
    }
}
