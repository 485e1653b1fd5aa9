//! Conda environment files (`environment.yml`): `channels:`, the conda specs under
//! `dependencies:` and the items of its `pip:` entry, each with its span in the file, and the
//! `pip:` section as the requirements file conda writes for it ([`pip_section_text`]). Pure:
//! text in, entries out; [`super::conda`] and [`super::pip`] read the files through it.

use crate::dockerfile::parse::LineIndex;
use crate::facts::Span;

/// What an environment file says, with spans of its items (None where an item could not be
/// placed in the text).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct EnvFile {
    /// `channels:`, in order (`nodefaults` left out).
    pub channels: Vec<String>,
    /// `nodefaults` is among the channels: the configured channels are left out.
    pub nodefaults: bool,
    /// Conda specs under `dependencies:`.
    pub deps: Vec<(String, Option<Span>)>,
    /// Items of the `pip:` entry of `dependencies:`.
    pub pip: Vec<(String, Option<Span>)>,
}

/// An environment file that could not be read: where (1-based line and column) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub col: u32,
    /// What went wrong.
    pub message: String,
}

/// Where `value` is written as a list item at or after `from` (block `- value` or flow
/// `[value, …]`, quoted or not): its span (inside quotes) and where to search next.
fn find_item(text: &str, from: usize, value: &str) -> Option<Span> {
    if value.is_empty() {
        return None;
    }
    let mut at = from.min(text.len());
    while let Some(p) = text.get(at..)?.find(value) {
        let s = at + p;
        let e = s + value.len();
        let unquoted = text[..s].trim_end_matches(['"', '\'']);
        let before = unquoted.trim_end_matches([' ', '\t']);
        let after = text[e..].trim_start_matches(['"', '\'']);
        // `- value` (a space after the dash: `pytorch-cpu` holds no item `cpu`), `[value`,
        // `, value`, and a flow item that starts a line (`[a,⏎  value]`, a comment between)
        let starts =
            (before.ends_with('-') && before.len() < unquoted.len()) || without_breaks(before).ends_with(['[', ',']);
        let ends = after.is_empty() || after.starts_with([' ', '\t', '\n', '\r', ',', ']', '#']);
        if starts && ends {
            return Some(Span::new(s, e));
        }
        at = e;
    }
    None
}

/// `text` (what comes before a value) without what YAML skips between flow items at its end:
/// line breaks, indentation, blank lines and `#` comments of earlier lines.
fn without_breaks(mut text: &str) -> &str {
    loop {
        let t = text.trim_end_matches([' ', '\t']);
        let Some(rest) = t.strip_suffix('\n') else { return t };
        let rest = rest.strip_suffix('\r').unwrap_or(rest);
        let ls = rest.rfind('\n').map_or(0, |i| i + 1);
        let line = &rest[ls..];
        // a comment starts with `#` at the start of the line or after whitespace
        let comment = line
            .char_indices()
            .find(|&(i, c)| c == '#' && (i == 0 || line[..i].ends_with([' ', '\t'])))
            .map_or(line.len(), |(i, _)| i);
        text = &rest[..ls + comment];
    }
}

/// The offset just past a top-level `key:` line (or 0).
fn key_at(text: &str, key: &str) -> usize {
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start().trim_start_matches("- ");
        if t.strip_prefix(key).is_some_and(|r| r.trim_start().starts_with(':')) {
            return off + line.len() - t.len() + key.len();
        }
        off += line.len();
    }
    0
}

/// Reads an environment file (`name`, `channels`, `dependencies` with conda specs and an optional
/// `pip:` list). A YAML error, or a `channels`/`dependencies` that is not a list, is a
/// [`Problem`] with its line and column.
pub fn parse_env(text: &str) -> Result<EnvFile, Problem> {
    crate::input::yaml_nesting(text, crate::input::MAX_YAML_NESTING).map_err(|(line, col, message)| Problem {
        line,
        col,
        message,
    })?;
    let v: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| {
        let (line, col) = e.location().map_or((1, 1), |l| (l.line() as u32, l.column() as u32));
        Problem {
            line,
            col,
            message: e.to_string().split(" at line ").next().unwrap_or_default().to_string(),
        }
    })?;
    let ix = LineIndex::new(text);
    let wrong = |key: &str, what: &str| {
        let (line, col) = ix.pos(text, key_at(text, key).saturating_sub(key.len()));
        Problem {
            line,
            col,
            message: format!("`{key}` is {what}, expected a list"),
        }
    };
    let mut out = EnvFile::default();
    let Some(map) = v.as_mapping() else {
        return match v {
            serde_yaml::Value::Null => Ok(out),
            _ => Err(Problem {
                line: 1,
                col: 1,
                message: "expected a mapping with `channels:` and `dependencies:`".into(),
            }),
        };
    };
    let scalar = |v: &serde_yaml::Value| match v {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match map.get("channels") {
        None | Some(serde_yaml::Value::Null) => {}
        Some(serde_yaml::Value::Sequence(s)) => {
            for c in s.iter().filter_map(scalar) {
                if c == "nodefaults" {
                    out.nodefaults = true;
                } else {
                    out.channels.push(c);
                }
            }
        }
        Some(_) => return Err(wrong("channels", "not a list")),
    }
    match map.get("dependencies") {
        None | Some(serde_yaml::Value::Null) => {}
        Some(serde_yaml::Value::Sequence(s)) => {
            let mut cur = key_at(text, "dependencies");
            for d in s {
                if let Some(spec) = scalar(d) {
                    let sp = find_item(text, cur, &spec);
                    if let Some(sp) = sp {
                        cur = sp.end;
                    }
                    out.deps.push((spec, sp));
                } else if let Some(m) = d.as_mapping()
                    && let Some(p) = m.get("pip")
                {
                    let Some(items) = p.as_sequence() else {
                        return Err(wrong("pip", "not a list"));
                    };
                    let mut pc = text.get(cur..).and_then(|t| t.find("pip")).map_or(cur, |p| cur + p + 3);
                    for it in items.iter().filter_map(scalar) {
                        let sp = find_item(text, pc, &it);
                        if let Some(sp) = sp {
                            pc = sp.end;
                        }
                        out.pip.push((it, sp));
                    }
                    cur = pc;
                }
            }
        }
        Some(_) => return Err(wrong("dependencies", "not a list")),
    }
    Ok(out)
}

/// The `pip:` section of an environment file as the requirements file conda writes for it (one
/// item a line), laid over the file's own offsets: same length, every item at its own span,
/// everything else blank, so a requirement's span is its place in the environment file. Items
/// that share a line (a flow list `[a, b]`) are split by turning the byte before each into a
/// newline: only the text the requirements reader splits gets those line breaks, never a line
/// number (lines and columns are counted in the environment file's own text, at the span's
/// offsets). Items that could not be placed are left out. None when the file does not read.
pub fn pip_section_text(text: &str) -> Option<String> {
    let env = parse_env(text).ok()?;
    let mut b: Vec<u8> = text.bytes().map(|c| if c == b'\n' { b'\n' } else { b' ' }).collect();
    let mut last_line_end = 0usize;
    for (_, sp) in &env.pip {
        let Some(sp) = sp else { continue };
        b[sp.start..sp.end].copy_from_slice(&text.as_bytes()[sp.start..sp.end]);
        if sp.start < last_line_end && sp.start > 0 {
            b[sp.start - 1] = b'\n';
        }
        last_line_end = text[sp.end..].find('\n').map_or(text.len(), |n| sp.end + n);
    }
    String::from_utf8(b).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENV: &str = "name: rocm\nchannels:\n  - conda-forge\n  - nodefaults\ndependencies:\n  - python=3.11\n  - \"pytorch>=2\"\n  - pip\n  - pip:\n    - --index-url https://download.pytorch.org/whl/rocm6.2\n    - torch==2.5.1\n";

    #[test]
    fn environment_files_with_spans() {
        let e = parse_env(ENV).unwrap();
        assert_eq!(e.channels, ["conda-forge"]);
        assert!(e.nodefaults);
        let (w, sp) = &e.deps[1];
        assert_eq!(w, "pytorch>=2");
        let sp = sp.unwrap();
        assert_eq!(&ENV[sp.start..sp.end], "pytorch>=2");
        assert_eq!(e.deps[2].0, "pip"); // the `pip` package, not the section
        let (w, sp) = &e.pip[1];
        assert_eq!(w, "torch==2.5.1");
        assert_eq!(&ENV[sp.unwrap().start..sp.unwrap().end], "torch==2.5.1");
    }

    #[test]
    fn pip_section_keeps_the_file_offsets() {
        let t = pip_section_text(ENV).unwrap();
        assert_eq!(t.len(), ENV.len());
        assert_eq!(t.matches('\n').count(), ENV.matches('\n').count());
        let lines: Vec<&str> = t.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(
            lines,
            ["--index-url https://download.pytorch.org/whl/rocm6.2", "torch==2.5.1"]
        );
        // a flow list: one item a line
        let flow = "dependencies:\n  - pip:  [torch==2.5.1, numpy]\n";
        let t = pip_section_text(flow).unwrap();
        let lines: Vec<&str> = t.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(lines, ["torch==2.5.1", "numpy"]);
    }

    /// Each item of a `pip:` section, as the pip reader finds it in the section's text, is at
    /// its own line and column of the environment file: block lists, flow lists on one line
    /// and flow lists over several lines (items that start a line, comments between).
    #[test]
    fn pip_section_items_are_at_their_own_place() {
        use crate::dockerfile::install::requirements::{Entry, parse};
        let head = "name: t\ndependencies:\n  - python=3.11\n";
        for (section, want) in [
            (
                "  - pip:\n    - numpy\n    - \"torch==2.5.1\"\n",
                &[("numpy", 5, 7), ("torch==2.5.1", 6, 8)][..],
            ),
            (
                "  - pip: [numpy, \"torch==2.5.1\", 'scipy']\n",
                &[("numpy", 4, 11), ("torch==2.5.1", 4, 19), ("scipy", 4, 35)][..],
            ),
            (
                "  - pip: [numpy,   # the stack\n\n      torch==2.5.1,\n      scipy]\n",
                &[("numpy", 4, 11), ("torch==2.5.1", 6, 7), ("scipy", 7, 7)][..],
            ),
        ] {
            let text = format!("{head}{section}");
            let env = parse_env(&text).unwrap();
            assert_eq!(env.pip.len(), want.len(), "{section:?}");
            assert!(env.pip.iter().all(|(_, sp)| sp.is_some()), "{section:?}: {:?}", env.pip);
            let t = pip_section_text(&text).unwrap();
            assert_eq!(t.len(), text.len());
            let ix = LineIndex::new(&text);
            let got: Vec<(String, u32, u32)> = parse(&t)
                .into_iter()
                .filter_map(|e| match e {
                    Entry::Requirement { text: r, at, .. } => {
                        assert_eq!(&text[at.start..at.end], r);
                        let (l, c) = ix.pos(&text, at.start);
                        Some((r, l, c))
                    }
                    _ => None,
                })
                .collect();
            let want: Vec<(String, u32, u32)> = want.iter().map(|(r, l, c)| (r.to_string(), *l, *c)).collect();
            assert_eq!(got, want, "{section:?}");
        }
    }

    #[test]
    fn bad_environment_files_are_located_problems() {
        let p = parse_env("channels:\n  - conda-forge\ndependencies:\n  - pytorch\n   - bad: [\n").unwrap_err();
        assert!(p.line >= 4, "{p:?}");
        let p = parse_env("channels: conda-forge\ndependencies: []\n").unwrap_err();
        assert_eq!((p.line, p.col), (1, 1));
        assert!(p.message.contains("`channels`"), "{}", p.message);
        let p = parse_env("name: x\ndependencies:\n  - pip:\n      torch: 1\n").unwrap_err();
        assert!(p.message.contains("`pip`"), "{}", p.message);
        assert_eq!(parse_env("").unwrap(), EnvFile::default());
    }
}
