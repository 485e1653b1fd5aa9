//! `triage` reads any input in time linear in its size. For each reader's worst
//! input (`tests/triage/worst/*.txt`: a unit repeated, each repetition a distinct GPU, name,
//! parameter or package — the shapes that made lookups grow with the input), the time per
//! megabyte at the large size must stay within a generous factor of the time per megabyte at
//! the small size. A quadratic path makes the ratio grow with the size factor (16× here); a
//! linear one keeps it near 1 whatever the machine's load, because both sizes run in the same
//! moment and the fastest of three runs is compared. The release figures (1 MB, 10 MB) are
//! `benches/triage.sh`'s.
//!
//! Sizes: `ROCMCHECK_SCALING_KB=SMALL,LARGE` (default `40,1280`: 32×, so that a debug build
//! runs it in a few minutes; `100,10240` checks the 100 KB → 10 MB range,
//! `ROCMCHECK_SCALING_KB=100,10240 cargo test --release --test triage_scaling`).

use rocmcheck::matrix::Matrix;
use rocmcheck::triage::{self, Input};
use std::path::Path;
use std::time::{Duration, Instant};

/// The worst input `name` grown to at least `bytes` bytes.
pub fn worst_input(text: &str, bytes: usize) -> String {
    let (head, unit) = match text.split_once("%%unit\n") {
        Some((h, u)) => (h, u),
        None => ("", text),
    };
    let mut out = String::with_capacity(bytes + unit.len() * 2);
    out.push_str(head);
    let mut n = 0u64;
    while out.len() < bytes {
        out.push_str(&unit.replace("{n}", &n.to_string()));
        n += 1;
    }
    out
}

fn fastest(text: &str, m: &Matrix) -> Duration {
    let input = [Input {
        name: "worst.txt".into(),
        text: text.to_string(),
    }];
    (0..2)
        .map(|_| {
            let t = Instant::now();
            let r = triage::triage(&input, m);
            std::hint::black_box(&r);
            t.elapsed()
        })
        .min()
        .unwrap()
}

#[test]
fn time_per_megabyte_stays_flat_for_every_worst_input() {
    let (small, large) = std::env::var("ROCMCHECK_SCALING_KB")
        .ok()
        .and_then(|v| {
            let (a, b) = v.split_once(',')?;
            Some((a.trim().parse::<usize>().ok()?, b.trim().parse::<usize>().ok()?))
        })
        .unwrap_or((40, 1280));
    let factor = large as f64 / small as f64;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/triage/worst");
    let m = Matrix::embedded();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "{} worst inputs", cases.len());
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for p in &cases {
        let text = std::fs::read_to_string(p).unwrap();
        let a = worst_input(&text, small << 10);
        let b = worst_input(&text, large << 10);
        // the readers must see what the shape is about: something is read
        let t = triage::triage(
            &[Input {
                name: "w".into(),
                text: a.clone(),
            }],
            m,
        );
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            !t.provenance.is_empty() || !t.summary.formats.is_empty(),
            "{name}: nothing read"
        );
        let (ta, tb) = (fastest(&a, m), fastest(&b, m));
        let per_mb = |d: Duration, len: usize| d.as_secs_f64() / (len as f64 / 1e6);
        let ratio = per_mb(tb, b.len()) / per_mb(ta, a.len()).max(1e-9);
        rows.push(format!(
            "{name:28} {:>8.1} ms/MB at {small} KB  {:>8.1} ms/MB at {large} KB  ratio {ratio:.2}",
            per_mb(ta, a.len()) * 1e3,
            per_mb(tb, b.len()) * 1e3
        ));
        // linear: ~1; quadratic: ~factor. Generous for a loaded 2-core machine.
        if ratio > (factor / 8.0).max(2.5) {
            bad.push(name);
        }
    }
    std::io::Write::write_all(&mut std::io::stderr(), format!("{}\n", rows.join("\n")).as_bytes()).unwrap();
    assert!(
        bad.is_empty(),
        "time per MB grows with the input for {bad:?}:\n{}",
        rows.join("\n")
    );
}

/// The check above can fail: a reader that compares every line with every earlier one shows a
/// ratio near the size factor (here a stand-in, timed the same way).
#[test]
fn a_quadratic_scan_would_be_caught() {
    let quadratic = |text: &str| {
        let lines: Vec<&str> = text.lines().collect();
        let mut same = 0usize;
        for (i, a) in lines.iter().enumerate() {
            same += lines[..i].iter().filter(|b| *b == a).count();
        }
        same
    };
    let time = |text: &str| {
        (0..3)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(quadratic(text));
                t.elapsed()
            })
            .min()
            .unwrap()
    };
    let a = worst_input("%%unit\nline {n}\n", 5 << 10);
    let b = worst_input("%%unit\nline {n}\n", 80 << 10);
    let ratio = (time(&b).as_secs_f64() / b.len() as f64) / (time(&a).as_secs_f64() / a.len() as f64);
    assert!(ratio > 4.0, "ratio {ratio:.2}");
}
