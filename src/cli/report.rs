//! `rocmcheck report`: merge per-job smoke results, diff two runs, render Markdown / JUnit / JSON.

use super::Globals;
use crate::exit::ExitStatus;
use crate::report::results::{self, CandidateResult, Run};
use anyhow::Context as _;
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `rocmcheck report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// `report` actions.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Merge per-job result files (smoke JSON, payload documents, runs) into one run.
    Merge(MergeArgs),
    /// Compare two runs: regressions (pass → fail), fixed, changed, new and vanished candidates.
    Diff(DiffArgs),
    /// Render a run (or any result file) as Markdown, JUnit XML or JSON.
    Render(RenderArgs),
}

/// `report merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Result files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the run here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Diff output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// Plain text.
    Human,
    /// Markdown (for `$GITHUB_STEP_SUMMARY`).
    Markdown,
    /// JSON.
    Json,
}

/// `report diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The previous run.
    pub previous: PathBuf,
    /// The current run.
    pub current: PathBuf,
    /// Exit 1 when a candidate that passed before does not pass now.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,
}

/// Render formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RenderFormat {
    /// Markdown (for `$GITHUB_STEP_SUMMARY`).
    Markdown,
    /// JUnit XML: one test case per candidate and per step.
    Junit,
    /// The run as JSON.
    Json,
}

/// `report render`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The run (or result file) to render.
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RenderFormat::Markdown)]
    pub format: RenderFormat,
}

/// Runs `rocmcheck report`.
pub fn run(_g: &Globals, a: ReportArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    match a.action {
        Action::Merge(m) => merge(m, out, err),
        Action::Diff(d) => diff(d, out, err),
        Action::Render(r) => render(r, out, err),
    }
}

fn load(path: &Path, err: &mut dyn Write) -> anyhow::Result<Option<Vec<CandidateResult>>> {
    match results::load_file(path) {
        Ok(r) => Ok(Some(r)),
        Err(e) => {
            writeln!(err, "error: {e}")?;
            Ok(None)
        }
    }
}

fn load_run(path: &Path, err: &mut dyn Write) -> anyhow::Result<Option<Run>> {
    let Some(r) = load(path, err)? else { return Ok(None) };
    match results::merge(vec![(path.display().to_string(), r)]) {
        Ok(run) => Ok(Some(run)),
        Err(d) => {
            writeln!(err, "error: {}: candidate `{}` appears twice", path.display(), d.id)?;
            Ok(None)
        }
    }
}

fn merge(a: MergeArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let mut parts = Vec::new();
    let mut bad = 0;
    for f in &a.files {
        match load(f, err)? {
            Some(r) => parts.push((f.display().to_string(), r)),
            None => bad += 1,
        }
    }
    if bad > 0 {
        writeln!(
            err,
            "error: {bad} of {} result file(s) could not be read",
            a.files.len()
        )?;
        return Ok(ExitStatus::Error);
    }
    let run = match results::merge(parts) {
        Ok(r) => r,
        Err(d) => {
            writeln!(
                err,
                "error: candidate `{}` is in both {} and {}: each candidate must be run once",
                d.id, d.first, d.second
            )?;
            return Ok(ExitStatus::Error);
        }
    };
    match &a.output {
        Some(path) => {
            let mut buf = Vec::new();
            results::render_json(&run, &mut buf)?;
            std::fs::write(path, buf).with_context(|| format!("writing {}", path.display()))?;
            let passed = run.candidates.iter().filter(|c| c.passed()).count();
            writeln!(
                err,
                "merged {} file(s): {} candidate(s), {passed} passed → {}",
                a.files.len(),
                run.candidates.len(),
                path.display()
            )?;
        }
        None => results::render_json(&run, out)?,
    }
    Ok(ExitStatus::Success)
}

fn diff(a: DiffArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let prev = load_run(&a.previous, err)?;
    let cur = load_run(&a.current, err)?;
    let (Some(prev), Some(cur)) = (prev, cur) else {
        return Ok(ExitStatus::Error);
    };
    let d = results::diff(&prev, &cur);
    match a.format {
        DiffFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &d)?;
            writeln!(out)?;
        }
        DiffFormat::Human => results::render_diff(&d, false, out)?,
        DiffFormat::Markdown => results::render_diff(&d, true, out)?,
    }
    if a.fail_on_regression && !d.regressions.is_empty() {
        writeln!(
            err,
            "error: {} regression(s) against {}",
            d.regressions.len(),
            a.previous.display()
        )?;
        return Ok(ExitStatus::Findings);
    }
    Ok(ExitStatus::Success)
}

fn render(a: RenderArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let Some(run) = load_run(&a.file, err)? else {
        return Ok(ExitStatus::Error);
    };
    match a.format {
        RenderFormat::Markdown => results::render_markdown(&run, out)?,
        RenderFormat::Junit => results::render_junit(&run, out)?,
        RenderFormat::Json => results::render_json(&run, out)?,
    }
    Ok(ExitStatus::Success)
}
