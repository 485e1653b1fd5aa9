//! The command line: clap definitions, global flags, config resolved once, dispatch.
//!
//! One file per subcommand turns parsed arguments into library calls and a report. `anyhow` lives
//! here and only here.

pub mod build;
pub mod completions;
pub mod env;
pub mod lint;
pub mod matrix;
pub mod report;
pub mod rules;
pub mod smoke;

use crate::exit::ExitStatus;
use crate::matrix::Matrix;
use clap::{Parser, Subcommand, ValueEnum};
use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Find ROCm / PyTorch / gfx mismatches before they cost a day.
#[derive(Debug, Parser)]
#[command(name = "rocmcheck", version, about, long_about = None, max_term_width = 100)]
pub struct Args {
    /// Use the matrix in DIR instead of the one embedded in this binary.
    #[arg(long, global = true, value_name = "DIR", env = "ROCMCHECK_MATRIX")]
    pub matrix: Option<PathBuf>,
    /// When to use colours (NO_COLOR is honoured with `auto`).
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Colour choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Diagnose the running container or host (GPUs, devices, ROCm, driver, PyTorch, env vars).
    Env(env::EnvArgs),
    /// Check Dockerfiles (and devcontainer/compose GPU settings) for ROCm/PyTorch/gfx problems.
    Lint(lint::LintArgs),
    /// Show, query, validate, export and sync the compatibility matrix.
    Matrix(matrix::MatrixArgs),
    /// List the rules, or explain one.
    Rules(rules::RulesArgs),
    /// Build candidate images from matrix entries through the Docker Engine API.
    Build(build::BuildArgs),
    /// Run the smoke payload (HIP device, hipBLAS, allocations, GEMM) in images or locally.
    Smoke(smoke::SmokeArgs),
    /// Merge, diff and render smoke results (Markdown, JUnit, JSON).
    Report(report::ReportArgs),
    /// Print shell completions (bash, zsh, fish, powershell, elvish).
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff), or write one page per subcommand with --out-dir.
    Man(completions::ManArgs),
}

/// What every subcommand gets.
pub struct Globals {
    /// `--matrix`.
    pub matrix_dir: Option<PathBuf>,
    /// Emit colours.
    pub color: bool,
}

impl Globals {
    /// Loads the matrix (embedded or `--matrix DIR`). On failure the diagnostics are written to
    /// `err` and `Err(ExitStatus::Error)` is returned.
    pub fn matrix(&self, err: &mut dyn Write) -> Result<Cow<'static, Matrix>, ExitStatus> {
        match &self.matrix_dir {
            None => Ok(Cow::Borrowed(Matrix::embedded())),
            Some(dir) => {
                if !dir.is_dir() {
                    let _ = writeln!(err, "error: --matrix {}: not a directory", dir.display());
                    return Err(ExitStatus::Error);
                }
                Matrix::from_dir(dir).map(Cow::Owned).map_err(|diags| {
                    for d in &diags {
                        let _ = writeln!(err, "{d}");
                    }
                    let _ = writeln!(
                        err,
                        "error: the matrix in {} is invalid ({} problem(s))",
                        dir.display(),
                        diags.len()
                    );
                    ExitStatus::Error
                })
            }
        }
    }
}

/// Runs the parsed command. `out` is stdout, `err` stderr.
pub fn run(args: Args, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let g = Globals {
        matrix_dir: args.matrix,
        color,
    };
    match args.command {
        Command::Env(a) => env::run(&g, a, out, err),
        Command::Lint(a) => lint::run(&g, a, out, err),
        Command::Matrix(a) => matrix::run(&g, a, out, err),
        Command::Rules(a) => rules::run(&g, a, out, err),
        Command::Build(a) => build::run(&g, a, out, err),
        Command::Smoke(a) => smoke::run(&g, a, out, err),
        Command::Report(a) => report::run(&g, a, out, err),
        Command::Completions(a) => completions::run_completions(&g, a, out, err),
        Command::Man(a) => completions::run_man(&g, a, out, err),
    }
}
