//! The README is the front page: short, with a quick start that works as written, one screen per
//! command, and flags that exist. What moved into the book (`docs/`) is checked by `docs.rs`.

use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string("README.md").unwrap()
}

/// The body of the `## NAME` or `### NAME` section (up to the next heading of that level or above).
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let s = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has no `{heading}`"));
    let body = &text[s + heading.len() + 2..];
    let mut fence = false;
    let mut end = body.len();
    let mut pos = 0;
    for line in body.split_inclusive('\n') {
        if line.starts_with("```") {
            fence = !fence;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !fence && hashes > 0 && hashes <= level && line[hashes..].starts_with(' ') {
            end = pos;
            break;
        }
        pos += line.len();
    }
    &body[..end]
}

/// The command lines of the ```sh blocks of `text`, comments taken off.
fn sh_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut sh = false;
    for line in text.lines() {
        if line.starts_with("```") {
            sh = line == "```sh";
            continue;
        }
        let cmd = line.split(" # ").next().unwrap().trim();
        if sh && !cmd.is_empty() && !cmd.starts_with('#') {
            out.push(cmd.to_string());
        }
    }
    out
}

#[test]
fn the_readme_is_a_front_page() {
    let text = readme();
    let n = text.lines().count();
    assert!(
        n <= 400,
        "README.md has {n} lines; the rest belongs in the book (docs/)"
    );
    for h in [
        "## Quick start",
        "## Install",
        "## The four commands",
        "## In CI",
        "## Running the tests",
        "## Documentation",
        "## Licence",
    ] {
        assert!(text.contains(&format!("\n{h}\n")), "README has no `{h}`");
    }
}

#[test]
fn the_quick_start_is_two_commands_and_the_query_answers() {
    // .ci/run runs these two lines exactly as written, with an empty cargo home.
    let lines = sh_lines(section(&readme(), "## Quick start"));
    assert_eq!(
        lines,
        [
            "cargo install --locked --path . && rocmcheck matrix query --gfx gfx1100",
            "cargo test"
        ]
    );
    let args: Vec<&str> = lines[0].split(" && rocmcheck ").nth(1).unwrap().split(' ').collect();
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(&args)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "rocmcheck {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("gfx1100") && out.contains("--index-url"), "{out}");
}

#[test]
fn each_of_the_four_commands_fits_one_screen() {
    let text = readme();
    for cmd in ["### lint", "### env", "### triage", "### matrix"] {
        let n = section(&text, cmd).lines().count();
        assert!(
            (5..=40).contains(&n),
            "README `{cmd}` is {n} lines (one screen: at most 40)"
        );
    }
}

#[test]
fn the_lint_example_is_what_lint_prints() {
    let text = readme();
    let lint = section(&text, "### lint");
    let cmd = "$ rocmcheck lint Dockerfile --output-format concise\n";
    let s = lint.find(cmd).expect("README's lint section shows the concise example") + cmd.len();
    let shown = &lint[s..s + lint[s..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    // the two lines the README names
    std::fs::write(
        dir.path().join("Dockerfile"),
        "FROM rocm/dev-ubuntu-22.04:6.2\nRUN pip install torch --extra-index-url https://download.pytorch.org/whl/rocm6.2\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["lint", "Dockerfile", "--output-format", "concise"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        shown,
        "README's lint example is stale"
    );
}

/// Subcommands that take a subcommand of their own.
const NESTED: &[&str] = &["matrix", "report"];

#[test]
fn every_flag_in_the_readme_examples_exists() {
    let bin = env!("CARGO_BIN_EXE_rocmcheck");
    let mut checked = 0;
    for line in sh_lines(&readme()) {
        // the rocmcheck part of a line (`pbpaste | rocmcheck triage -`)
        let Some(at) = line.find("rocmcheck ") else { continue };
        if line[..at].ends_with('/') || line[..at].ends_with("./") {
            continue;
        }
        let words: Vec<&str> = line[at..]
            .split_whitespace()
            .take_while(|w| !w.starts_with(['>', '<', '|']))
            .collect();
        let mut path = vec![words[1]];
        if NESTED.contains(&words[1]) && words.len() > 2 && !words[2].starts_with('-') {
            path.push(words[2]);
        }
        let o = Command::new(bin).args(&path).arg("--help").output().unwrap();
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "`rocmcheck {} --help` fails (README: {line})",
            path.join(" ")
        );
        for w in &words[1..] {
            if let Some(flag) = w.strip_prefix("--") {
                let flag = format!("--{}", flag.split('=').next().unwrap());
                assert!(
                    help.contains(&flag),
                    "README: `{line}`: `rocmcheck {}` has no {flag}",
                    path.join(" ")
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 15,
        "only {checked} flags checked: the README's examples moved?"
    );
}

#[test]
fn the_test_run_figures_agree_with_the_testing_page() {
    let text = readme();
    let readme_tests = section(&text, "## Running the tests");
    let page = std::fs::read_to_string("docs/src/testing.md").unwrap();
    for figure in [
        "14 to 38 minutes",
        "9 minutes",
        "9 GB",
        "5 GB",
        "0.7 GB",
        "scripts/clean-test-cache.sh",
    ] {
        assert!(
            readme_tests.contains(figure),
            "README's Running the tests lacks {figure}"
        );
        assert!(
            page.contains(figure),
            "docs/src/testing.md lacks {figure} (the README says it)"
        );
    }
}

#[test]
fn every_rule_has_a_doc_page_in_the_binary() {
    for r in rocmcheck::rules::all() {
        let m = r.meta();
        assert!(m.doc.contains("## Fix"), "{} has no Fix section", m.code);
        assert!(!m.summary.is_empty(), "{} has no summary", m.code);
    }
}
