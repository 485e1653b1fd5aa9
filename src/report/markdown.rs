//! Markdown output (for `$GITHUB_STEP_SUMMARY`, issues and bug reports).

use super::untrusted as u;
use super::{Renderer, Report};
use std::io::{self, Write};

/// Markdown renderer.
pub struct Markdown;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The hidden marker that opens every `triage` reply, so a bot can tell it already answered.
pub const TRIAGE_MARKER: &str = "<!-- rocmcheck-triage -->";

/// GitHub's limit on a comment body is 65,536 characters; the reply stays under this many bytes
/// (a byte count is never below the character count), leaving room for the cut note.
pub const REPLY_MAX: usize = 60_000;
/// Notes the compact form of a reply keeps.
const COMPACT_NOTES: usize = 20;

/// `triage --format markdown`: a reply to post on an issue — what rocmcheck sees, likely causes
/// (most severe first, as the report orders them), what to try, what to paste next, and the
/// full table folded away. Everything that can come from the paste goes through
/// [`super::untrusted`] (secrets redacted; no mention, link, image or HTML), and the reply is
/// bounded by [`REPLY_MAX`]: the details fold and all but the first notes go first, then lines
/// from the end, with a note.
fn render_triage(r: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut body = Vec::new();
    triage_body(r, true, &mut body)?;
    if body.len() > REPLY_MAX {
        body.clear();
        triage_body(r, false, &mut body)?;
    }
    let footer = format!(
        "<sub>rocmcheck {} · matrix data {}{} · read from pasted text only: what the paste does not show is unknown, not missing.</sub>\n",
        u::text(&r.stamp.rocmcheck),
        u::text(&r.stamp.matrix_data),
        serial(r)
    );
    let cut_note = "\n**Note:** this reply was cut to stay under GitHub's 65,536-character comment limit; run `rocmcheck triage` on the paste for the full report.\n\n";
    let room = REPLY_MAX - footer.len() - cut_note.len();
    if body.len() > room {
        let mut end = room;
        while end > 0 && body[end - 1] != b'\n' {
            end -= 1;
        }
        body.truncate(end);
        body.extend_from_slice(cut_note.as_bytes());
    }
    out.write_all(&body)?;
    out.write_all(footer.as_bytes())
}

fn triage_body(r: &Report, details: bool, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{TRIAGE_MARKER}")?;
    writeln!(out, "### rocmcheck triage\n")?;
    for s in &r.subjects {
        writeln!(out, "**What rocmcheck sees** in {}:\n", u::text(&s.name))?;
        for (k, v) in &s.header {
            writeln!(out, "- **{}**: {}", u::text(k), u::text(v))?;
        }
        // the compact form keeps the first notes and says how many it left out, so the causes
        // and next steps below always fit
        let shown = if details {
            s.notes.len()
        } else {
            s.notes.len().min(COMPACT_NOTES)
        };
        for n in &s.notes[..shown] {
            writeln!(
                out,
                "- **Note** ({}): {}",
                u::text(&super::human::origin_text(&n.origin)),
                u::text_max(&n.text, 600)
            )?;
        }
        if shown < s.notes.len() {
            writeln!(
                out,
                "- … and {} more notes (run `rocmcheck triage` on the paste to see them all)",
                s.notes.len() - shown
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
                    u::text_max(&f.title, 500),
                    if at.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", u::code(&at))
                    }
                )?;
                if let Some(fix) = &f.fix {
                    writeln!(out, "   - **Try:** {}", u::text_max(fix, 1000))?;
                }
            }
            writeln!(out)?;
        }
        if !s.next.is_empty() {
            writeln!(out, "**Please paste the output of:**\n")?;
            for n in &s.next {
                writeln!(out, "- {} ({})", u::code(&n.command), u::text(&n.what))?;
            }
            writeln!(out)?;
        }
        if details && !s.findings.is_empty() {
            writeln!(out, "<details><summary>Details</summary>\n")?;
            for f in &s.findings {
                writeln!(out, "- `{}` {} — {}", f.code, f.rule, u::text_max(&f.title, 500))?;
                if !f.evidence.is_empty() {
                    writeln!(out, "  - seen: {}", u::code(&f.evidence))?;
                }
                if !f.why.is_empty() {
                    writeln!(out, "  - why: {}", u::text_max(&f.why, 2000))?;
                }
                for rf in &f.refs {
                    // matrix data (ours), not the paste: kept as written so the sources link
                    writeln!(out, "  - see: {rf}")?;
                }
            }
            writeln!(out, "\n</details>\n")?;
        }
    }
    Ok(())
}

/// ` · serial N (cache)` when the data came from a bundle (`matrix update`), else nothing.
fn serial(r: &Report) -> String {
    r.stamp
        .matrix_serial
        .map(|n| format!(" · serial {n} ({})", r.stamp.matrix_source))
        .unwrap_or_default()
}

impl Renderer for Markdown {
    fn render(&self, r: &Report, out: &mut dyn Write) -> io::Result<()> {
        if r.command == "triage" {
            return render_triage(r, out);
        }
        writeln!(out, "## rocmcheck {}\n", r.command)?;
        writeln!(
            out,
            "rocmcheck {} · matrix schema {} · data {}{}\n",
            r.stamp.rocmcheck,
            r.stamp.matrix_schema,
            r.stamp.matrix_data,
            serial(r)
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
