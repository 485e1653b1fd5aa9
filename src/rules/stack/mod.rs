//! Stack rules: torch wheel × ROCm × gfx × known issues. Shared by `lint` and `env`.

mod known_issue;

pub use known_issue::KnownIssueMatches;

use super::Rule;

/// The stack rules.
pub static RULES: &[&dyn Rule] = &[&KnownIssueMatches];
