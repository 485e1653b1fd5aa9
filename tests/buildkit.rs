//! BuildKit parity: every construct BuildKit's Dockerfile parser accepts parses here,
//! every case it refuses is a located input error, and every real-world Dockerfile among our
//! fixtures lints without an input error.
//!
//! `tests/fixtures/buildkit/pass/` and `fail/` hold our own fixtures, each citing the moby/buildkit
//! test case it follows (`frontend/dockerfile/parser/testfiles*`, `parser_heredoc_test.go`,
//! `dockerfile_heredoc_test.go` …); `tests/fixtures/buildkit/README.md` maps construct → BuildKit
//! case → fixture. A fixture states what must be seen in `# expect-…` comments:
//! `expect-instructions` (the keywords, in order), `expect-heredoc: KW "NAME" shell|other "BODY"`
//! (every heredoc body, in order, and whether it is read like a RUN line), `expect-heredocs: N`,
//! `expect-expand` (per heredoc), `expect-lines` (instruction start lines), `expect-codes` (lint
//! findings that must be reported), `expect-error: LINE:COL TEXT` (fail/ only).

use rocmcheck::dockerfile::heredoc::{self, Keyword};
use rocmcheck::dockerfile::{self, Kind, Options, parse};
use rocmcheck::matrix::Matrix;
use rocmcheck::policy::Policy;
use rocmcheck::rules::{self, Scope};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "Dockerfile"))
        .collect();
    v.sort();
    v
}

/// Values of `# expect-KEY: …` lines.
fn expect<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    let tag = format!("# expect-{key}:");
    text.lines()
        .filter_map(|l| l.strip_prefix(tag.as_str()))
        .map(str::trim)
        .collect()
}

/// `"…"` strings with `\n`, `\t`, `\\`, `\"` escapes, and bare words, in order.
fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = s.chars().peekable();
    while let Some(&c) = it.peek() {
        if c == ' ' {
            it.next();
        } else if c == '"' {
            it.next();
            let mut t = String::new();
            while let Some(c) = it.next() {
                match c {
                    '"' => break,
                    '\\' => match it.next() {
                        Some('n') => t.push('\n'),
                        Some('t') => t.push('\t'),
                        Some(x) => t.push(x),
                        None => {}
                    },
                    x => t.push(x),
                }
            }
            out.push(t);
        } else {
            let mut t = String::new();
            while let Some(&c) = it.peek() {
                if c == ' ' {
                    break;
                }
                t.push(c);
                it.next();
            }
            out.push(t);
        }
    }
    out
}

fn kw(k: Keyword) -> &'static str {
    match k {
        Keyword::Run => "RUN",
        Keyword::Copy => "COPY",
        Keyword::Add => "ADD",
    }
}

fn lint_codes(p: &Path, bytes: &[u8]) -> Result<BTreeSet<String>, String> {
    let m = Matrix::embedded();
    let opts = Options {
        context: p.parent().map(Path::to_path_buf),
        ..Options::default()
    };
    let kind = Kind::of(p).unwrap_or(Kind::Dockerfile);
    let (facts, pragmas) = dockerfile::analyze(kind, &p.display().to_string(), bytes, m, &opts)
        .map_err(|e| format!("{}:{}:{}: {}", p.display(), e.line, e.col, e.message))?;
    let f = Policy::default().apply(rules::run(Scope::Lint, &facts, m), &|f| pragmas.ignores(f));
    Ok(f.iter().map(|f| f.code.to_string()).collect())
}

#[test]
fn every_construct_buildkit_accepts_parses() {
    let all = files("tests/fixtures/buildkit/pass");
    assert!(all.len() >= 30, "{} fixtures", all.len());
    for p in all {
        let name = p.display().to_string();
        let bytes = std::fs::read(&p).unwrap();
        let text = parse::decode(&bytes).unwrap();
        assert!(text.contains("moby/buildkit "), "{name}: cites no BuildKit case");
        let prepared = heredoc::prepare(&text).unwrap_or_else(|e| panic!("{name}:{}:{}: {}", e.line, e.col, e.message));
        let (ptext, bodies) = match &prepared {
            Some((t, b)) => (t.as_str(), b.clone()),
            None => (text.as_ref(), Vec::new()),
        };
        let df = parse::parse(ptext).unwrap_or_else(|e| panic!("{name}:{}:{}: {}", e.line, e.col, e.message));

        let want = expect(&text, "instructions");
        assert_eq!(want.len(), 1, "{name}: one expect-instructions line");
        let got: Vec<&str> = df.instructions.iter().map(dockerfile::keyword).collect();
        assert_eq!(got.join(" "), want[0], "{name}: instructions");

        let want: Vec<Vec<String>> = expect(&text, "heredoc").into_iter().map(tokens).collect();
        let got: Vec<Vec<String>> = bodies
            .iter()
            .map(|b| {
                vec![
                    kw(b.keyword).to_string(),
                    b.name.clone(),
                    if b.shell { "shell" } else { "other" }.to_string(),
                    b.text.clone(),
                ]
            })
            .collect();
        assert_eq!(got, want, "{name}: heredocs");
        for n in expect(&text, "heredocs") {
            assert_eq!(bodies.len(), n.parse::<usize>().unwrap(), "{name}: heredoc count");
        }
        for e in expect(&text, "expand") {
            let got: Vec<String> = bodies.iter().map(|b| b.expand.to_string()).collect();
            assert_eq!(got.join(" "), e, "{name}: expand");
        }
        // bodies sit in the file where we say (offsets kept), unless tabs were taken off
        for b in &bodies {
            if !b.chomp {
                assert_eq!(&text[b.start..b.start + b.text.len()], b.text, "{name}: body offset");
            }
        }
        for l in expect(&text, "lines") {
            let got: Vec<String> = df
                .instructions
                .iter()
                .map(|i| dockerfile::instruction_line(ptext, i).to_string())
                .collect();
            assert_eq!(got.join(" "), l, "{name}: instruction lines");
        }
        // and through the whole lint path
        let codes = lint_codes(&p, &bytes).unwrap_or_else(|e| panic!("{e}"));
        for c in expect(&text, "codes").iter().flat_map(|l| l.split_whitespace()) {
            assert!(codes.contains(c), "{name}: {c} not reported (got {codes:?})");
        }
    }
}

#[test]
fn every_case_buildkit_refuses_is_a_located_input_error() {
    let all = files("tests/fixtures/buildkit/fail");
    assert!(all.len() >= 10);
    for p in all {
        let name = p.display().to_string();
        let bytes = std::fs::read(&p).unwrap();
        let text = String::from_utf8_lossy(&bytes).to_string();
        let err = match lint_codes(&p, &bytes) {
            Ok(c) => panic!("{name}: no input error (findings {c:?})"),
            Err(e) => e,
        };
        let want = expect(&text, "error");
        if bytes.is_empty() {
            // empty.Dockerfile (testfiles-negative/empty_dockerfile): nothing to cite in
            assert!(err.starts_with(&format!("{name}:1:1: ")), "{err}");
            continue;
        }
        assert_eq!(want.len(), 1, "{name}: one expect-error line");
        let (at, what) = want[0].split_once(' ').unwrap();
        assert!(
            err.starts_with(&format!("{name}:{at}: ")),
            "{name}: expected at {at}, got {err}"
        );
        assert!(err.contains(what), "{name}: expected '{what}' in {err}");
        assert!(text.contains("moby/buildkit "), "{name}: cites no BuildKit case");
    }
}

#[test]
fn crlf_bom_and_over_long_lines_as_buildkit_reads_them() {
    // parser.go: trimNewline drops the CR of a heredoc delimiter line; discardBOM
    let t = b"\xEF\xBB\xBFFROM ubuntu:24.04\r\nRUN bash <<EOF\r\npip install numpy\r\nEOF\r\nRUN echo after\r\n";
    let p = Path::new("crlf.Dockerfile");
    lint_codes(p, t).unwrap();
    let text = parse::decode(t).unwrap();
    let (_, bodies) = heredoc::prepare(&text).unwrap().unwrap();
    assert_eq!(bodies[0].text, "pip install numpy\n");
    // parser_test.go TestParseReturnsScannerErrors: a line over 65535 bytes
    let long = format!("FROM ubuntu:24.04\nLABEL test={}\n", "a".repeat(65535));
    let e = lint_codes(Path::new("long.Dockerfile"), long.as_bytes()).unwrap_err();
    assert!(e.starts_with("long.Dockerfile:2:1: ") && e.contains("65535"), "{e}");
    let ok = format!("FROM ubuntu:24.04\nLABEL t={}\n", "a".repeat(65535 - 8));
    lint_codes(Path::new("ok.Dockerfile"), ok.as_bytes()).unwrap();
}

#[test]
fn the_readme_table_lists_every_fixture() {
    let readme = std::fs::read_to_string("tests/fixtures/buildkit/README.md").unwrap();
    for p in files("tests/fixtures/buildkit/pass")
        .into_iter()
        .chain(files("tests/fixtures/buildkit/fail"))
    {
        let f = p.file_name().unwrap().to_str().unwrap();
        assert!(readme.contains(f), "README.md does not list {f}");
    }
}

/// Deliberately broken inputs among the fixtures (each tested as an input error elsewhere).
const BROKEN: &[&str] = &[
    "tests/fixtures/dockerfiles/arg-expansion-bomb.Dockerfile",
    "tests/fixtures/dockerfiles/expansion-nesting.Dockerfile",
    "tests/fixtures/dockerfiles/expansion-file-budget.Dockerfile",
    "tests/cmd/lint-input-error.in/bad.Dockerfile",
    "tests/cmd/lint-input-error.in/binary.Dockerfile",
    "tests/cmd/lint-input-error.in/bomb.Dockerfile",
];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else if Kind::of(&p) == Some(Kind::Dockerfile) {
            out.push(p);
        }
    }
}

#[test]
fn every_real_world_dockerfile_lints_without_input_error() {
    let mut all = Vec::new();
    for d in ["tests/corpus", "dockerfiles", "tests/fixtures", "tests/cmd"] {
        walk(Path::new(d), &mut all);
    }
    all.retain(|p| !p.starts_with("tests/fixtures/buildkit/fail") && !BROKEN.iter().any(|b| p == Path::new(b)));
    all.sort();
    assert!(all.len() >= 80, "only {} Dockerfiles found", all.len());
    let mut failed = Vec::new();
    for p in &all {
        let bytes = std::fs::read(p).unwrap();
        if let Err(e) = lint_codes(p, &bytes) {
            failed.push(e);
        }
    }
    assert!(failed.is_empty(), "input errors:\n{}", failed.join("\n"));
    for b in BROKEN {
        let bytes = std::fs::read(b).unwrap();
        assert!(
            lint_codes(Path::new(b), &bytes).is_err(),
            "{b} is listed as broken but lints"
        );
    }
}
