//! `rocmcheck triage`: read pasted command output and diagnose it ([`crate::commands::triage`]).

use super::{Globals, PolicyArgs};
use crate::commands::triage::TriageOptions;
use crate::exit::ExitStatus;
use crate::report::Format;
use std::io::Write;
use std::path::PathBuf;

/// Read pasted command output (bug reports, issue threads) and diagnose it with the env rules.
#[derive(Debug, clap::Args)]
pub struct TriageArgs {
    /// Files with pasted output (`-` for stdin): collect_env, rocminfo, rocm-smi, amd-smi,
    /// dmesg, /proc/cmdline, pip list, torch prints, Ollama logs, nvidia-smi, mixed.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Read the body and comments of a GitHub issue (`OWNER/REPO#N`); uses GITHUB_TOKEN if set.
    #[arg(long, value_name = "OWNER/REPO#N")]
    pub github_issue: Option<String>,
    /// GitHub REST API base URL.
    #[arg(
        long,
        value_name = "URL",
        env = "GITHUB_API_URL",
        default_value = "https://api.github.com"
    )]
    pub api_url: String,
    /// Print the facts read (with a summary) as JSON and stop.
    #[arg(long)]
    pub facts: bool,
    /// Output format (`markdown` is written to be posted as a reply on the issue).
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Severity threshold, ignored rules, configuration file.
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// Runs `rocmcheck triage`.
pub fn run(g: &Globals, a: TriageArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let matrix = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    let t = TriageOptions {
        files: a.files,
        github_issue: a.github_issue,
        api_url: a.api_url,
        facts: a.facts,
        format: a.format,
        fail_on: a.policy.fail_on,
        ignore: a.policy.ignore,
        config: a.policy.config,
    };
    super::finish(crate::commands::triage::run(&matrix, &t, g.color, out, err), err)
}
