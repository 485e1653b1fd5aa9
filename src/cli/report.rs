//! `rocmcheck report`: merge per-job smoke results, diff two runs, render Markdown / JUnit / JSON
//! ([`crate::commands::report`]).

use super::Globals;
use crate::commands::report as cmd;
use crate::exit::ExitStatus;
use clap::Subcommand;
use std::io::Write;

pub use crate::commands::report::{
    DiffArgs, DiffFormat, GateArgs, MergeArgs, PreflightArgs, RenderArgs, RenderFormat, TrendArgs,
};

/// Merge, diff and render smoke results (Markdown, JUnit, JSON).
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// `report` actions.
#[derive(Debug, Subcommand)]
// Each subcommand's arguments are built only when it runs (start-up time).
#[command(defer = true)]
pub enum Action {
    /// Merge per-job result files (smoke JSON, payload documents, runs) into one run.
    Merge(MergeArgs),
    /// Compare two runs: regressions (pass → a product failure), infrastructure (now missing,
    /// misconfigured, engine lost), fixed, changed, new and vanished jobs.
    Diff(DiffArgs),
    /// Render a run (or any result file) as Markdown, JUnit XML or JSON.
    Render(RenderArgs),
    /// Check a runner before a nightly job: its facts (`rocmcheck env --facts`, probed on the
    /// runner) against the job's needs. Exit 0: the runner is fit, nothing written; exit 1: a
    /// `runner-misconfigured` result for the job is written (an infrastructure failure, not a
    /// finding about the candidate).
    Preflight(PreflightArgs),
    /// The nightly gate: product failures fail the night unless allowed; infrastructure (lost
    /// jobs, misconfigured runners, vanished jobs, outages) and watched candidates are reported
    /// in their own sections.
    Gate(GateArgs),
    /// A trend table (Markdown) of the last nights: the runs oldest first, the current one last.
    Trend(TrendArgs),
}

/// Runs `rocmcheck report`.
pub fn run(_g: &Globals, a: ReportArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    match a.action {
        Action::Merge(m) => super::finish(cmd::merge(m, out, err), err),
        Action::Diff(d) => super::finish(cmd::diff(d, out, err), err),
        Action::Render(r) => super::finish(cmd::render(r, out, err), err),
        Action::Preflight(p) => super::finish(cmd::preflight(p, out, err), err),
        Action::Gate(g) => super::finish(cmd::gate(g, out, err), err),
        Action::Trend(t) => super::finish(cmd::trend(t, out, err), err),
    }
}
