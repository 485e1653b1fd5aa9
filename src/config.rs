//! `.rocmcheck.yaml`: targets, ignored rules, severity overrides, failure threshold, and the
//! team's own smoke checks (`smoke.checks`).
//!
//! Read once, in [`crate::commands::load_config`], merged with command-line flags (flags win).

use crate::finding::Severity;
use crate::policy::Policy;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// gfx targets the images are for.
    #[serde(default)]
    pub targets: Vec<String>,
    /// Rule codes or names to ignore.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Severity per rule code or name.
    #[serde(default)]
    pub severity: BTreeMap<String, String>,
    /// Failure threshold.
    #[serde(default)]
    pub fail_on: Option<String>,
    /// Smoke settings.
    #[serde(default)]
    pub smoke: Option<RawSmoke>,
}

/// `smoke:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSmoke {
    /// The team's own checks.
    #[serde(default)]
    pub checks: Vec<RawCheck>,
}

/// One `smoke.checks` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCheck {
    /// The check's name (its step is `check:NAME`).
    pub name: String,
    /// A shell command.
    #[serde(default)]
    pub command: Option<String>,
    /// A Python file (relative to the configuration file's folder), run by the payload's
    /// interpreter.
    #[serde(default)]
    pub python: Option<String>,
    /// Seconds before the check is stopped (default 300).
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// The exit code that means success (default 0).
    #[serde(default)]
    pub expect_exit: Option<i32>,
}

/// What a team check runs.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckRun {
    /// A shell command (`sh -c`).
    Command(String),
    /// A Python file, as written in the configuration (relative to its folder).
    Python(String),
}

/// A validated team check.
#[derive(Debug, Clone, PartialEq)]
pub struct TeamCheck {
    /// Name.
    pub name: String,
    /// What it runs.
    pub run: CheckRun,
    /// Timeout in seconds.
    pub timeout_s: f64,
    /// Expected exit code.
    pub expect_exit: i32,
    /// The line of its `name:` in the configuration, for errors.
    pub line: usize,
}

/// Default timeout of a team check, in seconds.
pub const CHECK_TIMEOUT_S: f64 = 300.0;

/// A validated configuration.
#[derive(Debug, Default, Clone)]
pub struct Config {
    /// Where it was read from.
    pub path: Option<PathBuf>,
    /// Targets.
    pub targets: Vec<String>,
    /// Where each target is written (line, column), for errors.
    pub target_at: Vec<(usize, usize)>,
    /// Policy.
    pub policy: Policy,
    /// The team's own smoke checks, in order.
    pub checks: Vec<TeamCheck>,
}

/// A configuration problem, located (`path:line:col: message`), or about the whole file
/// (`path: message`: line and column 0, as for a file that cannot be read).
#[derive(Debug, thiserror::Error)]
#[error("{path}{}: {message}", if *line == 0 { String::new() } else { format!(":{line}:{col}") })]
pub struct ConfigError {
    /// File.
    pub path: String,
    /// Line (1-based; 0: the whole file).
    pub line: usize,
    /// Column (1-based; 0: the whole file).
    pub col: usize,
    /// Message.
    pub message: String,
}

impl Config {
    /// `--config FILE` when given, else `.rocmcheck.yaml` found upwards from the current
    /// directory, else the defaults.
    pub fn load_or_discover(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        match explicit {
            Some(p) => Config::load(p),
            None => match std::env::current_dir().ok().and_then(|d| Config::discover(&d)) {
                Some(p) => Config::load(&p),
                None => Ok(Config::default()),
            },
        }
    }

    /// Finds `.rocmcheck.yaml` in `dir` or its ancestors.
    pub fn discover(dir: &Path) -> Option<PathBuf> {
        dir.ancestors().map(|d| d.join(".rocmcheck.yaml")).find(|p| p.is_file())
    }

    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let text = crate::input::read_text(path, 1 << 20).map_err(|e| ConfigError {
            path: shown.clone(),
            line: 0,
            col: 0,
            message: format!("cannot read: {e}"),
        })?;
        Self::parse(&shown, &text)
    }

    /// Validates config text.
    pub fn parse(shown: &str, text: &str) -> Result<Config, ConfigError> {
        let raw: RawConfig = if text.trim().is_empty() {
            RawConfig::default()
        } else {
            crate::input::yaml_nesting(text, crate::input::MAX_YAML_NESTING).map_err(|(line, col, message)| {
                ConfigError {
                    path: shown.into(),
                    line: line as usize,
                    col: col as usize,
                    message,
                }
            })?;
            serde_yaml::from_str(text).map_err(|e| {
                let (line, col) = e.location().map(|l| (l.line(), l.column())).unwrap_or((1, 1));
                let m = e.to_string();
                ConfigError {
                    path: shown.into(),
                    line,
                    col,
                    message: m.split(" at line ").next().unwrap_or(&m).to_string(),
                }
            })?
        };
        let locate = |needle: &str| -> (usize, usize) {
            text.lines()
                .enumerate()
                .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
                .unwrap_or((1, 1))
        };
        let bad = |needle: &str, message: String| {
            let (line, col) = locate(needle);
            ConfigError {
                path: shown.into(),
                line,
                col,
                message,
            }
        };
        let mut policy = Policy::default();
        if let Some(f) = &raw.fail_on {
            policy.fail_on =
                Severity::parse(f).ok_or_else(|| bad(f, format!("fail_on `{f}`: expected error, warning or info")))?;
        }
        // a typo in a rule code or name is an error, not a rule silently not ignored
        for i in &raw.ignore {
            let code = crate::rules::resolve(i).map_err(|m| bad(i, format!("ignore: {m}")))?;
            policy.ignore.insert(code.to_string());
        }
        for (k, v) in &raw.severity {
            let code = crate::rules::resolve(k).map_err(|m| bad(k, format!("severity: {m}")))?;
            let s = Severity::parse(v)
                .ok_or_else(|| bad(v, format!("severity of {k} `{v}`: expected error, warning or info")))?;
            policy.severity.insert(code.to_string(), s);
        }
        for t in &raw.targets {
            crate::version::Gfx::parse(t).map_err(|e| bad(t, e.to_string()))?;
        }
        let target_at = raw.targets.iter().map(|t| locate(t)).collect();
        let mut checks: Vec<TeamCheck> = Vec::new();
        for c in raw.smoke.map(|s| s.checks).unwrap_or_default() {
            let name = c.name.trim().to_string();
            // checks are in file order: each one's `name:` is after the previous one's
            let after = checks.last().map_or(0, |k| k.line);
            let (line, col) = text
                .lines()
                .enumerate()
                .skip(after)
                .find_map(|(i, l)| {
                    let t = l.trim_start().trim_start_matches("- ").trim_start();
                    let v = t.strip_prefix("name:")?.trim().trim_matches(|q| q == '"' || q == '\'');
                    (v == name).then(|| (i + 1, l.len() - t.len() + 1))
                })
                .unwrap_or((1, 1));
            let at = |message: String| ConfigError {
                path: shown.into(),
                line,
                col,
                message,
            };
            if name.is_empty() {
                return Err(at("smoke.checks: a check needs a non-empty `name`".into()));
            }
            if checks.iter().any(|k| k.name == name) {
                return Err(at(format!("smoke.checks: `{name}` is named twice")));
            }
            let run = match (c.command, c.python) {
                (Some(cmd), None) if !cmd.trim().is_empty() => CheckRun::Command(cmd),
                (None, Some(py)) if !py.trim().is_empty() => CheckRun::Python(py),
                (Some(_), Some(_)) => {
                    return Err(at(format!(
                        "smoke.checks `{name}`: give either `command` or `python`, not both"
                    )));
                }
                _ => {
                    return Err(at(format!(
                        "smoke.checks `{name}`: expected `command` (a shell command) or `python` (a file)"
                    )));
                }
            };
            let timeout_s = c.timeout_s.unwrap_or(CHECK_TIMEOUT_S);
            if !(timeout_s.is_finite() && timeout_s > 0.0) {
                return Err(at(format!(
                    "smoke.checks `{name}`: timeout_s {timeout_s}: expected a positive number of seconds"
                )));
            }
            checks.push(TeamCheck {
                name,
                run,
                timeout_s,
                expect_exit: c.expect_exit.unwrap_or(0),
                line,
            });
        }
        Ok(Config {
            path: Some(shown.into()),
            targets: raw.targets,
            target_at,
            policy,
            checks,
        })
    }

    /// Checks the targets against the matrix: a gfx name the matrix does not know (`gfx1110`) is
    /// an error at its line, with the nearest known one, as `--gfx` gives.
    pub fn check_targets(&self, matrix: &crate::matrix::Matrix) -> Result<(), ConfigError> {
        for (i, t) in self.targets.iter().enumerate() {
            if let Err(message) = crate::matrix::parse_gfx_arg(matrix, t) {
                let (line, col) = self.target_at.get(i).copied().unwrap_or((0, 0));
                return Err(ConfigError {
                    path: self.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                    line,
                    col,
                    message: format!("targets: {message}"),
                });
            }
        }
        Ok(())
    }
}
