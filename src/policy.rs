//! The one place severities change: ignores (config, CLI, inline pragmas), severity overrides,
//! the cap on unconfirmed facts, and the failure threshold → [`ExitStatus`].

use crate::exit::ExitStatus;
use crate::finding::{Confidence, Finding, Severity};
use std::collections::{BTreeMap, BTreeSet};

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Findings at or above this fail the run (exit 1).
    pub fail_on: Severity,
    /// Rule codes or names to drop.
    pub ignore: BTreeSet<String>,
    /// Severity per rule code or name.
    pub severity: BTreeMap<String, Severity>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            fail_on: Severity::Error,
            ignore: BTreeSet::new(),
            severity: BTreeMap::new(),
        }
    }
}

impl Policy {
    fn lookup<'a, T>(map: impl Fn(&str) -> Option<&'a T>, f: &Finding) -> Option<&'a T> {
        map(f.code).or_else(|| map(f.rule))
    }

    /// Applies ignores (`inline_ignored` answers for pragmas), overrides and the unconfirmed cap.
    pub fn apply(&self, findings: Vec<Finding>, inline_ignored: &dyn Fn(&Finding) -> bool) -> Vec<Finding> {
        let mut out: Vec<Finding> = findings
            .into_iter()
            .filter(|f| !self.ignore.contains(f.code) && !self.ignore.contains(f.rule) && !inline_ignored(f))
            .map(|mut f| {
                if let Some(s) = Self::lookup(|k| self.severity.get(k), &f) {
                    f.severity = *s;
                }
                if f.confidence == Confidence::Unconfirmed && f.severity > Severity::Info {
                    f.severity = Severity::Info;
                }
                f
            })
            .collect();
        out.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| origin_key(&a.origin).cmp(&origin_key(&b.origin)))
                .then_with(|| a.code.cmp(b.code))
        });
        out.dedup_by(|a, b| a.code == b.code && a.origin == b.origin && a.title == b.title);
        out
    }

    /// The outcome for a set of findings (already through [`Policy::apply`]).
    pub fn exit_status<'a>(&self, findings: impl IntoIterator<Item = &'a Finding>) -> ExitStatus {
        if findings.into_iter().any(|f| f.severity >= self.fail_on) {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

fn origin_key(o: &crate::facts::Origin) -> (u32, u32) {
    match o {
        crate::facts::Origin::File { line, col, .. } => (*line, *col),
        _ => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::Origin;
    use crate::rules::stack::KnownIssueMatches;

    fn f(sev: Severity, unconfirmed: bool) -> Finding {
        Finding::new(
            &KnownIssueMatches::META,
            format!("{sev} {unconfirmed}"),
            Origin::General,
        )
        .severity(sev)
        .unconfirmed(unconfirmed)
    }

    #[test]
    fn unconfirmed_is_capped_at_info_even_when_overridden() {
        let mut p = Policy::default();
        p.severity.insert("RC100".into(), Severity::Error);
        let out = p.apply(vec![f(Severity::Warning, true), f(Severity::Info, false)], &|_| false);
        assert_eq!(out.len(), 2);
        // the confirmed one takes the override, the unconfirmed one stays capped at info
        assert_eq!(out.iter().filter(|x| x.severity == Severity::Error).count(), 1);
        assert_eq!(out.iter().filter(|x| x.severity == Severity::Info).count(), 1);
        assert_eq!(p.exit_status(&out), ExitStatus::Findings);
    }

    #[test]
    fn ignores_by_code_name_and_pragma() {
        let mut p = Policy::default();
        assert_eq!(p.apply(vec![f(Severity::Error, false)], &|_| true).len(), 0);
        p.ignore.insert("known-issue".into());
        assert_eq!(p.apply(vec![f(Severity::Error, false)], &|_| false).len(), 0);
    }

    #[test]
    fn threshold() {
        let p = Policy {
            fail_on: Severity::Warning,
            ..Policy::default()
        };
        assert_eq!(p.exit_status(&[f(Severity::Info, false)]), ExitStatus::Success);
        assert_eq!(p.exit_status(&[f(Severity::Warning, false)]), ExitStatus::Findings);
    }
}
