//! `rocmcheck report` on recorded results: the real device-machine results in
//! `tests/fixtures/smoke/` and two hand-written nights in `tests/fixtures/results/` (see its
//! README). Every format is snapshotted; the regression between the nights fails the gate.

use rocmcheck::report::results::{self, Run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(p)
}

/// The real results from the GPU machine (an H100; see tests/fixtures/smoke/h100-run-log.txt).
const DEVICE: &[&str] = &[
    "smoke/h100-local.json",
    "smoke/h100-hang-memory.json",
    "smoke/h100-bad-alloc-conf.json",
    "smoke/debian-hip-trixie-nodevice.json",
];

fn device_run() -> Run {
    let parts = DEVICE
        .iter()
        .map(|p| {
            let r = results::load_file(&fixture(p)).unwrap_or_else(|e| panic!("{e}"));
            (p.to_string(), r)
        })
        .collect();
    results::merge(parts).unwrap()
}

fn night(n: u8) -> Run {
    let p = fixture(&format!("results/night-{n}.json"));
    results::merge(vec![(format!("night-{n}.json"), results::load_file(&p).unwrap())]).unwrap()
}

fn render(f: fn(&Run, &mut dyn std::io::Write) -> std::io::Result<()>, run: &Run) -> String {
    let mut buf = Vec::new();
    f(run, &mut buf).unwrap();
    String::from_utf8(buf).unwrap()
}

#[test]
fn device_results_are_read_with_their_classifications() {
    let run = device_run();
    let got: Vec<(&str, &str)> = run
        .candidates
        .iter()
        .map(|c| (c.id.as_str(), c.classification.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("debian-hip-trixie-nodevice", "no-device"),
            ("h100-bad-alloc-conf", "crash"),
            ("h100-hang-memory", "hang"),
            ("h100-local", "pass"),
        ]
    );
    let hang = &run.candidates[2];
    let step = hang.failing_step().expect("the hang has a failing step");
    assert_eq!((step.name.as_str(), step.status.as_str()), ("memory", "timeout"));
    // Steps keep the payload's order, not the JSON object's alphabetical one.
    let names: Vec<&str> = run.candidates[3].steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["runtime", "blas", "memory", "torch"]);
}

#[test]
fn device_results_markdown() {
    insta::assert_snapshot!(render(results::render_markdown, &device_run()));
}

#[test]
fn device_results_junit() {
    let xml = render(rocmcheck::report::junit::render_junit, &device_run());
    // One classification case per candidate plus one per step: 4 + (4 + 4 + 3 + 4) = 19.
    assert!(
        xml.contains("<testsuites name=\"rocmcheck smoke\" tests=\"19\""),
        "{xml}"
    );
    insta::assert_snapshot!(xml);
}

#[test]
fn device_results_json_round_trips() {
    let run = device_run();
    let json = render(results::render_json, &run);
    let back = results::parse(&json, "merged.json", "merged").unwrap();
    assert_eq!(back, run.candidates);
    insta::assert_snapshot!(json);
}

#[test]
fn nights_render_in_every_format() {
    let run = night(2);
    insta::assert_snapshot!("night2_markdown", render(results::render_markdown, &run));
    insta::assert_snapshot!("night2_junit", render(rocmcheck::report::junit::render_junit, &run));
}

#[test]
fn regression_between_nights_is_detected() {
    let d = results::diff(&night(1), &night(2));
    let ids = |v: &[results::Change]| v.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    // Results are keyed by candidate × gfx: torch 2.8.0 regresses on gfx1100 only.
    assert_eq!(ids(&d.regressions), ["torch2.8.0-rocm6.4-dev-ubuntu-24.04@gfx1100"]);
    assert_eq!(d.regressions[0].after, "torch-failed");
    assert!(
        d.regressions[0]
            .detail
            .as_deref()
            .unwrap()
            .contains("invalid device function")
    );
    assert_eq!(ids(&d.fixed), ["torch2.7.1-rocm6.3-dev-ubuntu-22.04@gfx1030"]);
    assert_eq!(
        d.new,
        [(
            "torch2.9.0-rocm6.4-dev-ubuntu-24.04@gfx942".to_string(),
            "pass".to_string()
        )]
    );
    assert_eq!(
        d.vanished,
        [(
            "torch2.6.0-rocm6.2-dev-ubuntu-22.04@gfx90a".to_string(),
            "pass".to_string()
        )]
    );
    assert_eq!(d.unchanged, 1);
    let mut buf = Vec::new();
    results::render_diff(&d, true, &mut buf).unwrap();
    insta::assert_snapshot!(String::from_utf8(buf).unwrap());
    // The same night against itself: nothing to report.
    let same = results::diff(&night(2), &night(2));
    assert!(same.regressions.is_empty() && same.new.is_empty() && same.vanished.is_empty());
    assert_eq!(same.unchanged, 4);
}

fn rocmcheck(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(args)
        .current_dir(fixture(""))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn fail_on_regression_exits_1_and_plain_diff_exits_0() {
    let (rc, out, err) = rocmcheck(&[
        "report",
        "diff",
        "results/night-1.json",
        "results/night-2.json",
        "--fail-on-regression",
    ]);
    assert_eq!(rc, 1, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("1 regression(s)"), "{out}");
    assert!(err.contains("1 regression(s) against results/night-1.json"), "{err}");
    let (rc, _, _) = rocmcheck(&["report", "diff", "results/night-1.json", "results/night-2.json"]);
    assert_eq!(rc, 0);
    // A night against itself passes the gate; the other way round, gfx1030 regresses.
    let (rc, out, _) = rocmcheck(&[
        "report",
        "diff",
        "results/night-2.json",
        "results/night-2.json",
        "--fail-on-regression",
    ]);
    assert_eq!(rc, 0, "{out}");
    let (rc, out, _) = rocmcheck(&[
        "report",
        "diff",
        "results/night-2.json",
        "results/night-1.json",
        "--fail-on-regression",
        "--format",
        "json",
    ]);
    assert_eq!(rc, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["regressions"][0]["id"], "torch2.7.1-rocm6.3-dev-ubuntu-22.04@gfx1030");
}

#[test]
fn merge_cli_combines_jobs_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let merged = dir.path().join("current.json");
    let merged_s = merged.to_str().unwrap();
    let (rc, _, err) = rocmcheck(&[
        "report",
        "merge",
        "results/job-gfx942.json",
        "smoke/h100-local.json",
        "-o",
        merged_s,
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("2 result(s) (candidate × gfx), 1 passed"), "{err}");
    let (rc, xml, _) = rocmcheck(&["report", "render", merged_s, "--format", "junit"]);
    assert_eq!(rc, 0);
    assert!(
        xml.contains("name=\"torch2.9.0-rocm6.4-dev-ubuntu-24.04@gfx942\""),
        "{xml}"
    );
    assert!(
        xml.contains("<failure message=\"timeout: step &apos;memory&apos; did not finish within 60 s\""),
        "{xml}"
    );
    let (rc, md, _) = rocmcheck(&["report", "render", merged_s, "--format", "markdown"]);
    assert_eq!(rc, 0);
    assert!(md.contains("**1 of 2 job(s) (candidate × gfx) passed**"), "{md}");
    let (rc, table, _) = rocmcheck(&["report", "render", merged_s, "--format", "human"]);
    assert_eq!(rc, 0);
    assert!(
        table.contains("1 of 2 job(s) passed; 0 infrastructure failure(s)"),
        "{table}"
    );
}

#[test]
fn merge_cli_holds_a_night_to_one_files_limit() {
    // Many files are one night: together they may not hold more than one file may. Sparse
    // files: the sizes are checked before anything is read.
    let dir = tempfile::tempdir().unwrap();
    let half = rocmcheck::report::results::MAX_RESULTS_BYTES as u64 / 2 + 1;
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for p in [&a, &b] {
        std::fs::File::create(p).unwrap().set_len(half).unwrap();
    }
    let (rc, out, err) = rocmcheck(&["report", "merge", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(rc, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains(&format!("the 2 result files hold {} bytes together", 2 * half))
            && err.contains("split the night"),
        "{err}"
    );
}

#[test]
fn trend_cli_holds_its_nights_to_two_nights_of_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let each = rocmcheck::report::results::MAX_RESULTS_BYTES as u64 * 2 / 3 + 1;
    let files: Vec<std::path::PathBuf> = (0..3).map(|i| dir.path().join(format!("n{i}.json"))).collect();
    for p in &files {
        std::fs::File::create(p).unwrap().set_len(each).unwrap();
    }
    let mut args = vec!["report", "trend"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let (rc, _, err) = rocmcheck(&args);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("the 3 nights hold") && err.contains("--last"), "{err}");
    // the nights left out by --last are not counted (two of them fit; they are empty files,
    // so the read itself fails on their content, not on the limit)
    args.extend(["--last", "1"]);
    let (rc, _, err) = rocmcheck(&args);
    assert_eq!(rc, 2);
    assert!(!err.contains("nights hold"), "{err}");
}

#[test]
fn merge_cli_rejects_true_duplicates_and_keeps_lost_jobs() {
    // Two nights hold the same candidate × gfx jobs: a true duplicate, refused with both files.
    let (rc, _, err) = rocmcheck(&["report", "merge", "results/night-1.json", "results/night-2.json"]);
    assert_eq!(rc, 2);
    assert!(
        err.contains(
            "candidate `torch2.6.0-rocm6.2-dev-ubuntu-22.04` on gfx90a is in both results/night-1.json and results/night-2.json"
        ) || err.contains("is in both results/night-1.json and results/night-2.json: each candidate × gfx job must be run once"),
        "{err}"
    );
    // A garbled file and an empty one (a dead runner) are those jobs' `missing` results; the
    // readable file is merged as usual and the run is not refused.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("torch2.9.0-rocm6.4-dev-ubuntu-24.04@gfx1100.json");
    std::fs::write(&bad, "{\"payload_schema\": 1,\n \"classification\": \"pa").unwrap();
    let empty = dir.path().join("torch2.9.0-rocm6.4-dev-ubuntu-24.04@gfx90a.json");
    std::fs::write(&empty, "").unwrap();
    let merged = dir.path().join("current.json");
    let (rc, _, err) = rocmcheck(&[
        "report",
        "merge",
        bad.to_str().unwrap(),
        empty.to_str().unwrap(),
        "smoke/h100-local.json",
        "-o",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("gfx1100.json:2:"), "{err}");
    assert!(err.contains("the job's result file is empty"), "{err}");
    assert!(
        err.contains("3 result(s) (candidate × gfx), 1 passed, 2 infrastructure failure(s)"),
        "{err}"
    );
    let run = results::load_file(&merged).unwrap();
    let lost: Vec<(String, Option<String>, String)> = run
        .iter()
        .filter(|c| c.infrastructure())
        .map(|c| (c.id.to_string(), c.gfx.map(String::from), c.classification.to_string()))
        .collect();
    assert_eq!(
        lost,
        [
            (
                "torch2.9.0-rocm6.4-dev-ubuntu-24.04".into(),
                Some("gfx1100".into()),
                "missing".into()
            ),
            (
                "torch2.9.0-rocm6.4-dev-ubuntu-24.04".into(),
                Some("gfx90a".into()),
                "missing".into()
            ),
        ]
    );
    // A name that is no file is a usage error, not a lost job.
    let (rc, _, err) = rocmcheck(&["report", "merge", "results/no-such-file.json"]);
    assert_eq!(rc, 2);
    assert!(err.contains("1 of 1 result file(s) could not be used"), "{err}");
}

/// `--expect` (the exported job list): a job with no result file at all is `missing`.
#[test]
fn merge_expect_records_jobs_without_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("matrix.json");
    std::fs::write(
        &jobs,
        r#"{"include":[{"candidate":"torch2.9.0-rocm6.4-dev-ubuntu-24.04","gfx":"gfx942"},
                       {"candidate":"torch2.9.0-rocm6.4-dev-ubuntu-24.04","gfx":"gfx1100"}]}"#,
    )
    .unwrap();
    let (rc, out, err) = rocmcheck(&[
        "report",
        "merge",
        "results/job-gfx942.json",
        "--expect",
        jobs.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("1 expected job(s) left no result file"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(c.len(), 2);
    assert_eq!(
        (c[0]["gfx"].as_str(), c[0]["classification"].as_str()),
        (Some("gfx1100"), Some("missing"))
    );
    assert_eq!(
        (c[1]["gfx"].as_str(), c[1]["classification"].as_str()),
        (Some("gfx942"), Some("hang"))
    );
    std::fs::write(&jobs, "{\"jobs\": []}").unwrap();
    let (rc, _, err) = rocmcheck(&["report", "merge", "--expect", jobs.to_str().unwrap()]);
    assert_eq!(rc, 2);
    assert!(
        err.contains("expected a `matrix export --format github-matrix` document"),
        "{err}"
    );
}

/// What `rocmcheck smoke` writes (the smoke module's `SmokeResult`, as JSON) is read the same
/// way as the converted type: the report does not depend on which shape a job uploads.
#[test]
fn smoke_module_results_are_read() {
    use rocmcheck::smoke::result::{Classification, SmokeResult};
    let stdout = std::fs::read_to_string(fixture("smoke/h100-hang-memory.json")).unwrap();
    let hang = SmokeResult::from_output(
        "rocmcheck/candidate:torch2.9.0-rocm6.4-gfx942",
        &stdout,
        "",
        Some(0),
        None,
    );
    assert_eq!(hang.classification, Classification::Hang);
    let built = SmokeResult::outcome(
        "torch2.9.0-rocm6.4-gfx1100",
        Classification::BuildFailed,
        Some("pip: no matching distribution".into()),
    );
    let json = serde_json::to_string(&vec![&hang, &built]).unwrap();
    let read = results::parse(&json, "smoke.json", "smoke").unwrap();
    let converted: Vec<results::CandidateResult> = [&hang, &built].into_iter().map(Into::into).collect();
    assert_eq!(read, converted);
    assert_eq!(read[0].id, "rocmcheck/candidate:torch2.9.0-rocm6.4-gfx942");
    assert_eq!(
        read[0].image.as_deref(),
        Some("rocmcheck/candidate:torch2.9.0-rocm6.4-gfx942")
    );
    assert_eq!(read[0].failing_step().unwrap().name, "memory");
    assert_eq!(read[0].total_ms, Some(5421.3));
    assert_eq!(read[1].classification, "build-failed");
    assert_eq!(read[1].detail.as_deref(), Some("pip: no matching distribution"));
    // Wrapped as `{"results": [...]}` too.
    let wrapped = format!("{{\"results\": {json}}}");
    assert_eq!(results::parse(&wrapped, "w.json", "w").unwrap(), converted);
}

/// A result file with a key twice is refused by every command that reads it (exit 2, naming the
/// file, the place and the key), never read as its last value: here a failure that a second
/// `classification` would turn into a pass.
#[test]
fn a_duplicate_key_is_an_input_error_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("night.json");
    std::fs::write(
        &f,
        r#"[{"id": "a", "gfx": "gfx1100", "classification": "hipblas-failed", "classification": "pass"}]"#,
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let want = format!("{f}:1:");
    for args in [
        vec!["report", "gate", f],
        vec!["report", "render", f],
        vec!["report", "merge", f],
        vec!["report", "diff", f, f],
    ] {
        let (rc, out, err) = rocmcheck(&args);
        assert_eq!(rc, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains(&want) && err.contains("duplicate key `classification`"),
            "{args:?}: {err}"
        );
        assert!(!out.contains("passed"), "{args:?}: {out}");
    }
    // the same key in two different objects is no duplicate
    std::fs::write(
        dir.path().join("ok.json"),
        r#"[{"id": "a", "classification": "pass"}, {"id": "b", "classification": "pass"}]"#,
    )
    .unwrap();
    let (rc, _, err) = rocmcheck(&["report", "gate", dir.path().join("ok.json").to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
}

/// Every field of a result file is untrusted: in the Markdown summary a GPU name, a driver, a
/// step's error or a candidate id cannot open HTML, a link, a mention or a new table cell.
#[test]
fn markdown_render_escapes_every_untrusted_field() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("night.json");
    let hostile = "<img src=x onerror=alert(1)> | [click](https://evil.example) @octocat";
    let doc = serde_json::json!([{
        "id": "a` | <b>x</b>",
        "gfx": "gfx1100",
        "classification": "torch-failed",
        "gpu": hostile,
        "driver": hostile,
        "steps": [{"name": "torch", "status": "failed", "error": hostile}]
    }]);
    std::fs::write(&f, doc.to_string()).unwrap();
    let (rc, out, err) = rocmcheck(&["report", "render", f.to_str().unwrap(), "--format", "markdown"]);
    assert_eq!(rc, 0, "{err}");
    // outside code spans (literal), every `<`, `[` and `@` of the fields is backslash-escaped;
    // the only HTML is the summary's own `<details>`
    let ours = out
        .replace("<details><summary>Failing steps</summary>", "")
        .replace("</details>", "");
    let mut prose = String::new();
    let mut in_code = false;
    for ch in ours.chars() {
        if ch == '`' {
            in_code = !in_code;
        } else if !in_code {
            prose.push(ch);
        }
    }
    let prose = ["\\<", "\\>", "\\[", "\\]", "\\@"]
        .iter()
        .fold(prose, |p, e| p.replace(e, ""));
    assert!(
        !prose.contains(['<', '[', '@']),
        "a field reached the Markdown unescaped:\n{out}"
    );
    assert!(out.contains("`[click](https://evil.example)`"), "{out}");
    // the product table's row keeps its 9 cells: no `|` of the fields ends a cell
    let row = out
        .lines()
        .find(|l| l.contains("torch-failed") && l.starts_with('|'))
        .unwrap();
    let cells = row.replace("\\|", "").matches('|').count() - 1;
    assert_eq!(cells, 9, "{row}");
}

/// A night with no job is not a silent pass: the gate fails it (exit 1) and says why.
#[test]
fn the_gate_fails_a_night_with_no_job() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("night.json");
    std::fs::write(&f, r#"{"results_schema": 1, "candidates": []}"#).unwrap();
    let (rc, out, err) = rocmcheck(&["report", "gate", f.to_str().unwrap()]);
    assert_eq!(rc, 1, "{out}{err}");
    assert!(
        out.contains("Gate: ❌ failed") && out.contains("holds no result"),
        "{out}"
    );
    assert!(err.contains("holds no result, so nothing was judged"), "{err}");
}
