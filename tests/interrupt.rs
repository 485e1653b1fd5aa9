//! Ctrl-C during `build` and `smoke` against the REAL Docker engine, given on a real terminal
//! (a pty: the terminal's ^C, not a signal sent by pid): the results that finished are printed
//! on stdout, marked interrupted; what the run started is removed; the exit code is 130. And the
//! plain (non-terminal) progress: each step's start, and a line per interval of a long step.
//!
//! Base images: `rocmcheck-test/debian-python:bookworm` made (cached by tag) by
//! `tests/support/make-base-image.sh`, and an empty imported image without python3.
//! Docker unreachable → these tests FAIL, unless `ROCMCHECK_SKIP_DOCKER=1` is set (then they
//! print a loud notice and check nothing).

#[path = "support/pty.rs"]
mod pty;
mod support;

use serde_json::Value;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};
use support::Scope;

const PY: &str = "rocmcheck-test/debian-python:bookworm";
const NOPY: &str = "rocmcheck-test/no-python:empty";

static SERIAL: Mutex<()> = Mutex::new(());
static READY: OnceLock<bool> = OnceLock::new();

fn docker_ready() -> bool {
    *READY.get_or_init(|| {
        if !support::docker_gate("the Ctrl-C tests against Docker") {
            return false;
        }
        support::base_image(PY, "bookworm", &[]);
        support::empty_image(NOPY);
        true
    })
}

/// The scope of the test `name`: its label and tag prefix carry this process's id.
fn scope(name: &str) -> Scope {
    let label = format!("int-{name}-{}", std::process::id());
    Scope::new(label.clone(), format!("rocmcheck-test/{label}"))
}

/// Containers whose command holds `marker` (a build's `RUN`, which carries no label).
fn containers_running(marker: &str) -> Vec<String> {
    support::docker_lines(&["ps", "-a", "--no-trunc", "--format", "{{.ID}} {{.Command}}"])
        .into_iter()
        .filter(|l| l.contains(marker))
        .collect()
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{stdout}"))
}

/// Waits (up to 60 s) until `f` is true.
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(60), "{what}: not within 60 s");
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn ctrl_c_during_build_keeps_the_finished_builds_and_the_cut_build_is_gone() {
    let _g = support::serial(&SERIAL);
    if !docker_ready() {
        return;
    }
    let s = scope("build");
    let marker = format!("sleep 1{}", std::process::id() % 1000 + 200);
    std::fs::write(
        s.dir.path().join("quick.Dockerfile"),
        format!("FROM {PY}\nLABEL quick=1\n"),
    )
    .unwrap();
    std::fs::write(
        s.dir.path().join("slow.Dockerfile"),
        format!("FROM {PY}\nRUN {marker}\n"),
    )
    .unwrap();
    std::fs::write(
        s.dir.path().join("c.yaml"),
        "candidates:\n  - {id: quick, dockerfile: quick.Dockerfile}\n  - {id: slow, dockerfile: slow.Dockerfile}\n",
    )
    .unwrap();
    let mut cmd = s.cmd(&[
        "build",
        "--candidates-file",
        "c.yaml",
        "--jobs",
        "1",
        "--no-cache",
        "--tag-prefix",
        &s.prefix,
        "--format",
        "json",
    ]);
    // ^C once the slow build's RUN is running (quick, built first with --jobs 1, has finished)
    let r = pty::run_and_interrupt(
        &mut cmd,
        |_| !containers_running(&marker).is_empty(),
        Duration::from_secs(120),
    );
    assert!(r.sent, "the slow build never started; terminal:\n{}", r.terminal);
    assert_eq!(
        r.code,
        Some(130),
        "exit code; terminal:\n{}\nstdout:\n{}",
        r.terminal,
        r.stdout
    );
    let v = json(&r.stdout);
    assert_eq!(v["interrupted"], true, "{v:#}");
    let builds = v["builds"].as_array().unwrap();
    assert_eq!(builds.len(), 1, "{v:#}");
    assert_eq!(builds[0]["id"], "quick");
    assert_eq!(builds[0]["ok"], true);
    assert_eq!(v["not_finished"], serde_json::json!(["slow"]));
    assert!(
        r.terminal.contains("interrupted: kept 1 finished build(s)"),
        "{}",
        r.terminal
    );
    // the cut build's container goes with its connection (the daemon cancels it; forcerm)
    eventually("the cut build's container is removed", || {
        containers_running(&marker).is_empty()
    });
    let slow_tag = format!("{}:slow", s.prefix);
    assert!(
        !support::docker(&["image", "inspect", &slow_tag]).status.success(),
        "the cut build left an image tagged {slow_tag}"
    );
    assert!(
        support::docker(&["image", "inspect", &format!("{}:quick", s.prefix)])
            .status
            .success()
    );
    s.finish();
}

#[test]
fn ctrl_c_during_smoke_prints_the_finished_results_and_removes_the_running_container() {
    let _g = support::serial(&SERIAL);
    if !docker_ready() {
        return;
    }
    let s = scope("smoke");
    let mut cmd = s.cmd(&[
        "smoke",
        NOPY,
        PY,
        "--timeout",
        "300",
        "--payload-arg=--hang-for=240",
        "--format",
        "json",
    ]);
    let running = || {
        !support::docker_lines(&[
            "ps",
            "-q",
            "--filter",
            &format!("label=org.rocmcheck.test-id={}", s.label),
            "--filter",
            "label=org.rocmcheck.role=smoke",
            "--filter",
            "status=running",
        ])
        .is_empty()
    };
    // ^C once the second image's container runs (the first has its result by then)
    let r = pty::run_and_interrupt(
        &mut cmd,
        |term| term.contains(&format!("smoke [2/2] {PY}: started")) && running(),
        Duration::from_secs(180),
    );
    assert!(r.sent, "the second smoke never started; terminal:\n{}", r.terminal);
    assert_eq!(
        r.code,
        Some(130),
        "exit code; terminal:\n{}\nstdout:\n{}",
        r.terminal,
        r.stdout
    );
    let v = json(&r.stdout);
    assert_eq!(v["interrupted"], true, "{v:#}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{v:#}");
    assert_eq!(results[0]["subject"], NOPY);
    assert!(results[0]["classification"].is_string());
    assert_eq!(v["not_finished"], serde_json::json!([PY]));
    assert!(
        r.terminal.contains(&format!("smoke [1/2] {NOPY}: started")),
        "{}",
        r.terminal
    );
    assert!(
        r.terminal.contains("interrupted; removed 1 container(s) of this run"),
        "{}",
        r.terminal
    );
    s.finish();
}

#[test]
fn plain_progress_says_each_start_and_that_a_long_step_still_runs() {
    let _g = support::serial(&SERIAL);
    if !docker_ready() {
        return;
    }
    let s = scope("progress");
    // smoke: a payload that sleeps 4 s, lines every second
    let o = s
        .cmd(&["smoke", PY, "--timeout", "120", "--payload-arg=--hang-for=4"])
        .env("ROCMCHECK_PROGRESS_INTERVAL", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("smoke [1/1] {PY}: started")), "{err}");
    let still = err.matches(&format!("smoke {PY}: still running (")).count();
    assert!(still >= 2, "{still} still-running line(s):\n{err}");
    // the report is on stdout, untouched by progress
    assert!(!String::from_utf8_lossy(&o.stdout).contains("still running"));
    // build: a RUN of 4 s
    std::fs::write(
        s.dir.path().join("slow.Dockerfile"),
        format!("FROM {PY}\nRUN sleep 4\n"),
    )
    .unwrap();
    std::fs::write(
        s.dir.path().join("c.yaml"),
        "candidates:\n  - {id: slow, dockerfile: slow.Dockerfile}\n",
    )
    .unwrap();
    let o = s
        .cmd(&[
            "build",
            "--candidates-file",
            "c.yaml",
            "--no-cache",
            "--tag-prefix",
            &s.prefix,
        ])
        .env("ROCMCHECK_PROGRESS_INTERVAL", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("building slow: started"), "{err}");
    assert!(err.matches("building slow: still running (").count() >= 2, "{err}");
    assert!(err.contains("building [1/1] slow built"), "{err}");
    s.finish();
}
