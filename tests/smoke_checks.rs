//! The team's own smoke checks (`.rocmcheck.yaml` `smoke.checks`), run for real through
//! `rocmcheck smoke --local` (this host's python3, no Docker): a passing command, a failing one,
//! a Python file with an expected non-zero exit, a timeout; and configuration errors with the
//! file and line.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
}

fn python3() -> bool {
    Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .is_ok_and(|s| s.success())
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocmcheck-checks-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn smoke_local(dir: &Path) -> (i32, serde_json::Value, String) {
    let o = bin()
        .current_dir(dir)
        .args(["smoke", "--local", "--format", "json", "--timeout", "120"])
        .args([
            "--payload-arg=--no-torch",
            "--payload-arg=--no-memory",
            "--payload-arg=--runtime=hip",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    (o.status.code().unwrap_or(-1), doc, stderr)
}

#[test]
fn team_checks_run_after_the_built_in_steps_with_their_verdicts() {
    if !python3() {
        panic!("python3 is needed to run the payload");
    }
    let d = scratch("run");
    std::fs::create_dir_all(d.join("checks")).unwrap();
    std::fs::write(
        d.join("checks/exit4.py"),
        "import sys\nprint('python', sys.version_info[0])\nsys.exit(4)\n",
    )
    .unwrap();
    std::fs::write(
        d.join(".rocmcheck.yaml"),
        r#"smoke:
  checks:
    - name: says-hello
      command: echo hello from the team
    - name: wrong-exit
      command: "echo about to fail; exit 3"
    - name: python-file
      python: checks/exit4.py
      expect_exit: 4
    - name: too-slow
      command: sleep 30
      timeout_s: 0.5
"#,
    )
    .unwrap();
    let (code, doc, stderr) = smoke_local(&d);
    let r = &doc["results"][0];
    let steps = &r["steps"];
    let step = |n: &str| &steps[format!("check:{n}")];
    assert_eq!(step("says-hello")["status"], "ok", "{r:#}\n{stderr}");
    assert_eq!(step("python-file")["status"], "ok", "{r:#}");
    assert_eq!(step("wrong-exit")["status"], "failed", "{r:#}");
    assert_eq!(step("too-slow")["status"], "timeout", "{r:#}");
    for n in ["says-hello", "wrong-exit", "python-file", "too-slow"] {
        assert!(step(n)["ms"].as_f64().is_some(), "{n}: {r:#}");
    }
    let payload = &r["payload"]["steps"];
    assert_eq!(payload["check:says-hello"]["output_tail"], "hello from the team\n");
    assert_eq!(payload["check:wrong-exit"]["exit"], 3);
    assert_eq!(payload["check:wrong-exit"]["output_tail"], "about to fail\n");
    assert_eq!(step("wrong-exit")["error"], "exit 3, expected exit 0");
    assert_eq!(payload["check:python-file"]["output_tail"], "python 3\n");
    assert!(step("too-slow")["ms"].as_f64().unwrap() < 10_000.0, "{r:#}");
    // This host has no GPU runtime: that verdict comes first, the checks' results stay in the
    // report, and the run is a finding.
    assert_ne!(r["classification"], "pass");
    assert_eq!(code, 1);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_team_checks_are_errors_with_file_and_line() {
    let cases = [
        (
            "smoke:\n  checks:\n    - name: a\n      comand: true\n",
            ".rocmcheck.yaml:4:",
            "unknown field `comand`",
        ),
        (
            "smoke:\n  checks:\n    - name: ok\n      command: \"true\"\n    - name: nothing\n      timeout_s: 5\n",
            ".rocmcheck.yaml:5:",
            "smoke.checks `nothing`: expected `command` (a shell command) or `python` (a file)",
        ),
        (
            "smoke:\n  checks:\n    - name: both\n      command: \"true\"\n      python: x.py\n",
            ".rocmcheck.yaml:3:",
            "give either `command` or `python`, not both",
        ),
        (
            "smoke:\n  checks:\n    - name: missing\n      python: nowhere/check.py\n",
            ".rocmcheck.yaml:3:",
            "python file",
        ),
        ("smoke:\n  chekcs: []\n", ".rocmcheck.yaml:2:", "unknown field `chekcs`"),
        (
            "smoke:\n  checks:\n    - name: twice\n      command: \"true\"\n    - name: twice\n      command: \"false\"\n",
            ".rocmcheck.yaml:5:",
            "smoke.checks: `twice` is named twice",
        ),
        (
            "smoke:\n  checks:\n    - name: never\n      command: \"true\"\n      timeout_s: 0\n",
            ".rocmcheck.yaml:3:",
            "timeout_s 0: expected a positive number of seconds",
        ),
    ];
    for (i, (yaml, at, msg)) in cases.into_iter().enumerate() {
        let d = scratch(&format!("bad{i}"));
        std::fs::write(d.join(".rocmcheck.yaml"), yaml).unwrap();
        let o = bin()
            .current_dir(&d)
            .args(["smoke", "--local", "--python", "/nonexistent/python3"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{yaml}: {stderr}");
        assert!(stderr.contains(at) && stderr.contains(msg), "{yaml}: {stderr}");
        assert!(o.stdout.is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
