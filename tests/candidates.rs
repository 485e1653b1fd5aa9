//! The candidate set as the binary plans it: `build --dry-run` and `matrix export` (what the
//! nightly consumes) list the same candidates for the same options, and the counts in the book's
//! build-and-smoke page are generated from the binary (regenerate with
//! `UPDATE_DOCS=1 cargo test --test candidates`).

use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

/// Runs the binary in an empty folder (no `.rocmcheck.yaml` above it in a temp dir).
fn run(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "400")
        .output()
        .expect("run rocmcheck");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn dry_run(dir: &std::path::Path, opts: &[&str]) -> Value {
    let mut args = vec!["build", "--dry-run", "--format", "json"];
    args.extend(opts);
    let (code, out, err) = run(dir, &args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"))
}

fn export(dir: &std::path::Path, format: &str, opts: &[&str]) -> (Value, String) {
    let mut args = vec!["matrix", "export", "--format", format, "--max-jobs", "100000"];
    args.extend(opts);
    let (code, out, err) = run(dir, &args);
    assert_eq!(code, 0, "{args:?}: {err}");
    (
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}")),
        err,
    )
}

const OPTION_SETS: &[&[&str]] = &[
    &[],
    &["--gfx", "gfx1100"],
    &["--gfx", "gfx942", "--gfx", "gfx1100"],
    &["--amd-images"],
    &["--amd-images", "--gfx", "gfx942"],
    &["--answers", "1", "--gfx", "gfx90a"],
    &["--filter", "torch=2.13"],
    &["--all"],
    &["--all", "--gfx", "gfx1100"],
    &["--all", "--filter", "gfx=gfx906"],
];

#[test]
fn build_dry_run_and_matrix_export_list_the_same_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for opts in OPTION_SETS {
        let plan = dry_run(d, opts);
        let cands = plan["candidates"].as_array().unwrap();
        assert!(!cands.is_empty(), "{opts:?}");
        let known: BTreeSet<String> = cands
            .iter()
            .filter(|c| c["candidate"]["gfx_known"] == true)
            .map(|c| c["candidate"]["id"].as_str().unwrap().to_string())
            .collect();
        let unknown: Vec<&str> = cands
            .iter()
            .filter(|c| c["candidate"]["gfx_known"] != true)
            .map(|c| c["candidate"]["id"].as_str().unwrap())
            .collect();
        let (builds, err) = export(d, "github-builds", opts);
        let exported: BTreeSet<String> = builds["include"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["candidate"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(exported, known, "{opts:?}: export and dry-run disagree");
        // a candidate whose targets are unknown has no job, and the export says so
        for u in &unknown {
            assert!(err.contains(u), "{opts:?}: {u} not named on stderr: {err}");
        }
        // one job per candidate × each target it carries (of the declared ones)
        let (jobs, _) = export(d, "github-matrix", opts);
        let jobs = jobs["include"].as_array().unwrap();
        let want: usize = cands
            .iter()
            .filter(|c| c["candidate"]["gfx_known"] == true)
            .map(|c| {
                let gfx = c["candidate"]["gfx"].as_array().unwrap();
                let f: Vec<&str> = opts
                    .windows(2)
                    .filter(|w| w[0] == "--filter")
                    .filter_map(|w| w[1].strip_prefix("gfx="))
                    .collect();
                gfx.iter()
                    .filter(|g| f.is_empty() || f.contains(&g.as_str().unwrap()))
                    .count()
            })
            .sum();
        assert_eq!(jobs.len(), want, "{opts:?}");
        for j in jobs {
            let c = cands
                .iter()
                .find(|c| c["candidate"]["id"] == j["candidate"])
                .unwrap_or_else(|| panic!("{opts:?}: job {j} for a candidate dry-run does not plan"));
            assert!(c["candidate"]["gfx"].as_array().unwrap().contains(&j["gfx"]), "{j}");
            assert_eq!(c["candidate"]["tag"], j["image"]);
        }
    }
}

#[test]
fn every_exported_job_finds_its_candidate_as_the_nightly_job_asks_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // a configuration whose targets differ from the export's: the jobs name theirs
    std::fs::write(d.join(".rocmcheck.yaml"), "targets: [gfx906]\n").unwrap();
    for opts in [
        &["--gfx", "gfx942", "--gfx", "gfx1100"][..],
        &["--gfx", "gfx1100", "--amd-images"],
    ] {
        let (jobs, _) = export(d, "github-matrix", opts);
        let jobs = jobs["include"].as_array().unwrap();
        assert!(!jobs.is_empty());
        for j in jobs {
            let (id, g) = (j["candidate"].as_str().unwrap(), j["gfx"].as_str().unwrap());
            // the smoke job: --filter candidate=ID --filter gfx=G --gfx G (.ci/nightly/job.sh)
            let cf = format!("candidate={id}");
            let gf = format!("gfx={g}");
            let v = dry_run(d, &["--filter", &cf, "--filter", &gf, "--gfx", g]);
            let c = v["candidates"].as_array().unwrap();
            assert_eq!(c.len(), 1, "{id}@{g}: {v:#}");
            assert_eq!(c[0]["candidate"]["tag"], j["image"]);
            // the build-once job: --filter candidate=ID alone (.ci/nightly/build.sh)
            let v = dry_run(d, &["--filter", &cf]);
            assert_eq!(v["candidates"].as_array().unwrap().len(), 1, "{id}: {v:#}");
        }
    }
}

#[test]
fn the_default_set_is_a_handful_and_amd_images_come_only_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plain = dry_run(d, &[]);
    let n = plain["candidates"].as_array().unwrap().len();
    assert!((1..=5).contains(&n), "{n} candidates by default");
    let amd = |v: &Value| {
        v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["candidate"]["template"] == "rocm-pytorch")
            .count()
    };
    assert_eq!(amd(&plain), 0);
    let asked = dry_run(d, &["--amd-images"]);
    assert!(amd(&asked) > 0 && amd(&asked) <= 5, "{}", amd(&asked));
    // a declared target in .rocmcheck.yaml plans for it, and says where it came from
    std::fs::write(d.join(".rocmcheck.yaml"), "targets: [gfx942]\n").unwrap();
    let declared = dry_run(d, &[]);
    assert_eq!(declared["targets"], serde_json::json!(["gfx942"]));
    assert!(declared["targets_from"].as_str().unwrap().contains(".rocmcheck.yaml"));
    for c in declared["candidates"].as_array().unwrap() {
        assert_eq!(c["candidate"]["gfx"], serde_json::json!(["gfx942"]), "{c}");
    }
    // --gfx wins over the configuration
    let named = dry_run(d, &["--gfx", "gfx1100"]);
    assert_eq!(named["targets"], serde_json::json!(["gfx1100"]));
    let (code, out, _) = run(d, &["build", "--dry-run", "--amd-images", "--all"]);
    assert_eq!(code, 0);
    assert!(!out.contains("0 target(s)"), "{out}");
}

/// The book page that shows the table.
const PAGE: &str = "docs/src/commands/build-smoke.md";
const START: &str = "<!-- candidates:start (generated: UPDATE_DOCS=1 cargo test --test candidates) -->\n";
const END: &str = "<!-- candidates:end -->";

/// The rows of the page's table: the options and what the binary plans for them.
const ROWS: &[&[&str]] = &[
    &[],
    &["--gfx", "gfx1100"],
    &["--gfx", "gfx1100", "--amd-images"],
    &["--all"],
    &["--all", "--gfx", "gfx1100"],
];

fn counts_table() -> String {
    let dir = tempfile::tempdir().unwrap();
    let data = rocmcheck::matrix::Matrix::embedded().data.clone();
    let mut t = format!(
        "| `rocmcheck build --dry-run …` (matrix data {data}) | candidates | AMD images | left out |\n| --- | --- | --- | --- |\n"
    );
    for opts in ROWS {
        let v = dry_run(dir.path(), opts);
        let c = v["candidates"].as_array().unwrap();
        let amd = c
            .iter()
            .filter(|c| c["candidate"]["template"] == "rocm-pytorch")
            .count();
        let shown = if opts.is_empty() {
            "(no options, no targets declared)".to_string()
        } else {
            format!("`{}`", opts.join(" "))
        };
        t.push_str(&format!(
            "| {shown} | {} | {amd} | {} |\n",
            c.len(),
            v["left_out"].as_array().unwrap().len()
        ));
    }
    t
}

#[test]
fn the_books_candidate_counts_are_what_the_binary_plans() {
    let page = std::fs::read_to_string(PAGE).unwrap();
    let s = page.find(START).expect("the page has the candidates:start marker") + START.len();
    let e = page[s..].find(END).expect("the page has the candidates:end marker") + s;
    let table = counts_table();
    if page[s..e] != table {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(PAGE, format!("{}{}{}", &page[..s], table, &page[e..])).unwrap();
            return;
        }
        panic!(
            "{PAGE}'s candidate counts differ from what the binary plans: run `UPDATE_DOCS=1 cargo test --test candidates`\n{PAGE}:\n{}\nbinary:\n{table}",
            &page[s..e]
        );
    }
}
