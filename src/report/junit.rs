//! JUnit XML of a night: one `<testsuite>` per candidate × gfx, as the results are (for
//! `report render --format junit`) or as the gate judged them (`gate --junit`). Below both the
//! results and the gate, so neither imports the other for it.

use super::gate;
use super::results::{CandidateResult, Run, why};

use std::io::{self, Write};

fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\t' | '\n' | '\r' => o.push(ch),
            c if (c as u32) < 0x20 => {}
            c => o.push(c),
        }
    }
    o
}

fn secs(ms: Option<f64>) -> String {
    format!("{:.3}", ms.unwrap_or(0.0) / 1000.0)
}

/// Renders a run as JUnit XML: one `<testsuite>` per candidate × gfx (`candidate@gfx`) holding
/// a `classification` test case (fails unless the candidate passed; an infrastructure failure is
/// an `<error>`, not a `<failure>`) and one test case per step (failed steps fail, skipped steps
/// are skipped).
pub fn render_junit(run: &Run, out: &mut dyn Write) -> io::Result<()> {
    render_junit_judged(run, None, out)
}

/// What the gate made of a job, for JUnit: `None` counts as it is (failure or error); `Some`
/// is a non-gating result, shown `<skipped>` with this message prefix.
fn junit_skip(j: Option<&gate::Judged>) -> Option<String> {
    use gate::Section;
    let j = j?;
    if j.blocking {
        return None;
    }
    Some(match (&j.allowed_by, j.section) {
        (Some(a), _) => format!("allowed: {} (until {})", a.reason, a.expires),
        (None, Section::Watch) => "watch (never gating)".to_string(),
        (None, _) => "infrastructure (not gating)".to_string(),
    })
}

/// [`render_junit`] as the gate judged the night (`verdict`): a result the gate does not count
/// (allowed by the allow-list, a watched candidate, infrastructure under the default policy) is
/// `<skipped message="allowed: reason (until date): …">`, not a failure; infrastructure that
/// gates is an `<error>`; a job of the previous night missing from this one gets a test suite of
/// its own (`vanished`).
pub fn render_junit_judged(run: &Run, verdict: Option<&gate::Verdict>, out: &mut dyn Write) -> io::Result<()> {
    // the gate's judgement of each job, looked up by key (a search of the verdict per result was
    // quadratic: 59,000 failing results took 30 s)
    let mut judged: std::collections::HashMap<(&str, &str, bool), &gate::Judged> = std::collections::HashMap::new();
    for j in verdict.iter().flat_map(|v| v.failing.iter()) {
        judged
            .entry((j.candidate.as_str(), j.gfx.as_str(), j.classification == gate::VANISHED))
            .or_insert(j);
    }
    let skip_of = |c: &CandidateResult, vanished: bool| -> Option<String> {
        if c.passed() {
            return None;
        }
        let (id, gfx) = c.key_ref();
        junit_skip(judged.get(&(id, gfx, vanished)).copied())
    };
    let vanished: Vec<CandidateResult> = verdict
        .iter()
        .flat_map(|v| v.failing.iter())
        .filter(|j| j.classification == gate::VANISHED)
        .map(|j| CandidateResult {
            id: j.candidate.clone(),
            gfx: (!j.gfx.is_empty()).then_some(j.gfx),
            classification: j.classification,
            detail: j.detail.clone(),
            ..Default::default()
        })
        .collect();
    let cases = || {
        run.candidates
            .iter()
            .map(|c| (c, false))
            .chain(vanished.iter().map(|c| (c, true)))
    };
    // The totals head the document: counted first, then each suite is written as it is made.
    let (mut total, mut total_ms) = (SuiteCounts::default(), 0.0);
    for (c, vanished) in cases() {
        let n = SuiteCounts::of(c, vanished, skip_of(c, vanished).is_some());
        total.tests += n.tests;
        total.failures += n.failures;
        total.errors += n.errors;
        total.skipped += n.skipped;
        total_ms += c.total_ms.unwrap_or(0.0);
    }
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(
        out,
        "<testsuites name=\"rocmcheck smoke\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
        total.tests,
        total.failures,
        total.errors,
        total.skipped,
        secs(Some(total_ms))
    )?;
    for (c, vanished) in cases() {
        junit_suite(c, vanished, skip_of(c, vanished), out)?;
    }
    writeln!(out, "</testsuites>")
}

/// The test counts of one JUnit suite (a candidate × gfx).
#[derive(Default)]
struct SuiteCounts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl SuiteCounts {
    /// `skip`: the gate does not count the result (its failing cases are skipped).
    fn of(c: &CandidateResult, vanished: bool, skip: bool) -> SuiteCounts {
        let infra = vanished || c.infrastructure();
        let step_fail = c.steps.iter().filter(|s| s.failed()).count();
        let (failures, errors) = match (skip, c.passed()) {
            (_, true) | (true, false) => (0, 0),
            (false, false) if infra => (step_fail, 1),
            (false, false) => (1 + step_fail, 0),
        };
        SuiteCounts {
            tests: 1 + c.steps.len(),
            failures,
            errors,
            skipped: c.steps.iter().filter(|s| s.skipped()).count() + if skip { 1 + step_fail } else { 0 },
        }
    }
}

/// How one JUnit test case ended.
enum CaseEnd<'a> {
    Passed,
    Skipped(String),
    /// `<failure>` or `<error>` (`tag`), its message and type.
    Failed {
        tag: &'a str,
        message: String,
        kind: &'a str,
    },
}

fn junit_case(out: &mut dyn Write, suite: &str, name: &str, ms: Option<f64>, end: CaseEnd<'_>) -> io::Result<()> {
    write!(
        out,
        "    <testcase classname=\"{suite}\" name=\"{}\" time=\"{}\"",
        xml_escape(name),
        secs(ms)
    )?;
    match end {
        CaseEnd::Passed => writeln!(out, "/>"),
        CaseEnd::Skipped(m) => writeln!(
            out,
            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
            xml_escape(&m)
        ),
        CaseEnd::Failed { tag, message, kind } => writeln!(
            out,
            ">\n      <{tag} message=\"{}\" type=\"{}\"/>\n    </testcase>",
            xml_escape(&message),
            xml_escape(kind)
        ),
    }
}

/// One candidate × gfx as a JUnit suite: its properties, the classification case and one case
/// per step. `skip`: the gate does not count the result (the message prefix of its skipped
/// cases).
fn junit_suite(c: &CandidateResult, vanished: bool, skip: Option<String>, out: &mut dyn Write) -> io::Result<()> {
    let infra = vanished || c.infrastructure();
    let n = SuiteCounts::of(c, vanished, skip.is_some());
    let id = xml_escape(&c.name());
    writeln!(
        out,
        "  <testsuite name=\"{id}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
        n.tests,
        n.failures,
        n.errors,
        n.skipped,
        secs(c.total_ms)
    )?;
    let mut props = vec![("candidate", c.id.as_str())];
    let fields = [
        ("gfx", c.gfx.as_deref()),
        ("image", c.image.as_deref()),
        ("runtime", c.runtime.as_deref()),
        ("gpu", c.machine.gpu.as_deref()),
        ("arch", c.machine.arch.as_deref()),
        ("driver", c.machine.driver.as_deref()),
        ("rocm", c.machine.rocm.as_deref()),
        ("runner", c.machine.runner.as_deref()),
    ];
    props.extend(fields.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
    if infra && !c.passed() {
        props.push(("kind", "infrastructure"));
    }
    writeln!(out, "    <properties>")?;
    for (k, v) in props {
        writeln!(out, "      <property name=\"{k}\" value=\"{}\"/>", xml_escape(v))?;
    }
    writeln!(out, "    </properties>")?;
    // a failing case: skipped when the gate does not count the result
    let failed = |tag, message: String, kind| match &skip {
        Some(pre) => CaseEnd::Skipped(format!("{pre}: {message}")),
        None => CaseEnd::Failed { tag, message, kind },
    };
    let end = if c.passed() {
        CaseEnd::Passed
    } else {
        let msg = format!(
            "{}{}",
            c.classification,
            why(c).map(|w| format!(": {w}")).unwrap_or_default()
        );
        failed(if infra { "error" } else { "failure" }, msg, c.classification.as_str())
    };
    junit_case(out, &id, "classification", c.total_ms, end)?;
    for s in &c.steps {
        let end = if s.failed() {
            let msg = format!(
                "{}{}",
                s.status,
                s.error.as_deref().map(|e| format!(": {e}")).unwrap_or_default()
            );
            failed("failure", msg, s.status.as_str())
        } else if s.skipped() {
            CaseEnd::Skipped(s.error.as_deref().unwrap_or("skipped").to_string())
        } else {
            CaseEnd::Passed
        };
        junit_case(out, &id, &s.name, s.ms, end)?;
    }
    writeln!(out, "  </testsuite>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escape_drops_control_characters() {
        assert_eq!(xml_escape("a<b>&\"'\u{1}c"), "a&lt;b&gt;&amp;&quot;&apos;c");
    }
}
