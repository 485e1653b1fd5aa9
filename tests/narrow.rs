//! Human tables wrap to the width: `COLUMNS` when set (on a terminal or
//! piped), the terminal's own width otherwise; piped with no `COLUMNS` rows stay whole (as the
//! docker CLI and ripgrep leave piped output); `--format markdown|json` never wrap.
//! The narrow snapshots are tests/cmd/narrow-*.toml.

use std::process::Command;

fn run(args: &[&str], columns: Option<&str>) -> String {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rocmcheck"));
    c.args(args).env("NO_COLOR", "1").env_remove("COLUMNS");
    if let Some(w) = columns {
        c.env("COLUMNS", w);
    }
    let out = c.output().expect("run rocmcheck");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Display width of a line: every character the tables print (ASCII, box drawing, `…`, `–`)
/// takes one column.
fn width(line: &str) -> usize {
    line.chars().count()
}

const TABLES: &[&[&str]] = &[
    &["matrix", "show", "torch"],
    &["matrix", "show", "rocm"],
    &["matrix", "show", "gpus"],
    &["matrix", "show", "driver"],
    &["matrix", "show", "images"],
    &["matrix", "show", "issues"],
    &["build", "--dry-run"],
    &["build", "--dry-run", "--all"],
    &["rules"],
];

#[test]
fn no_line_exceeds_columns() {
    for args in TABLES {
        let out = run(args, Some("80"));
        let wide: Vec<&str> = out.lines().filter(|l| width(l) > 80).collect();
        assert!(
            wide.is_empty(),
            "{args:?} at COLUMNS=80: {} line(s) wider:\n{}",
            wide.len(),
            wide.join("\n")
        );
        // and the same output without a width really is wider: the test above has teeth
        if args.starts_with(&["matrix", "show", "torch"]) || args.starts_with(&["build"]) {
            let whole = run(args, None);
            assert!(whole.lines().any(|l| width(l) > 80), "{args:?} is narrow anyway");
        }
    }
    // a narrower terminal: what can fit, fits
    for args in [
        &["matrix", "show", "torch"][..],
        &["matrix", "show", "gpus"],
        &["build", "--dry-run"],
    ] {
        let out = run(args, Some("64"));
        let table: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with(['┌', '│', '╞', '├', '└']))
            .collect();
        assert!(!table.is_empty(), "{args:?}: no table in\n{out}");
        assert!(table.iter().all(|l| width(l) <= 64), "{args:?} at COLUMNS=64:\n{out}");
    }
}

#[test]
fn piped_without_columns_rows_stay_whole() {
    // each candidate's tag is one unbroken token on one line
    let out = run(&["build", "--dry-run"], None);
    let tags = out.matches("rocmcheck/candidate:torch").count();
    assert!(tags > 0, "{out}");
    let narrow = run(&["build", "--dry-run"], Some("80"));
    assert!(
        narrow.matches("rocmcheck/candidate:torch").count() < tags,
        "COLUMNS=80 wraps the tags:\n{narrow}"
    );
    // nonsense COLUMNS is ignored, not an error
    assert_eq!(run(&["build", "--dry-run"], Some("wide")), out);
}

#[test]
fn machine_formats_never_wrap() {
    let md = run(&["matrix", "show", "torch", "--format", "markdown"], Some("40"));
    assert_eq!(md, run(&["matrix", "show", "torch", "--format", "markdown"], None));
    assert!(md.lines().any(|l| width(l) > 40) && md.lines().all(|l| !l.starts_with('│')));
    let json = run(&["build", "--dry-run", "--format", "json"], Some("40"));
    assert_eq!(json, run(&["build", "--dry-run", "--format", "json"], None));
    serde_json::from_str::<serde_json::Value>(&json).expect("one JSON document");
}

/// Snapshots of narrow output (tests/cmd-narrow/*.toml, COLUMNS=80; tests/cli.rs runs the
/// other cases at 200). Review changes with `TRYCMD=overwrite cargo test --test narrow`.
#[test]
fn narrow_snapshots() {
    trycmd::TestCases::new()
        .env("NO_COLOR", "1")
        .env("COLUMNS", "80")
        .case("tests/cmd-narrow/*.toml");
}

/// The same tables at 60 and 120 columns (between words or shortened with
/// "…", never a word cut in two; `tests/cmd-narrow/{60,120}/`).
#[test]
fn snapshots_at_60_and_120_columns() {
    for w in ["60", "120"] {
        trycmd::TestCases::new()
            .env("NO_COLOR", "1")
            .env("COLUMNS", w)
            .case(format!("tests/cmd-narrow/{w}/*.toml"));
    }
}

/// At 80 and 100 columns headers and cells were once split mid-word ("ROC/m",
/// "torch-wheel-not-on-inde/x"). Now every rule name in `rocmcheck rules` is whole or shortened
/// with "…", at any width.
#[test]
fn rule_names_are_never_cut_in_two() {
    let names: Vec<String> = run(&["rules", "--format", "markdown"], None)
        .lines()
        .filter_map(|l| l.split('`').nth(1).map(String::from))
        .collect();
    assert!(names.len() > 20, "{names:?}");
    for w in ["60", "72", "80", "100", "120"] {
        let out = run(&["rules"], Some(w));
        for l in out.lines().filter(|l| l.starts_with("│ RC")) {
            let name = l.split_whitespace().nth(2).unwrap();
            let whole = names.iter().any(|n| n == name);
            let shortened = name
                .strip_suffix('…')
                .is_some_and(|p| names.iter().any(|n| n.starts_with(p)));
            assert!(
                whole || shortened,
                "COLUMNS={w}: `{name}` is neither whole nor shortened:\n{out}"
            );
        }
        // and no line is wider than the width
        assert!(
            out.lines().all(|l| width(l) <= w.parse().unwrap()),
            "COLUMNS={w}:\n{out}"
        );
    }
}
