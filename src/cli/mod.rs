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
pub mod triage;

use crate::commands::Failure;
use crate::exit::ExitStatus;
use crate::matrix::Matrix;
pub use crate::report::{human_table, table_width, wrap_to_width};
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
    /// Never touch the network (also ROCMCHECK_OFFLINE=1): `matrix update` takes only
    /// `--from FILE`. Nothing touches the network unless asked anyway.
    #[arg(long, global = true)]
    pub offline: bool,
    /// Use exactly this data serial (a bundle `matrix update --serial N` installed), whatever
    /// is newer, or refuse (exit 2) when the cache holds another: reproducible CI runs.
    #[arg(long, global = true, value_name = "N", env = "ROCMCHECK_DATA_SERIAL")]
    pub data_serial: Option<u64>,
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
// Each subcommand's arguments are built only when it runs (start-up time).
#[command(defer = true)]
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
    /// Read pasted command output (bug reports, issue threads) and diagnose it with the env rules.
    Triage(triage::TriageArgs),
    /// Print shell completions (bash, zsh, fish, powershell, elvish).
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff), or write one page per subcommand with --out-dir.
    Man(completions::ManArgs),
}

/// The policy flags of the checking commands (`env`, `lint`, `triage`).
#[derive(Debug, Clone, clap::Args)]
pub struct PolicyArgs {
    /// Exit 1 when a finding is at least this severe.
    #[arg(long, value_name = "SEVERITY", value_parser = parse_severity)]
    pub fail_on: Option<crate::finding::Severity>,
    /// Rule codes or names to ignore (repeatable, or comma-separated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Configuration file (default: `.rocmcheck.yaml` in this directory or above).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

fn parse_severity(s: &str) -> Result<crate::finding::Severity, String> {
    crate::finding::Severity::parse(s).ok_or_else(|| format!("`{s}`: expected error, warning or info"))
}

/// What every subcommand gets.
pub struct Globals {
    /// `--matrix`.
    pub matrix_dir: Option<PathBuf>,
    /// Emit colours.
    pub color: bool,
    /// `--offline` or `ROCMCHECK_OFFLINE`.
    pub offline: bool,
    /// `--data-serial` or `ROCMCHECK_DATA_SERIAL`.
    pub data_serial: Option<u64>,
    /// The matrix once loaded (commands ask more than once: the staleness notice, reports).
    pub loaded: std::cell::OnceCell<Result<&'static Matrix, ExitStatus>>,
}

/// `ROCMCHECK_OFFLINE` set to anything but empty, `0`, `false`, `no` or `off`.
pub fn offline_from_env() -> bool {
    std::env::var("ROCMCHECK_OFFLINE").is_ok_and(|v| {
        !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off"
        )
    })
}

impl Globals {
    /// The matrix every command uses: `--matrix DIR` when given (explicit wins), else the newest
    /// of the embedded data and the cached bundle (`matrix update`; by `data:` date, ties to the
    /// embedded). On failure the diagnostics are written to `err` and `Err(ExitStatus::Error)` is
    /// returned; a cache that is there but unusable is one notice line, and the embedded data is
    /// used.
    pub fn matrix(&self, err: &mut dyn Write) -> Result<Cow<'static, Matrix>, ExitStatus> {
        self.loaded.get_or_init(|| self.load_matrix(err)).map(Cow::Borrowed)
    }

    fn load_matrix(&self, err: &mut dyn Write) -> Result<&'static Matrix, ExitStatus> {
        if let Some(n) = self.data_serial {
            let why = match (&self.matrix_dir, crate::data::cache_dir()) {
                (Some(d), _) => format!("--matrix {} has no data serial; drop one of the two", d.display()),
                (None, None) => "no cache directory: set ROCMCHECK_CACHE_DIR, XDG_CACHE_HOME or HOME".into(),
                (None, Some(dir)) => match crate::data::cached_with_serial(&dir, n) {
                    Ok(m) => return Ok(Box::leak(Box::new(m))),
                    Err(e) => e,
                },
            };
            let _ = writeln!(
                err,
                "error: data serial {n} is pinned (--data-serial or ROCMCHECK_DATA_SERIAL), but {why}"
            );
            return Err(ExitStatus::Error);
        }
        match &self.matrix_dir {
            None => {
                // The embedded date is known without decoding: a newer cache is the only matrix
                // decoded.
                let Some(dir) = crate::data::cache_dir() else {
                    return Ok(Matrix::embedded());
                };
                match crate::data::cached_newer_than(&dir, crate::matrix::embedded::data()) {
                    Ok(Some(m)) => Ok(Box::leak(Box::new(m))),
                    Ok(None) => Ok(Matrix::embedded()),
                    Err(e) => {
                        let _ = writeln!(
                            err,
                            "notice: the cached matrix data is unusable ({e}); using the embedded data (run `rocmcheck matrix update`)"
                        );
                        Ok(Matrix::embedded())
                    }
                }
            }
            Some(dir) => {
                if !dir.is_dir() {
                    let _ = writeln!(err, "error: --matrix {}: not a directory", dir.display());
                    return Err(ExitStatus::Error);
                }
                Matrix::from_dir(dir)
                    .map(|m| &*Box::leak(Box::new(m)))
                    .map_err(|diags| {
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

/// The configuration a checking command starts from ([`crate::commands::load_config`]). On
/// error it is written to `err` and `Err(ExitStatus::Error)` returned.
pub fn load_config(
    explicit: Option<&std::path::Path>,
    matrix: &Matrix,
    ignore: &[String],
    err: &mut dyn Write,
) -> Result<crate::config::Config, ExitStatus> {
    crate::commands::load_config(explicit, matrix, ignore).map_err(|e| {
        let _ = writeln!(err, "error: {e}");
        ExitStatus::Error
    })
}

/// A command's error: a usage or input error is stated on `err` (exit 2); a failure writing the
/// output is passed on.
pub fn fail<E: Failure>(e: E, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    match e.passed_on() {
        Ok(e) => Err(anyhow::Error::from_boxed(e)),
        Err(e) => {
            writeln!(err, "error: {e}")?;
            Ok(ExitStatus::Error)
        }
    }
}

/// A command's outcome: its status, or its error through [`fail`].
pub fn finish<E: Failure>(r: Result<ExitStatus, E>, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    r.or_else(|e| fail(e, err))
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
        offline: args.offline || offline_from_env(),
        data_serial: args.data_serial,
        loaded: std::cell::OnceCell::new(),
    };
    match args.command {
        Command::Env(a) => with_staleness_notice(&g, env::run(&g, a, out, err), err),
        Command::Lint(a) => with_staleness_notice(&g, lint::run(&g, a, out, err), err),
        Command::Matrix(a) => matrix::run(&g, a, out, err),
        Command::Rules(a) => rules::run(&g, a, out, err),
        Command::Build(a) => build::run(&g, a, out, err),
        Command::Smoke(a) => smoke::run(&g, a, out, err),
        Command::Report(a) => report::run(&g, a, out, err),
        Command::Triage(a) => triage::run(&g, a, out, err),
        Command::Completions(a) => completions::run_completions(&g, a, out, err),
        Command::Man(a) => completions::run_man(&g, a, out, err),
    }
}

/// Embedded (or `--matrix`) data older than this many days gets a one-line notice from `env`
/// and `lint`.
pub const STALE_AFTER_DAYS: i64 = 120;

/// Adds the staleness notice (on stderr, one line) after a command; never changes its outcome.
fn with_staleness_notice(
    g: &Globals,
    r: anyhow::Result<ExitStatus>,
    err: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    if r.is_ok() {
        if let Ok(m) = g.matrix(&mut std::io::sink()) {
            let today = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| (d.as_secs() / 86_400) as i64)
                .unwrap_or(0);
            if let Some(n) = stale_notice(&m.data, today) {
                let _ = writeln!(err, "{n}");
            }
        }
    }
    r
}

/// "matrix data 2026-11-22 is 130 days old: run `rocmcheck matrix update`" when `data` (YYYY-MM-DD) is more
/// than [`STALE_AFTER_DAYS`] before `today` (days since 1970-01-01).
pub fn stale_notice(data: &str, today: i64) -> Option<String> {
    let mut it = data.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (it.next()??, it.next()??, it.next()??);
    let age = today - days_from_civil(y, m, d);
    (age > STALE_AFTER_DAYS).then(|| {
        format!("notice: matrix data {data} is {age} days old: run `rocmcheck matrix update` (or upgrade rocmcheck)")
    })
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staleness_counts_days_and_stays_quiet_within_the_window() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        let d = days_from_civil(2026, 11, 22);
        assert_eq!(stale_notice("2026-11-22", d + 120), None);
        let n = stale_notice("2026-11-22", d + 121).expect("notice after 120 days");
        assert!(
            n.starts_with("notice: matrix data 2026-11-22 is 121 days old: run `rocmcheck matrix update`"),
            "{n}"
        );
        assert_eq!(stale_notice("not a date", d), None);
    }
}
