//! The nightly gate and history: which results fail the night, and a trend table of the last
//! nights.
//!
//! Every result that did not pass fails the night — a regression, a candidate failing since its
//! first night, a misconfigured runner, a lost job — unless an allow-list entry covers it with a
//! reason and an expiry date. An entry past its expiry fails the night itself (an allowance is
//! a loan, not a mute button). A job of the previous night that is not in this one (a vanished
//! candidate × gfx) fails too, unless allowed with `classification: vanished`.
//!
//! Allow-list file (YAML):
//!
//! ```yaml
//! allow:
//!   - candidate: torch2.8.0-rocm6.4-dev-ubuntu-24.04   # a candidate id, or a glob (`*`, `?`)
//!     gfx: gfx1100                  # optional (a glob too): every target when left out
//!     classification: torch-failed # optional: any failure when left out; `vanished` for those
//!     reason: "rocBLAS has no gfx1100 kernels in this wheel (ROCm/ROCm#2536)"
//!     expires: 2026-12-31
//! ```
//!
//! `candidate: "torch2.8.0-*"` covers every candidate of that torch (an outage of one runner
//! label is one entry with `gfx:`). An entry that matches no job of this night or the previous
//! one fails the night: it is a typo, or a stale entry to remove.

use super::results::{CandidateResult, Key, Run, key_name, md_cell as cell, md_code as code};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

/// The allow-list file.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct AllowList {
    /// Entries.
    #[serde(default)]
    pub allow: Vec<Allow>,
}

/// One allowed failure.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Allow {
    /// The candidate id, or a glob of ids (`*` any run of characters, `?` one).
    pub candidate: String,
    /// The gfx target (or a glob); every target when absent.
    #[serde(default)]
    pub gfx: Option<String>,
    /// The classification allowed (`vanished` for a job gone from the run); any when absent.
    #[serde(default)]
    pub classification: Option<String>,
    /// Why (required).
    pub reason: String,
    /// The last day (UTC, `YYYY-MM-DD`) the entry holds (required).
    pub expires: String,
}

impl Allow {
    fn covers(&self, k: &Key, classification: &str) -> bool {
        self.names(k) && self.classification.as_ref().is_none_or(|c| c == classification)
    }

    /// The entry's candidate and gfx match the job (whatever its result).
    fn names(&self, k: &Key) -> bool {
        glob(&self.candidate, &k.0) && self.gfx.as_ref().is_none_or(|g| glob(g, &k.1))
    }
}

/// `*` matches any run of characters, `?` one character, everything else itself.
pub fn glob(pattern: &str, s: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), s.chars().collect());
    // the classic two-pointer match with one backtrack point: linear in practice, no recursion
    let (mut i, mut j, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(st) = star {
            i = st + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

/// Reads an allow-list; errors name the file, the line and what was expected.
pub fn load_allow(path: &Path) -> Result<AllowList, String> {
    let name = path.display();
    let text = crate::input::read_text(path, 4 << 20).map_err(|e| format!("{name}: cannot read: {e}"))?;
    if text.trim().is_empty() {
        return Ok(AllowList::default());
    }
    crate::input::yaml_nesting(&text, crate::input::MAX_YAML_NESTING)
        .map_err(|(line, col, m)| format!("{name}:{line}:{col}: {m}"))?;
    let list: AllowList = serde_yaml::from_str(&text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(":{}:{}", l.line(), l.column()))
            .unwrap_or_default();
        format!(
            "{name}{at}: {e} (expected `allow:` entries with candidate, optional gfx and \
             classification, reason, expires: YYYY-MM-DD)"
        )
    })?;
    for (i, a) in list.allow.iter().enumerate() {
        if a.reason.trim().is_empty() {
            return Err(format!("{name}: allow[{i}] ({}): `reason` is empty", a.candidate));
        }
        if parse_date(&a.expires).is_none() {
            return Err(format!(
                "{name}: allow[{i}] ({}): `expires: {}` is not a date (expected YYYY-MM-DD)",
                a.candidate, a.expires
            ));
        }
    }
    Ok(list)
}

/// `YYYY-MM-DD` → (year, month, day), checked.
pub fn parse_date(s: &str) -> Option<(i64, u32, u32)> {
    let mut p = s.trim().splitn(3, '-');
    let y: i64 = p.next()?.parse().ok()?;
    let m: u32 = p.next()?.parse().ok()?;
    let d: u32 = p.next()?.parse().ok()?;
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    (s.trim().len() == 10 && (1..=12).contains(&m) && d >= 1 && d <= days[m as usize - 1]).then_some((y, m, d))
}

/// Today's UTC date as `YYYY-MM-DD` (civil-from-days, Howard Hinnant's algorithm).
pub fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// One failing job and what the gate made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// `candidate@gfx`.
    pub name: String,
    /// The classification (`vanished` for a job gone since the previous night).
    pub classification: String,
    /// The result's detail.
    pub detail: Option<String>,
    /// The allow-list entry that covers it (and is not expired).
    pub allowed_by: Option<Allow>,
    /// An infrastructure failure (runner, engine, lost job).
    pub infrastructure: bool,
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdict {
    /// Every failing job.
    pub failing: Vec<Judged>,
    /// Entries past their expiry (each fails the night).
    pub expired: Vec<Allow>,
    /// Live entries that match no job of this night or the previous one (each fails the night:
    /// a typo, or a stale entry).
    pub unmatched: Vec<Allow>,
    /// Jobs judged.
    pub jobs: usize,
}

impl Verdict {
    /// Whether the night fails. A night that judged no job fails too: an empty run says nothing
    /// passed (an empty matrix export, or no result merged), and is never a silent pass.
    pub fn fails(&self) -> bool {
        self.empty()
            || !self.expired.is_empty()
            || !self.unmatched.is_empty()
            || self.failing.iter().any(|j| j.allowed_by.is_none())
    }

    /// No job was judged: the run holds no result and no job vanished from the previous night.
    pub fn empty(&self) -> bool {
        self.jobs == 0 && self.failing.is_empty()
    }
}

fn date_key(s: &str) -> (i64, u32, u32) {
    parse_date(s).unwrap_or((0, 0, 0))
}

/// Judges a run: every non-pass result, and (with the previous night) every vanished job.
pub fn judge(current: &Run, previous: Option<&Run>, allow: &AllowList, today: &str) -> Verdict {
    let today_k = date_key(today);
    let (live, expired): (Vec<&Allow>, Vec<&Allow>) = allow.allow.iter().partition(|a| date_key(&a.expires) >= today_k);
    let cover = |k: &Key, class: &str| live.iter().find(|a| a.covers(k, class)).map(|a| (*a).clone());
    let mut v = Verdict {
        expired: expired.into_iter().cloned().collect(),
        jobs: current.candidates.len(),
        ..Default::default()
    };
    for c in current.candidates.iter().filter(|c| !c.passed()) {
        let k = c.key();
        v.failing.push(Judged {
            name: key_name(&k),
            classification: c.classification.clone(),
            detail: c.detail.clone(),
            allowed_by: cover(&k, &c.classification),
            infrastructure: c.infrastructure(),
        });
    }
    let keys: Vec<Key> = current
        .candidates
        .iter()
        .chain(previous.iter().flat_map(|p| p.candidates.iter()))
        .map(CandidateResult::key)
        .collect();
    v.unmatched = live
        .iter()
        .filter(|a| !keys.iter().any(|k| a.names(k)))
        .map(|a| (*a).clone())
        .collect();
    if let Some(prev) = previous {
        let now: std::collections::BTreeSet<Key> = current.candidates.iter().map(CandidateResult::key).collect();
        for p in &prev.candidates {
            let k = p.key();
            if !now.contains(&k) {
                v.failing.push(Judged {
                    name: key_name(&k),
                    classification: "vanished".into(),
                    detail: Some(format!(
                        "in the previous night ({}), not in this one: dropped from the matrix, or its job never ran",
                        p.classification
                    )),
                    allowed_by: cover(&k, "vanished"),
                    infrastructure: false,
                });
            }
        }
    }
    v
}

/// The verdict as Markdown (for the step summary).
pub fn render_verdict(v: &Verdict, out: &mut dyn Write) -> io::Result<()> {
    let blocking = v.failing.iter().filter(|j| j.allowed_by.is_none()).count();
    let allowed = v.failing.len() - blocking;
    writeln!(
        out,
        "### Gate: {}\n\n{blocking} failing job(s) not allowed, {allowed} allowed, {} expired allow-list entr{} ({} job(s) judged)\n",
        if v.fails() { "❌ failed" } else { "✅ passed" },
        v.expired.len(),
        if v.expired.len() == 1 { "y" } else { "ies" },
        v.jobs
    )?;
    if v.empty() {
        writeln!(
            out,
            "The run holds no result: nothing was judged, so nothing passed (an empty matrix export, or no result file merged).\n"
        )?;
    }
    if !v.failing.is_empty() {
        writeln!(out, "| job | result | kind | allowed | detail |")?;
        writeln!(out, "| --- | --- | --- | --- | --- |")?;
        for j in &v.failing {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                code(&j.name),
                cell(&j.classification),
                if j.infrastructure { "infrastructure" } else { "product" },
                match &j.allowed_by {
                    Some(a) => format!("until {}: {}", a.expires, cell(&a.reason)),
                    None => "no".into(),
                },
                j.detail.as_deref().map(cell).unwrap_or_default()
            )?;
        }
    }
    for a in &v.unmatched {
        writeln!(
            out,
            "\n- ⚠️ allow-list entry for {}{} matches no job of this night or the previous one: fix the candidate/gfx (a typo?) or remove the entry",
            code(&a.candidate),
            a.gfx.as_deref().map(|g| format!(" on {}", cell(g))).unwrap_or_default(),
        )?;
    }
    for a in &v.expired {
        writeln!(
            out,
            "\n- ⚠️ allow-list entry for {}{} expired on {} (reason was: {}): fix the failure, or renew the entry with a new date",
            code(&a.candidate),
            a.gfx.as_deref().map(|g| format!(" on {}", cell(g))).unwrap_or_default(),
            a.expires,
            cell(&a.reason)
        )?;
    }
    Ok(())
}

/// A trend table of the last nights (oldest first, the current night last): one row per job
/// that did not pass in every night shown (rows that always passed are counted, not listed).
pub fn render_trend(nights: &[(String, Run)], out: &mut dyn Write) -> io::Result<()> {
    let mut rows: BTreeMap<Key, Vec<Option<String>>> = BTreeMap::new();
    for (i, (_, run)) in nights.iter().enumerate() {
        for c in &run.candidates {
            rows.entry(c.key()).or_insert_with(|| vec![None; nights.len()])[i] = Some(c.classification.clone());
        }
    }
    let steady = rows
        .values()
        .filter(|v| v.iter().all(|c| c.as_deref() == Some(super::results::PASS)))
        .count();
    writeln!(out, "### Trend: the last {} night(s)\n", nights.len())?;
    let mut head = String::from("| job |");
    let mut rule = String::from("| --- |");
    for (label, _) in nights {
        let _ = write!(head, " {} |", cell(label));
        rule.push_str(" --- |");
    }
    writeln!(out, "{head}\n{rule}")?;
    for (k, v) in rows
        .iter()
        .filter(|(_, v)| !v.iter().all(|c| c.as_deref() == Some(super::results::PASS)))
    {
        let mut line = format!("| {} |", code(&key_name(k)));
        for c in v {
            let _ = write!(
                line,
                " {} |",
                match c.as_deref() {
                    None => "·".to_string(),
                    Some(super::results::PASS) => "✅".to_string(),
                    Some(x) if super::results::INFRASTRUCTURE.contains(&x) => format!("⚠️ {}", cell(x)),
                    Some(x) => format!("❌ {}", cell(x)),
                }
            );
        }
        writeln!(out, "{line}")?;
    }
    writeln!(out, "\n{steady} job(s) passed every night shown; · = not in that night")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked_and_today_is_a_date() {
        assert_eq!(parse_date("2026-02-28"), Some((2026, 2, 28)));
        assert_eq!(parse_date("2026-02-29"), None);
        assert_eq!(parse_date("2028-02-29"), Some((2028, 2, 29)));
        assert_eq!(parse_date("2026-13-01"), None);
        assert_eq!(parse_date("26-1-1"), None);
        assert!(parse_date(&today_utc()).is_some(), "{}", today_utc());
    }

    #[test]
    fn globs_match_whole_names() {
        assert!(glob("torch2.8.0-*", "torch2.8.0-rocm6.4-dev-ubuntu-24.04"));
        assert!(glob("*", "anything"));
        assert!(glob("gfx11??", "gfx1100"));
        assert!(glob("*rocm6.4*", "torch2.8.0-rocm6.4-dev-ubuntu-24.04"));
        assert!(!glob("torch2.8.0-*", "torch2.9.0-rocm6.4"));
        assert!(!glob("gfx11??", "gfx110"));
        assert!(!glob("gfx1100", "gfx11000"));
        assert!(glob("a*b*c", "aXbYbZc"));
    }

    fn run(jobs: &[(&str, &str, &str)]) -> Run {
        let candidates: Vec<serde_json::Value> = jobs
            .iter()
            .map(|(id, gfx, class)| serde_json::json!({"id": id, "gfx": gfx, "classification": class}))
            .collect();
        serde_json::from_value(serde_json::json!({"results_schema": 1, "candidates": candidates})).unwrap()
    }

    fn allow(yaml: &str) -> AllowList {
        serde_yaml::from_str(yaml).unwrap()
    }

    /// One glob entry allows an outage of every candidate on one target; an entry that names no
    /// job (a typo) fails the night and says so.
    #[test]
    fn glob_entries_cover_many_jobs_and_unmatched_entries_fail() {
        let night = run(&[
            ("torch2.8.0-rocm6.4-a", "gfx1100", "hipblas-failed"),
            ("torch2.9.0-rocm6.4-b", "gfx1100", "hipblas-failed"),
            ("torch2.9.0-rocm6.4-b", "gfx942", "pass"),
        ]);
        let a = allow(
            "allow:\n  - candidate: \"*\"\n    gfx: gfx1100\n    reason: runner outage\n    expires: 2999-01-01\n",
        );
        let v = judge(&night, None, &a, "2026-11-26");
        assert!(!v.fails(), "{v:?}");
        assert!(v.failing.iter().all(|j| j.allowed_by.is_some()));
        let typo = allow(
            "allow:\n  - candidate: \"*\"\n    gfx: gfx1100\n    reason: runner outage\n    expires: 2999-01-01\n  - candidate: torch2.9.0-rocm6.4-bb\n    reason: typo\n    expires: 2999-01-01\n",
        );
        let v = judge(&night, None, &typo, "2026-11-26");
        assert!(v.fails());
        assert_eq!(v.unmatched.len(), 1);
        let mut md = Vec::new();
        render_verdict(&v, &mut md).unwrap();
        let md = String::from_utf8(md).unwrap();
        assert!(md.contains("matches no job"), "{md}");
    }
}
