//! `rocmcheck lint` (being built; see the issue tracker).

use super::Globals;
use crate::exit::ExitStatus;
use std::io::Write;

/// Arguments of `rocmcheck lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {}

/// Runs `rocmcheck lint`.
pub fn run(_g: &Globals, _a: LintArgs, _out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    writeln!(err, "rocmcheck lint: not implemented yet")?;
    Ok(ExitStatus::Error)
}
