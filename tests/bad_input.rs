//! Every bad input the suite tries, per command, in one table: what it is, the command line, the
//! exit code and a substring of the message that must name the problem. Each row runs the real
//! binary (in a scratch directory, with a watchdog so that a regression that blocks or runs away
//! fails the row instead of hanging the suite) and checks, besides the code and the message:
//! no panic, and for `lint` rows that the good file linted next to the bad one still has its
//! finding reported (bad input never hides other files' results).
//!
//! The book's Reliability page (`docs/src/reliability.md`) names this file and gives the number
//! of rows; `the_reliability_page_counts_the_rows` keeps that number true.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where the message must appear.
#[derive(Clone, Copy, Debug)]
enum Out {
    Stdout,
    Stderr,
    /// On stderr, about one file: the other files named are still linted (their findings on
    /// stdout).
    File,
}
use Out::{File, Stderr, Stdout};

struct Case {
    /// The command, as the Reliability page groups them.
    cmd: &'static str,
    /// The bad input, in words.
    what: &'static str,
    /// Arguments (paths are relative to the scratch directory).
    args: &'static [&'static str],
    /// Bytes on stdin (none: stdin is closed).
    stdin: Option<Vec<u8>>,
    /// Expected exit code.
    code: i32,
    /// Where the message is.
    out: Out,
    /// A substring of the message.
    expect: &'static str,
}

const fn case(
    cmd: &'static str,
    what: &'static str,
    args: &'static [&'static str],
    code: i32,
    out: Out,
    expect: &'static str,
) -> Case {
    Case {
        cmd,
        what,
        args,
        stdin: None,
        code,
        out,
        expect,
    }
}

/// What `good.Dockerfile` always reports: `lint` rows check it is still there.
const GOOD_FINDING: &str = "good.Dockerfile:1:6: warning[RC401]";

// one row per line: this is a table to read
#[rustfmt::skip]
fn cases() -> Vec<Case> {
    let mut v = vec![
        // ---- lint: files
        case("lint", "a FIFO", &["lint", "fifo.Dockerfile", "good.Dockerfile"], 2, File, "error: fifo.Dockerfile: not a regular file (a FIFO)"),
        case("lint", "a unix socket", &["lint", "sock.Dockerfile", "good.Dockerfile"], 2, File, "error: sock.Dockerfile: not a regular file (a socket)"),
        case("lint", "a character device", &["lint", "/dev/null", "good.Dockerfile"], 2, File, "error: /dev/null: not a regular file (a character device)"),
        case("lint", "a symlink to a FIFO", &["lint", "link.Dockerfile", "good.Dockerfile"], 2, File, "error: link.Dockerfile: not a regular file (a FIFO)"),
        case("lint", "a directory holding a FIFO named Dockerfile (walked past, never opened)", &["lint", "walk"], 0, Stdout, GOOD_FINDING),
        case("lint", "a path that does not exist", &["lint", "missing/Dockerfile", "good.Dockerfile"], 2, File, "error: missing/Dockerfile: no such file or directory"),
        case("lint", "a glob that matches nothing", &["lint", "nothing*.Dockerfile", "good.Dockerfile"], 2, File, "error: nothing*.Dockerfile: the pattern matches no file"),
        case("lint", "invalid UTF-8", &["lint", "latin1.Dockerfile", "good.Dockerfile"], 2, File, "error: latin1.Dockerfile:2:13: invalid UTF-8"),
        case("lint", "a NUL byte (binary)", &["lint", "nul.Dockerfile", "good.Dockerfile"], 2, File, "error: nul.Dockerfile:1:5:"),
        case("lint", "a file over 1 MiB", &["lint", "huge.Dockerfile", "good.Dockerfile"], 2, File, "error: huge.Dockerfile:1:1:"),
        case("lint", "an unknown instruction", &["lint", "frob.Dockerfile", "good.Dockerfile"], 2, File, "error: frob.Dockerfile:2:1: unknown instruction 'FROBNICATE'"),
        case("lint", "no FROM", &["lint", "nofrom.Dockerfile", "good.Dockerfile"], 2, File, "error: nofrom.Dockerfile:1:1: expected at least one FROM instruction"),
        case("lint", "an ARG cycle", &["lint", "cycle.Dockerfile", "good.Dockerfile"], 2, File, "error: cycle.Dockerfile:2:5: ARG cycle: A → B → A"),
        case("lint", "40 doubling ARGs (2^40 bytes)", &["lint", "bomb.Dockerfile", "good.Dockerfile"], 2, File, "error: bomb.Dockerfile:18:5: ARG A17: its value expands to more than 64 KiB"),
        case("lint", "${X:-${X:-…}} nested 10,000 deep", &["lint", "nest.Dockerfile", "good.Dockerfile"], 2, File, "error: nest.Dockerfile:2:5: ARG V: `${A:-${B:-…}}` defaults nest more than 16 deep"),
        case("lint", "80 RUN lines of a 64 KiB ARG", &["lint", "runs.Dockerfile", "good.Dockerfile"], 2, File, "error: runs.Dockerfile:45:17: RUN: this file's substitutions and stage copies come to more than 4 MiB in all"),
        case("lint", "80 copies of a stage holding 64 KiB", &["lint", "copies.Dockerfile", "good.Dockerfile"], 2, File, "error: copies.Dockerfile:45:6: FROM s29: this file's substitutions and stage copies come to more than 4 MiB in all"),
        case("lint", "a devcontainer.json that is not JSON", &["lint", "dc/devcontainer.json", "good.Dockerfile"], 2, File, "error: dc/devcontainer.json:2:"),
        case("lint", "a compose file that is not YAML", &["lint", "docker-compose.yml", "good.Dockerfile"], 2, File, "error: docker-compose.yml:3:1: invalid compose file:"),
        case("lint", "a compose file of flow sequences nested 80,000 deep (160 KB)", &["lint", "deep/compose.yaml", "good.Dockerfile"], 2, File, "error: deep/compose.yaml:4:78: invalid compose file: flow collections (`[` / `{`) nest more than 64 deep"),
        case("lint", "--config of flow mappings nested 80,000 deep", &["lint", "good.Dockerfile", "--config", "deep.yaml"], 2, Stderr, "error: deep.yaml:1:262: flow collections (`[` / `{`) nest more than 64 deep"),
        // ---- lint: big but valid input stays linear (these used to take minutes)
        case("lint", "40,000 chained ARGs (valid; was quadratic)", &["lint", "chain.Dockerfile", "good.Dockerfile"], 0, Stdout, GOOD_FINDING),
        case("lint", "40,000 unrelated stages (valid; was quadratic)", &["lint", "stages.Dockerfile", "good.Dockerfile"], 0, Stdout, GOOD_FINDING),
        case("lint", "`pip install -r` of a FIFO in the context (skipped, never opened)", &["lint", "reqfifo/Dockerfile", "good.Dockerfile"], 0, Stdout, GOOD_FINDING),
        // ---- lint: flags and config
        case("lint", "--gfx that is not a gfx target", &["lint", "good.Dockerfile", "--gfx", "navi31"], 2, Stderr, "error: --gfx navi31:"),
        case("lint", "--fail-on that is not a severity", &["lint", "good.Dockerfile", "--fail-on", "fatal"], 2, Stderr, "`fatal`: expected error, warning or info"),
        case("lint", "--format that does not exist", &["lint", "good.Dockerfile", "--format", "xml"], 2, Stderr, "invalid value 'xml' for '--format"),
        case("lint", "--config that is a FIFO", &["lint", "good.Dockerfile", "--config", "fifo.yaml"], 2, Stderr, "error: fifo.yaml: cannot read: not a regular file (a FIFO)"),
        case("lint", "--config that does not exist", &["lint", "good.Dockerfile", "--config", "missing.yaml"], 2, Stderr, "error: missing.yaml: cannot read: No such file or directory"),
        case("lint", "--config that is a directory", &["lint", "good.Dockerfile", "--config", "dc"], 2, Stderr, "error: dc: cannot read: not a regular file (a directory)"),
        case("lint", "--config with a YAML syntax error", &["lint", "good.Dockerfile", "--config", "syntax.yaml"], 2, Stderr, "error: syntax.yaml:2:"),
        case("lint", "--config with an unknown key", &["lint", "good.Dockerfile", "--config", "unknown-key.yaml"], 2, Stderr, "error: unknown-key.yaml:1:1: unknown field `targetz`"),
        case("lint", "--config with a bad severity", &["lint", "good.Dockerfile", "--config", "bad-severity.yaml"], 2, Stderr, "error: bad-severity.yaml:1:10: fail_on `fatal`: expected error, warning or info"),
        case("lint", "--config with a bad target", &["lint", "good.Dockerfile", "--config", "bad-target.yaml"], 2, Stderr, "error: bad-target.yaml:1:11:"),
        case("lint", "--config that is not UTF-8", &["lint", "good.Dockerfile", "--config", "latin1.yaml"], 2, Stderr, "error: latin1.yaml: cannot read: invalid UTF-8 at byte 9"),
        // ---- lint: typos are usage errors with "did you mean"
        case("lint", "--gfx with a typo (gfx1110)", &["lint", "good.Dockerfile", "--gfx", "gfx1110"], 2, Stderr, "error: --gfx gfx1110: unknown gfx target `gfx1110` (did you mean `gfx1100`?)"),
        case("lint", "--ignore of a code that does not exist", &["lint", "good.Dockerfile", "--ignore", "RC999"], 2, Stderr, "error: --ignore RC999: no rule `RC999`"),
        case("lint", "--ignore of a misspelt rule name", &["lint", "good.Dockerfile", "--ignore", "torch-unpined"], 2, Stderr, "error: --ignore torch-unpined: no rule `torch-unpined` (did you mean `torch-unpinned`?)"),
        case("lint", "--build-arg without = and not in the environment", &["lint", "good.Dockerfile", "--build-arg", "ROCMCHECK_NO_SUCH_VAR"], 2, Stderr, "error: --build-arg ROCMCHECK_NO_SUCH_VAR: expected K=V"),
        case("lint", "--config with a target typo", &["lint", "good.Dockerfile", "--config", "typo-target.yaml"], 2, Stderr, "error: typo-target.yaml:2:5: targets: unknown gfx target `gfx1110` (did you mean `gfx1100`?)"),
        case("lint", "--config ignoring a code that does not exist", &["lint", "good.Dockerfile", "--config", "typo-ignore.yaml"], 2, Stderr, "error: typo-ignore.yaml:1:10: ignore: no rule `RC999`"),
        case("lint", "--config with a severity for a rule that does not exist", &["lint", "good.Dockerfile", "--config", "typo-severity.yaml"], 2, Stderr, "error: typo-severity.yaml:1:12: severity: no rule `RC4O1` (did you mean `RC401`?)"),
        case("lint", "a pragma naming a code that does not exist (a warning, the run goes on)", &["lint", "pragma.Dockerfile", "good.Dockerfile"], 0, File, "warning: pragma.Dockerfile:1: `# rocmcheck ignore=`: no rule `rc999`"),
        case("lint", "a directory with no file to lint", &["lint", "empty-dir"], 2, Stderr, "error: empty-dir: no file to lint in this directory"),
        case("lint", "a directory with no file to lint, next to a file", &["lint", "empty-dir", "good.Dockerfile"], 2, File, "error: empty-dir: no file to lint in this directory"),
        case("lint", "--target naming no stage of the file", &["lint", "good.Dockerfile", "--target", "prod"], 2, Stderr, "error: good.Dockerfile:1:1: --target prod: no build stage of that name"),
        // ---- lint: Python manifests on their own
        case("lint", "a pyproject.toml that is not TOML", &["lint", "toml/pyproject.toml", "good.Dockerfile"], 2, File, "error: toml/pyproject.toml:3:"),
        case("lint", "a uv.lock that is not TOML", &["lint", "lock/uv.lock", "good.Dockerfile"], 2, File, "error: lock/uv.lock:2:"),
        case("lint", "an environment.yml that is not YAML", &["lint", "conda/environment.yml", "good.Dockerfile"], 2, File, "error: conda/environment.yml:4:"),
        case("lint", "a requirements file that is not UTF-8", &["lint", "latin1/requirements.txt", "good.Dockerfile"], 2, File, "error: latin1/requirements.txt:2:"),
        // ---- env
        case("env", "--root that is a file", &["env", "--root", "good.Dockerfile", "--no-python"], 2, Stderr, "error: --root good.Dockerfile: not a directory"),
        case("env", "--root that does not exist", &["env", "--root", "missing", "--no-python"], 2, Stderr, "error: --root missing:"),
        case("env", "--from that does not exist", &["env", "--from", "missing.json"], 2, Stderr, "error: --from missing.json: cannot read: No such file or directory"),
        case("env", "--from that is a FIFO", &["env", "--from", "fifo.json"], 2, Stderr, "error: --from fifo.json: cannot read: not a regular file (a FIFO)"),
        case("env", "--from that is not JSON", &["env", "--from", "good.Dockerfile"], 2, Stderr, "error: --from good.Dockerfile: line 1, column 1:"),
        case("env", "--from JSON of another shape", &["env", "--from", "list.json"], 2, Stderr, "(expected the JSON written by `rocmcheck env --facts`)"),
        case("env", "--timeout 0", &["env", "--timeout", "0"], 2, Stderr, "error: --timeout 0: expected a positive number of seconds"),
        case("env", "--timeout NaN", &["env", "--timeout", "NaN"], 2, Stderr, "error: --timeout NaN: expected a positive number of seconds"),
        case("env", "--facts with --from", &["env", "--facts", "--from", "list.json"], 2, Stderr, "cannot be used with"),
        case("env", "--ignore of a code that does not exist", &["env", "--no-python", "--root", "sysroot", "--ignore", "RC999"], 2, Stderr, "error: --ignore RC999: no rule `RC999`"),
        case("env", "--config with a target typo", &["env", "--no-python", "--root", "sysroot", "--config", "typo-target.yaml"], 2, Stderr, "typo-target.yaml:2:5: targets: unknown gfx target `gfx1110`"),
        case("env", "--config with an unknown key", &["env", "--no-python", "--root", "sysroot", "--config", "unknown-key.yaml"], 2, Stderr, "unknown field `targetz`"),
        // ---- triage
        case("triage", "a paste file that does not exist", &["triage", "missing.txt"], 2, Stderr, "error: missing.txt: cannot read: No such file or directory"),
        case("triage", "--ignore of a code that does not exist", &["triage", "good.Dockerfile", "--ignore", "RC999"], 2, Stderr, "error: --ignore RC999: no rule `RC999`"),
        // ---- matrix validate / --matrix DIR
        case("matrix validate", "--matrix that is not a directory", &["--matrix", "good.Dockerfile", "matrix", "version"], 2, Stderr, "error: --matrix good.Dockerfile: not a directory"),
        case("matrix validate", "a YAML syntax error", &["--matrix", "m-syntax", "matrix", "validate"], 2, Stdout, "gpus.yaml:"),
        case("matrix validate", "a file that is a FIFO", &["--matrix", "m-fifo", "matrix", "validate"], 2, Stdout, "rocm.yaml:1:1: M009 cannot read: not a regular file (a FIFO)"),
        case("matrix validate", "a newer schema", &["--matrix", "m-schema", "matrix", "validate"], 2, Stdout, "M002 schema 999 is newer than this rocmcheck understands"),
        case("matrix validate", "--matrix DIR invalid, used by lint", &["--matrix", "m-syntax", "lint", "good.Dockerfile"], 2, Stderr, "is invalid"),
        // ---- matrix update --from: the bundle and its .minisig are read as regular files only
        case("matrix update", "--from a FIFO", &["matrix", "update", "--offline", "--from", "fifo.tar"], 2, Stderr, "error: matrix update: fifo.tar: not a regular file (a FIFO)"),
        case("matrix update", "--from a bundle whose .minisig is a FIFO", &["matrix", "update", "--offline", "--from", "sigfifo.tar"], 2, Stderr, "error: matrix update: sigfifo.tar.minisig: not a regular file (a FIFO)"),
        case("matrix update", "--from /dev/zero (a device, never read)", &["matrix", "update", "--offline", "--from", "/dev/zero"], 2, Stderr, "error: matrix update: /dev/zero: not a regular file (a character device)"),
        // ---- matrix query / show / export / sync
        case("matrix query", "--gfx of a near miss", &["matrix", "query", "--gfx", "gfx110"], 2, Stderr, "unknown gfx target `gfx110` (did you mean `gfx1100`?)"),
        case("matrix query", "--gfx that is not a gfx name", &["matrix", "query", "--gfx", "navi31"], 2, Stderr, "error: --gfx:"),
        case("matrix query", "--rocm not in the matrix", &["matrix", "query", "--gfx", "gfx1100", "--rocm", "9.9"], 2, Stderr, "error: --rocm: ROCm 9.9 is not in the matrix"),
        case("matrix query", "--torch that is not a version", &["matrix", "query", "--gfx", "gfx1100", "--torch", "latest"], 2, Stderr, "error: --torch:"),
        case("matrix query", "--env without =", &["matrix", "query", "--gfx", "gfx1100", "--env", "HSA_XNACK"], 2, Stderr, "error: --env `HSA_XNACK`: expected KEY=VALUE"),
        case("matrix query", "a missing --gfx", &["matrix", "query"], 2, Stderr, "--gfx <GFX>"),
        case("matrix show", "--gfx unknown", &["matrix", "show", "--gfx", "gfx9999"], 2, Stderr, "error: --gfx: unknown gfx target `gfx9999`"),
        case("matrix show", "--rocm not a version", &["matrix", "show", "--rocm", "six"], 2, Stderr, "error: --rocm:"),
        case("matrix show", "--torch not a version", &["matrix", "show", "--torch", "x.y"], 2, Stderr, "error: --torch:"),
        case("matrix show", "an unknown section", &["matrix", "show", "wheels"], 2, Stderr, "invalid value 'wheels'"),
        case("matrix show", "an unknown subcommand", &["matrix", "frobnicate"], 2, Stderr, "unrecognized subcommand 'frobnicate'"),
        case("matrix export", "--gfx unknown for a GitHub matrix", &["matrix", "export", "--format", "github-matrix", "--gfx", "gfx9999"], 2, Stderr, "error: --gfx: unknown gfx target `gfx9999`"),
        case("sync", "--timeout 0", &["matrix", "sync", "--timeout", "0"], 2, Stderr, "error: --timeout must be a positive number of seconds"),
        case("sync", "an index that refuses connections", &["matrix", "sync", "--no-images", "--retries", "0", "--base-url", "http://127.0.0.1:9/whl", "--amd-index-url", "http://127.0.0.1:9/amd/"], 2, Stderr, "tcp connect error: Connection refused"),
        // ---- build / smoke (dry-run and filters; nothing here reaches an engine)
        case("build", "--filter with an unknown key", &["build", "--dry-run", "--filter", "colour=red"], 2, Stderr, "unknown key \"colour\" (keys: id, candidate, template, torch, rocm, gfx)"),
        case("build", "--filter without =", &["build", "--dry-run", "--filter", "gfx1100"], 2, Stderr, "invalid value 'gfx1100' for '--filter"),
        case("build", "--filter that matches nothing", &["build", "--dry-run", "--filter", "torch=0.1"], 2, Stderr, "error: no candidate matches the filters"),
        case("build", "--candidates-file that does not exist", &["build", "--dry-run", "--candidates-file", "missing.yaml"], 2, Stderr, "error: missing.yaml: No such file or directory"),
        case("build", "--candidates-file that is a FIFO", &["build", "--dry-run", "--candidates-file", "fifo.yaml"], 2, Stderr, "error: fifo.yaml: not a regular file (a FIFO)"),
        case("build", "--candidates-file that is not YAML", &["build", "--dry-run", "--candidates-file", "syntax.yaml"], 2, Stderr, "error: syntax.yaml:"),
        case("build", "--candidates-file naming an unknown template", &["build", "--dry-run", "--candidates-file", "cands-template.yaml"], 2, Stderr, "candidate c1: unknown template \"nope\""),
        case("build", "--jobs 0", &["build", "--jobs", "0"], 2, Stderr, "error: --jobs must be at least 1"),
        case("smoke", "no image named", &["smoke"], 2, Stderr, "error: name one or more IMAGEs, or use --candidates"),
        case("smoke", "--timeout 0", &["smoke", "x:1", "--timeout", "0"], 2, Stderr, "error: --timeout must be a positive number of seconds"),
        case("smoke", "--gpus that is not all, none or a list", &["smoke", "x:1", "--gpus", "some"], 2, Stderr, "invalid value 'some' for '--gpus"),
        case("smoke", "--candidates with a filter that matches nothing", &["smoke", "--candidates", "--filter", "torch=0.1"], 2, Stderr, "error: no candidate matches the filters"),
        case("smoke", "a daemon socket that does not exist", &["smoke", "x:1", "--gpus", "none", "--docker-host", "unix:///nonexistent/docker.sock"], 2, Stderr, "hint: is the daemon running"),
        case("smoke", "--local with a Python that does not exist", &["smoke", "--local", "--python", "/nonexistent/python3"], 2, Stderr, "error: cannot run /nonexistent/python3: No such file or directory"),
        // ---- report
        case("report", "merge of a file that does not exist", &["report", "merge", "missing.json"], 2, Stderr, "error: 1 of 1 result file(s) could not be used"),
        case("report", "merge of a FIFO", &["report", "merge", "fifo.json", "run.json"], 2, Stderr, "fifo.json: cannot read: not a regular file (a FIFO)"),
        // A job's garbled result is that job's `missing` result, never a refusal of the night.
        case("report", "merge of a file that is not JSON", &["report", "merge", "good.Dockerfile"], 0, Stderr, "warning: good.Dockerfile: the job's result file could not be read: good.Dockerfile:1:1: not valid JSON"),
        case("report", "merge of the same candidate twice", &["report", "merge", "run.json", "run.json"], 2, Stderr, "is in both run.json and run.json"),
        case("report", "merge of a newer results schema", &["report", "merge", "schema.json"], 0, Stderr, "schema.json: results_schema 99 is not supported (this rocmcheck reads 1); recorded as `missing`"),
        case("report", "diff against a file that is not JSON", &["report", "diff", "good.Dockerfile", "run.json"], 2, Stderr, "good.Dockerfile:1:1: not valid JSON"),
        case("report", "render of a JSON list of non-results", &["report", "render", "list.json"], 2, Stderr, "list.json: item 0:"),
        case("report", "render --format that does not exist", &["report", "render", "run.json", "--format", "html"], 2, Stderr, "invalid value 'html' for '--format"),
        // ---- rules and global flags
        case("rules", "--explain of a code that does not exist", &["rules", "--explain", "RC999"], 2, Stderr, "error: no rule `RC999`"),
        case("global", "--color that does not exist", &["--color", "sometimes", "matrix", "version"], 2, Stderr, "invalid value 'sometimes' for '--color"),
        case("global", "no subcommand", &[], 2, Stderr, "Usage: rocmcheck"),
    ];
    // ---- stdin
    v.push(Case {
        stdin: Some(b"FROM x\nRUN \xe9\n".to_vec()),
        ..case("stdin", "invalid UTF-8 on stdin", &["lint", "-", "good.Dockerfile"], 2, File, "error: -:2:5: invalid UTF-8")
    });
    v.push(Case {
        stdin: Some(bomb(40).into_bytes()),
        ..case("stdin", "an expansion bomb on stdin", &["lint", "-", "good.Dockerfile"], 2, File, "error: -:18:5: ARG A17: its value expands to more than 64 KiB")
    });
    v.push(Case {
        stdin: Some(vec![b'#'; (1 << 20) + 10]),
        ..case("stdin", "more than 1 MiB on stdin", &["lint", "-", "good.Dockerfile"], 2, File, "error: -:1:1:")
    });
    v
}

/// `ARG A0=x`, `ARG A1=${A0}${A0}`, … `FROM rocm/dev-ubuntu-22.04:${A<n-1>}`.
fn bomb(n: usize) -> String {
    let mut s = String::from("ARG A0=x\n");
    for i in 1..n {
        s += &format!("ARG A{i}=${{A{p}}}${{A{p}}}\n", p = i - 1);
    }
    s + &format!("FROM rocm/dev-ubuntu-22.04:${{A{}}}\n", n - 1)
}

/// A 64 KiB ARG (`A12`, 16 bytes doubled 12 times) in a stage named s0, on lines 2 to 14.
fn big_arg_stage() -> String {
    let mut s = String::from("FROM rocm/dev-ubuntu-24.04:7.2.4 AS s0\nARG A0=xxxxxxxxxxxxxxxx\n");
    for i in 1..13 {
        s += &format!("ARG A{i}=${{A{p}}}${{A{p}}}\n", p = i - 1);
    }
    s
}

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo")
        .arg(p)
        .status()
        .expect("mkfifo (coreutils) is needed for the FIFO rows");
    assert!(st.success(), "mkfifo {}", p.display());
}

/// The scratch directory every row runs in.
fn scratch() -> (tempfile::TempDir, std::os::unix::net::UnixListener) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let w = |name: &str, body: &[u8]| {
        let p = d.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    // the file every lint row lints next to the bad one: one warning, RC401 (a moving tag)
    w("good.Dockerfile", b"FROM rocm/pytorch\n");
    mkfifo(&d.join("fifo.Dockerfile"));
    mkfifo(&d.join("fifo.yaml"));
    mkfifo(&d.join("fifo.json"));
    mkfifo(&d.join("fifo.tar"));
    // nesting that makes the YAML parser's token fetch quadratic (160 KB took 11 s)
    let n = 80_000;
    w(
        "deep/compose.yaml",
        format!(
            "services:\n  a:\n    image: rocm/pytorch:latest\n    command: {}{}\n",
            "[".repeat(n),
            "]".repeat(n)
        )
        .as_bytes(),
    );
    w(
        "deep.yaml",
        format!("ignore: [{}{}]\n", "{a: ".repeat(n), "}".repeat(n)).as_bytes(),
    );
    w("sigfifo.tar", b"not read: its signature is first refused");
    mkfifo(&d.join("sigfifo.tar.minisig"));
    std::os::unix::fs::symlink("fifo.Dockerfile", d.join("link.Dockerfile")).unwrap();
    w("walk/good.Dockerfile", b"FROM rocm/pytorch\n");
    mkfifo(&d.join("walk/Dockerfile"));
    let sock = std::os::unix::net::UnixListener::bind(d.join("sock.Dockerfile")).unwrap();
    w(
        "latin1.Dockerfile",
        b"FROM rocm/dev-ubuntu-24.04:7.2.4\nRUN echo caf\xe9\n",
    );
    w("nul.Dockerfile", b"FROM\0rocm/dev-ubuntu-24.04:7.2.4\n");
    w("huge.Dockerfile", &vec![b'#'; (1 << 20) + 1]);
    w("frob.Dockerfile", b"FROM rocm/dev-ubuntu-24.04:7.2.4\nFROBNICATE now\n");
    w("nofrom.Dockerfile", b"ARG X=1\n");
    w(
        "cycle.Dockerfile",
        b"FROM rocm/dev-ubuntu-24.04:7.2.4\nARG A=${B}\nARG B=${A}\n",
    );
    w("bomb.Dockerfile", bomb(40).as_bytes());
    // 10,000 deep fits BuildKit's 65,535-byte line limit (6 bytes a level), so the nesting
    // check itself is what refuses it (a longer line is refused earlier, for its length)
    let deep = "${X:-".repeat(10_000) + "x" + &"}".repeat(10_000);
    w(
        "nest.Dockerfile",
        format!("FROM rocm/dev-ubuntu-24.04:7.2.4\nARG V={deep}\n").as_bytes(),
    );
    // each RUN line costs 128 KiB (the command, then its words): the 31st (line 45) is refused
    let runs = big_arg_stage() + &"RUN pip install ${A12}\n".repeat(80);
    w("runs.Dockerfile", runs.as_bytes());
    // each `FROM s<i> AS s<i+1>` copies the 64 KiB ENV (and the stage's variables): the copy
    // on line 45 is over the budget
    let mut copies = big_arg_stage() + "ENV E=${A12}\n";
    for i in 1..80 {
        copies += &format!("FROM s{} AS s{i}\n", i - 1);
    }
    w("copies.Dockerfile", copies.as_bytes());
    w(
        "dc/devcontainer.json",
        b"{\n  \"runArgs\": [\"--device=/dev/kfd\" \"x\"\n}\n",
    );
    w("docker-compose.yml", b"services:\n  app: [unclosed\n");
    w(
        "toml/pyproject.toml",
        b"[project]\nname = \"x\"\ndependencies = [\"torch\"\n",
    );
    w("lock/uv.lock", b"version = 1\n[[package]\nname = \"torch\"\n");
    w("conda/environment.yml", b"name: x\ndependencies:\n  - [unclosed\n");
    w("latin1/requirements.txt", b"numpy\ntorch==2.5.1 # caf\xe9\n");
    let mut chain = String::from("FROM rocm/dev-ubuntu-24.04:7.2.4\nARG A0=x\n");
    for i in 1..40_000 {
        chain += &format!("ARG A{i}=$A{}\n", i - 1);
    }
    w("chain.Dockerfile", chain.as_bytes());
    let stages: String = (0..40_000).map(|i| format!("FROM scratch AS s{i}\n")).collect();
    w("stages.Dockerfile", stages.as_bytes());
    w(
        "reqfifo/Dockerfile",
        b"FROM rocm/dev-ubuntu-24.04:7.2.4\nCOPY req.txt .\nRUN pip install -r req.txt\n",
    );
    mkfifo(&d.join("reqfifo/req.txt"));
    w("syntax.yaml", b"targets: [gfx1100\nignore: x\n");
    w("unknown-key.yaml", b"targetz: [gfx1100]\n");
    w("bad-severity.yaml", b"fail_on: fatal\n");
    w("bad-target.yaml", b"targets: [navi31]\n");
    w("latin1.yaml", b"targets: \xe9\n");
    w("typo-target.yaml", b"targets:\n  - gfx1110\n");
    w("typo-ignore.yaml", b"ignore: [RC999]\n");
    w("typo-severity.yaml", b"severity: {RC4O1: error}\n");
    // the pragma silences RC401 (a real rule) and names RC999 (none)
    w(
        "pragma.Dockerfile",
        b"# rocmcheck ignore=RC999,RC401\nFROM rocm/pytorch\n",
    );
    std::fs::create_dir_all(d.join("empty-dir/sub")).unwrap();
    w("empty-dir/sub/notes.txt", b"no Dockerfile here\n");
    w("list.json", b"[1, 2]\n");
    w("cands-template.yaml", b"candidates:\n  - id: c1\n    template: nope\n");
    w("schema.json", b"{\"results_schema\": 99, \"candidates\": []}\n");
    std::fs::create_dir_all(d.join("sysroot")).unwrap();
    // a run of recorded results (the report rows read it)
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/night-1.json"),
        d.join("run.json"),
    )
    .unwrap();
    // matrices: a copy of the embedded one, then broken
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("matrix");
    for m in ["m-syntax", "m-fifo", "m-schema"] {
        std::fs::create_dir_all(d.join(m)).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                std::fs::copy(e.path(), d.join(m).join(e.file_name())).unwrap();
            }
        }
    }
    std::fs::write(d.join("m-syntax/gpus.yaml"), "gpus:\n  - gfx: [unclosed\n").unwrap();
    std::fs::remove_file(d.join("m-fifo/rocm.yaml")).unwrap();
    mkfifo(&d.join("m-fifo/rocm.yaml"));
    let top = std::fs::read_to_string(src.join("matrix.yaml")).unwrap();
    let schema = top
        .lines()
        .map(|l| {
            if l.starts_with("schema:") {
                "schema: 999".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(d.join("m-schema/matrix.yaml"), schema).unwrap();
    (dir, sock)
}

/// Runs the binary in `dir` with a watchdog; (code, stdout, stderr).
fn run(dir: &Path, c: &Case) -> (i32, String, String) {
    let (o, e) = (dir.join(".out"), dir.join(".err"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocmcheck"));
    cmd.args(c.args)
        .current_dir(dir)
        .env_remove("ROCMCHECK_MATRIX")
        .env_remove("DOCKER_HOST")
        .env("ROCMCHECK_CACHE_DIR", dir.join(".cache"))
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap())
        .stdin(if c.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = &c.stdin {
        use std::io::Write;
        let mut si = child.stdin.take().unwrap();
        let input = input.clone();
        // a writer thread: the binary may stop reading at its cap
        std::thread::spawn(move || {
            let _ = si.write_all(&input);
        });
    }
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "[{}] {}: still running after 90 s (blocked or unbounded work): rocmcheck {:?}",
                c.cmd, c.what, c.args
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    (status.code().unwrap_or(-1), read(&o), read(&e))
}

#[test]
fn every_bad_input_gets_its_exit_code_and_a_message_that_names_it() {
    let (dir, _sock) = scratch();
    let d = dir.path();
    let mut failures = Vec::new();
    for c in cases() {
        let (code, stdout, stderr) = run(d, &c);
        let shown = match c.out {
            Stdout => &stdout,
            Stderr | File => &stderr,
        };
        let mut why = Vec::new();
        if code != c.code {
            why.push(format!("exit code {code}, expected {}", c.code));
        }
        if !shown.contains(c.expect) {
            why.push(format!("{:?} does not contain {:?}", c.out, c.expect));
        }
        if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
            why.push("it panicked".into());
        }
        // a file-level problem must leave the other file's findings; a bad flag or config stops
        // the command before any file is read
        let per_file = matches!(c.out, File) && c.args.first() == Some(&"lint");
        if c.code == 2 && matches!(c.out, File) && stdout.contains("No findings") {
            why.push("the summary says \"No findings\" with exit 2".into());
        }
        if per_file && c.args.contains(&"good.Dockerfile") && !stdout.contains(GOOD_FINDING) {
            why.push("the good file's finding is missing: bad input hid other results".into());
        }
        if !why.is_empty() {
            failures.push(format!(
                "[{}] {} (rocmcheck {}):\n  {}\n  --- stdout:\n{}\n  --- stderr:\n{}",
                c.cmd,
                c.what,
                c.args.join(" "),
                why.join("\n  "),
                stdout.chars().take(1500).collect::<String>(),
                stderr.chars().take(1500).collect::<String>()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} row(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_command_has_rows_and_no_row_is_listed_twice() {
    let cases = cases();
    for cmd in [
        "lint",
        "env",
        "matrix validate",
        "matrix query",
        "matrix show",
        "build",
        "smoke",
        "report",
        "sync",
        "stdin",
    ] {
        assert!(cases.iter().any(|c| c.cmd == cmd), "no bad-input row for {cmd}");
    }
    let mut seen = std::collections::BTreeSet::new();
    for c in &cases {
        assert!(seen.insert((c.cmd, c.what)), "row listed twice: [{}] {}", c.cmd, c.what);
    }
}

#[test]
fn the_reliability_page_counts_the_rows() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/reliability.md");
    let page = std::fs::read_to_string(page).unwrap();
    let n = cases().len();
    let want = format!("`tests/bad_input.rs` runs {n} bad inputs");
    assert!(page.contains(&want), "docs/src/reliability.md must say: {want}");
}
