//! `.rocmcheck.yaml`: targets, ignored rules, severity overrides, failure threshold.
//!
//! Read once, in `cli::resolve_policy`, merged with command-line flags (flags win).

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
}

/// A validated configuration.
#[derive(Debug, Default, Clone)]
pub struct Config {
    /// Where it was read from.
    pub path: Option<PathBuf>,
    /// Targets.
    pub targets: Vec<String>,
    /// Policy.
    pub policy: Policy,
}

/// A configuration problem, located.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}:{col}: {message}")]
pub struct ConfigError {
    /// File.
    pub path: String,
    /// Line.
    pub line: usize,
    /// Column.
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
            line: 1,
            col: 1,
            message: format!("cannot read: {e}"),
        })?;
        Self::parse(&shown, &text)
    }

    /// Validates config text.
    pub fn parse(shown: &str, text: &str) -> Result<Config, ConfigError> {
        let raw: RawConfig = if text.trim().is_empty() {
            RawConfig::default()
        } else {
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
        for i in &raw.ignore {
            policy.ignore.insert(i.clone());
        }
        for (k, v) in &raw.severity {
            let s = Severity::parse(v)
                .ok_or_else(|| bad(v, format!("severity of {k} `{v}`: expected error, warning or info")))?;
            policy.severity.insert(k.clone(), s);
        }
        for t in &raw.targets {
            crate::version::Gfx::parse(t).map_err(|e| bad(t, e.to_string()))?;
        }
        Ok(Config {
            path: Some(shown.into()),
            targets: raw.targets,
            policy,
        })
    }
}
