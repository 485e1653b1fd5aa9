//! `rocmcheck lint`: Dockerfiles, devcontainer.json, compose files and Python manifests →
//! findings ([`crate::commands::lint`]).

use super::Globals;
use crate::commands::lint::Lint;
use crate::exit::ExitStatus;
use crate::report::Format;
use std::io::Write;
use std::path::PathBuf;

/// Check Dockerfiles (and devcontainer/compose GPU settings) for ROCm/PyTorch/gfx problems.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Files, globs or directories to lint; `-` reads a Dockerfile from stdin.
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<String>,
    /// A build argument, as `docker build --build-arg K=V` (repeatable).
    #[arg(long = "build-arg", value_name = "K=V")]
    pub build_args: Vec<String>,
    /// A gfx target the images must run on (repeatable or comma-separated).
    #[arg(long, value_name = "GFX", value_delimiter = ',')]
    pub gfx: Vec<String>,
    /// The build stage to check, as `docker build --target STAGE` (default: the last stage).
    #[arg(long, value_name = "STAGE")]
    pub target: Option<String>,
    /// Severity threshold, ignored rules, configuration file.
    #[command(flatten)]
    pub policy: super::PolicyArgs,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Name to show for stdin input.
    #[arg(long, value_name = "NAME", default_value = "-")]
    pub stdin_name: String,
    /// Apply the safe fixes to the files (atomically; a file that changed since it was read is
    /// left alone), lint again and report what remains. With `-`, the fixed text goes to stdout.
    #[arg(long)]
    pub fix: bool,
    /// Also apply unsafe fixes (they change what gets installed: another torch or base image).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff (for `patch -p1`) instead of writing them; exit 1 when
    /// anything would change.
    #[arg(long, conflicts_with = "fix_only")]
    pub diff: bool,
    /// Apply fixes and report only what was fixed (exit 0 unless an input error).
    #[arg(long)]
    pub fix_only: bool,
    /// The build context: requirements files, `pyproject.toml` and `uv.lock` that a Dockerfile
    /// `COPY`s or names are read from here (default: each Dockerfile's directory, as
    /// `docker build` takes it).
    #[arg(long, value_name = "DIR")]
    pub context: Option<PathBuf>,
    /// Also say which build-context files were read (on stderr).
    #[arg(short, long)]
    pub verbose: bool,
    /// Also confirm each pinned torch/torchvision/torchaudio and ROCm Python wheel against the
    /// live index (PEP 691 JSON, PEP 503 HTML fallback; cached on disk): notices on stderr and
    /// in JSON `notices` / SARIF notifications; findings and the exit code never change.
    /// `--offline` / ROCMCHECK_OFFLINE wins.
    #[arg(long)]
    pub online: bool,
    /// The pytorch.org wheel index root --online reads (default: the matrix's torch index);
    /// pytorch.org index URLs in the files are read from here instead.
    #[arg(long, value_name = "URL", requires = "online")]
    pub index: Option<String>,
    /// Seconds --online waits for one index page.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub online_timeout: u64,
}

/// Runs `rocmcheck lint`.
pub fn run(g: &Globals, a: LintArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let matrix = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    // configuration: --config, else discovered from the current directory; --ignore checked
    let config = match super::load_config(a.policy.config.as_deref(), &matrix, &a.policy.ignore, err) {
        Ok(c) => c,
        Err(s) => return Ok(s),
    };
    let l = Lint {
        paths: a.paths,
        build_args: a.build_args,
        gfx: a.gfx,
        target: a.target,
        fail_on: a.policy.fail_on,
        format: a.format,
        stdin_name: a.stdin_name,
        fix: a.fix,
        unsafe_fixes: a.unsafe_fixes,
        diff: a.diff,
        fix_only: a.fix_only,
        context: a.context,
        verbose: a.verbose,
        online: a.online,
        index: a.index,
        online_timeout: a.online_timeout,
        offline: g.offline,
    };
    super::finish(
        crate::commands::lint::lint(&matrix, &config, &l, g.color, out, err),
        err,
    )
}
