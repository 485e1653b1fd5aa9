//! Human output: `file:line:col: severity[CODE] title`, the source line with a caret, the
//! evidence, why, the fix and references; a summary line. Colour only when asked (the CLI
//! decides: a terminal and no `NO_COLOR`).

use super::{Renderer, Report};
use crate::facts::Origin;
use crate::finding::Severity;
use std::io::{self, Write};

/// Human renderer.
pub struct Human {
    /// Emit ANSI colours.
    pub color: bool,
}

pub use crate::facts::origin_text;

impl Human {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn sev(&self, s: Severity) -> String {
        match s {
            Severity::Error => self.paint("1;31", "error"),
            Severity::Warning => self.paint("1;33", "warning"),
            _ => self.paint("1;36", "info"),
        }
    }
}

impl Human {
    /// The last line: never "No findings." or "0 error(s)" alone when an input could not be read
    /// (the exit code is 2 then), and how many files were checked where files are checked.
    pub fn summary(&self, r: &Report) -> String {
        let (e, w, i) = r.counts();
        let n = r.input_error_count();
        let checked = r
            .checked
            .map(|c| format!(" in {c} file{}", if c == 1 { "" } else { "s" }));
        if e + w + i == 0 && n == 0 {
            return self.paint("1;32", &format!("No findings{}.", checked.unwrap_or_default()));
        }
        let mut s = format!("{e} error(s), {w} warning(s), {i} info");
        if let Some(c) = checked {
            s += &c;
        }
        if n > 0 {
            s += &format!("; {n} input error(s), on stderr");
        }
        s + &format!(" (matrix data {})", r.stamp.matrix_data)
    }
}

impl Renderer for Human {
    fn render(&self, r: &Report, out: &mut dyn Write) -> io::Result<()> {
        for s in &r.subjects {
            if !s.header.is_empty() {
                let width = s.header.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
                for (k, v) in &s.header {
                    writeln!(
                        out,
                        "{:width$}  {}",
                        self.paint("1", k),
                        v,
                        width = if self.color { width + 8 } else { width }
                    )?;
                }
                writeln!(out)?;
            }
            for n in &s.notes {
                let at = origin_text(&n.origin);
                writeln!(out, "{}: {}: {}", at, self.paint("1;36", "note"), n.text)?;
            }
            // input errors go to stderr, written by the command (Report::write_input_errors)
            for f in &s.findings {
                let at = origin_text(&f.origin);
                let prefix = if at.is_empty() {
                    String::new()
                } else {
                    format!("{at}: ")
                };
                writeln!(
                    out,
                    "{}{}[{}] {}",
                    prefix,
                    self.sev(f.severity),
                    self.paint("1", f.code),
                    f.title
                )?;
                if let (
                    Origin::File {
                        path,
                        line,
                        col,
                        end_col,
                        end_line,
                    },
                    Some(src),
                ) = (&f.origin, &s.source)
                    && *path == s.name
                {
                    if let Some(raw) = src.lines().nth(*line as usize - 1) {
                        let n = line.to_string();
                        let text = super::untrusted::redact(raw);
                        writeln!(out, "  {} | {}", n, text)?;
                        // the marker's columns are the line's as written: none under a
                        // redacted line
                        let start = (*col as usize).saturating_sub(1);
                        let len = match (end_col, end_line) {
                            (Some(e), None) => (*e as usize).saturating_sub(*col as usize).max(1),
                            (Some(e), Some(l)) if l == line => (*e as usize).saturating_sub(*col as usize).max(1),
                            _ => text.chars().count().saturating_sub(start).max(1),
                        };
                        if text == raw {
                            writeln!(
                                out,
                                "  {} | {}{}",
                                " ".repeat(n.len()),
                                " ".repeat(start),
                                self.paint("1;31", &"^".repeat(len.min(120)))
                            )?;
                        }
                    }
                }
                if !f.evidence.is_empty() {
                    writeln!(out, "  = seen: {}", f.evidence)?;
                }
                if !f.why.is_empty() {
                    writeln!(out, "  = why: {}", f.why)?;
                }
                if let Some(fix) = &f.fix {
                    writeln!(out, "  = {}: {}", self.paint("1;32", "fix"), fix)?;
                }
                if let Some(x) = &f.autofix {
                    let how = match x.applicability {
                        crate::finding::Applicability::Safe => "--fix",
                        crate::finding::Applicability::Unsafe => "--unsafe-fixes",
                    };
                    writeln!(out, "  = {}: {} ({how})", self.paint("1;32", "fixable"), x.title)?;
                    if let Some(n) = &x.note {
                        writeln!(out, "  = note: {n}")?;
                    }
                }
                if f.confidence == crate::finding::Confidence::Unconfirmed {
                    writeln!(out, "  = note: rests on an unconfirmed fact; informational only")?;
                }
                for r in &f.refs {
                    writeln!(out, "  = see: {r}")?;
                }
            }
        }
        for s in &r.subjects {
            if !s.next.is_empty() {
                writeln!(
                    out,
                    "\n{}",
                    self.paint("1", "To settle what this leaves open, run and paste:")
                )?;
                for n in &s.next {
                    writeln!(out, "  {}  ({})", n.command, n.what)?;
                }
                writeln!(out)?;
            }
        }
        writeln!(out, "{}", self.summary(r))?;
        Ok(())
    }
}

/// `--format concise` (also `--output-format concise`): one line per finding, its origin, severity,
/// code and title, then the human summary line; no source lines, evidence or fixes (`lint`
/// without it, or `rules --explain CODE`, has those).
pub struct Concise {
    /// Emit ANSI colours.
    pub color: bool,
}

impl Renderer for Concise {
    fn render(&self, r: &Report, out: &mut dyn Write) -> io::Result<()> {
        let h = Human { color: self.color };
        for s in &r.subjects {
            for f in &s.findings {
                let at = origin_text(&f.origin);
                let at = if at.is_empty() { s.name.clone() } else { at };
                let fixable = match f.autofix.as_ref().map(|x| x.applicability) {
                    Some(crate::finding::Applicability::Safe) => " [*]",
                    Some(crate::finding::Applicability::Unsafe) => " [-]",
                    None => "",
                };
                writeln!(
                    out,
                    "{at}: {}[{}] {}{fixable}",
                    h.sev(f.severity),
                    h.paint("1", f.code),
                    f.title
                )?;
            }
        }
        writeln!(out, "{}", h.summary(r))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn snapshot() {
        let mut buf = Vec::new();
        super::Renderer::render(
            &super::Human { color: false },
            &crate::report::sample::report(),
            &mut buf,
        )
        .unwrap();
        insta::assert_snapshot!(String::from_utf8(buf).unwrap());
    }
}
