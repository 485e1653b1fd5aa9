//! `matrix export`: the matrix as JSON, or the candidates as a GitHub Actions strategy matrix.

use super::Error;
use crate::commands::build::CandidateOptions;
use crate::exit::ExitStatus;
use crate::matrix::Matrix;
use std::io::Write;

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// The whole matrix as JSON (`export_schema` versioned).
    Json,
    /// `{"include": [...]}` for a GitHub Actions `strategy.matrix` via `fromJSON`.
    GithubMatrix,
    /// The distinct images of the github-matrix jobs, one entry per candidate (with the gfx
    /// targets its jobs smoke), for a build-once job before the smoke jobs.
    GithubBuilds,
}

/// What `matrix export` writes.
#[derive(Debug, Clone)]
pub struct Export {
    /// Format.
    pub format: ExportFormat,
    /// github-matrix: only candidates for these gfx targets.
    pub gfx: Vec<String>,
    /// github-matrix: which candidates.
    pub cands: CandidateOptions,
    /// github-matrix: the runner label of a job; `{gfx}` is replaced by the job's target.
    pub runner_label: String,
    /// github-matrix: the runner labels that have runners (empty: all).
    pub available: Vec<String>,
    /// github-matrix: the most jobs one matrix may hold.
    pub max_jobs: usize,
    /// github-matrix: emit only chunk I of N.
    pub chunk: Option<(usize, usize)>,
}

/// `matrix export`: the whole matrix as JSON, or the GitHub Actions matrix of the candidates
/// (notes on what was left out on `err`).
pub fn export(m: &Matrix, e: &Export, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    match e.format {
        ExportFormat::Json => {
            let v = serde_json::json!({"export_schema": 1, "matrix": m});
            serde_json::to_writer_pretty(&mut *out, &v)?;
            writeln!(out)?;
        }
        ExportFormat::GithubMatrix | ExportFormat::GithubBuilds => return github_matrix(m, e, out, err),
    }
    Ok(ExitStatus::Success)
}

/// `matrix export --format github-matrix`: one job per candidate × gfx target, for the targets
/// declared (`--gfx`, else `.rocmcheck.yaml` `targets:`), the `--filter`s and the runner labels
/// that have runners (`--available`); refused past `--max-jobs` unless `--chunk` splits it.
fn github_matrix(m: &Matrix, e: &Export, out: &mut dyn Write, err: &mut dyn Write) -> Result<ExitStatus, Error> {
    if !e.runner_label.contains("{gfx}") {
        return Err(Error::RunnerLabel(e.runner_label.clone()));
    }
    let from_file = e.cands.candidates_file.is_some();
    // The one planning function of `build --dry-run`: the same candidates for the same options.
    let set = crate::commands::build::select_set(m, &e.cands, &e.gfx)?;
    let targets = set.targets.clone();
    let cands = set.candidates;
    let unknown: Vec<&str> = cands.iter().filter(|c| !c.gfx_known).map(|c| c.id.as_str()).collect();
    if !unknown.is_empty() {
        writeln!(
            err,
            "note: no job for {} candidate(s) whose targets are unknown: {}",
            unknown.len(),
            unknown.join(", ")
        )?;
    }
    let gfx_filters: Vec<&str> = e.cands.filters.iter().filter_map(|f| f.gfx()).collect();
    let available: Vec<&str> = e.available.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    let mut include = Vec::new();
    let mut no_runner: std::collections::BTreeMap<String, usize> = Default::default();
    for c in &cands {
        for g in &c.gfx {
            if !targets.is_empty() && !targets.contains(g) {
                continue;
            }
            if !gfx_filters.is_empty() && !gfx_filters.contains(&g.as_str()) {
                continue;
            }
            let runner = e.runner_label.replace("{gfx}", g);
            if !available.is_empty() && !available.contains(&runner.as_str()) {
                *no_runner.entry(runner).or_default() += 1;
                continue;
            }
            include.push(serde_json::json!({
                "id": format!("{}@{g}", c.id),
                "candidate": c.id,
                "torch": c.torch,
                "rocm": c.rocm,
                "gfx": g,
                "image": c.tag,
                "index_url": c.build_args.get("TORCH_INDEX_URL"),
                "base_image": c.build_args.get("BASE_IMAGE"),
                "runner": runner,
                "matrix_data": m.data,
            }));
        }
    }
    for (label, n) in &no_runner {
        writeln!(
            err,
            "note: left out {n} job(s) for runner label {label}: not among the --available labels"
        )?;
    }
    if e.format == ExportFormat::GithubBuilds {
        // One build per distinct image: the jobs of a candidate share it.
        let mut builds: Vec<serde_json::Value> = Vec::new();
        for j in include {
            match builds.iter_mut().find(|b| b["candidate"] == j["candidate"]) {
                Some(b) => {
                    if let Some(g) = b["gfx"].as_array_mut() {
                        g.push(j["gfx"].clone());
                    }
                }
                None => builds.push(serde_json::json!({
                    "id": j["candidate"],
                    "candidate": j["candidate"],
                    "image": j["image"],
                    "torch": j["torch"],
                    "rocm": j["rocm"],
                    "base_image": j["base_image"],
                    "gfx": [j["gfx"]],
                    "matrix_data": j["matrix_data"],
                })),
            }
        }
        include = builds;
    }
    let total = include.len();
    if let Some((i, n)) = e.chunk {
        let per = total.div_ceil(n);
        include = include.into_iter().skip((i - 1) * per).take(per).collect();
    }
    if include.len() > e.max_jobs {
        return Err(Error::TooManyJobs {
            jobs: include.len(),
            max: e.max_jobs,
            all: if e.cands.all { ", no --all" } else { "" },
            n: total.div_ceil(e.max_jobs.max(1)),
        });
    }
    writeln!(
        err,
        "matrix export: {} {} from {} candidate(s){}{}",
        include.len(),
        if e.format == ExportFormat::GithubBuilds {
            "build(s) (one per distinct image)"
        } else {
            "job(s) (candidate × gfx)"
        },
        cands.len(),
        if from_file { " of the candidates file" } else { "" },
        match e.chunk {
            Some((i, n)) => format!(", chunk {i}/{n} of {total}"),
            None => String::new(),
        }
    )?;
    serde_json::to_writer(&mut *out, &serde_json::json!({"include": include}))?;
    writeln!(out)?;
    Ok(ExitStatus::Success)
}
