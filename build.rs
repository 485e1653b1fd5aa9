//! Validates the embedded matrix (`matrix/*.yaml`) when rocmcheck is built and packs it, so that
//! start-up decodes a compact form instead of parsing and checking YAML (issue 13, item 7).
//!
//! The checks are rocmcheck's own: this script compiles `src/matrix/` and the modules it uses
//! as `#[path]` modules, so the schema, the raw structs and the validation exist once. A matrix
//! that does not validate fails the build with the same located diagnostics as
//! `rocmcheck --matrix matrix matrix validate`.
// Build scripts talk to cargo on stdout; the library's output rules do not apply here.
#![allow(clippy::disallowed_macros)]
// Only the loading half of the library modules is used here.
#![allow(dead_code, unused_imports)]
#![allow(clippy::collapsible_if)]

// The crate modules that src/matrix/ uses. When matrix/ starts to use another one, the build
// script fails to compile ("cannot find `x` in `crate`"): add it here and below.
#[path = "src/facts.rs"]
mod facts;
#[path = "src/finding.rs"]
mod finding;
#[path = "src/input.rs"]
mod input;
#[path = "src/matrix/mod.rs"]
mod matrix;
#[path = "src/version.rs"]
mod version;

/// `matrix::embedded` reads the pack from the crate root; in the library it is the output of
/// this script, here there is none yet.
static PACKED_MATRIX: &[u8] = &[];

fn main() {
    let root = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for dir in [
        "matrix",
        "src/matrix",
        "src/version.rs",
        "src/facts.rs",
        "src/finding.rs",
        "src/input.rs",
    ] {
        println!("cargo::rerun-if-changed={dir}");
    }
    // The data cache (issue 21) stores a packed `Matrix`; a cache written by a build whose
    // matrix types differ is re-derived from its bundle. The fingerprint of those types: FNV-1a
    // of the sources that define them and the package version.
    let mut fnv: u64 = 0xcbf2_9ce4_8422_2325;
    for f in ["src/matrix/mod.rs", "src/version.rs", "src/facts.rs", "src/finding.rs"] {
        let text = std::fs::read(root.join(f)).unwrap_or_default();
        for b in text.iter().chain(b"\0") {
            fnv = (fnv ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    for b in std::env::var("CARGO_PKG_VERSION").unwrap_or_default().bytes() {
        fnv = (fnv ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    println!("cargo::rustc-env=ROCMCHECK_MATRIX_LAYOUT={fnv:016x}");
    // Start-up (issue 26: one-file lint against hadolint): a position-independent executable
    // carries ~25,000 relative relocations, and the dynamic loader writes every page of
    // `.data.rel.ro` and `.got` at each start (~260 of the ~300 page faults of `--version`). A
    // fixed-address executable has none. Only the binaries; the library and the tests keep PIE.
    // A statically linked build (`-C target-feature=+crt-static`, the x86_64 release: see
    // scripts/build-wheel.sh) is a static PIE unless `-C relocation-model=static` asks for a
    // fixed address too; `-no-pie` on a static PIE makes a binary that crashes at start, so it
    // is passed only where the relocation model agrees.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let crt_static = std::env::var("CARGO_CFG_TARGET_FEATURE")
            .unwrap_or_default()
            .split(',')
            .any(|f| f == "crt-static");
        let fixed = std::env::var("CARGO_ENCODED_RUSTFLAGS")
            .unwrap_or_default()
            .split('\x1f')
            .any(|f| f.ends_with("relocation-model=static"));
        if !crt_static || fixed {
            println!("cargo::rustc-link-arg-bins=-no-pie");
        }
    }
    let mut files = std::collections::BTreeMap::new();
    for name in matrix::validate::FILES {
        let path = root.join("matrix").join(name);
        match std::fs::read_to_string(&path) {
            Ok(t) => {
                files.insert((*name).to_string(), t);
            }
            Err(e) => {
                println!("cargo::error=cannot read {}: {e}", path.display());
                std::process::exit(1);
            }
        }
    }
    match matrix::validate::pack("matrix", &files) {
        Ok(blob) => {
            // The embedded `data:` date, so start-up can compare it with a cached bundle's
            // without decoding the embedded matrix (issue 21).
            if let Ok(m) = matrix::validate::load_packed("matrix", &blob) {
                println!("cargo::rustc-env=ROCMCHECK_EMBEDDED_DATA={}", m.data);
            }
            let dest = out.join("matrix.packed");
            if let Err(e) = std::fs::write(&dest, blob) {
                println!("cargo::error=cannot write {}: {e}", dest.display());
                std::process::exit(1);
            }
        }
        Err(diags) => {
            println!(
                "cargo::error=the embedded matrix does not validate ({} problem(s)):",
                diags.len()
            );
            for d in &diags {
                println!("cargo::error={d}");
            }
            std::process::exit(1);
        }
    }
}
