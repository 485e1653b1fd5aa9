//! Helpers shared by the integration tests (`mod support;` in a test file). Each test file is
//! its own crate and uses a part of this module, hence the `dead_code` allowance.
//!
//! - [`bin`]: the rocmcheck binary under test;
//! - [`docker_gate`]: the Docker engine check every engine-backed test starts with;
//! - [`base_image`]: a cached Debian base image made by `make-base-image.sh`;
//! - [`docker`] / [`docker_lines`]: run the docker CLI;
//! - [`Mutator`]: the deterministic byte mutator of the mutation runs;
//! - [`copy_tree`], [`kind_of`], [`root`]: fixtures on disk.
//!
//! `pty.rs` (the pseudo-terminal runner) stays a separate module, included by the tests that
//! need it with `#[path = "support/pty.rs"] mod pty;`.
#![allow(dead_code)]

use rocmcheck::dockerfile::Kind;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The rocmcheck binary this test run built, as a command to add arguments to.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
}

/// `docker ARGS`, its output (never fails: the caller asserts on the status).
pub fn docker(args: &[&str]) -> Output {
    Command::new("docker").args(args).output().expect("run docker")
}

/// The non-empty lines `docker ARGS` printed on stdout.
pub fn docker_lines(args: &[&str]) -> Vec<String> {
    String::from_utf8_lossy(&docker(args).stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether the Docker tests of `what` run: false (after a loud notice on stderr) when
/// `ROCMCHECK_SKIP_DOCKER=1` asks to skip them knowingly; true when the engine answers; a panic
/// (the test fails) when it does not, since these tests need the real engine.
#[allow(clippy::disallowed_macros)]
pub fn docker_gate(what: &str) -> bool {
    if std::env::var("ROCMCHECK_SKIP_DOCKER").as_deref() == Ok("1") {
        let bar = "!".repeat(78);
        eprintln!("\n{bar}\n!!! ROCMCHECK_SKIP_DOCKER=1: {what}: NOT run.\n{bar}\n");
        return false;
    }
    match Command::new("docker")
        .args(["info", "--format", "{{.ServerVersion}}"])
        .output()
    {
        Ok(o) if o.status.success() => true,
        Ok(o) => panic!(
            "Docker is not reachable (`docker info` failed: {}); {what} cannot run without the \
             real engine; set ROCMCHECK_SKIP_DOCKER=1 to skip knowingly.",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => panic!("cannot run `docker`: {e}; {what}: set ROCMCHECK_SKIP_DOCKER=1 to skip knowingly"),
    }
}

/// Makes (or finds cached) the base image `tag`: Debian `suite` with python3 and `packages`,
/// by `tests/support/make-base-image.sh` (debootstrap from the tests' cache, `docker import`,
/// labelled `org.rocmcheck.test=1`). Fails the test when it cannot.
pub fn base_image(tag: &str, suite: &str, packages: &[&str]) {
    let st = Command::new(root().join("tests/support/make-base-image.sh"))
        .arg(tag)
        .arg(suite)
        .args(packages)
        .status()
        .expect("run make-base-image.sh");
    let mut args = vec![tag, suite];
    args.extend_from_slice(packages);
    assert!(st.success(), "make-base-image.sh {args:?} failed");
}

/// A deterministic byte mutator (xorshift64): inserts tokens, deletes runs, overwrites bytes.
pub struct Mutator {
    state: u64,
}

impl Mutator {
    pub fn new(seed: u64) -> Mutator {
        Mutator { state: seed }
    }

    pub fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    /// `seed` with 1 to `max_edits` edits: a token of `tokens` inserted, up to `max_drain - 1`
    /// bytes deleted, or one byte overwritten, each at a random position.
    pub fn mutate(&mut self, seed: &[u8], tokens: &[&[u8]], max_edits: u64, max_drain: usize) -> Vec<u8> {
        let mut d = seed.to_vec();
        for _ in 0..(1 + self.next() % max_edits) {
            let pos = if d.is_empty() {
                0
            } else {
                (self.next() as usize) % d.len()
            };
            match self.next() % 3 {
                0 => {
                    let t = tokens[(self.next() as usize) % tokens.len()];
                    d.splice(pos..pos, t.iter().copied());
                }
                1 if !d.is_empty() => {
                    let end = (pos + (self.next() as usize % max_drain)).min(d.len());
                    d.drain(pos..end);
                }
                _ if !d.is_empty() => d[pos] = self.next() as u8,
                _ => {}
            }
        }
        d
    }
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// The kind of a fixture file, by its name: `.json` devcontainer, `.yaml`/`.yml` compose, else a
/// Dockerfile.
pub fn kind_of(p: &Path) -> Kind {
    let n = p.file_name().unwrap().to_str().unwrap();
    if n.ends_with(".json") {
        Kind::Devcontainer
    } else if n.ends_with(".yaml") || n.ends_with(".yml") {
        Kind::Compose
    } else {
        Kind::Dockerfile
    }
}
