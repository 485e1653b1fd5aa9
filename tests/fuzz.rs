//! The fuzz targets (`fuzz/bodies/*.rs`) on stable Rust: every seed is replayed, then the seeds
//! are mutated for a fixed time per target (`ROCMCHECK_FUZZ_SECONDS`, 2 s when unset; `.ci/run`
//! gives each target more). A panic, or one input taking longer than `SLOW` (a quadratic path),
//! fails the test; the input is written to `target/fuzz-failures/<target>-<hash>` and named in the
//! message, to be added to `fuzz/seeds/<target>/` once fixed.
//!
//! The mutator is a small deterministic one (seeded by `ROCMCHECK_FUZZ_SEED`, else the clock, and
//! printed): bit and byte flips, insertions and removals of byte runs, a run repeated (nesting,
//! long lines), a splice of two inputs, and the target's libFuzzer dictionary tokens inserted.
//! It has no coverage feedback: cargo-fuzz (nightly, `fuzz/fuzz_targets/`) remains the deep
//! search; this job keeps every seed and its near neighbours passing on each CI run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "../fuzz/bodies/parse_resolve.rs"]
mod parse_resolve;
#[path = "../fuzz/bodies/triage_readers.rs"]
mod triage_readers;

/// The longest one input may take (debug build, loaded machine) before it counts as a hang.
const SLOW: Duration = Duration::from_secs(20);
/// The largest mutated input (the targets' seeds are a few KB; a run repeated grows them).
const MAX_INPUT: usize = 256 << 10;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The seeds of a target: its own (`fuzz/seeds/<target>`) and the corpus folders its cargo-fuzz
/// command names.
fn seeds(target: &str, dirs: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let own = format!("fuzz/seeds/{target}");
    for d in std::iter::once(own.as_str()).chain(dirs.iter().copied()) {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(d))
            .unwrap_or_else(|e| panic!("{d}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
            .collect();
        files.sort();
        for p in files {
            let name = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
            out.push((name, std::fs::read(&p).unwrap()));
        }
    }
    out
}

/// The quoted tokens of a libFuzzer dictionary (`"..."` with `\\`, `\"`, `\n`, `\t`, `\xNN`).
fn dictionary(file: &str) -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let mut tokens = Vec::new();
    for line in text.lines().map(str::trim) {
        let Some(body) = line.strip_prefix('"').and_then(|l| l.strip_suffix('"')) else {
            continue;
        };
        let (mut t, b) = (Vec::new(), body.as_bytes());
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\\' && i + 3 < b.len() && b[i + 1] == b'x' {
                let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap_or("");
                t.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 4;
            } else if b[i] == b'\\' && i + 1 < b.len() {
                t.push(match b[i + 1] {
                    b'n' => b'\n',
                    b't' => b'\t',
                    c => c,
                });
                i += 2;
            } else {
                t.push(b[i]);
                i += 1;
            }
        }
        tokens.push(t);
    }
    tokens
}

/// xorshift64*: deterministic for a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

fn mutate(rng: &mut Rng, input: &[u8], other: &[u8], dict: &[Vec<u8>]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(7) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = [0, b'\n', b'\r', b'\\', b'`', b'$', b'{', b'[', b'"', b':', 0xff][rng.below(11)];
            }
            2 => {
                let end = (at + 1 + rng.below(32)).min(v.len());
                v.drain(at.min(end)..end);
            }
            3 => {
                let n = rng.below(16) + 1;
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                v.splice(at..at, bytes);
            }
            4 if !v.is_empty() => {
                // a run repeated: deeper nesting, longer lines, many keys
                let start = rng.below(v.len());
                let end = (start + 1 + rng.below(64)).min(v.len());
                let run = v[start..end].to_vec();
                let times = 1 + rng.below(64);
                for _ in 0..times {
                    v.splice(end..end, run.iter().copied());
                }
            }
            5 if !other.is_empty() => {
                let from = rng.below(other.len());
                let to = (from + rng.below(256)).min(other.len());
                v.splice(at..at, other[from..to].iter().copied());
            }
            _ if !dict.is_empty() => {
                let t = &dict[rng.below(dict.len())];
                v.splice(at..at, t.iter().copied());
            }
            _ => {}
        }
    }
    v.truncate(MAX_INPUT);
    v
}

/// Runs `body` on `input`; `Err` with the saved input's path on a panic or a hang.
fn try_one(target: &str, what: &str, body: fn(&[u8]), input: &[u8]) -> Result<(), String> {
    let start = Instant::now();
    let r = catch_unwind(AssertUnwindSafe(|| body(input)));
    let took = start.elapsed();
    let why = match r {
        Err(_) => "panicked".to_string(),
        Ok(()) if took > SLOW => format!("took {took:?} (over {SLOW:?})"),
        Ok(()) => return Ok(()),
    };
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut h = DefaultHasher::new();
    input.hash(&mut h);
    let dir = root().join("target/fuzz-failures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{target}-{:016x}", h.finish()));
    std::fs::write(&path, input).unwrap();
    Err(format!("{target}: {what} {why}; input saved to {}", path.display()))
}

fn budget() -> Duration {
    let secs = std::env::var("ROCMCHECK_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(2.0);
    Duration::from_secs_f64(secs.max(0.0))
}

fn fuzz(target: &str, body: fn(&[u8]), dirs: &[&str], dict: &str) {
    let seeds = seeds(target, dirs);
    assert!(seeds.len() > 10, "{target}: only {} seed(s) found", seeds.len());
    let mut failures = Vec::new();
    for (name, s) in &seeds {
        if let Err(e) = try_one(target, &format!("seed {name}"), body, s) {
            failures.push(e);
        }
    }
    let dict = dictionary(dict);
    let seed = std::env::var("ROCMCHECK_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        })
        | 1;
    let mut rng = Rng(seed);
    let (start, budget) = (Instant::now(), budget());
    let mut runs = 0u64;
    while start.elapsed() < budget && failures.len() < 5 {
        let a = &seeds[rng.below(seeds.len())].1;
        let b = &seeds[rng.below(seeds.len())].1;
        let input = mutate(&mut rng, a, b, &dict);
        if let Err(e) = try_one(
            target,
            &format!("mutant {runs} (ROCMCHECK_FUZZ_SEED={seed})"),
            body,
            &input,
        ) {
            failures.push(e);
        }
        runs += 1;
    }
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "{target}: {} seed(s) replayed, {runs} mutant(s) in {:.1} s (ROCMCHECK_FUZZ_SEED={seed}), {} failure(s)",
        seeds.len(),
        start.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn parse_resolve_seeds_and_mutants() {
    fuzz(
        "parse_resolve",
        parse_resolve::run,
        &["tests/corpus", "tests/fixtures/dockerfiles"],
        "fuzz/parse_resolve.dict",
    );
}

#[test]
fn triage_readers_seeds_and_mutants() {
    fuzz(
        "triage_readers",
        triage_readers::run,
        &["tests/triage/corpus", "tests/triage/worst"],
        "fuzz/triage_readers.dict",
    );
}

/// The harness catches what it is for: a body that panics on one byte pattern fails on the
/// input that has it, the input is saved, and an input without it passes.
#[test]
fn the_harness_catches_a_panic_and_saves_the_input() {
    fn body(d: &[u8]) {
        assert!(!d.windows(2).any(|w| w == b"{["), "planted bug");
    }
    let e = try_one("planted", "seed", body, b"a: {[1]}").unwrap_err();
    assert!(e.contains("panicked") && e.contains("fuzz-failures/planted-"), "{e}");
    let path = e.rsplit("input saved to ").next().unwrap();
    assert_eq!(std::fs::read(path).unwrap(), b"a: {[1]}");
    let _ = std::fs::remove_file(path);
    assert!(try_one("planted", "seed", body, b"a: [1]").is_ok());
}
