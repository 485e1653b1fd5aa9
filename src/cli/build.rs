//! `rocmcheck build` (being built; see the issue tracker).

use super::Globals;
use crate::exit::ExitStatus;
use std::io::Write;

/// Arguments of `rocmcheck build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {}

/// Runs `rocmcheck build`.
pub fn run(_g: &Globals, _a: BuildArgs, _out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    writeln!(err, "rocmcheck build: not implemented yet")?;
    Ok(ExitStatus::Error)
}
