//! JSON output: the whole [`Report`], schema-versioned (`report_schema`), stable field names.

use super::{Renderer, Report};
use std::io::{self, Write};

/// JSON renderer.
pub struct Json;

impl Renderer for Json {
    fn render(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn snapshot() {
        let mut buf = Vec::new();
        super::Renderer::render(&super::Json, &crate::report::sample::report(), &mut buf).unwrap();
        insta::assert_snapshot!(String::from_utf8(buf).unwrap());
    }
}
