//! Fuzzes the whole `rocmcheck triage` path for one paste: line cleaning, every reader in
//! `triage::readers`, the facts builder, the env rules and the Markdown reply. Any panic is a
//! bug: a paste only ever yields facts, notes or nothing. The readers use the `regex` and
//! `regex-lite` crates (both linear time), two hand-written scanners (environment settings,
//! `rocm-smi --json` fields) and single passes over the lines, so input size bounds the work.
//!
//! Seeds: the triage corpus (real pastes of every format, free-form prints, HIP
//! logs, llama.cpp/Ollama/ComfyUI/LM Studio/vLLM lines, kernel faults and prose included) and
//! the readers' worst-input units (`tests/triage/worst`).
//!
//! Shared by the cargo-fuzz target (`fuzz/fuzz_targets/triage_readers.rs`) and the stable harness
//! (`tests/fuzz.rs`, run by `.ci/run` for a fixed time).
//!
//! Run: `cargo +nightly fuzz run triage_readers fuzz/corpus/triage_readers fuzz/seeds/triage_readers tests/triage/corpus tests/triage/worst -- -dict=fuzz/triage_readers.dict -detect_leaks=0`

use rocmcheck::matrix::Matrix;
use rocmcheck::triage::{self, Input};

/// One run of the target on `data`; panics on a bug.
pub fn run(data: &[u8]) {
    let m = Matrix::embedded();
    let t = triage::triage(
        &[Input {
            name: "fuzz".into(),
            text: String::from_utf8_lossy(data).into_owned(),
        }],
        m,
    );
    let report = rocmcheck::commands::triage::evaluate(&t, &[], m, &rocmcheck::policy::Policy::default());
    let mut sink = Vec::new();
    let _ = rocmcheck::report::renderer(rocmcheck::report::Format::Markdown, false).render(&report, &mut sink);
}
