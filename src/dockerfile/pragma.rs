//! Inline silencing, hadolint-style: `# rocmcheck ignore=RC401,torch-unpinned` on the line(s)
//! directly above an instruction silences those rules for findings inside that instruction;
//! `# rocmcheck global ignore=RC405` anywhere silences them for the whole file.

use crate::facts::Origin;
use crate::finding::Finding;
use std::collections::{BTreeMap, BTreeSet};

/// The pragmas of one file.
#[derive(Debug, Clone, Default)]
pub struct Pragmas {
    /// File-wide ignores (codes or names, lowercase).
    pub global: BTreeSet<String>,
    /// Ignores per instruction start line.
    pub by_line: BTreeMap<u32, BTreeSet<String>>,
    /// Instruction line ranges (start, end inclusive), sorted.
    pub ranges: Vec<(u32, u32)>,
    /// Every code or name the pragmas give, with its line, as written (lowercase). The rules
    /// sit above this parser, so which of them name no rule is asked with [`Pragmas::unknown`]
    /// and the rules' resolver.
    pub named: Vec<(u32, String)>,
    /// The file the pragmas are in: an inline pragma applies to findings located in it, not to
    /// those located in a requirements file or `uv.lock` it names (same line numbers, another
    /// file). None: every finding is taken to be in it.
    pub path: Option<String>,
}

fn ids(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(',')
        .map(|x| x.trim().to_ascii_lowercase())
        .filter(|x| !x.is_empty())
}

/// Parses the pragma in a comment line (`# rocmcheck [global] ignore=…`): (global, ids).
fn pragma(line: &str) -> Option<(bool, Vec<String>)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("rocmcheck")?.trim_start();
    let (global, rest) = match rest.strip_prefix("global") {
        Some(r) => (true, r.trim_start()),
        None => (false, rest),
    };
    let list = rest.strip_prefix("ignore")?.trim_start().strip_prefix('=')?;
    let list = list.split_whitespace().next().unwrap_or("");
    Some((global, ids(list).collect()))
}

impl Pragmas {
    /// Reads pragmas from a text, given the start lines of its instructions (sorted, 1-based).
    pub fn read(text: &str, instruction_starts: &[u32]) -> Pragmas {
        let lines: Vec<&str> = text.lines().collect();
        let mut p = Pragmas::default();
        for (i, l) in lines.iter().enumerate() {
            if let Some((global, ids)) = pragma(l) {
                p.named.extend(ids.iter().map(|id| (i as u32 + 1, id.clone())));
                if global {
                    p.global.extend(ids);
                }
            }
        }
        for (k, &start) in instruction_starts.iter().enumerate() {
            // comment lines directly above the instruction
            let mut j = start as usize - 1; // 0-based index of the instruction line
            let mut set = BTreeSet::new();
            while j > 0 {
                let l = lines.get(j - 1).copied().unwrap_or("");
                if !l.trim_start().starts_with('#') {
                    break;
                }
                if let Some((false, ids)) = pragma(l) {
                    set.extend(ids);
                }
                j -= 1;
            }
            if !set.is_empty() {
                p.by_line.insert(start, set);
            }
            // the instruction runs to the line before the next one, less trailing blanks/comments
            let mut end = instruction_starts
                .get(k + 1)
                .map_or(lines.len() as u32, |n| n - 1)
                .max(start);
            while end > start {
                let l = lines.get(end as usize - 1).copied().unwrap_or("").trim_start();
                if l.is_empty() || l.starts_with('#') {
                    end -= 1;
                } else {
                    break;
                }
            }
            p.ranges.push((start, end));
        }
        p
    }

    /// Codes or names in pragmas that name no rule: (line, what is wrong), by `resolve` (the
    /// rules' own, `rules::resolve`). `lint` warns about each on stderr and goes on, as ruff does
    /// for an unknown code in `# noqa` (a pragma written for a newer rocmcheck must not fail an
    /// older one's run).
    pub fn unknown<T>(&self, resolve: impl Fn(&str) -> Result<T, String>) -> Vec<(u32, String)> {
        self.named
            .iter()
            .filter_map(|(line, id)| resolve(id).err().map(|m| (*line, m)))
            .collect()
    }

    /// Is this finding silenced by a pragma?
    pub fn ignores(&self, f: &Finding) -> bool {
        let hit = |s: &BTreeSet<String>| s.contains(&f.code.to_ascii_lowercase()) || s.contains(f.rule);
        if hit(&self.global) {
            return true;
        }
        let Origin::File { line, path, .. } = &f.origin else {
            return false;
        };
        if self.path.as_ref().is_some_and(|p| p != path) {
            return false;
        }
        self.ranges
            .iter()
            .find(|(s, e)| s <= line && line <= e)
            .and_then(|(s, _)| self.by_line.get(s))
            .is_some_and(hit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{RuleMeta, Scope, Severity};

    /// A rule's metadata as the rules declare it (the rules themselves sit above this module).
    const KNOWN_ISSUE: RuleMeta = RuleMeta {
        code: "RC100",
        name: "known-issue",
        severity: Severity::Warning,
        scope: Scope::Both,
        summary: "",
        doc: "",
    };

    fn at(line: u32) -> Finding {
        Finding::new(
            &KNOWN_ISSUE,
            "t",
            Origin::File {
                path: "D".into(),
                line,
                col: 1,
                end_line: None,
                end_col: None,
            },
        )
    }

    #[test]
    fn line_and_global_pragmas() {
        let text = "FROM a\n# rocmcheck ignore=RC100, RC999\nRUN a \\\n  b\n\nRUN c\n";
        let p = Pragmas::read(text, &[1, 3, 6]);
        assert!(p.ignores(&at(3)));
        assert!(p.ignores(&at(4)), "continuation lines belong to the instruction");
        assert!(!p.ignores(&at(6)));
        assert!(!p.ignores(&at(1)));
        let p = Pragmas::read("# rocmcheck global ignore=known-issue\nFROM a\n", &[2]);
        assert!(p.ignores(&at(2)));
        let p = Pragmas::read("# rocmcheck ignore=RC101\nFROM a\n", &[2]);
        assert!(!p.ignores(&at(2)));
    }
}
