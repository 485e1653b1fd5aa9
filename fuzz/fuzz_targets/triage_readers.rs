//! Fuzzes the whole `rocmcheck triage` path for one paste: line cleaning, every reader in
//! `triage::readers`, the facts builder, the env rules and the Markdown reply. Any panic is a
//! bug: a paste only ever yields facts, notes or nothing. The readers use the `regex` and
//! `regex-lite` crates (both linear time), two hand-written scanners (environment settings,
//! `rocm-smi --json` fields) and single passes over the lines, so input size bounds the work.
//!
//! Seeds: the triage corpus (real pastes of every format, issue 25's free-form prints, HIP
//! logs, llama.cpp/Ollama/ComfyUI/LM Studio/vLLM lines, kernel faults and prose included) and
//! the readers' worst-input units (`tests/triage/worst`).
//!
//! Run: `cargo +nightly fuzz run triage_readers fuzz/corpus/triage_readers tests/triage/corpus tests/triage/worst -- -dict=fuzz/triage_readers.dict -detect_leaks=0`
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocmcheck::matrix::Matrix;
use rocmcheck::triage::{self, Input};

fuzz_target!(|data: &[u8]| {
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
});
