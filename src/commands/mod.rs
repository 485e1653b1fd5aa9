//! The commands as library functions: each takes typed options and the matrix, does the work and
//! renders onto the writers it is given, and fails with a typed error. `cli` only parses
//! arguments into these options, calls them and maps their errors to the exit status.
//!
//! A command's error is either a usage or input problem (printed as `error: …`, exit 2) or a
//! failure writing its output, passed on as is ([`Failure::passed_on`]).

pub mod build;
pub mod env;
pub mod lint;
pub mod matrix;
pub mod report;
pub mod rules;
pub mod smoke;
pub mod triage;
pub mod update;

use crate::matrix::Matrix;

/// A command's error: a usage or input problem to state, or a failure to pass on unchanged.
pub trait Failure: std::fmt::Display + Sized {
    /// The error to pass on as is (writing the output failed: a broken pipe stays one), else
    /// `Err(self)`: a usage or input error, stated in one `error: …` line.
    fn passed_on(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self>;
}

/// The configuration could not be used: the file (located), or an `--ignore` that names no rule.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file is unreadable or invalid, or names targets the matrix does not know.
    #[error(transparent)]
    File(#[from] crate::config::ConfigError),
    /// `--ignore` names no rule.
    #[error("--ignore {arg}: {message}")]
    Ignore {
        /// As given.
        arg: String,
        /// Why, with "did you mean" when close.
        message: String,
    },
}

/// The configuration a checking command starts from: `--config FILE`, else `.rocmcheck.yaml` found
/// upwards, its targets checked against the matrix; plus `--ignore` from the command line, each
/// checked against the rule registry (a typo is a usage error with "did you mean").
pub fn load_config(
    explicit: Option<&std::path::Path>,
    matrix: &Matrix,
    ignore: &[String],
) -> Result<crate::config::Config, ConfigError> {
    let mut c = crate::config::Config::load_or_discover(explicit)?;
    c.check_targets(matrix)?;
    for i in ignore.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let code = crate::rules::resolve(i).map_err(|message| ConfigError::Ignore {
            arg: i.to_string(),
            message,
        })?;
        c.policy.ignore.insert(code.to_string());
    }
    Ok(c)
}
