//! GitHub Actions workflow commands: one `::error|warning|notice file=…,line=…,col=…,title=…::msg`
//! line per finding (annotations on the pull request), input errors as `::error`.
//!
//! Escaping follows the runner's rules (actions/toolkit `command.ts`): in the message `%`, `\r`,
//! `\n`; in property values additionally `:` and `,`.

use super::{Renderer, Report};
use crate::facts::Origin;
use crate::finding::Severity;
use std::io::{self, Write};

/// GitHub workflow-command renderer.
pub struct Github;

/// Escapes a message (the data after `::`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value (`file=`, `title=`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn props(origin: &Origin, title: &str) -> String {
    let mut p = Vec::new();
    if let Origin::File {
        path,
        line,
        col,
        end_line,
        end_col,
    } = origin
    {
        p.push(format!("file={}", escape_property(path)));
        p.push(format!("line={line}"));
        if let Some(el) = end_line {
            p.push(format!("endLine={el}"));
        }
        p.push(format!("col={col}"));
        if let (Some(ec), None) = (end_col, end_line) {
            p.push(format!("endColumn={ec}"));
        }
    }
    p.push(format!("title={}", escape_property(title)));
    p.join(",")
}

impl Renderer for Github {
    fn render(&self, r: &Report, out: &mut dyn Write) -> io::Result<()> {
        for s in &r.subjects {
            for e in &s.errors {
                let origin = match &e.origin {
                    Origin::File { .. } => e.origin.clone(),
                    _ => Origin::General,
                };
                writeln!(
                    out,
                    "::error {}::{}",
                    props(&origin, "rocmcheck: input error"),
                    escape_data(&format!("{}: {}", s.name, e.message))
                )?;
            }
            for f in &s.findings {
                let cmd = match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    _ => "notice",
                };
                let mut msg = f.title.clone();
                if !f.evidence.is_empty() {
                    msg.push_str(&format!("\nseen: {}", f.evidence));
                }
                if !f.why.is_empty() {
                    msg.push_str(&format!("\nwhy: {}", f.why));
                }
                if let Some(fix) = &f.fix {
                    msg.push_str(&format!("\nfix: {fix}"));
                }
                writeln!(
                    out,
                    "::{cmd} {}::{}",
                    props(&f.origin, &format!("{} {}", f.code, f.rule)),
                    escape_data(&msg)
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn snapshot() {
        let mut buf = Vec::new();
        Github.render(&crate::report::sample::report(), &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        // one command per line: no raw newline inside a command
        assert!(s.lines().all(|l| l.starts_with("::")));
        insta::assert_snapshot!(s);
    }
}
