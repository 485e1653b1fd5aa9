//! Markdown output (for `$GITHUB_STEP_SUMMARY`, issues and bug reports).

use super::{Renderer, Report};
use std::io::{self, Write};

/// Markdown renderer.
pub struct Markdown;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The hidden marker that opens every `triage` reply, so a bot can tell it already answered.
pub const TRIAGE_MARKER: &str = "<!-- rocmcheck-triage -->";

fn inline(s: &str) -> String {
    s.replace('`', "'").replace('\n', " ")
}

/// `triage --format markdown`: a reply to post on an issue — what rocmcheck sees, likely causes
/// (most severe first, as the report orders them), what to try, what to paste next, and the
/// full table folded away.
fn render_triage(r: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{TRIAGE_MARKER}")?;
    writeln!(out, "### rocmcheck triage\n")?;
    for s in &r.subjects {
        writeln!(out, "**What rocmcheck sees** in {}:\n", inline(&s.name))?;
        for (k, v) in &s.header {
            writeln!(out, "- **{}**: {}", cell(k), inline(v))?;
        }
        for n in &s.notes {
            writeln!(
                out,
                "- **Note** ({}): {}",
                super::human::origin_text(&n.origin),
                inline(&n.text)
            )?;
        }
        writeln!(out)?;
        if s.findings.is_empty() {
            writeln!(
                out,
                "**Likely causes**: none of rocmcheck's rules match what the paste shows.\n"
            )?;
        } else {
            writeln!(out, "**Likely causes**, most severe first:\n")?;
            for (i, f) in s.findings.iter().enumerate() {
                let at = super::human::origin_text(&f.origin);
                writeln!(
                    out,
                    "{}. **{}** `{}` {}{}",
                    i + 1,
                    f.severity,
                    f.code,
                    inline(&f.title),
                    if at.is_empty() {
                        String::new()
                    } else {
                        format!(" (`{}`)", inline(&at))
                    }
                )?;
                if let Some(fix) = &f.fix {
                    writeln!(out, "   - **Try:** {}", fix.replace('\n', " "))?;
                }
            }
            writeln!(out)?;
        }
        if !s.next.is_empty() {
            writeln!(out, "**Please paste the output of:**\n")?;
            for n in &s.next {
                writeln!(out, "- `{}` ({})", inline(&n.command), inline(&n.what))?;
            }
            writeln!(out)?;
        }
        if !s.findings.is_empty() {
            writeln!(out, "<details><summary>Details</summary>\n")?;
            for f in &s.findings {
                writeln!(out, "- `{}` {} — {}", f.code, f.rule, inline(&f.title))?;
                if !f.evidence.is_empty() {
                    writeln!(out, "  - seen: {}", inline(&f.evidence))?;
                }
                if !f.why.is_empty() {
                    writeln!(out, "  - why: {}", inline(&f.why))?;
                }
                for rf in &f.refs {
                    writeln!(out, "  - see: {rf}")?;
                }
            }
            writeln!(out, "\n</details>\n")?;
        }
    }
    writeln!(
        out,
        "<sub>rocmcheck {} · matrix data {} · read from pasted text only: what the paste does not show is unknown, not missing.</sub>",
        r.stamp.rocmcheck, r.stamp.matrix_data
    )
}

impl Renderer for Markdown {
    fn render(&self, r: &Report, out: &mut dyn Write) -> io::Result<()> {
        if r.command == "triage" {
            return render_triage(r, out);
        }
        writeln!(out, "## rocmcheck {}\n", r.command)?;
        writeln!(
            out,
            "rocmcheck {} · matrix schema {} · data {}\n",
            r.stamp.rocmcheck, r.stamp.matrix_schema, r.stamp.matrix_data
        )?;
        for s in &r.subjects {
            writeln!(out, "### {}\n", s.name)?;
            if !s.header.is_empty() {
                for (k, v) in &s.header {
                    writeln!(out, "- **{}**: {}", cell(k), cell(v))?;
                }
                writeln!(out)?;
            }
            for e in &s.errors {
                writeln!(
                    out,
                    "- :x: input error at {}: {}",
                    super::human::origin_text(&e.origin),
                    cell(&e.message)
                )?;
            }
            if s.findings.is_empty() {
                writeln!(out, "No findings.\n")?;
                continue;
            }
            writeln!(out, "| severity | rule | where | finding | fix |")?;
            writeln!(out, "| --- | --- | --- | --- | --- |")?;
            for f in &s.findings {
                writeln!(
                    out,
                    "| {} | `{}` {} | {} | {}: {} | {} |",
                    f.severity,
                    f.code,
                    f.rule,
                    cell(&super::human::origin_text(&f.origin)),
                    cell(&f.title),
                    cell(&f.evidence),
                    cell(f.fix.as_deref().unwrap_or(""))
                )?;
            }
            writeln!(out)?;
        }
        let (e, w, i) = r.counts();
        writeln!(out, "**{e} error(s), {w} warning(s), {i} info**")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn snapshot() {
        let mut buf = Vec::new();
        super::Renderer::render(&super::Markdown, &crate::report::sample::report(), &mut buf).unwrap();
        insta::assert_snapshot!(String::from_utf8(buf).unwrap());
    }
}
