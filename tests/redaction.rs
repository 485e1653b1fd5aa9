//! Credentials quoted by a finding (its title, evidence, fix), a header, a note or a source
//! snippet are redacted in every output format of `lint` and `triage`, and in `triage --facts`.
//!
//! The inputs set HIP's debugging switches to token-shaped values: the debug-setting rule
//! (RC207) quotes `NAME=value` in its title and evidence, so every format would print them. The
//! token shapes are the documented formats (Slack `xoxb-`, GitLab `glpat-`, GitHub `ghp_`,
//! Hugging Face `hf_`, a JSON Web Token), made up here.

use std::process::Command;

const SECRETS: &[(&str, &str)] = &[
    ("AMD_LOG_LEVEL", "xoxb-1234567890-abcdefghijklmnop"),
    ("AMD_SERIALIZE_KERNEL", "glpat-abcdefghij0123456789xyz"),
    ("AMD_SERIALIZE_COPY", "ghp_ABCDEFGHIJKLMNOPQRSTuvwxyz0123456789"),
    ("HIP_LAUNCH_BLOCKING", "hf_abcdefghijABCDEFGHIJ0123"),
    (
        "CUDA_LAUNCH_BLOCKING",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZSIsImlhdCI6MX0.c2lnbmF0dXJlX3BhcnRfaGVyZQ",
    ),
];

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
}

/// Runs `args` on the inputs and checks that no secret (nor its first 12 characters) is in the
/// output and that the findings that quoted them are there, redacted.
fn check(args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut dockerfile = String::from("FROM rocm/dev-ubuntu-24.04:7.2\n");
    let mut paste = String::from("```\n");
    for (name, value) in SECRETS {
        dockerfile.push_str(&format!("ENV {name}=\"{value}\"\n"));
        paste.push_str(&format!("export {name}=\"{value}\"\n"));
    }
    paste.push_str("```\n");
    let file = if args[0] == "lint" {
        std::fs::write(dir.path().join("Dockerfile"), dockerfile).unwrap();
        "Dockerfile"
    } else {
        std::fs::write(dir.path().join("issue.txt"), paste).unwrap();
        "issue.txt"
    };
    let o = bin()
        .current_dir(dir.path())
        .args(&args[..1])
        .arg(file)
        .args(&args[1..])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    for (name, value) in SECRETS {
        assert!(
            !out.contains(&value[..12]),
            "{args:?}: {name}'s value is printed:\n{out}"
        );
    }
    assert!(
        out.contains("[redacted]"),
        "{args:?}: nothing quoted, nothing checked:\n{out}"
    );
    if !args.contains(&"--facts") {
        assert!(
            out.contains("RC207"),
            "{args:?}: the findings that quote the values:\n{out}"
        );
    }
}

macro_rules! per_format {
    ($($test:ident: $($arg:literal),+;)+) => {
        $(
            #[test]
            fn $test() {
                check(&[$($arg),+]);
            }
        )+
    };
}

per_format! {
    lint_human: "lint", "--format", "human";
    lint_concise: "lint", "--format", "concise";
    lint_json: "lint", "--format", "json";
    lint_sarif: "lint", "--format", "sarif";
    lint_github: "lint", "--format", "github";
    lint_checkstyle: "lint", "--format", "checkstyle";
    lint_markdown: "lint", "--format", "markdown";
    triage_human: "triage", "--format", "human";
    triage_concise: "triage", "--format", "concise";
    triage_json: "triage", "--format", "json";
    triage_sarif: "triage", "--format", "sarif";
    triage_github: "triage", "--format", "github";
    triage_checkstyle: "triage", "--format", "checkstyle";
    triage_markdown: "triage", "--format", "markdown";
    triage_facts: "triage", "--facts";
}
