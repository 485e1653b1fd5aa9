//! The one finding type every check produces and every output format renders.
//!
//! A finding is data: it never prints itself and never changes its own severity (that happens in
//! [`crate::policy`], once, after all rules ran).

use crate::facts::Origin;
use serde::Serialize;
use std::fmt;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Severity {
    /// Worth knowing; never fails a run unless `--fail-on info`.
    Info,
    /// Likely to cost time; fails a run with `--fail-on warning`.
    Warning,
    /// Will not work as intended.
    Error,
}

impl Severity {
    /// Parses `error|warning|info` (also `warn`).
    pub fn parse(s: &str) -> Option<Severity> {
        match s.to_ascii_lowercase().as_str() {
            "error" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "info" | "note" => Some(Severity::Info),
            _ => None,
        }
    }
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether the facts behind a finding were confirmed at a primary source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Verified against a primary source.
    #[default]
    Confirmed,
    /// Rests on an UNCONFIRMED matrix entry: informs, never more than `info`.
    Unconfirmed,
}

/// One problem found, with everything a report needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable rule code (`RC101`).
    pub code: &'static str,
    /// Stable kebab-case rule name (`torch-wheel-missing-gfx`).
    pub rule: &'static str,
    /// Severity after policy.
    pub severity: Severity,
    /// One line.
    pub title: String,
    /// Where it was seen.
    pub origin: Origin,
    /// What was seen (the evidence, in words).
    pub evidence: String,
    /// Why it matters.
    pub why: String,
    /// How to fix it: a command or an edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// References (matrix sources, docs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<String>,
    /// Confidence of the facts behind it.
    pub confidence: Confidence,
    /// The fix as edits to the file, when the rule can compute one (`lint --fix` applies it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autofix: Option<Fix>,
}

/// Whether a fix can be applied without changing what the user meant (ruff's applicability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Changes what gets installed (another torch version, another ROCm base): `--unsafe-fixes`.
    Unsafe,
    /// Only the mismatch changes (the index that carries the pinned torch, a missing device):
    /// `--fix`.
    Safe,
}

/// One replacement in one file: the bytes `start..end` become `content` (an insertion when
/// `start == end`). Offsets are into the file as read (after a UTF-8 BOM, which is kept).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Edit {
    /// The file, as the finding's origin names it.
    pub path: String,
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// The new text.
    pub content: String,
}

/// A fix: edits applied together or not at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// One line: what applying it does.
    pub title: String,
    /// Safe or unsafe.
    pub applicability: Applicability,
    /// The edits, sorted by position, never overlapping each other.
    pub edits: Vec<Edit>,
    /// What applying the edits alone does not do (a uv project's fix in `pyproject.toml`
    /// takes effect after `uv lock`): shown with the fix, and when it is applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Fix {
    /// A fix from edits (sorted and de-duplicated here); None when there is nothing to edit or
    /// two edits overlap (a rule bug: better no fix than a wrong one).
    pub fn new(title: impl Into<String>, applicability: Applicability, mut edits: Vec<Edit>) -> Option<Fix> {
        edits.sort();
        edits.dedup();
        if edits.is_empty()
            || edits
                .windows(2)
                .any(|w| w[0].path == w[1].path && w[0].end > w[1].start)
        {
            return None;
        }
        Some(Fix {
            title: title.into(),
            applicability,
            edits,
            note: None,
        })
    }
}

impl Finding {
    /// Starts a finding for a rule; fill the rest with the builder methods.
    pub fn new(meta: &RuleMeta, title: impl Into<String>, origin: Origin) -> Finding {
        Finding {
            code: meta.code,
            rule: meta.name,
            severity: meta.severity,
            title: title.into(),
            origin,
            evidence: String::new(),
            why: String::new(),
            fix: None,
            refs: Vec::new(),
            confidence: Confidence::Confirmed,
            autofix: None,
        }
    }
    /// Attaches a fix (none when `fix` is None).
    pub fn autofix(mut self, fix: Option<Fix>) -> Self {
        self.autofix = fix;
        self
    }
    /// Sets the evidence text.
    pub fn evidence(mut self, s: impl Into<String>) -> Self {
        self.evidence = s.into();
        self
    }
    /// Sets why it matters.
    pub fn why(mut self, s: impl Into<String>) -> Self {
        self.why = s.into();
        self
    }
    /// Sets the fix.
    pub fn fix(mut self, s: impl Into<String>) -> Self {
        self.fix = Some(s.into());
        self
    }
    /// Adds references.
    pub fn refs<I: IntoIterator<Item = S>, S: Into<String>>(mut self, r: I) -> Self {
        self.refs.extend(r.into_iter().map(Into::into));
        self
    }
    /// Overrides the rule's default severity for this finding (a rule may pick a severity from
    /// the matrix, e.g. a known issue's; the policy may still change it afterwards).
    pub fn severity(mut self, s: Severity) -> Self {
        self.severity = s;
        self
    }
    /// Marks the finding as resting on unconfirmed facts (the policy caps it at `info`).
    pub fn unconfirmed(mut self, yes: bool) -> Self {
        if yes {
            self.confidence = Confidence::Unconfirmed;
        }
        self
    }
}

/// Where a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// `rocmcheck env` only.
    Env,
    /// `rocmcheck lint` only.
    Lint,
    /// Both.
    Both,
}

impl Scope {
    /// Does a rule of this scope run for `run`?
    pub fn includes(self, run: Scope) -> bool {
        self == Scope::Both || self == run
    }
}

/// A rule's static description.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RuleMeta {
    /// Stable code (`RC101`).
    pub code: &'static str,
    /// Stable kebab-case name, naming the problem (`torch-wheel-missing-gfx`).
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// Where it runs.
    pub scope: Scope,
    /// One line.
    pub summary: &'static str,
    /// The help page (the rule's doc comment, Markdown).
    #[serde(skip)]
    pub doc: &'static str,
}
