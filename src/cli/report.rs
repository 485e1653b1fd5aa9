//! `rocmcheck report` (being built; see the issue tracker).

use super::Globals;
use crate::exit::ExitStatus;
use std::io::Write;

/// Arguments of `rocmcheck report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {}

/// Runs `rocmcheck report`.
pub fn run(_g: &Globals, _a: ReportArgs, _out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    writeln!(err, "rocmcheck report: not implemented yet")?;
    Ok(ExitStatus::Error)
}
