//! `rocmcheck env` (being built; see the issue tracker).

use super::Globals;
use crate::exit::ExitStatus;
use std::io::Write;

/// Arguments of `rocmcheck env`.
#[derive(Debug, clap::Args)]
pub struct EnvArgs {}

/// Runs `rocmcheck env`.
pub fn run(_g: &Globals, _a: EnvArgs, _out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    writeln!(err, "rocmcheck env: not implemented yet")?;
    Ok(ExitStatus::Error)
}
