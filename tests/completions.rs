//! `rocmcheck completions SHELL` and `rocmcheck man` from the outside: the real shells and the
//! real roff formatter judge the output.
//!
//! bash is always required (`bash -n`). groff (`groff -k -man -ww -z`, the same parse that
//! `man -l -` runs) is required too; where it is missing the test prints a LOUD notice and falls
//! back to a structural check, and under CI=true it fails instead (`.ci/run` fetches groff into the tests' cache where it
//! is missing: `tests/support/fetch-tools.sh`).
//! zsh and fish, when installed, check their own scripts (`zsh -n`, `fish --no-execute`).

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn rocmcheck(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(args)
        .output()
        .expect("run rocmcheck");
    assert!(
        o.status.success(),
        "rocmcheck {args:?} exited {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `cmd` with `input` on stdin; returns (success, stderr).
fn pipe(cmd: &mut Command, input: &[u8]) -> (bool, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let o = child.wait_with_output().unwrap();
    (o.status.success(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[allow(clippy::disallowed_macros)]
fn loud(msg: &str) {
    eprintln!(
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n!!! {msg}\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
    );
}

#[test]
fn bash_completions_parse_and_complete_the_subcommands() {
    let out = rocmcheck(&["completions", "bash"]).stdout;
    let (ok, err) = pipe(Command::new("bash").arg("-n"), &out);
    assert!(ok, "bash -n rejects the completions: {err}");
    // Source it in a real bash and ask the completion function for `rocmcheck <TAB>` and
    // `rocmcheck lint --fo<TAB>`.
    let script = format!(
        "{}\n\
         COMP_WORDS=(rocmcheck ''); COMP_CWORD=1; _rocmcheck rocmcheck '' rocmcheck; echo \"${{COMPREPLY[*]}}\"\n\
         COMP_WORDS=(rocmcheck lint --fo); COMP_CWORD=2; _rocmcheck rocmcheck --fo lint; echo \"${{COMPREPLY[*]}}\"\n",
        String::from_utf8(out).unwrap()
    );
    let o = Command::new("bash").args(["--norc", "-c", &script]).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let mut lines = stdout.lines();
    let top = lines.next().unwrap_or_default();
    for sub in [
        "env",
        "lint",
        "matrix",
        "rules",
        "build",
        "smoke",
        "report",
        "completions",
        "man",
    ] {
        assert!(top.split(' ').any(|w| w == sub), "`rocmcheck <TAB>` lacks {sub}: {top}");
    }
    let lint = lines.next().unwrap_or_default();
    assert!(
        lint.split(' ').any(|w| w == "--format"),
        "`rocmcheck lint --fo<TAB>`: {lint}"
    );
}

#[test]
fn every_shell_is_generated_and_checked_where_its_shell_exists() {
    for (shell, marker, checker) in [
        ("bash", "complete -F _rocmcheck", None),
        ("zsh", "#compdef rocmcheck", Some(("zsh", vec!["-n"]))),
        ("fish", "complete -c rocmcheck", Some(("fish", vec!["--no-execute"]))),
        ("powershell", "Register-ArgumentCompleter", None),
        ("elvish", "set edit:completion:arg-completer[rocmcheck]", None),
    ] {
        let out = rocmcheck(&["completions", shell]).stdout;
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(text.contains(marker), "{shell}: no `{marker}` in the output");
        assert!(
            text.contains("lint") && text.contains("fail-on"),
            "{shell}: subcommand options missing"
        );
        if let Some((bin, args)) = checker
            && have(bin)
        {
            let (ok, err) = pipe(Command::new(bin).args(&args), &out);
            assert!(ok, "{bin} {args:?} rejects the completions: {err}");
        }
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid value 'tcsh'"));
}

/// groff with preconv (`-k`, what man-db runs), man macros, all warnings as output, no output.
fn groff_check(page: &[u8]) -> Option<(bool, String)> {
    have("groff").then(|| pipe(Command::new("groff").args(["-k", "-man", "-ww", "-z"]), page))
}

fn structural_check(page: &str) {
    assert!(page.contains(".TH rocmcheck"), "no .TH header");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS"] {
        assert!(page.contains(section), "no {section}");
    }
    // every request line is a known man macro or roff request
    for line in page.lines().filter(|l| l.starts_with('.')) {
        let req = line[1..].split_whitespace().next().unwrap_or("");
        assert!(
            [
                "ie", "el", "TH", "SH", "SS", "TP", "PP", "IP", "RS", "RE", "B", "I", "br", "sp", "nf", "fi", "in"
            ]
            .contains(&req),
            "unexpected roff request {line:?}"
        );
    }
}

#[test]
fn the_man_page_is_valid_roff_and_names_every_subcommand() {
    let page = rocmcheck(&["man"]).stdout;
    let text = String::from_utf8(page.clone()).unwrap();
    for sub in [
        "env",
        "lint",
        "matrix",
        "rules",
        "build",
        "smoke",
        "report",
        "completions",
        "man",
    ] {
        assert!(text.contains(&format!("rocmcheck\\-{sub}(1)")), "man page lacks {sub}");
    }
    match groff_check(&page) {
        Some((ok, err)) => assert!(ok && err.is_empty(), "groff rejects the man page: {err}"),
        None => {
            assert!(
                std::env::var("CI").is_err(),
                "groff is missing under CI: .ci/run should have fetched it (tests/support/fetch-tools.sh groff)"
            );
            loud("groff is NOT installed: the man page got only a structural check (apt-get install groff-base)");
        }
    }
    structural_check(&text);
    if have("man") {
        // `man -l -` renders it as a user would see it
        let (ok, err) = pipe(
            Command::new("man")
                .args(["-l", "-"])
                .env("MANWIDTH", "80")
                .env("MAN_KEEP_FORMATTING", ""),
            &page,
        );
        assert!(ok, "man -l - failed: {err}");
    }
}

#[test]
fn man_out_dir_writes_one_valid_page_per_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let o = rocmcheck(&["man", "--out-dir", dir.path().to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("wrote "));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for want in [
        "rocmcheck.1",
        "rocmcheck-lint.1",
        "rocmcheck-matrix-query.1",
        "rocmcheck-report-render.1",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not written: {names:?}");
    }
    for n in &names {
        let page = std::fs::read(dir.path().join(n)).unwrap();
        if let Some((ok, err)) = groff_check(&page) {
            assert!(ok && err.is_empty(), "groff rejects {n}: {err}");
        }
        structural_check(&String::from_utf8(page).unwrap());
    }
}

#[test]
fn man_out_dir_that_is_not_a_directory_is_an_input_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["man", "--out-dir", "Cargo.toml"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        "error: --out-dir Cargo.toml: not a directory"
    );
}

/// `rocmcheck completions bash | head -1`: the pipe closes early. clap_complete panicked on
/// the failed write; now a closed pipe ends the run quietly, as for every other output.
#[test]
fn completions_into_a_closed_pipe_do_not_panic() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Command::new("sh")
            .args([
                "-c",
                &format!(
                    "'{}' completions {shell} | head -c 10 >/dev/null",
                    env!("CARGO_BIN_EXE_rocmcheck")
                ),
            ])
            .stderr(Stdio::piped())
            .output()
            .expect("sh");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{shell}: {err}");
        assert!(err.trim().is_empty(), "{shell}: nothing on stderr, got {err}");
    }
}

/// The subcommands' arguments are built only for the one that runs (start-up). Each
/// subcommand's help still opens with its own description, and the completions still carry
/// every subcommand's options and the nested `help matrix …` tree.
#[test]
fn deferred_subcommands_keep_their_help_and_completions() {
    let help = String::from_utf8(rocmcheck(&["lint", "--help"]).stdout).expect("utf-8");
    assert!(
        help.starts_with("Check Dockerfiles"),
        "lint --help opens with: {}",
        &help[..80.min(help.len())]
    );
    let help = String::from_utf8(rocmcheck(&["matrix", "query", "--help"]).stdout).expect("utf-8");
    assert!(
        help.starts_with("Answer \"what should I run"),
        "matrix query --help opens with: {help}"
    );
    let fish = String::from_utf8(rocmcheck(&["completions", "fish"]).stdout).expect("utf-8");
    for needle in [
        "__fish_rocmcheck_using_subcommand lint\" -l build-arg",
        "__fish_rocmcheck_using_subcommand help; and __fish_seen_subcommand_from matrix\" -f -a \"query\"",
    ] {
        assert!(fish.contains(needle), "fish completions lack {needle}");
    }
    let bash = String::from_utf8(rocmcheck(&["completions", "bash"]).stdout).expect("utf-8");
    assert!(bash.contains("rocmcheck__subcmd__help__subcmd__matrix__subcmd__query"));
}
