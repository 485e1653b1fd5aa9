//! Shell words and `$VAR` substitution as BuildKit applies them to ARG/ENV values, image
//! references and RUN text: bounded substitution ([`substitute_in`] against a file's
//! [`Budget`]), the variables a text names, words with their byte offsets, operators, and where
//! a value is written as a literal in the file (for fixes).

use crate::facts::Span;
use std::collections::BTreeMap;

/// Variables visible in a scope: name → (value, set).
pub(crate) type Vars = BTreeMap<String, String>;

/// Where each variable's value is written as a literal in the file (an `ARG` default or an
/// `ENV` value), when it is: a fix to a value that comes from a variable edits it there.
pub(crate) type Sites = BTreeMap<String, Option<Span>>;

/// The most bytes one substitution may produce (one ARG/ENV value, one image reference, one RUN
/// command). Every stored ARG/ENV value went through a bounded substitution, so a chain
/// `ARG A1=${A0}${A0}` … cannot grow past this.
pub const MAX_EXPANSION: usize = 64 * 1024;

/// The most bytes all substitutions of one file may produce together, stage copies
/// (`FROM parent AS child`) and requirements files read for it included. With
/// [`MAX_EXPANSION`] alone, ten thousand `RUN pip install ${BIG}` lines would each cost 64 KiB.
pub const MAX_FILE_EXPANSION: usize = 4 << 20;

/// The deepest `${A:-${B:-…}}` nesting followed (each level is a recursion and a scan).
pub const MAX_NESTING: usize = 16;

/// The most variable references one file may resolve (a work bound that does not depend on
/// the bytes they produce: `${EMPTY}` produces nothing but still costs a lookup).
pub const MAX_REFERENCES: usize = 1 << 20;

/// Which limit stopped an expansion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpansionLimit {
    /// One value past [`MAX_EXPANSION`].
    Value,
    /// The file's substitutions together past [`MAX_FILE_EXPANSION`].
    File,
    /// Defaults nested past [`MAX_NESTING`].
    Nesting,
    /// More than [`MAX_REFERENCES`] references in the file.
    References,
}

impl std::fmt::Display for ExpansionLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExpansionLimit::Value => write!(f, "its value expands to more than {} KiB", MAX_EXPANSION / 1024),
            ExpansionLimit::File => write!(
                f,
                "this file's substitutions and stage copies come to more than {} MiB in all",
                MAX_FILE_EXPANSION >> 20
            ),
            ExpansionLimit::Nesting => write!(f, "`${{A:-${{B:-…}}}}` defaults nest more than {MAX_NESTING} deep"),
            ExpansionLimit::References => {
                write!(f, "the file resolves more than {MAX_REFERENCES} variable references")
            }
        }
    }
}

/// What one file may still spend on substitution: bytes produced and references resolved.
#[derive(Debug, Clone)]
pub struct Budget {
    bytes: usize,
    references: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            bytes: MAX_FILE_EXPANSION,
            references: MAX_REFERENCES,
        }
    }
}

impl Budget {
    /// Spends `n` bytes of the file's budget.
    pub fn charge(&mut self, n: usize) -> Result<(), ExpansionLimit> {
        self.bytes = self.bytes.checked_sub(n).ok_or(ExpansionLimit::File)?;
        Ok(())
    }
}

/// Substitutes `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:+alt}`,
/// `${VAR+alt}`; `\$` stays a literal `$`. Returns the text and whether a variable was unset.
/// Output past [`MAX_EXPANSION`] is cut off (use [`substitute_bounded`] to be told).
pub fn substitute(s: &str, vars: &Vars) -> (String, bool) {
    match substitute_in(s, vars, &mut Budget::default()) {
        Ok(r) => r,
        Err((_, cut)) => (cut, true),
    }
}

/// [`substitute`], or the limit it ran into.
pub fn substitute_bounded(s: &str, vars: &Vars) -> Result<(String, bool), ExpansionLimit> {
    substitute_in(s, vars, &mut Budget::default()).map_err(|(l, _)| l)
}

/// [`substitute`] charged to a file's `budget`. On error: the limit, and the output so far cut
/// to at most [`MAX_EXPANSION`] bytes.
pub fn substitute_in(s: &str, vars: &Vars, budget: &mut Budget) -> Result<(String, bool), (ExpansionLimit, String)> {
    let mut out = String::with_capacity(s.len().min(MAX_EXPANSION));
    let r = subst(s, vars, &mut out, budget, 0);
    let r = r.and_then(|u| budget.charge(out.len()).map(|()| u));
    match r {
        Ok(u) => Ok((out, u)),
        Err(l) => {
            let mut cut = MAX_EXPANSION.min(out.len());
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            // what was produced is spent, even when it is refused
            budget.bytes = budget.bytes.saturating_sub(cut);
            Err((l, out))
        }
    }
}

/// The substitution itself, appending to `out`; stops at the first limit. Work is linear in
/// `s` (times the nesting depth) plus what it appends, and appends stop past [`MAX_EXPANSION`].
fn subst(s: &str, vars: &Vars, out: &mut String, budget: &mut Budget, depth: usize) -> Result<bool, ExpansionLimit> {
    if depth > MAX_NESTING {
        return Err(ExpansionLimit::Nesting);
    }
    let mut unresolved = false;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if out.len() > MAX_EXPANSION {
            return Err(ExpansionLimit::Value);
        }
        let c = b[i];
        if c == b'\\' && b.get(i + 1) == Some(&b'$') {
            out.push('$');
            i += 2;
            continue;
        }
        if c != b'$' {
            let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        if b.get(i + 1) == Some(&b'{') {
            let Some(close) = find_close(&s[i + 2..]) else {
                out.push_str(&s[i..]);
                break;
            };
            budget.references = budget.references.checked_sub(1).ok_or(ExpansionLimit::References)?;
            let inner = &s[i + 2..i + 2 + close];
            i += close + 3;
            let name_end = inner
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(inner.len());
            let name = &inner[..name_end];
            let op = &inner[name_end..];
            let val = vars.get(name);
            let set_nonempty = val.is_some_and(|v| !v.is_empty());
            let (word, use_word, default) = if let Some(w) = op.strip_prefix(":-") {
                (Some(w), !set_nonempty, true)
            } else if let Some(w) = op.strip_prefix('-') {
                (Some(w), val.is_none(), true)
            } else if let Some(w) = op.strip_prefix(":+") {
                (Some(w), set_nonempty, false)
            } else if let Some(w) = op.strip_prefix('+') {
                (Some(w), val.is_some(), false)
            } else {
                (None, false, false)
            };
            match word {
                Some(w) if use_word => unresolved |= subst(w, vars, out, budget, depth + 1)?,
                Some(_) if default => out.push_str(val.map_or("", |v| v)),
                Some(_) => {}
                None => match val {
                    Some(v) => out.push_str(v),
                    None => unresolved = true,
                },
            }
            continue;
        }
        let rest = &s[i + 1..];
        let n = rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(rest.len());
        if n == 0 {
            out.push('$');
            i += 1;
            continue;
        }
        budget.references = budget.references.checked_sub(1).ok_or(ExpansionLimit::References)?;
        match vars.get(&rest[..n]) {
            Some(v) => out.push_str(v),
            None => unresolved = true,
        }
        i += 1 + n;
    }
    if out.len() > MAX_EXPANSION {
        return Err(ExpansionLimit::Value);
    }
    Ok(unresolved)
}

fn find_close(s: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Names referenced by `$X` / `${X…}` in a text.
/// (What the regex `\$\{?([A-Za-z_][A-Za-z0-9_]*)` finds, by hand: compiling that regex was a
/// tenth of a one-file lint.)
pub(crate) fn references(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = b[i..].iter().position(|&c| c == b'$') {
        let mut j = i + p + 1;
        if b.get(j) == Some(&b'{') {
            j += 1;
        }
        let start = j;
        if b.get(j).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
            j += 1;
            while b.get(j).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                j += 1;
            }
            out.push(s[start..j].to_string());
            i = j;
        } else {
            i = i + p + 1;
        }
    }
    out
}

/// `KEY=value KEY2="v 2"` (or the legacy `KEY value` form when `legacy`), with each key's byte
/// offset inside `s`.
pub(crate) fn key_values(s: &str, legacy: bool) -> Vec<(String, usize, Option<String>)> {
    let trimmed = s.trim_start();
    let lead = s.len() - trimmed.len();
    if legacy {
        let first = trimmed.split_whitespace().next().unwrap_or("");
        if !first.contains('=') && !first.is_empty() {
            let v = trimmed[first.len()..].trim();
            return vec![(first.to_string(), lead, Some(unquote(v)))];
        }
    }
    let mut out = Vec::new();
    for (start, word) in shell_words(s) {
        match word.split_once('=') {
            Some((k, v)) => out.push((k.to_string(), start, Some(v.to_string()))),
            None => out.push((word, start, None)),
        }
    }
    out
}

fn unquote(s: &str) -> String {
    shell_words(s).into_iter().map(|(_, w)| w).collect::<Vec<_>>().join(" ")
}

/// A shell-form RUN's text (as the file has it) with its Dockerfile line continuations made
/// blanks of the same length, as BuildKit joins the lines before a shell sees them: under
/// `# escape=`` ` ``, a backtick last on a line (trailing blanks after it, not itself escaped)
/// and the line break after it. With the default escape the text is kept: a backslash-newline
/// is also the shell's own continuation, which [`shell_words`] joins.
pub(crate) fn blank_continuations(run: &str, escape: char) -> String {
    if escape == '\\' {
        return run.to_string();
    }
    let mut out = String::with_capacity(run.len());
    for line in run.split_inclusive('\n') {
        let Some(body) = line.strip_suffix('\n') else {
            out.push_str(line);
            break;
        };
        let kept = body.trim_end_matches([' ', '\t', '\r']);
        let esc = escape.len_utf8();
        let escaped_escape = kept.len() >= 2 * esc && kept[..kept.len() - esc].ends_with(escape);
        if kept.ends_with(escape) && !escaped_escape {
            let cut = kept.len() - esc;
            out.push_str(&kept[..cut]);
            out.extend(std::iter::repeat_n(' ', line.len() - cut));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Splits on unquoted whitespace, removing quotes and backslash-newline continuations; each word
/// with the byte offset where it starts.
pub(crate) fn shell_words(s: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = None;
    let mut quote: Option<char> = None;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some((_, n)) = it.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            (None, '\\') => match it.next() {
                Some((_, '\n')) => {}
                Some((_, n)) => {
                    start.get_or_insert(i);
                    cur.push(n);
                }
                None => {}
            },
            (None, c) if c.is_whitespace() => {
                if let Some(st) = start.take() {
                    out.push((st, std::mem::take(&mut cur)));
                }
            }
            (None, c) => {
                start.get_or_insert(i);
                cur.push(c);
            }
        }
    }
    if let Some(st) = start {
        out.push((st, cur));
    }
    out
}

/// The end of the raw shell word that starts at byte `start` of `text`: the first unquoted
/// whitespace or shell operator (quotes and backslash escapes are part of the word).
pub(crate) fn raw_word_end(text: &str, start: usize) -> usize {
    let b = text.as_bytes();
    let mut i = start;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(b'"') if c == b'\\' => i += 1,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'\\' => {
                    if b.get(i + 1) == Some(&b'\n') {
                        break;
                    }
                    i += 1;
                }
                c if c.is_ascii_whitespace() || matches!(c, b';' | b'&' | b'|') => break,
                _ => {}
            },
        }
        i += 1;
    }
    i.min(b.len())
}

/// The span inside one pair of surrounding quotes (or the span itself when unquoted), provided
/// no other quote, backslash or `$` is inside: a literal that can be replaced by another literal.
fn literal_in(text: &str, span: Span) -> Option<Span> {
    let raw = text.get(span.start..span.end)?;
    let inner = match raw.as_bytes() {
        [q @ (b'"' | b'\''), .., l] if l == q && raw.len() >= 2 => Span::new(span.start + 1, span.end - 1),
        _ => span,
    };
    let t = &text[inner.start..inner.end];
    (!t.is_empty() && !t.contains(['"', '\'', '\\', '$', '\n'])).then_some(inner)
}

/// Where the value of a raw text is written as a literal: the text itself, or (for exactly
/// `$X` / `${X}`, quoted or not) the literal behind the variable.
pub(crate) fn value_site(text: &str, span: Span, sites: &Sites) -> Option<Span> {
    if let Some(l) = literal_in(text, span) {
        return Some(l);
    }
    let raw = text.get(span.start..span.end)?;
    let raw = raw.trim_matches(|c| c == '"');
    let name = raw
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| raw.strip_prefix('$'))?;
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    sites.get(name).copied().flatten()
}

/// Where the value of a variable used once inside an otherwise literal word is written
/// (`https://…/whl/rocm${ROCM}`, `"…/rocm$ROCM/"`), with the literal text before and after the
/// variable; None when the word has quotes, escapes or blanks inside, more than one variable, a
/// `${X:-default}`-style modifier, or the variable's value is not a literal in this file.
pub(crate) fn affixed_value_site(text: &str, span: Span, sites: &Sites) -> Option<(Span, String, String)> {
    let raw = text.get(span.start..span.end)?;
    let raw = match raw.as_bytes() {
        [b'"', .., b'"'] if raw.len() >= 2 => &raw[1..raw.len() - 1],
        _ => raw,
    };
    let d = raw.find('$')?;
    let (prefix, rest) = raw.split_at(d);
    let (name, suffix) = match rest[1..].strip_prefix('{') {
        Some(r) => {
            let close = r.find('}')?;
            (&r[..close], &r[close + 1..])
        }
        None => {
            let r = &rest[1..];
            let n = r
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(r.len());
            (&r[..n], &r[n..])
        }
    };
    let plain = |t: &str| !t.contains(['"', '\'', '\\', '$', '\n', ' ', '\t']);
    if name.is_empty()
        || name.starts_with(|c: char| c.is_ascii_digit())
        || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        || !plain(prefix)
        || !plain(suffix)
    {
        return None;
    }
    let site = sites.get(name).copied().flatten()?;
    Some((site, prefix.to_string(), suffix.to_string()))
}

/// Words with shell operators (`&&`, `||`, `;`, `|`, unescaped newlines) as their own words.
pub(crate) fn shell_words_ops(s: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut line_start = 0;
    // split into logical lines on unescaped newlines outside quotes; then on operators
    let mut quote: Option<char> = None;
    let mut prev_bs = false;
    let bytes: Vec<(usize, char)> = s.char_indices().collect();
    let mut segs: Vec<(usize, usize)> = Vec::new();
    let mut seg_start = 0;
    for &(i, c) in &bytes {
        if let Some(q) = quote {
            if c == q && !(prev_bs && q == '"') {
                quote = None;
            }
        } else if c == '"' || c == '\'' {
            if !prev_bs {
                quote = Some(c);
            }
        } else if !prev_bs && (c == '\n' || c == ';' || c == '&' || c == '|') {
            segs.push((seg_start, i));
            seg_start = i + c.len_utf8();
        } else if c == '#' && !prev_bs && s[line_start..i].trim().is_empty() {
            // comment line inside a heredoc / script: skip to the end of the line
        }
        if c == '\n' {
            line_start = i + 1;
        }
        prev_bs = c == '\\' && !prev_bs;
    }
    segs.push((seg_start, s.len()));
    for (a, b) in segs {
        let seg = &s[a..b];
        if seg.trim_start().starts_with('#') {
            continue;
        }
        for (o, w) in shell_words(seg) {
            out.push((a + o, w));
        }
        out.push((b, ";".to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(kv: &[(&str, &str)]) -> Vars {
        kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn substitution_forms() {
        let v = vars(&[("A", "6.2"), ("E", "")]);
        assert_eq!(substitute("x:${A}", &v), ("x:6.2".into(), false));
        assert_eq!(substitute("x:$A-y", &v), ("x:6.2-y".into(), false));
        assert_eq!(substitute("${B:-7.0}", &v), ("7.0".into(), false));
        assert_eq!(substitute("${E:-d}", &v), ("d".into(), false));
        assert_eq!(substitute("${E-d}", &v), ("".into(), false));
        assert_eq!(substitute("${A:+set}", &v), ("set".into(), false));
        assert_eq!(substitute("${B:+set}", &v), ("".into(), false));
        assert_eq!(substitute("$B", &v), ("".into(), true));
        assert_eq!(substitute("\\$A", &v), ("$A".into(), false));
    }

    #[test]
    fn expansion_is_bounded() {
        // each level doubles: 20 levels would be 1 MiB, 40 levels 1 TiB
        let mut v = Vars::new();
        v.insert("A0".into(), "x".repeat(64));
        for i in 1..40 {
            let prev = v[&format!("A{}", i - 1)].clone();
            match substitute_bounded(&format!("${{A{}}}${{A{}}}", i - 1, i - 1), &v) {
                Ok((t, _)) => {
                    assert_eq!(t.len(), prev.len() * 2);
                    v.insert(format!("A{i}"), t);
                }
                Err(e) => {
                    assert_eq!(e, ExpansionLimit::Value);
                    assert!(prev.len() * 2 > MAX_EXPANSION, "refused at level {i} too early");
                    let (cut, unresolved) = substitute(&format!("${{A{}}}${{A{}}}", i - 1, i - 1), &v);
                    assert!(cut.len() <= MAX_EXPANSION && unresolved);
                    return;
                }
            }
        }
        panic!("the bomb was never refused");
    }

    #[test]
    fn nesting_and_references_are_bounded() {
        // `${X:-${X:-…x…}}` 20,000 deep: unbounded, the recursion would overflow the stack
        let deep = "${X:-".repeat(20_000) + "x" + &"}".repeat(20_000);
        assert_eq!(substitute_bounded(&deep, &Vars::new()), Err(ExpansionLimit::Nesting));
        let ok = "${X:-".repeat(MAX_NESTING) + "x" + &"}".repeat(MAX_NESTING);
        assert_eq!(substitute_bounded(&ok, &Vars::new()), Ok(("x".into(), false)));
        // references that produce nothing still count as work
        let mut b = Budget::default();
        let empties = "$E".repeat(1000);
        let v = vars(&[("E", "")]);
        for _ in 0..MAX_REFERENCES / 1000 {
            assert!(substitute_in(&empties, &v, &mut b).is_ok());
        }
        assert_eq!(
            substitute_in(&empties, &v, &mut b).map_err(|e| e.0),
            Err(ExpansionLimit::References)
        );
    }

    #[test]
    fn a_file_budget_adds_up_values_under_the_per_value_limit() {
        let big = "x".repeat(MAX_EXPANSION);
        let v = vars(&[("B", &big)]);
        let mut b = Budget::default();
        let n = MAX_FILE_EXPANSION / MAX_EXPANSION;
        for _ in 0..n {
            let (t, _) = substitute_in("${B}", &v, &mut b).unwrap();
            assert_eq!(t.len(), MAX_EXPANSION);
        }
        let (l, cut) = substitute_in("${B}", &v, &mut b).unwrap_err();
        assert_eq!(l, ExpansionLimit::File);
        assert!(cut.len() <= MAX_EXPANSION);
    }

    #[test]
    fn backtick_continuations_become_blanks_of_the_same_length() {
        let run = "pip install `\n  torch==2.9.1 `  \n  --index-url u ``\n  x";
        let b = blank_continuations(run, '`');
        assert_eq!(b.len(), run.len());
        assert_eq!(b, "pip install     torch==2.9.1       --index-url u ``\n  x");
        assert_eq!(blank_continuations(run, '\\'), run);
    }

    #[test]
    fn words_keep_offsets_and_join_continuations() {
        let w = shell_words("pip install \\\n  \"torch==2.5.1\"");
        assert_eq!(w[2], (16, "torch==2.5.1".to_string()));
    }
}
