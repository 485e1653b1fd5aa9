//! Reports: findings per subject plus the stamps (tool version, matrix schema and data version),
//! and one [`Renderer`] per output format. Renderers only render: they take a finished
//! [`Report`] and a writer, compute nothing and never touch files.

pub mod checkstyle;
pub mod gate;
pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod preflight;
pub mod results;
pub mod sarif;
pub mod smoke;
pub mod text;
pub mod untrusted;

use crate::finding::{Finding, Severity};
use crate::matrix::Matrix;
use serde::Serialize;
use std::io::{self, Write};

/// The version of the JSON report layout.
pub const REPORT_SCHEMA: u32 = 1;

/// Identifies the producer of a report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Stamp {
    /// rocmcheck's version.
    pub rocmcheck: String,
    /// Matrix layout version.
    pub matrix_schema: u32,
    /// Matrix data version.
    pub matrix_data: String,
    /// The data bundle's serial, when the data came from one (`matrix update`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix_serial: Option<u64>,
    /// Where the data came from: `embedded`, `cache` or `dir`.
    pub matrix_source: String,
}

impl Stamp {
    /// The stamp for this binary and a matrix.
    pub fn new(matrix: &Matrix) -> Stamp {
        Stamp {
            rocmcheck: env!("CARGO_PKG_VERSION").to_string(),
            matrix_schema: matrix.schema,
            matrix_data: matrix.data.clone(),
            matrix_serial: matrix.provenance.serial,
            matrix_source: matrix.provenance.kind.as_str().to_string(),
        }
    }
}

/// A problem with an input (unreadable file, parse error): reported per subject, exit 2.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct InputError {
    /// Where.
    pub origin: crate::facts::Origin,
    /// What.
    pub message: String,
}

/// The findings about one subject (a file, the host).
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct SubjectReport {
    /// Path, `-` for stdin, or `host`.
    pub name: String,
    /// Summary lines shown before the findings (`GPU 0: …`), as key/value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub header: Vec<(String, String)>,
    /// Findings after policy.
    pub findings: Vec<Finding>,
    /// Input errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<InputError>,
    /// The subject's text, for source snippets in human output (shared: a redacted copy of the
    /// report does not copy it; the snippet line is redacted where it is printed).
    #[serde(skip)]
    pub source: Option<std::sync::Arc<str>>,
    /// Observations no rule judges (`triage`: an override seen through the chip id, a
    /// parameter the kernel ignored), with where they were seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
    /// Commands whose output would settle what the input leaves open (`triage`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<NextStep>,
}

/// An observation with its origin.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Note {
    /// What was seen.
    pub text: String,
    /// Where.
    pub origin: crate::facts::Origin,
}

/// A command to run and paste.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NextStep {
    /// What is unknown.
    pub what: String,
    /// The command.
    pub command: String,
}

/// An observation about the run that is not a finding (`lint --online`: the live index).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Notice {
    /// `online-listed`, `online-not-listed`, `online-index-ahead`, `online-unreadable`,
    /// `online-offline`.
    pub kind: String,
    /// `info` (confirmation) or `notice` (worth a look).
    pub level: String,
    /// The line as printed (without the `notice: --online: ` prefix).
    pub message: String,
    /// The pin it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::facts::Origin>,
    /// The index page read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Notice {
    /// The stderr line: `online: …` for `info`, `notice: --online: …` otherwise.
    pub fn line(&self) -> String {
        if self.level == "info" {
            format!("online: {}", self.message)
        } else {
            format!("notice: --online: {}", self.message)
        }
    }
}

/// A whole report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    /// Layout version.
    pub report_schema: u32,
    /// Producer.
    pub stamp: Stamp,
    /// The command (`lint`, `env`).
    pub command: String,
    /// Per subject.
    pub subjects: Vec<SubjectReport>,
    /// What `--online` saw (`lint --online`): observations about the live index, never
    /// findings (they must not change with the network). Empty without `--online`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<Notice>,
    /// How many files were read and checked (`lint`; None where files are not what is
    /// checked), for the human summary line.
    #[serde(skip)]
    pub checked: Option<usize>,
}

impl Report {
    /// An empty report.
    pub fn new(command: &str, matrix: &Matrix) -> Report {
        Report {
            report_schema: REPORT_SCHEMA,
            stamp: Stamp::new(matrix),
            command: command.to_string(),
            subjects: Vec::new(),
            notices: Vec::new(),
            checked: None,
        }
    }
    /// All findings.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.subjects.iter().flat_map(|s| s.findings.iter())
    }
    /// Count per severity (errors, warnings, infos).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for f in self.findings() {
            match f.severity {
                Severity::Error => c.0 += 1,
                Severity::Warning => c.1 += 1,
                _ => c.2 += 1,
            }
        }
        c
    }
    /// Any input errors?
    pub fn has_input_errors(&self) -> bool {
        self.subjects.iter().any(|s| !s.errors.is_empty())
    }
    /// How many input errors.
    pub fn input_error_count(&self) -> usize {
        self.subjects.iter().map(|s| s.errors.len()).sum()
    }
    /// Writes every input error as `error: ORIGIN: MESSAGE`, one line each: for stderr, whatever
    /// the format of the report on stdout (a JSON or SARIF report redirected to a file must not
    /// hide from the log that an input could not be read).
    pub fn write_input_errors(&self, err: &mut dyn Write) -> io::Result<()> {
        for s in &self.subjects {
            for e in &s.errors {
                let at = human::origin_text(&e.origin);
                let at = if at.is_empty() { s.name.clone() } else { at };
                writeln!(err, "error: {at}: {}", untrusted::redact(&e.message))?;
            }
        }
        Ok(())
    }
}

impl Report {
    /// A copy with [`untrusted::redact`] applied to every text that can quote an input: each
    /// finding's title, evidence, why, fix and autofix (title, note, replacement text), header
    /// values, notes, next steps, input error messages and `--online` notices. Every renderer
    /// prints this copy ([`renderer`]); paths, codes and the stamp are rocmcheck's own.
    pub fn redacted(&self) -> Report {
        fn r(s: &mut String) {
            if let std::borrow::Cow::Owned(x) = untrusted::redact(s) {
                *s = x;
            }
        }
        let mut out = self.clone();
        for s in &mut out.subjects {
            for (_, v) in &mut s.header {
                r(v);
            }
            for f in &mut s.findings {
                r(&mut f.title);
                r(&mut f.evidence);
                r(&mut f.why);
                if let Some(x) = &mut f.fix {
                    r(x);
                }
                if let Some(a) = &mut f.autofix {
                    r(&mut a.title);
                    if let Some(n) = &mut a.note {
                        r(n);
                    }
                    for e in &mut a.edits {
                        r(&mut e.content);
                    }
                }
            }
            for e in &mut s.errors {
                r(&mut e.message);
            }
            for n in &mut s.notes {
                r(&mut n.text);
            }
            for n in &mut s.next {
                r(&mut n.what);
                r(&mut n.command);
            }
        }
        for n in &mut out.notices {
            r(&mut n.message);
        }
        out
    }
}

/// Renders a copy of the report with credentials redacted ([`Report::redacted`]), through the
/// format's renderer: one redaction for every format. A reader that stopped early (`lint
/// --format sarif … | head`) is not a failure: the exit status still follows the findings, for
/// every format and whatever size the report has (a broken pipe surfaces here mid-report, or in
/// `main`'s last flush for a report that fit the buffer).
struct Redacting(Box<dyn Renderer>);

impl Renderer for Redacting {
    fn render(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        match self.0.render(&report.redacted(), out) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            r => r,
        }
    }
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[non_exhaustive]
pub enum Format {
    /// Human-readable, coloured on a terminal.
    Human,
    /// One line per finding (`FILE:LINE:COL: severity[CODE] title`), then the summary, as ruff's
    /// `--output-format concise`.
    Concise,
    /// JSON (schema-versioned).
    Json,
    /// Markdown.
    Markdown,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// Checkstyle XML.
    Checkstyle,
}

/// Renders a report.
pub trait Renderer {
    /// Writes the report.
    fn render(&self, report: &Report, out: &mut dyn Write) -> io::Result<()>;
}

/// The renderer for a format.
pub fn renderer(format: Format, color: bool) -> Box<dyn Renderer> {
    Box::new(Redacting(format_renderer(format, color)))
}

fn format_renderer(format: Format, color: bool) -> Box<dyn Renderer> {
    match format {
        Format::Human => Box::new(human::Human { color }),
        Format::Concise => Box::new(human::Concise { color }),
        Format::Json => Box::new(json::Json),
        Format::Markdown => Box::new(markdown::Markdown),
        Format::Sarif => Box::new(sarif::Sarif),
        Format::Github => Box::new(github::Github),
        Format::Checkstyle => Box::new(checkstyle::Checkstyle),
    }
}

/// The width human tables wrap to, when one is known.
///
/// `COLUMNS` (a positive number) wins, on a terminal or piped, as for clap, `ls` and other GNU
/// tools; otherwise a terminal's own width (comfy-table asks the terminal when the table is
/// printed). Piped with no `COLUMNS` nothing wraps: each row stays one line for `grep`, `awk`
/// and `less -S`, as the docker CLI and ripgrep leave piped output. Machines read
/// `--format json|markdown`, which never wrap.
pub fn table_width() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&w| w > 0)
}

/// A table for people: `preset` borders, cells wrapped (comfy-table's dynamic arrangement) so
/// that no line is wider than [`table_width`] or the terminal.
pub fn human_table(preset: comfy_table::TableStyle) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_style(preset);
    t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
    if let Some(w) = table_width() {
        t.set_width(w);
    }
    t
}

/// Readies a [`human_table`] for printing, once its rows are in:
/// - a width of 0 (a pseudo-terminal that reports no size) is unknown: nothing wraps, as piped;
/// - when every column can be as wide as its longest word (header included, at most 40
///   characters) within the width, those are the columns' minimums, so cells wrap between words
///   (not "ROC/m", "gfx1/100");
/// - when even that does not fit, each row is one line and cells too long for their column end
///   in "…", as the docker CLI shortens them, instead of words cut into pieces.
///
/// Tables that do not wrap (Markdown) are left as they are.
pub fn fit(t: &mut comfy_table::Table) {
    use comfy_table::{ColumnConstraint, ContentArrangement, Width};
    if !matches!(t.content_arrangement(), ContentArrangement::Dynamic) {
        return;
    }
    let Some(width) = t.width().filter(|&w| w > 0) else {
        t.set_content_arrangement(ContentArrangement::Disabled);
        return;
    };
    // per column: the widest line (what it needs unwrapped) and the longest word (at most 40)
    let (mut natural, mut longest): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    for row in t.header().into_iter().chain(t.row_iter()) {
        for (i, cell) in row.cell_iter().enumerate() {
            let text = cell.content();
            let line = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            let word = text
                .split_whitespace()
                .map(|w| w.chars().count())
                .max()
                .unwrap_or(0)
                .min(40);
            if natural.len() <= i {
                natural.resize(i + 1, 0);
                longest.resize(i + 1, 0);
            }
            natural[i] = natural[i].max(line);
            longest[i] = longest[i].max(word);
        }
    }
    // a cell's padding (one space each side) and one border per column, plus the last border
    let avail = usize::from(width).saturating_sub(natural.len() * 3 + 1);
    if natural.iter().sum::<usize>() <= avail {
        return;
    }
    // even the longest words do not fit: every row becomes one line and cells too long for their
    // column are shortened with "…" (as the docker CLI does), rather than words cut into pieces
    let shorten = longest.iter().sum::<usize>() > avail;
    let floor: Vec<usize> = if shorten { vec![1; longest.len()] } else { longest };
    // narrow the widest column that can still give, one character at a time: the widths (of
    // the content; comfy-table's fixed widths count the padding too) stay at least the longest
    // word, so comfy-table wraps between words
    let mut w = natural;
    while w.iter().sum::<usize>() > avail {
        let Some(i) = (0..w.len()).filter(|&i| w[i] > floor[i]).max_by_key(|&i| w[i]) else {
            break;
        };
        w[i] -= 1;
    }
    if shorten {
        t.set_truncation_indicator("…");
        if let Some(h) = t.header() {
            let mut row = comfy_table::Row::from(h.cell_iter().cloned().collect::<Vec<_>>());
            row.max_height(1);
            t.set_header(row);
        }
        for r in t.row_iter_mut() {
            r.max_height(1);
        }
    }
    for (i, n) in w.iter().enumerate() {
        if let Some(c) = t.column_mut(i) {
            c.set_constraint(ColumnConstraint::Absolute(Width::Fixed(*n as u16 + 2)));
        }
    }
}

/// `line` broken at spaces so that no piece is wider than [`table_width`] (continuations
/// indented two spaces); unchanged when no width is set or a word alone is wider. For the prose
/// lines printed under human tables.
pub fn wrap_to_width(line: &str) -> String {
    let Some(width) = table_width().map(usize::from) else {
        return line.to_string();
    };
    let mut out = String::new();
    let mut len = 0;
    for word in line.split(' ') {
        let w = word.chars().count();
        if len > 0 && len + 1 + w > width {
            out.push_str("\n  ");
            len = 2;
        } else if len > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(word);
        len += w;
    }
    out
}

#[cfg(test)]
pub(crate) mod sample {
    //! The one sample report every format's snapshot renders.
    use super::*;
    use crate::facts::Origin;
    use crate::rules::stack::KnownIssueMatches;

    pub fn report() -> Report {
        let m = crate::matrix::Matrix::embedded();
        let mut r = Report::new("lint", m);
        r.stamp.rocmcheck = "0.0.0-test".into();
        r.stamp.matrix_data = "2000-01-01".into();
        let src = "FROM rocm/dev-ubuntu-22.04:6.2\nRUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.2\n";
        r.subjects.push(SubjectReport {
            name: "Dockerfile".into(),
            header: vec![],
            findings: vec![
                Finding::new(&KnownIssueMatches::META, "PyTorch does not use hipBLASLt on this target", Origin::File { path: "Dockerfile".into(), line: 2, col: 5, end_line: None, end_col: Some(28) })
                    .evidence("torch 2.5.1 built for ROCm 6.2; target gfx1100")
                    .why("PyTorch enables hipBLASLt on gfx1100 only in builds against ROCm >= 6.3; it falls back to hipBLAS.")
                    .fix("use a wheel built for ROCm >= 6.3 (torch >= 2.7 from whl/rocm6.3)")
                    .refs(["https://github.com/pytorch/pytorch/issues/138067"])
                    .autofix({
                        let at = |s: &str| src.find(s).expect("in sample");
                        let v = at("2.5.1");
                        let i = at("rocm6.2\n");
                        let e = |start: usize, end: usize, content: &str| crate::finding::Edit {
                            path: "Dockerfile".into(),
                            start,
                            end,
                            content: content.into(),
                        };
                        crate::finding::Fix::new(
                            "install torch 2.7.1 from https://download.pytorch.org/whl/rocm6.3",
                            crate::finding::Applicability::Unsafe,
                            vec![e(v, v + 5, "2.7.1"), e(i, i + 7, "rocm6.3")],
                        )
                    }),
                Finding::new(&KnownIssueMatches::META, "unconfirmed note", Origin::Env { var: "HSA_OVERRIDE_GFX_VERSION".into() })
                    .severity(Severity::Info)
                    .evidence("HSA_OVERRIDE_GFX_VERSION=11.0.0")
                    .why("informational")
                    .unconfirmed(true),
            ],
            errors: vec![InputError { origin: Origin::File { path: "bad.Dockerfile".into(), line: 3, col: 1, end_line: None, end_col: None }, message: "unterminated heredoc".into() }],
            source: Some(src.into()),
            ..SubjectReport::default()
        });
        r
    }
}
