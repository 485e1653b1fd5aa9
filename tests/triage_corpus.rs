//! The triage corpus: every `tests/triage/corpus/NN-name.txt` (a real paste) is read by
//! `rocmcheck triage` and compared with `NN-name.expect.toml` (written by hand before the
//! readers ran; format in `tests/triage/corpus/README.md`): listed `formats` must fire, given
//! `[facts]` must match exactly, every `[findings] codes` entry must appear and every `absent`
//! one must not. A table (file, expected, got) is printed; any mismatch fails the test.
//! By default the corpus and the 2026 build and held-out sets (`tests/triage/dev-2026`,
//! `tests/triage/heldout-2026`, `tests/triage/heldout-2026c` to `heldout-2026z`, `heldout-2026aa` to `heldout-2026az`, `heldout-2026ha` to `heldout-2026hz`, `heldout-2026ia` to `heldout-2026iy`, `heldout-2026ja`, `heldout-2026jc`, `heldout-2026je` to `heldout-2026jn`, `heldout-2026jp`, `heldout-2026jt` to `heldout-2026kc`, `heldout-2026ke` to `heldout-2026km`, `heldout-2026kq` to `heldout-2026kx`, `heldout-2026le` to `heldout-2026lz`, `heldout-2026ma` to `heldout-2026mh`) are run, each with its own table; a case marked `known_miss = "why"` must still miss (and is listed as such); `ROCMCHECK_TRIAGE_CORPUS=DIR`
//! runs the harness over that directory alone.

use rocmcheck::matrix::Matrix;
use rocmcheck::rules::{self, Scope};
use rocmcheck::triage::{self, Input, Summary};
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, Item, Value};

/// The directories the corpus test runs, under `tests/triage`.
const DIRS: &[&str] = &[
    "corpus",
    "dev-2026",
    "heldout-2026",
    "heldout-2026c",
    "heldout-2026d",
    "heldout-2026e",
    "heldout-2026f",
    "heldout-2026g",
    "heldout-2026h",
    "heldout-2026i",
    "heldout-2026j",
    "heldout-2026k",
    "heldout-2026l",
    "heldout-2026m",
    "heldout-2026n",
    "heldout-2026o",
    "heldout-2026p",
    "heldout-2026q",
    "heldout-2026r",
    "heldout-2026s",
    "heldout-2026t",
    "heldout-2026u",
    "heldout-2026v",
    "heldout-2026w",
    "heldout-2026x",
    "heldout-2026y",
    "heldout-2026z",
    "heldout-2026aa",
    "heldout-2026ab",
    "heldout-2026ac",
    "heldout-2026ad",
    "heldout-2026ae",
    "heldout-2026af",
    "heldout-2026ag",
    "heldout-2026ah",
    "heldout-2026ai",
    "heldout-2026aj",
    "heldout-2026ak",
    "heldout-2026al",
    "heldout-2026am",
    "heldout-2026an",
    "heldout-2026ao",
    "heldout-2026ap",
    "heldout-2026aq",
    "heldout-2026ar",
    "heldout-2026as",
    "heldout-2026au",
    "heldout-2026aw",
    "heldout-2026ay",
    "heldout-2026az",
    "heldout-2026ha",
    "heldout-2026hb",
    "heldout-2026hc",
    "heldout-2026hd",
    "heldout-2026he",
    "heldout-2026hf",
    "heldout-2026hg",
    "heldout-2026hh",
    "heldout-2026hi",
    "heldout-2026hj",
    "heldout-2026hk",
    "heldout-2026hl",
    "heldout-2026hm",
    "heldout-2026hn",
    "heldout-2026ho",
    "heldout-2026hp",
    "heldout-2026hq",
    "heldout-2026hr",
    "heldout-2026hs",
    "heldout-2026hv",
    "heldout-2026hx",
    "heldout-2026hz",
    "heldout-2026ia",
    "heldout-2026ib",
    "heldout-2026ic",
    "heldout-2026id",
    "heldout-2026ie",
    "heldout-2026if",
    "heldout-2026ig",
    "heldout-2026ih",
    "heldout-2026ii",
    "heldout-2026ij",
    "heldout-2026il",
    "heldout-2026im",
    "heldout-2026in",
    "heldout-2026ip",
    "heldout-2026iq",
    "heldout-2026ir",
    "heldout-2026it",
    "heldout-2026iu",
    "heldout-2026ix",
    "heldout-2026iy",
    "heldout-2026ja",
    "heldout-2026jc",
    "heldout-2026je",
    "heldout-2026jf",
    "heldout-2026jg",
    "heldout-2026jh",
    "heldout-2026ji",
    "heldout-2026jj",
    "heldout-2026jk",
    "heldout-2026jl",
    "heldout-2026jm",
    "heldout-2026jn",
    "heldout-2026jp",
    "heldout-2026jt",
    "heldout-2026ju",
    "heldout-2026jv",
    "heldout-2026jw",
    "heldout-2026jx",
    "heldout-2026jy",
    "heldout-2026jz",
    "heldout-2026ka",
    "heldout-2026kb",
    "heldout-2026kc",
    "heldout-2026ke",
    "heldout-2026kf",
    "heldout-2026kg",
    "heldout-2026kh",
    "heldout-2026ki",
    "heldout-2026kj",
    "heldout-2026kk",
    "heldout-2026kl",
    "heldout-2026km",
    "heldout-2026kq",
    "heldout-2026kr",
    "heldout-2026ks",
    "heldout-2026kt",
    "heldout-2026ku",
    "heldout-2026kv",
    "heldout-2026kw",
    "heldout-2026kx",
    "heldout-2026le",
    "heldout-2026lf",
    "heldout-2026lg",
    "heldout-2026lh",
    "heldout-2026li",
    "heldout-2026lj",
    "heldout-2026lk",
    "heldout-2026ll",
    "heldout-2026lm",
    "heldout-2026ln",
    "heldout-2026lo",
    "heldout-2026lp",
    "heldout-2026lq",
    "heldout-2026lr",
    "heldout-2026ls",
    "heldout-2026lt",
    "heldout-2026lu",
    "heldout-2026lv",
    "heldout-2026lw",
    "heldout-2026lx",
    "heldout-2026ly",
    "heldout-2026lz",
    "heldout-2026ma",
    "heldout-2026mb",
    "heldout-2026mc",
    "heldout-2026md",
    "heldout-2026me",
    "heldout-2026mf",
    "heldout-2026mg",
    "heldout-2026mh",
];

fn corpus_dirs() -> Vec<PathBuf> {
    match std::env::var_os("ROCMCHECK_TRIAGE_CORPUS") {
        Some(d) => vec![PathBuf::from(d)],
        None => DIRS
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

/// The counts of one directory, and its known misses.
fn summary_line(cases: usize, checks: usize, failures: usize, dir: &Path, known: &[String]) -> String {
    let known = if known.is_empty() {
        String::new()
    } else {
        format!(
            "\nKNOWN MISSES ({}), still missed:\n  {}",
            known.len(),
            known.join("\n  ")
        )
    };
    format!(
        "{cases} cases, {checks} checks, {failures} mismatches ({}){known}",
        dir.display()
    )
}

/// Every paste is also rendered in every format without error.
fn render_all(t: &triage::Triage, m: &Matrix) {
    let report = rocmcheck::commands::triage::evaluate(t, &[], m, &rocmcheck::policy::Policy::default());
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
    let mut known: Vec<String> = Vec::new();
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
        // `known_miss = "why"`: a held-out case scored as missed and not yet fixed, kept in the
        // run (strict: it must still miss, and every other case must pass)
        let known_miss = doc.get("known_miss").and_then(|k| k.as_str()).map(str::to_string);
        let failures_before = failures;
        let rows_before = rows.len();
        let mut bad = |want: String, got: String| {
            failures += 1;
            rows.push((name.clone(), want, got));
        };
        for f in strs(doc.get("formats")).unwrap_or_default() {
            checks += 1;
            // the README's names, mapped to the readers that serve them: `free_form` (prints of
            // no known tool's layout) is read by the free-form reader and the key/value layer
            // under all readers (`GPU arch: gfx1152`, `HIP version: 7.12`)
            let serving: &[&str] = match f.as_str() {
                "free_form" => &["free_form", "key_value"],
                _ => &[],
            };
            if !t.summary.formats.contains(&f) && !serving.iter().any(|r| t.summary.formats.iter().any(|x| x == r)) {
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
        if let Some(why) = &known_miss {
            if failures == failures_before {
                failures += 1;
                rows.push((
                    name.clone(),
                    format!("known_miss = {why:?}"),
                    "passes now: remove `known_miss`".into(),
                ));
            } else {
                known.push(format!("{name}: {why}"));
                failures = failures_before;
                rows.truncate(rows_before);
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
            } else if known_miss.is_some() {
                "KNOWN MISS"
            } else {
                "ok"
            }
        ));
        render_all(&t, m);
    }
    let mut table = String::from("file | expected | got\n--- | --- | ---\n");
    for (f, e, g) in &rows {
        table.push_str(&format!("{f} | {e} | {g}\n"));
    }
    let summary = summary_line(cases.len(), checks, failures, dir, &known);
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

#[test]
fn a_known_miss_that_passes_fails_the_run() {
    // strict: a case marked `known_miss` that now meets its expectations must lose the mark
    let dir = tempfile::tempdir().unwrap();
    for (i, known) in [(1, true), (2, false), (3, false)] {
        std::fs::write(dir.path().join(format!("0{i}-x.txt")), "Linux x86_64\n").unwrap();
        let mark = if known { "known_miss = \"a test\"\n" } else { "" };
        std::fs::write(
            dir.path().join(format!("0{i}-x.expect.toml")),
            format!("source = \"https://example.org/{i}\"\n{mark}\n[facts]\nplatform = \"linux\"\n"),
        )
        .unwrap();
    }
    let err = run_dir(dir.path()).unwrap_err();
    assert!(err.contains("passes now: remove `known_miss`"), "{err}");
    // and one that still misses is listed, not failed
    std::fs::write(
        dir.path().join("01-x.expect.toml"),
        "source = \"https://example.org/1\"\nknown_miss = \"a test\"\n\n[facts]\nplatform = \"windows\"\n",
    )
    .unwrap();
    assert!(run_dir(dir.path()).is_ok());
}
