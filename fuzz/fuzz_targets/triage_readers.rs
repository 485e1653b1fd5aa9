//! The cargo-fuzz target (nightly); the body and how to run it are in `fuzz/bodies/triage_readers.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/triage_readers.rs"]
mod body;

fuzz_target!(|data: &[u8]| body::run(data));
