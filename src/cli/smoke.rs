//! `rocmcheck smoke` (being built; see the issue tracker).

use super::Globals;
use crate::exit::ExitStatus;
use std::io::Write;

/// Arguments of `rocmcheck smoke`.
#[derive(Debug, clap::Args)]
pub struct SmokeArgs {}

/// Runs `rocmcheck smoke`.
pub fn run(_g: &Globals, _a: SmokeArgs, _out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    writeln!(err, "rocmcheck smoke: not implemented yet")?;
    Ok(ExitStatus::Error)
}
