//! The nightly gate and history: which results fail the night, and a trend table of the last
//! nights.
//!
//! The gate sorts every job that did not pass into one of three sections:
//!
//! - **Product**: the candidate failed on a runner that was fit for it (`build-failed`,
//!   `no-device`, `torch-failed`, …). With the previous night, a job that passed then is a
//!   *regression*; one that failed then is *still failing*; one that was not there is *new*.
//!   Each one fails the night unless an allow-list entry covers it.
//! - **Infrastructure**: the night says nothing about the candidate: a runner that failed its
//!   pre-flight (`runner-misconfigured`), a lost engine (`engine-lost`), a job that left no
//!   result (`missing`: a dead runner, a label with no runner, a cancel), and a job of the
//!   previous night that is not in this one (`vanished`: a dispatch with narrower targets or
//!   filters, a label left out as unavailable, a candidate that aged out). A target whose every
//!   job is infrastructure is named as an outage. Reported, not gating, unless the policy says
//!   so (`--fail-on-infrastructure`).
//! - **Watch**: jobs of candidates named by `--watch` (pre-release channels, experiments):
//!   reported whatever they did, never gating.
//!
//! A night that judged no job fails (an empty run is never a silent pass), and so does a live
//! allow-list entry that matches no job of this night or the previous one (a typo, or a stale
//! entry to remove). An entry past its expiry is reported and no longer allows.
//!
//! Allow-list file (YAML):
//!
//! ```yaml
//! allow:
//!   - candidate: torch2.8.0-rocm6.4-dev-ubuntu-24.04   # a candidate id, or a glob (`*`, `?`)
//!     gfx: gfx1100                  # optional (a glob too): every target when left out
//!     classification: torch-failed # optional: any result when left out; `vanished` for those
//!     reason: "rocBLAS has no gfx1100 kernels in this wheel (ROCm/ROCm#2536)"
//!     expires: 2026-12-31
//! ```
//!
//! `candidate: "torch2.8.0-*"` covers every candidate of that torch (an outage of one runner
//! label is one entry with `gfx:`). A field other than these, a glob character other than `*`
//! and `?`, a classification rocmcheck does not know, an empty reason or a bad date is an
//! error naming the file and the entry's line.

use super::results::{Key, Run, key_name, md_cell as cell, md_code as code};
use super::text::{Sym, Text};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
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
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Allow {
    /// The candidate id, or a glob of ids (`*` any run of characters, `?` one).
    pub candidate: String,
    /// The gfx target (or a glob); every target when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gfx: Option<String>,
    /// The classification allowed (`vanished` for a job gone from the run); any when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classification: Option<String>,
    /// Why (required).
    pub reason: String,
    /// The last day (UTC, `YYYY-MM-DD`) the entry holds (required).
    pub expires: String,
    /// Where the entry is: `file:line` (set by [`load_allow`]).
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

impl Allow {
    fn covers(&self, k: (&str, &str), classification: &str) -> bool {
        self.names(k) && self.classification.as_ref().is_none_or(|c| c == classification)
    }

    /// The entry's candidate and gfx match the job (candidate, gfx), whatever its result.
    fn names(&self, (candidate, gfx): (&str, &str)) -> bool {
        glob(&self.candidate, candidate) && self.gfx.as_ref().is_none_or(|g| glob(g, gfx))
    }

    /// `candidate` or `candidate on gfx`, for messages.
    pub fn label(&self) -> String {
        match &self.gfx {
            Some(g) => format!("{} on {g}", self.candidate),
            None => self.candidate.clone(),
        }
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

/// Characters other globbers treat as patterns, which this one would take literally: refused,
/// so that `gfx11[05]0` is an error rather than an entry that silently matches nothing.
const NOT_GLOB: &[char] = &['[', ']', '{', '}', '!', '^', '\\'];

/// Checks a candidate or gfx pattern (an allow-list field, a `--watch` value).
pub fn check_pattern(p: &str) -> Result<(), String> {
    if p.trim().is_empty() {
        return Err("is empty".into());
    }
    if p.chars().any(char::is_whitespace) {
        return Err(format!("`{p}` holds a space (ids and targets have none)"));
    }
    match p.chars().find(|c| NOT_GLOB.contains(c)) {
        Some(c) => Err(format!(
            "`{p}`: `{c}` is not a pattern character here (only `*`, any run of characters, and `?`, one character)"
        )),
        None => Ok(()),
    }
}

/// The classifications an allow-list entry may name: every smoke classification and `vanished`.
fn known_classification(c: &str) -> bool {
    c == VANISHED
        || crate::smoke::Classification::ALL
            .iter()
            .any(|k| *k != crate::smoke::Classification::Unknown && k.as_str() == c)
}

/// The classification of a job of the previous night that is not in this one.
pub const VANISHED: &str = "vanished";

/// The 1-based line of each entry of the top-level `allow:` block sequence (best effort: a flow
/// sequence `allow: [...]` gives the `allow:` line for every entry).
fn entry_lines(text: &str, n: usize) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| l.starts_with("allow:")) else {
        return vec![1; n];
    };
    let mut out = Vec::new();
    let mut indent = None;
    for (i, l) in lines.iter().enumerate().skip(start + 1) {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let ind = l.len() - t.len();
        if ind == 0 && !t.starts_with('-') {
            break;
        }
        if (t == "-" || t.starts_with("- ")) && *indent.get_or_insert(ind) == ind {
            out.push(i + 1);
        }
    }
    out.resize(n.max(out.len()), start + 1);
    out
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
    let mut list: AllowList = serde_yaml::from_str(&text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(":{}:{}", l.line(), l.column()))
            .unwrap_or_default();
        format!(
            "{name}{at}: {e} (expected `allow:` entries with candidate, optional gfx and \
             classification, reason, expires: YYYY-MM-DD)"
        )
    })?;
    let lines = entry_lines(&text, list.allow.len());
    for (a, line) in list.allow.iter_mut().zip(lines) {
        let at = format!("{name}:{line}");
        let bad = |what: String| Err(format!("{at}: allow-list entry for {}: {what}", a.candidate));
        if let Err(e) = check_pattern(&a.candidate) {
            return bad(format!("`candidate` {e}"));
        }
        if let Some(Err(e)) = a.gfx.as_deref().map(check_pattern) {
            return bad(format!("`gfx` {e}"));
        }
        if let Some(c) = a.classification.as_deref().filter(|c| !known_classification(c)) {
            let mut known: Vec<&str> = crate::smoke::Classification::ALL
                .iter()
                .filter(|k| **k != crate::smoke::Classification::Unknown)
                .map(|k| k.as_str())
                .collect();
            known.push(VANISHED);
            return bad(format!(
                "`classification: {c}` is not one rocmcheck knows (expected one of {})",
                known.join(", ")
            ));
        }
        if a.reason.trim().is_empty() {
            return bad("`reason` is empty".into());
        }
        if parse_date(&a.expires).is_none() {
            return bad(format!("`expires: {}` is not a date (expected YYYY-MM-DD)", a.expires));
        }
        a.at = Some(at);
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

/// Which section of the gate a job is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    /// The candidate failed on a fit runner.
    Product,
    /// Runner, engine or scheduling: nothing about the candidate.
    Infrastructure,
    /// A watched candidate: reported, never gating.
    Watch,
}

/// How the gate judges (the policy flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    /// Infrastructure results fail the night too (not only product failures).
    pub fail_on_infrastructure: bool,
    /// Candidate patterns (globs; `candidate@gfx` when the pattern holds `@`) whose jobs are
    /// watched: reported, never gating.
    pub watch: Vec<String>,
}

impl Policy {
    fn watched_key(&self, k: (&str, &str)) -> bool {
        self.watch.iter().any(|w| match w.split_once('@') {
            Some((c, g)) => glob(c, k.0) && glob(g, k.1),
            None => glob(w, k.0),
        })
    }
}

/// One job that did not pass, and what the gate made of it. It shares its strings with the
/// results it was judged from (a night of 200,000 failures holds no copy of their ids).
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The candidate id.
    pub candidate: Text,
    /// The gfx target (empty when the result names none).
    pub gfx: Sym,
    /// The classification (`vanished` for a job gone since the previous night).
    pub classification: Sym,
    /// The previous night's classification of the job (None: not in it, or no previous night).
    pub before: Option<Sym>,
    /// The result's detail.
    pub detail: Option<Text>,
    /// The live allow-list entry that covers it.
    pub allowed_by: Option<std::sync::Arc<Allow>>,
    /// Its section.
    pub section: Section,
    /// It fails the night.
    pub blocking: bool,
}

/// The JSON object of a judged job: keys in sorted order, `name` (`candidate@gfx`) made as it
/// is written.
impl Serialize for Judged {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut m = s.serialize_map(None)?;
        if let Some(a) = &self.allowed_by {
            m.serialize_entry(
                "allowed_by",
                &serde_json::to_value(a.as_ref()).map_err(serde::ser::Error::custom)?,
            )?;
        }
        if let Some(b) = &self.before {
            m.serialize_entry("before", b)?;
        }
        m.serialize_entry("blocking", &self.blocking)?;
        m.serialize_entry("candidate", &self.candidate)?;
        m.serialize_entry("classification", &self.classification)?;
        if let Some(d) = &self.detail {
            m.serialize_entry("detail", d)?;
        }
        m.serialize_entry("gfx", &self.gfx)?;
        m.serialize_entry("name", &self.name())?;
        m.serialize_entry("section", &self.section)?;
        m.end()
    }
}

impl Judged {
    /// `candidate@gfx`.
    pub fn name(&self) -> String {
        key_name(&(self.candidate.to_string(), self.gfx.to_string()))
    }

    /// Product: passed the previous night (a regression), failed then, or new.
    pub fn change(&self) -> &'static str {
        match self.before.as_deref() {
            Some(super::results::PASS) => "regression",
            Some(_) => "still failing",
            None => "new",
        }
    }
}

/// A gfx target whose runners look out of service tonight.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outage {
    /// The target.
    pub gfx: String,
    /// What was seen.
    pub detail: String,
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdict {
    /// Every job that did not pass (and every vanished job), in run order.
    pub failing: Vec<Judged>,
    /// Targets with every job an infrastructure result, or with no job tonight.
    pub outages: Vec<Outage>,
    /// Entries past their expiry (reported; they allow nothing).
    pub expired: Vec<Allow>,
    /// Live entries that match no job of this night or the previous one (each fails the night:
    /// a typo, or a stale entry).
    pub unmatched: Vec<Allow>,
    /// Jobs judged (tonight's results).
    pub jobs: usize,
    /// Jobs that passed.
    pub passed: usize,
    /// The previous night was given (product failures are regressions, still failing or new).
    pub with_previous: bool,
    /// Infrastructure fails the night (the policy).
    pub fail_on_infrastructure: bool,
}

impl Verdict {
    /// Whether the night fails: a blocking job, an allow-list entry that matches nothing, or a
    /// night that judged no job (an empty run says nothing passed).
    pub fn fails(&self) -> bool {
        self.empty() || !self.unmatched.is_empty() || self.failing.iter().any(|j| j.blocking)
    }

    /// Tonight's run holds no result (whatever vanished from the previous night): nothing was
    /// judged, so nothing passed.
    pub fn empty(&self) -> bool {
        self.jobs == 0
    }

    /// The jobs of one section.
    pub fn section(&self, s: Section) -> impl Iterator<Item = &Judged> {
        self.failing.iter().filter(move |j| j.section == s)
    }

    /// Blocking jobs of one section.
    pub fn blocking(&self, s: Section) -> usize {
        self.section(s).filter(|j| j.blocking).count()
    }
}

fn date_key(s: &str) -> (i64, u32, u32) {
    parse_date(s).unwrap_or((0, 0, 0))
}

/// Judges a run: every non-pass result, and (with the previous night) every vanished job.
pub fn judge(current: &Run, previous: Option<&Run>, allow: &AllowList, policy: &Policy, today: &str) -> Verdict {
    let today_k = date_key(today);
    let (live, expired): (Vec<&Allow>, Vec<&Allow>) = allow.allow.iter().partition(|a| date_key(&a.expires) >= today_k);
    // each live entry shared by the jobs it covers
    let live_shared: Vec<std::sync::Arc<Allow>> = live.iter().map(|a| std::sync::Arc::new((*a).clone())).collect();
    let cover = |k: (&str, &str), class: &str| live_shared.iter().find(|a| a.covers(k, class)).cloned();
    // both nights by key, sorted: looked up by binary search (no copy of any key)
    let prev_sorted = previous.map(super::results::by_key).unwrap_or_default();
    let now = super::results::by_key(current);
    let mut v = Verdict {
        expired: expired.into_iter().cloned().collect(),
        jobs: current.candidates.len(),
        passed: current.candidates.iter().filter(|c| c.passed()).count(),
        with_previous: previous.is_some(),
        fail_on_infrastructure: policy.fail_on_infrastructure,
        ..Default::default()
    };
    let judged = |candidate: Text, gfx: Sym, classification: Sym, detail: Option<Text>, infrastructure: bool| {
        let k = (candidate.as_str(), gfx.as_str());
        let section = if policy.watched_key(k) {
            Section::Watch
        } else if infrastructure {
            Section::Infrastructure
        } else {
            Section::Product
        };
        let allowed_by = cover(k, &classification);
        let blocking = allowed_by.is_none()
            && match section {
                Section::Product => true,
                Section::Infrastructure => policy.fail_on_infrastructure,
                Section::Watch => false,
            };
        Judged {
            before: super::results::find(&prev_sorted, k).map(|p| p.classification),
            candidate,
            gfx,
            classification,
            detail,
            allowed_by,
            section,
            blocking,
        }
    };
    let mut failing = Vec::new();
    for c in current.candidates.iter().filter(|c| !c.passed()) {
        failing.push(judged(
            c.id.clone(),
            c.gfx.unwrap_or_default(),
            c.classification,
            c.detail.clone(),
            c.infrastructure(),
        ));
    }
    v.unmatched = live
        .iter()
        .filter(|a| !now.iter().chain(prev_sorted.iter()).any(|c| a.names(c.key_ref())))
        .map(|a| (*a).clone())
        .collect();
    let gfx_now: BTreeSet<&str> = now.iter().map(|c| c.key_ref().1).collect();
    let cand_now: BTreeSet<&str> = now.iter().map(|c| c.key_ref().0).collect();
    let mut gone_targets: BTreeMap<String, usize> = BTreeMap::new();
    if previous.is_some() {
        // the few distinct details of vanished jobs, each made once and shared
        let mut details: std::collections::HashMap<(Sym, u8, &str), Text> = std::collections::HashMap::new();
        for p in &prev_sorted {
            if super::results::find(&now, p.key_ref()).is_some() {
                continue;
            }
            let (id, gfx) = p.key_ref();
            let why: u8 = if !gfx_now.contains(gfx) {
                *gone_targets.entry(gfx.to_string()).or_default() += 1;
                0
            } else if !cand_now.contains(id) {
                1
            } else {
                2
            };
            let detail = details
                .entry((p.classification, why, if why == 0 { gfx } else { "" }))
                .or_insert_with(|| {
                    let why = match why {
                        0 => format!(
                            "target {gfx} has no job tonight: the dispatch narrowed the targets, or its runner label was left out as unavailable"
                        ),
                        1 => "the candidate has no job tonight: narrower filters or policy, or it left the current releases".to_string(),
                        _ => "not in tonight's job list (narrower filters or targets)".to_string(),
                    };
                    Text::from(format!("previous night: {}; {why}", p.classification))
                })
                .clone();
            failing.push(judged(
                p.id.clone(),
                p.gfx.unwrap_or_default(),
                Sym::new(VANISHED),
                Some(detail),
                true,
            ));
        }
    }
    // Outages: a target with jobs tonight, every one an infrastructure result; a target of the
    // previous night with none tonight.
    let mut by_gfx: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for c in &current.candidates {
        let e = by_gfx.entry(c.gfx.as_deref().unwrap_or("")).or_default();
        e.0 += 1;
        e.1 += usize::from(c.infrastructure());
    }
    for (gfx, (n, infra)) in by_gfx {
        if !gfx.is_empty() && n == infra {
            let mut classes: Vec<&str> = current
                .candidates
                .iter()
                .filter(|c| c.gfx.as_deref() == Some(gfx))
                .map(|c| c.classification.as_str())
                .collect();
            classes.dedup();
            v.outages.push(Outage {
                gfx: gfx.to_string(),
                detail: format!(
                    "every job ({n}) is an infrastructure result ({}): its runners look out of service",
                    classes.join(", ")
                ),
            });
        }
    }
    for (gfx, n) in gone_targets {
        v.outages.push(Outage {
            detail: format!("{n} job(s) of the previous night, none tonight: not scheduled (narrowed targets, or the label left out as unavailable)"),
            gfx,
        });
    }
    v.failing = failing;
    v
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Verdict {
    /// One line: the verdict and the counts.
    pub fn headline(&self) -> String {
        let product = self.section(Section::Product).count();
        let pb = self.blocking(Section::Product);
        let regressions = self
            .section(Section::Product)
            .filter(|j| j.blocking && j.change() == "regression")
            .count();
        let infra = self.section(Section::Infrastructure).count();
        let watch = self.section(Section::Watch).count();
        format!(
            "{pb} product failure(s) not allowed{}, {} allowed; {} ({}); {} (never gating); {} of {} job(s) passed",
            if self.with_previous {
                format!(" ({regressions} regression(s))")
            } else {
                String::new()
            },
            product - pb,
            plural(infra, "infrastructure result", "infrastructure results"),
            if self.fail_on_infrastructure {
                format!("gating: {} not allowed", self.blocking(Section::Infrastructure))
            } else {
                "not gating".into()
            },
            plural(watch, "watch result", "watch results"),
            self.passed,
            self.jobs,
        )
    }

    /// Why the night fails, one reason a line (empty when it passes).
    pub fn reasons(&self) -> Vec<String> {
        let mut r = Vec::new();
        if self.empty() {
            r.push(
                "the run holds no result, so nothing was judged and nothing passed (an empty matrix export, or no result file merged)"
                    .to_string(),
            );
        }
        let pb = self.blocking(Section::Product);
        if pb > 0 {
            r.push(format!("{pb} product failure(s) not in the allow-list"));
        }
        let ib = self.blocking(Section::Infrastructure);
        if ib > 0 {
            r.push(format!(
                "{ib} infrastructure result(s) not in the allow-list (--fail-on-infrastructure)"
            ));
        }
        for a in &self.unmatched {
            r.push(format!(
                "allow-list entry for {}{} matches no job of this night or the previous one (a typo, or a stale entry)",
                a.label(),
                a.at.as_deref().map(|at| format!(" ({at})")).unwrap_or_default()
            ));
        }
        r
    }

    /// Warnings that do not fail the night: expired entries, infrastructure, outages.
    pub fn warnings(&self) -> Vec<String> {
        let mut w: Vec<String> = self
            .expired
            .iter()
            .map(|a| {
                format!(
                    "allow-list entry for {}{} expired on {}: it allows nothing now (fix the failure, or renew the entry)",
                    a.label(),
                    a.at.as_deref().map(|at| format!(" ({at})")).unwrap_or_default(),
                    a.expires
                )
            })
            .collect();
        for o in &self.outages {
            w.push(format!("outage? {}: {}", o.gfx, o.detail));
        }
        w
    }
}

/// Output formats of the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Plain text.
    Human,
    /// Markdown (the step summary).
    Markdown,
    /// JSON.
    Json,
}

fn allowed_cell(j: &Judged, md: bool) -> String {
    match &j.allowed_by {
        Some(a) => format!(
            "until {}: {}",
            a.expires,
            if md { cell(&a.reason) } else { a.reason.clone() }
        ),
        None => "no".into(),
    }
}

/// The verdict's JSON document: the jobs by section, with the verdict's figures.
struct JsonVerdict<'a>(&'a Verdict);

/// The jobs of one section, as a JSON list.
struct SectionJobs<'a>(&'a Verdict, Section);

impl Serialize for SectionJobs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.section(self.1))
    }
}

/// A small list (allow-list entries, outages) with each object's keys sorted.
fn sorted_list<T: Serialize>(list: &[T]) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::to_value(list)
}

impl Serialize for JsonVerdict<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeMap as _};
        let v = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("expired", &sorted_list(&v.expired).map_err(S::Error::custom)?)?;
        m.serialize_entry("fail_on_infrastructure", &v.fail_on_infrastructure)?;
        m.serialize_entry("fails", &v.fails())?;
        m.serialize_entry("infrastructure", &SectionJobs(v, Section::Infrastructure))?;
        m.serialize_entry("jobs", &v.jobs)?;
        m.serialize_entry("outages", &sorted_list(&v.outages).map_err(S::Error::custom)?)?;
        m.serialize_entry("passed", &v.passed)?;
        m.serialize_entry("product", &SectionJobs(v, Section::Product))?;
        m.serialize_entry("reasons", &v.reasons())?;
        m.serialize_entry("unmatched", &sorted_list(&v.unmatched).map_err(S::Error::custom)?)?;
        m.serialize_entry("watch", &SectionJobs(v, Section::Watch))?;
        m.serialize_entry("with_previous", &v.with_previous)?;
        m.end()
    }
}

/// Renders the verdict.
pub fn render(v: &Verdict, format: Format, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Json => {
            // written as it is made (the verdict of a night of 200,000 failures held as a JSON
            // tree took more than the night); keys in sorted order, as a JSON object's
            serde_json::to_writer_pretty(&mut *out, &JsonVerdict(v)).map_err(io::Error::other)?;
            writeln!(out)
        }
        Format::Markdown => render_markdown(v, out),
        Format::Human => render_human(v, out),
    }
}

/// The verdict as Markdown (for the step summary).
pub fn render_verdict(v: &Verdict, out: &mut dyn Write) -> io::Result<()> {
    render_markdown(v, out)
}

fn render_markdown(v: &Verdict, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "### Gate: {}\n\n{}\n",
        if v.fails() { "❌ failed" } else { "✅ passed" },
        v.headline()
    )?;
    for r in v.reasons() {
        writeln!(out, "- ❌ {}", cell(&r))?;
    }
    if !v.reasons().is_empty() {
        writeln!(out)?;
    }
    let product: Vec<&Judged> = v.section(Section::Product).collect();
    if !product.is_empty() {
        writeln!(out, "#### Product failures (the candidate failed on a fit runner)\n")?;
        writeln!(out, "| job | result | since the previous night | allowed | detail |")?;
        writeln!(out, "| --- | --- | --- | --- | --- |")?;
        for j in product {
            writeln!(
                out,
                "| {} | {} {} | {} | {} | {} |",
                code(&j.name()),
                if j.blocking { "❌" } else { "☑️" },
                cell(&j.classification),
                if v.with_previous {
                    match &j.before {
                        Some(b) => format!("{}: was {}", j.change(), cell(b)),
                        None => "new".into(),
                    }
                } else {
                    "–".into()
                },
                allowed_cell(j, true),
                j.detail.as_deref().map(cell).unwrap_or_default()
            )?;
        }
        writeln!(out)?;
    }
    let infra: Vec<&Judged> = v.section(Section::Infrastructure).collect();
    if !infra.is_empty() || !v.outages.is_empty() {
        writeln!(
            out,
            "#### Infrastructure (runner, engine or scheduling: not the candidate; {})\n",
            if v.fail_on_infrastructure {
                "gating: --fail-on-infrastructure"
            } else {
                "reported, not gating"
            }
        )?;
        for o in &v.outages {
            writeln!(out, "- ⚠️ outage? {}: {}", code(&o.gfx), cell(&o.detail))?;
        }
        if !v.outages.is_empty() {
            writeln!(out)?;
        }
        if !infra.is_empty() {
            writeln!(out, "| job | result | allowed | detail |")?;
            writeln!(out, "| --- | --- | --- | --- |")?;
            for j in infra {
                writeln!(
                    out,
                    "| {} | {} {} | {} | {} |",
                    code(&j.name()),
                    if j.blocking { "❌" } else { "⚠️" },
                    cell(&j.classification),
                    allowed_cell(j, true),
                    j.detail.as_deref().map(cell).unwrap_or_default()
                )?;
            }
            writeln!(out)?;
        }
    }
    let watch: Vec<&Judged> = v.section(Section::Watch).collect();
    if !watch.is_empty() {
        writeln!(out, "#### Watch (reported, never gating)\n")?;
        writeln!(out, "| job | result | detail |")?;
        writeln!(out, "| --- | --- | --- |")?;
        for j in watch {
            writeln!(
                out,
                "| {} | 👀 {} | {} |",
                code(&j.name()),
                cell(&j.classification),
                j.detail.as_deref().map(cell).unwrap_or_default()
            )?;
        }
        writeln!(out)?;
    }
    for w in v.expired.iter() {
        writeln!(
            out,
            "- ⚠️ allow-list entry for {}{} expired on {} (reason was: {}): it allows nothing now; fix the failure, or renew the entry with a new date",
            code(&w.candidate),
            w.gfx.as_deref().map(|g| format!(" on {}", cell(g))).unwrap_or_default(),
            w.expires,
            cell(&w.reason)
        )?;
    }
    Ok(())
}

fn render_human(v: &Verdict, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "gate: {}\n{}",
        if v.fails() { "FAILED" } else { "passed" },
        v.headline()
    )?;
    for r in v.reasons() {
        writeln!(out, "  fails: {r}")?;
    }
    for (title, s) in [
        ("product failures", Section::Product),
        ("infrastructure", Section::Infrastructure),
        ("watch (never gating)", Section::Watch),
    ] {
        let list: Vec<&Judged> = v.section(s).collect();
        if list.is_empty() && (s != Section::Infrastructure || v.outages.is_empty()) {
            continue;
        }
        writeln!(out, "\n{title}:")?;
        if s == Section::Infrastructure {
            for o in &v.outages {
                writeln!(out, "  outage? {}: {}", o.gfx, o.detail)?;
            }
        }
        for j in list {
            writeln!(
                out,
                "  {} {}: {}{}{}",
                if j.blocking { "✗" } else { "·" },
                j.name(),
                j.classification,
                if s == Section::Product && v.with_previous {
                    format!(" ({})", j.change())
                } else {
                    String::new()
                },
                match &j.allowed_by {
                    Some(a) => format!(" [allowed until {}: {}]", a.expires, a.reason),
                    None => j.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default(),
                }
            )?;
        }
    }
    for w in v.warnings().iter().filter(|w| !w.starts_with("outage?")) {
        writeln!(out, "\nwarning: {w}")?;
    }
    Ok(())
}

/// A trend table of the last nights (oldest first, the current night last): one row per job
/// that did not pass in every night shown (rows that always passed are counted, not listed).
pub fn render_trend(nights: &[(String, Run)], out: &mut dyn Write) -> io::Result<()> {
    let mut rows: BTreeMap<Key, Vec<Option<super::results::Sym>>> = BTreeMap::new();
    for (i, (_, run)) in nights.iter().enumerate() {
        for c in &run.candidates {
            rows.entry(c.key()).or_insert_with(|| vec![None; nights.len()])[i] = Some(c.classification);
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
        let v = judge(&night, None, &a, &Policy::default(), "2026-11-26");
        assert!(!v.fails(), "{v:?}");
        assert!(v.failing.iter().all(|j| j.allowed_by.is_some()));
        let typo = allow(
            "allow:\n  - candidate: \"*\"\n    gfx: gfx1100\n    reason: runner outage\n    expires: 2999-01-01\n  - candidate: torch2.9.0-rocm6.4-bb\n    reason: typo\n    expires: 2999-01-01\n",
        );
        let v = judge(&night, None, &typo, &Policy::default(), "2026-11-26");
        assert!(v.fails());
        assert_eq!(v.unmatched.len(), 1);
        let mut md = Vec::new();
        render_verdict(&v, &mut md).unwrap();
        let md = String::from_utf8(md).unwrap();
        assert!(md.contains("matches no job"), "{md}");
    }

    #[test]
    fn entry_lines_follow_the_block_sequence() {
        let text =
            "# head\nallow:\n  # one\n  - candidate: a\n    reason: r\n\n  - {candidate: b, reason: r}\nother: 1\n";
        assert_eq!(entry_lines(text, 2), [4, 7]);
        // a flow sequence: the `allow:` line for each entry
        assert_eq!(entry_lines("allow: [{candidate: a}]\n", 1), [1]);
    }

    #[test]
    fn patterns_other_than_star_and_question_mark_are_refused() {
        assert!(check_pattern("torch2.8.0-*").is_ok());
        assert!(check_pattern("gfx11??").is_ok());
        for bad in ["gfx11[05]0", "{a,b}", "!x", "", "a b"] {
            assert!(check_pattern(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn watch_patterns_name_a_candidate_or_a_job() {
        let p = Policy {
            fail_on_infrastructure: false,
            watch: vec!["t2.10rc*".into(), "t2.9@gfx1100".into()],
        };
        assert!(p.watched_key(("t2.10rc1", "gfx942")));
        assert!(p.watched_key(("t2.9", "gfx1100")));
        assert!(!p.watched_key(("t2.9", "gfx942")));
    }
}
