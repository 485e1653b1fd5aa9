//! A reader that stops early (`rocmcheck lint --format sarif … | head -c 10`): the command ends
//! quietly, and its exit status is the one a full read gets (the findings decide it, not the
//! reader). A broken pipe once printed "rocmcheck failed: Broken pipe (os error 32)" and exited 2
//! for a report bigger than the output buffer.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

fn rocmcheck(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rocmcheck"));
    c.args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .env("NO_COLOR", "1")
        .env("ROCMCHECK_OFFLINE", "1");
    c
}

/// (exit code, stdout length, stderr) of a full read.
fn full(args: &[&str]) -> (i32, usize, String) {
    let o = rocmcheck(args).output().unwrap();
    (
        o.status.code().unwrap(),
        o.stdout.len(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// (exit code, stderr) when the reader takes 10 bytes and closes the pipe.
fn cut(args: &[&str]) -> (i32, String) {
    let mut child = rocmcheck(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // the read end is dropped here: every later write of the child meets a closed pipe
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (child.wait().unwrap().code().unwrap(), err)
}

#[test]
fn a_reader_that_stops_early_leaves_the_exit_status_to_the_findings() {
    for args in [
        &["lint", "--format", "sarif", "tests/corpus"][..],
        &["lint", "--format", "json", "tests/corpus"][..],
        &["lint", "--format", "human", "tests/corpus"][..],
    ] {
        let (code, len, err) = full(args);
        // bigger than a pipe's buffer (64 KiB) plus ours (64 KiB) for sarif, so the write that
        // fails comes in the middle of the report, not in the last flush
        assert!(
            len > 64 * 1024,
            "{args:?}: only {len} bytes; the test needs a report bigger than a pipe buffer"
        );
        assert_eq!(code, 1, "{args:?}: the corpus has findings; stderr: {err}");
        let (cut_code, cut_err) = cut(args);
        assert_eq!(
            cut_code, code,
            "{args:?}: exit status after the reader stopped; stderr: {cut_err}"
        );
        assert!(
            !cut_err.contains("Broken pipe") && !cut_err.contains("rocmcheck failed"),
            "{args:?}: a closed pipe is not a failure to report: {cut_err}"
        );
    }
}
