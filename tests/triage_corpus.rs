//! The triage corpus: every `tests/triage/corpus/NN-name.txt` (a real paste) is read by
//! `rocmcheck triage` and compared with `NN-name.expect.toml` (written by hand before the
//! readers ran; format in `tests/triage/corpus/README.md`): listed `formats` must fire, given
//! `[facts]` must match exactly, every `[findings] codes` entry must appear and every `absent`
//! one must not. A table (file, expected, got) is printed; any mismatch fails the test.
//! By default the corpus and the 2026 build and held-out sets (`tests/triage/dev-2026`,
//! `tests/triage/heldout-2026`, `tests/triage/heldout-2026c`, `tests/triage/heldout-2026d`) are run, each with its own table; `ROCMCHECK_TRIAGE_CORPUS=DIR`
//! runs the harness over that directory alone.

use rocmcheck::matrix::Matrix;
use rocmcheck::rules::{self, Scope};
use rocmcheck::triage::{self, Input, Summary};
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, Item, Value};

fn corpus_dirs() -> Vec<PathBuf> {
    match std::env::var_os("ROCMCHECK_TRIAGE_CORPUS") {
        Some(d) => vec![PathBuf::from(d)],
        None => ["corpus", "dev-2026", "heldout-2026", "heldout-2026c", "heldout-2026d"]
            .iter()
            .map(|d| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/triage").join(d))
            .collect(),
    }
}

fn strs(v: Option<&Item>) -> Option<Vec<String>> {
    let a = v?.as_array()?;
    Some(a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
}

fn show<T: std::fmt::Debug>(v: &Option<T>) -> String {
    match v {
        Some(x) => format!("{x:?}"),
        None => "-".into(),
    }
}

/// Compares one `[facts]` key; returns (expected, got) when they differ.
fn check_fact(key: &str, want: &Value, s: &Summary) -> Result<(), (String, String)> {
    let got: String = match key {
        "gfx" => format!("{:?}", s.gfx),
        "gfx_from_name" => format!("{:?}", s.gfx_from_name),
        // the targets the paste wrote (all of `gfx` but those a product name gave); the key of
        // the 2026-11-28 sets, whose collectors' brief defined `gfx` so
        "gfx_explicit" => {
            let mut named = s.gfx_from_name.clone();
            let explicit: Vec<&String> = s
                .gfx
                .iter()
                .filter(|g| match named.iter().position(|n| n == *g) {
                    Some(i) => {
                        named.remove(i);
                        false
                    }
                    None => true,
                })
                .collect();
            format!("{explicit:?}")
        }
        "torch" => show(&s.torch),
        "torch_hip" => show(&s.torch_hip),
        "rocm" => show(&s.rocm),
        "kernel" => show(&s.kernel),
        "os" => show(&s.os),
        "wsl" => format!("{}", s.wsl),
        "nvidia" => format!("{}", s.nvidia),
        "hsa_override" => show(&s.hsa_override),
        "vram_bytes" => show(&s.vram_bytes),
        "gtt_bytes" => show(&s.gtt_bytes),
        "torch_gpu_available" => show(&s.torch_gpu_available),
        "platform" => show(&s.platform),
        other => return Err((format!("{other} = {want}"), "unknown fact key".into())),
    };
    let expected: String = match want {
        Value::Array(a) => {
            let v: Vec<String> = a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect();
            format!("{v:?}")
        }
        Value::String(x) => format!("{:?}", x.value()),
        Value::Integer(i) => format!("{}", i.value()),
        Value::Boolean(b) => format!("{}", b.value()),
        other => other.to_string(),
    };
    if expected == got {
        Ok(())
    } else {
        Err((format!("{key}={expected}"), got))
    }
}

#[test]
fn corpus_matches_expectations() {
    let mut failed = Vec::new();
    for dir in corpus_dirs() {
        if let Err(table) = run_dir(&dir) {
            failed.push(table);
        }
    }
    if !failed.is_empty() {
        panic!("{}", failed.join("\n\n"));
    }
}

/// Runs one directory of cases; the mismatch table and counts when any check fails.
fn run_dir(dir: &Path) -> Result<(), String> {
    let m = Matrix::embedded();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 3, "{}: only {} cases", dir.display(), cases.len());
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let mut all_rows: Vec<String> = Vec::new();
    let mut failures = 0;
    let mut checks = 0;
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let expect_path = case.with_extension("expect.toml");
        let expect_text = std::fs::read_to_string(&expect_path)
            .unwrap_or_else(|e| panic!("{}: {e} (every paste needs its .expect.toml)", expect_path.display()));
        let doc: DocumentMut = expect_text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", expect_path.display()));
        assert!(
            doc.get("source")
                .and_then(|s| s.as_str())
                .is_some_and(|s| s.starts_with("http")),
            "{}: `source` must be the URL the paste was read at",
            expect_path.display()
        );
        let text = String::from_utf8_lossy(&std::fs::read(case).unwrap()).into_owned();
        let t = triage::triage(
            &[Input {
                name: name.clone(),
                text,
            }],
            m,
        );
        let codes: Vec<&str> = rules::run(Scope::Env, &t.facts, m).iter().map(|f| f.code).collect();
        let mut bad = |want: String, got: String| {
            failures += 1;
            rows.push((name.clone(), want, got));
        };
        for f in strs(doc.get("formats")).unwrap_or_default() {
            checks += 1;
            if !t.summary.formats.contains(&f) {
                bad(format!("format {f}"), format!("{:?}", t.summary.formats));
            }
        }
        if let Some(facts) = doc.get("facts").and_then(|f| f.as_table()) {
            for (k, v) in facts.iter() {
                let Some(v) = v.as_value() else { continue };
                checks += 1;
                if let Err((want, got)) = check_fact(k, v, &t.summary) {
                    bad(want, got);
                }
            }
        }
        if let Some(fi) = doc.get("findings").and_then(|f| f.as_table()) {
            for c in strs(fi.get("codes")).unwrap_or_default() {
                checks += 1;
                if !codes.contains(&c.as_str()) {
                    bad(format!("code {c}"), format!("{codes:?}"));
                }
            }
            for c in strs(fi.get("absent")).unwrap_or_default() {
                checks += 1;
                if codes.contains(&c.as_str()) {
                    bad(format!("absent {c}"), format!("{codes:?}"));
                }
            }
        }
        let want_facts = doc
            .get("facts")
            .and_then(|f| f.as_table())
            .map(|t| {
                t.iter()
                    .map(|(k, v)| format!("{k}={}", v.as_value().map(|v| v.to_string()).unwrap_or_default().trim()))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        let want_codes = strs(doc.get("findings").and_then(|f| f.get("codes"))).unwrap_or_default();
        let mut got_codes: Vec<&str> = codes.clone();
        got_codes.sort();
        got_codes.dedup();
        all_rows.push(format!(
            "{name} | {} | {want_facts}; codes {want_codes:?} | gfx {:?} torch {} rocm {}; codes {got_codes:?} | {}",
            doc.get("source").and_then(|s| s.as_str()).unwrap_or(""),
            t.summary.gfx,
            show(&t.summary.torch),
            show(&t.summary.rocm),
            if rows.iter().any(|r| r.0 == name) {
                "MISMATCH"
            } else {
                "ok"
            }
        ));
        // Every paste is also rendered in every format without error.
        let report = rocmcheck::commands::triage::evaluate(&t, &[], m, &rocmcheck::policy::Policy::default());
        for f in [
            rocmcheck::report::Format::Human,
            rocmcheck::report::Format::Json,
            rocmcheck::report::Format::Markdown,
        ] {
            let mut buf = Vec::new();
            rocmcheck::report::renderer(f, false).render(&report, &mut buf).unwrap();
            assert!(!buf.is_empty());
        }
    }
    let mut table = String::from("file | expected | got\n--- | --- | ---\n");
    for (f, e, g) in &rows {
        table.push_str(&format!("{f} | {e} | {g}\n"));
    }
    let summary = format!(
        "{} cases, {checks} checks, {failures} mismatches ({})",
        cases.len(),
        dir.display()
    );
    let full = format!(
        "file | source | expected | got | result\n--- | --- | --- | --- | ---\n{}\n\n{summary}\n",
        all_rows.join("\n")
    );
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("triage-corpus-table-{name}.md")),
        &full,
    )
    .unwrap();
    if failures > 0 {
        return Err(format!("{table}\n{summary}"));
    }
    // The whole table (file, source, expected, got) with the counts, shown with `--nocapture`.
    std::io::Write::write_all(&mut std::io::stderr(), full.as_bytes()).unwrap();
    Ok(())
}
