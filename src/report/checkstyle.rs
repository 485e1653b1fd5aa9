//! Checkstyle XML (Jenkins Warnings NG, reviewdog, GitLab converters): one `<file>` per subject,
//! one `<error>` per finding or input error; every attribute XML-escaped.

use super::{Renderer, Report};
use crate::facts::Origin;
use crate::finding::Severity;
use std::io::{self, Write};

/// Checkstyle renderer.
pub struct Checkstyle;

/// Escapes text for an XML attribute; characters XML 1.0 cannot carry are dropped.
pub fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\n' => o.push_str("&#10;"),
            '\r' => o.push_str("&#13;"),
            '\t' => o.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => o.push(c),
        }
    }
    o
}

fn pos(o: &Origin) -> (u32, u32) {
    match o {
        Origin::File { line, col, .. } => (*line, *col),
        _ => (0, 0),
    }
}

impl Renderer for Checkstyle {
    fn render(&self, r: &Report, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(out, r#"<checkstyle version="4.3">"#)?;
        for s in &r.subjects {
            writeln!(out, r#"  <file name="{}">"#, xml_escape(&s.name))?;
            for e in &s.errors {
                let (l, c) = pos(&e.origin);
                writeln!(
                    out,
                    r#"    <error line="{l}" column="{c}" severity="error" message="{}" source="rocmcheck.input-error"/>"#,
                    xml_escape(&e.message)
                )?;
            }
            for f in &s.findings {
                let (l, c) = pos(&f.origin);
                let sev = match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    _ => "info",
                };
                let mut msg = f.title.clone();
                if let Some(fix) = &f.fix {
                    msg.push_str(&format!(" (fix: {fix})"));
                }
                writeln!(
                    out,
                    r#"    <error line="{l}" column="{c}" severity="{sev}" message="{}" source="rocmcheck.{}.{}"/>"#,
                    xml_escape(&msg),
                    f.code,
                    f.rule
                )?;
            }
            writeln!(out, "  </file>")?;
        }
        writeln!(out, "</checkstyle>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(xml_escape("a<b>&\"c'\n\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;&#10;");
    }

    #[test]
    fn snapshot() {
        let mut buf = Vec::new();
        Checkstyle.render(&crate::report::sample::report(), &mut buf).unwrap();
        insta::assert_snapshot!(String::from_utf8(buf).unwrap());
    }
}
