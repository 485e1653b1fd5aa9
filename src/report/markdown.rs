//! Markdown output (for `$GITHUB_STEP_SUMMARY`, issues and bug reports).

use super::{Renderer, Report};
use std::io::{self, Write};

/// Markdown renderer.
pub struct Markdown;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

impl Renderer for Markdown {
    fn render(&self, r: &Report, out: &mut dyn Write) -> io::Result<()> {
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
