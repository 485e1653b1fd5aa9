//! BuildKit's reading of a Dockerfile's lines, ahead of the parser: parser directives, logical
//! lines (continuations, comment and empty lines inside them), here-documents, JSON arrays that
//! are not arrays of strings, over-long lines.
//!
//! Why a layer of our own: BuildKit has accepted heredocs anywhere in a RUN/COPY/ADD line (and
//! under ONBUILD) since Dockerfile syntax 1.4 (https://docs.docker.com/reference/dockerfile/#here-documents).
//! parse-dockerfile 0.1.9 reads a RUN heredoc only where it starts the arguments ("TODO: here-doc
//! is not always start from first", "TODO: multiple here-docs"), none under ONBUILD, and parses
//! any other body as instructions, so one such line made the whole file an input error. The
//! upstream fix is recorded in `.ci/upstream/README.md`; until a release carries it, this layer
//! takes every heredoc out before the parser sees the file, following BuildKit's own rules
//! (moby/buildkit `frontend/dockerfile/parser/parser.go`, `shell/lex.go`):
//!
//! - a heredoc is a *word* of the logical line (words split at unquoted whitespace only, quotes
//!   and escapes kept) matching `^(\d*)<<(-?)\s*([^<]*)$` whose rest is one shell word: `<<EOF`,
//!   `<<-EOF`, `3<<EOF`, `<< EOF`, `<<'EOF'`, `<<"EOF"`, `<<eo'f'`, `<<file.txt`; not `cat<<EOF`,
//!   `'<<EOF'`, `<<<EOF`, `<<""`; a line with an unbalanced quote has none;
//! - bodies follow the whole logical line, in the order of their words; a body ends at the line
//!   equal to its name (leading tabs ignored for `<<-`); none found is "unterminated heredoc";
//! - only RUN, COPY and ADD (also under ONBUILD) in shell form take heredocs (`RUN ["<<EOF"]`
//!   has none).
//!
//! What the parser is given: markers, bodies and delimiter lines blanked (spaces; newlines kept,
//! so every byte offset and line:column stays the file's own). A RUN marker that started the
//! arguments becomes `:` (the shell's no-op) and a COPY/ADD marker becomes `:` (a source that
//! names no file), so the instruction keeps its arguments. An empty exec form `ENTRYPOINT []` /
//! `RUN []` (BuildKit takes both; the crate wants an argument) is given as `:` in the array's
//! place, so a reader of those instructions' arguments must look at the file's text. The bodies are returned with their
//! place in the file; the caller reads each by what runs it ([`Body::shell`]): a POSIX shell
//! (`RUN <<EOF` under the default SHELL without a `#!` line naming another interpreter, `bash
//! -ex <<EOF`, `sh -s <<EOF` …) is read like a RUN line; anything else (`python - <<'PY'`,
//! `<<EOF python3`, `cat > f <<EOF`, a `3<<EOF` file descriptor, ONBUILD triggers that run in a
//! later image) is not read for installs. A COPY/ADD body is a file in the image: it is read when
//! an install names that file (`pip install -r`, `uv sync`; see [`super::context`]), with
//! [`Body::file_offset`] locating what is found in it. A Python body installs through
//! pip only via `subprocess`/`os.system`, which this layer does not interpret.

use super::parse::InputProblem;

/// BuildKit reads lines with a `bufio.Scanner` whose limit is 64 KiB: a longer line is an error
/// ("dockerfile line greater than max allowed size of 65535").
pub const MAX_LINE: usize = 65535;

/// The instruction a heredoc belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    /// RUN
    Run,
    /// COPY
    Copy,
    /// ADD
    Add,
}

/// A heredoc body the parser was not given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// Byte offset of the instruction's keyword in the file (`ONBUILD` for a trigger).
    pub instruction: usize,
    /// RUN, COPY or ADD.
    pub keyword: Keyword,
    /// Under ONBUILD: runs in an image built FROM this one, not in this one.
    pub onbuild: bool,
    /// The delimiter, unquoted (`<<'EOF'` → `EOF`).
    pub name: String,
    /// `3<<EOF`: the body goes to file descriptor 3, not standard input.
    pub fd: Option<u32>,
    /// No part of the delimiter was quoted: BuildKit expands variables in a COPY/ADD body.
    pub expand: bool,
    /// `<<-`: leading tabs removed from each line (in [`Body::text`]).
    pub chomp: bool,
    /// With `chomp`: how many tabs were removed from each line of [`Body::text`] (empty
    /// otherwise), so that an offset in the text maps back to the file ([`Body::file_offset`]).
    pub tabs: Vec<u32>,
    /// Byte offset of the body's first byte in the file.
    pub start: usize,
    /// The body as the command receives it.
    pub text: String,
    /// A POSIX shell runs the body: read it like a RUN line.
    pub shell: bool,
}

impl Body {
    /// The byte of the file at byte `at` of [`Body::text`] (the text's end maps to the end of
    /// its last line). Exact: the text is the file's lines, less the tabs `<<-` removed.
    pub fn file_offset(&self, at: usize) -> usize {
        let mut removed = 0usize;
        let mut line_start = 0;
        for (k, line) in self.text.split_inclusive('\n').enumerate() {
            removed += self.tabs.get(k).copied().unwrap_or(0) as usize;
            if at < line_start + line.len() {
                break;
            }
            line_start += line.len();
        }
        self.start + at + removed
    }
}

/// The text to give the parser (`None`: the file as it is) and the heredoc bodies taken out of
/// it, or the located reason BuildKit would refuse the file's lines.
pub fn prepare(text: &str) -> Result<Option<(String, Vec<Body>)>, InputProblem> {
    let lines = line_spans(text);
    for (k, (_, l)) in lines.iter().enumerate() {
        if l.len() > MAX_LINE {
            return Err(InputProblem::new(
                k as u32 + 1,
                1,
                format!(
                    "line is {} bytes long: BuildKit reads at most {MAX_LINE} bytes per line (\"dockerfile line greater than max allowed size\"); expected a shorter line (split it with a line continuation)",
                    l.len()
                ),
            ));
        }
    }
    let mut p = Prep {
        text,
        lines,
        out: None,
        escape: b'\\',
    };
    let mut i = p.directives()?;
    let mut bodies = Vec::new();
    // the interpreter RUN's shell form runs under (SHELL; reset by FROM): a POSIX shell?
    let mut posix_shell = true;
    while i < p.lines.len() {
        let (_, raw) = p.lines[i];
        let t = raw.trim_start();
        if t.is_empty() || t.starts_with('#') {
            i += 1;
            continue;
        }
        let line = p.logical(&mut i);
        p.check(&line)?;
        let args = &line.text[line.args_at..];
        match line.kw.as_str() {
            "FROM" if !line.onbuild => posix_shell = true,
            "SHELL" if !line.onbuild => {
                if let Ok(v) = serde_json::from_str::<Vec<String>>(args.trim()) {
                    posix_shell = v.first().is_some_and(|s| is_posix_shell(s));
                }
            }
            _ => {}
        }
        let is_json = p.json_form(&line)?;
        let keyword = match line.kw.as_str() {
            "RUN" => Keyword::Run,
            "COPY" => Keyword::Copy,
            "ADD" => Keyword::Add,
            _ => continue,
        };
        if is_json || !line.text.contains("<<") {
            continue;
        }
        p.heredocs(&mut i, &line, keyword, posix_shell, &mut bodies)?;
    }
    let Some(buf) = p.out else { return Ok(None) };
    // only ASCII was written, over whole lines or ASCII marker bytes, so the text stays UTF-8
    // (a body line's multi-byte characters are blanked whole); be safe all the same
    let s = String::from_utf8(buf).unwrap_or_else(|e| {
        let b: Vec<u8> = e
            .into_bytes()
            .into_iter()
            .map(|x| if x >= 0x80 { b' ' } else { x })
            .collect();
        String::from_utf8(b).unwrap_or_default()
    });
    Ok(Some((s, bodies)))
}

/// A file being prepared for the parser.
struct Prep<'t> {
    text: &'t str,
    /// Its lines: (byte offset, text without the line break).
    lines: Vec<(usize, &'t str)>,
    /// The text to give the parser, once it differs from the file.
    out: Option<Vec<u8>>,
    /// The escape character (`# escape=`).
    escape: u8,
}

/// One instruction's logical line: its lines joined with the continuations taken off.
struct Logical {
    text: String,
    /// The file offset of each byte of `text` (and one past its end).
    offs: Vec<usize>,
    /// The file offset of the instruction's keyword.
    at: usize,
    /// The keyword, upper case (the trigger's under `ONBUILD`).
    kw: String,
    /// Under `ONBUILD`.
    onbuild: bool,
    /// Where the text after the first keyword starts.
    after_kw: usize,
    /// Where the arguments start (after the keyword and its `--flags`).
    args_at: usize,
}

impl Prep<'_> {
    /// (line, column), 1-based, of a byte of the file.
    fn pos(&self, off: usize) -> (u32, u32) {
        let k = self.lines.partition_point(|l| l.0 <= off).saturating_sub(1);
        let (ls, l) = self.lines.get(k).copied().unwrap_or((0, ""));
        let end = (off - ls).min(l.len());
        let col = l.get(..end).map_or(end, |s| s.chars().count());
        (k as u32 + 1, col as u32 + 1)
    }

    /// An input problem at a byte of the file.
    fn problem(&self, off: usize, msg: impl Into<String>) -> InputProblem {
        let (l, c) = self.pos(off);
        InputProblem::new(l, c, msg)
    }

    /// Parser directives: `# key = value` lines before anything else (BuildKit
    /// `parser/directives.go`): syntax, escape, check; each at most once. The index of the
    /// first line after them.
    fn directives(&mut self) -> Result<usize, InputProblem> {
        let mut seen: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.lines.len() {
            let (ls, raw) = self.lines[i];
            let t = raw.trim_start();
            let Some(rest) = t.strip_prefix('#') else { break };
            let Some((key, value)) = directive(rest) else { break };
            if !matches!(key.as_str(), "syntax" | "escape" | "check") {
                break;
            }
            if seen.contains(&key) {
                return Err(self.problem(
                    ls + (raw.len() - t.len()),
                    format!(
                        "only one {key} parser directive can be used; expected the directive once, in the file's first lines"
                    ),
                ));
            }
            if key == "escape" {
                match value {
                    "`" => self.escape = b'`',
                    "\\" => self.escape = b'\\',
                    v => {
                        return Err(self.problem(
                            ls + (raw.len() - t.len()),
                            format!("invalid escape token '{v}': expected ` or \\"),
                        ));
                    }
                }
            }
            seen.push(key);
            if t.len() != raw.len() {
                // BuildKit reads a directive after leading blanks; parse-dockerfile only at the
                // line's first byte: the parser is given the line with the blanks moved to its end
                let text = self.text;
                let buf = self.out.get_or_insert_with(|| text.as_bytes().to_vec());
                let n = raw.len() - t.len();
                buf[ls..ls + raw.len()].rotate_left(n);
            }
            i += 1;
        }
        Ok(i)
    }

    /// The logical line that starts at line `*i` (not blank, not a comment), `*i` moved past it.
    fn logical(&mut self, i: &mut usize) -> Logical {
        let escape = self.escape;
        let (ls, raw) = self.lines[*i];
        let t = raw.trim_start();
        // its pieces (file offset, text) with continuations taken off
        let instr_at = ls + (raw.len() - t.len());
        let mut pieces: Vec<(usize, &str)> = Vec::new();
        let (piece, mut cont) = trim_continuation(t, escape);
        pieces.push((instr_at, piece));
        let mut last = (instr_at, t);
        *i += 1;
        while cont && *i < self.lines.len() {
            let (ls, raw) = self.lines[*i];
            *i += 1;
            let t = raw.trim_start();
            if t.starts_with('#') || t.is_empty() {
                continue; // comment and empty lines inside a continuation are skipped
            }
            let (piece, c) = trim_continuation(raw, escape);
            pieces.push((ls, piece));
            last = (ls, raw);
            cont = c;
        }
        // `trailing\\` (an escaped escape last): BuildKit ends the instruction there (its
        // continuation pattern wants a character other than the escape before the last one);
        // parse-dockerfile would continue it into the next line. The parser is given blanks for
        // those trailing escape characters.
        if !cont {
            let e = last.1.trim_end_matches([' ', '\t']);
            let run = e.len() - e.trim_end_matches(escape as char).len();
            if run >= 2 {
                let text = self.text;
                let buf = self.out.get_or_insert_with(|| text.as_bytes().to_vec());
                for b in &mut buf[last.0 + e.len() - run..last.0 + e.len()] {
                    *b = b' ';
                }
            }
        }
        let mut logical = String::new();
        let mut offs: Vec<usize> = Vec::new();
        for (at, p) in &pieces {
            logical.push_str(p);
            offs.extend((0..p.len()).map(|k| at + k));
        }
        offs.push(offs.last().map_or(instr_at, |o| o + 1));
        let (kw, after_kw) = word_at(&logical, 0);
        let mut kw = kw.to_ascii_uppercase();
        let mut args_from = after_kw;
        let onbuild = kw == "ONBUILD";
        if onbuild {
            let (sub, after) = word_at(&logical, after_kw);
            kw = sub.to_ascii_uppercase();
            args_from = after;
        }
        let args_at = skip_flags(&logical, args_from);
        Logical {
            text: logical,
            offs,
            at: instr_at,
            kw,
            onbuild,
            after_kw,
            args_at,
        }
    }

    /// BuildKit's checks of an instruction's arguments: ONBUILD triggers, HEALTHCHECK's type and
    /// command, ENV and LABEL pairs.
    fn check(&self, line: &Logical) -> Result<(), InputProblem> {
        let (logical, offs, kw, args_at) = (&line.text, &line.offs, &line.kw, line.args_at);
        if line.onbuild && matches!(kw.as_str(), "ONBUILD" | "FROM" | "MAINTAINER") {
            // BuildKit `parseOnBuild`
            return Err(self.problem(
                offs[skip_ws(logical, line.after_kw)],
                format!("{kw} isn't allowed as an ONBUILD trigger: expected another instruction after ONBUILD"),
            ));
        }
        if kw == "HEALTHCHECK" {
            // BuildKit `parseHealthcheck`: "Missing command after HEALTHCHECK CMD"
            let (typ, after) = word_at(logical, args_at);
            let rest = logical[after..].trim();
            if !typ.is_empty() && !typ.eq_ignore_ascii_case("CMD") && !typ.eq_ignore_ascii_case("NONE") {
                return Err(self.problem(
                    offs[skip_ws(logical, args_at)],
                    format!("unknown type {typ} in HEALTHCHECK: expected CMD or NONE"),
                ));
            }
            if typ.eq_ignore_ascii_case("CMD") && (rest.is_empty() || rest.replace([' ', '\t'], "") == "[]") {
                return Err(self.problem(
                    offs[skip_ws(logical, args_at)],
                    "missing command after HEALTHCHECK CMD: expected the command to run (or HEALTHCHECK NONE)",
                ));
            }
        }
        // ENV and LABEL (BuildKit `parseNameVal`): `KEY name value` when the first word has no
        // `=`, else every word is `name=value`
        if matches!(kw.as_str(), "ENV" | "LABEL") {
            let ws = name_val_words(logical, args_at, self.escape);
            if let Some(&(a, z)) = ws.first() {
                if !logical[a..z].contains('=') {
                    if logical[z..].trim().is_empty() {
                        return Err(self.problem(
                            offs[a],
                            format!(
                                "{kw} must have two arguments: expected `{kw} name=value` (or the legacy `{kw} name value`)"
                            ),
                        ));
                    }
                } else if let Some(&(a, z)) = ws.iter().find(|&&(a, z)| !logical[a..z].contains('=')) {
                    return Err(self.problem(
                        offs[a],
                        format!("{kw}: can't find = in \"{}\": expected name=value", &logical[a..z]),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether the instruction's arguments are in JSON form. An array that is not an array of
    /// strings is an error, not a shell command (BuildKit `parseJSON`: "when using JSON array
    /// syntax, arrays must be comprised of strings only"); HEALTHCHECK's is after its type word.
    fn json_form(&mut self, line: &Logical) -> Result<bool, InputProblem> {
        let (logical, offs, kw) = (&line.text, &line.offs, line.kw.as_str());
        let at = match kw {
            "RUN" | "CMD" | "ENTRYPOINT" | "SHELL" | "ADD" | "COPY" | "VOLUME" => line.args_at,
            "HEALTHCHECK" => skip_ws(logical, word_at(logical, line.args_at).1),
            _ => return Ok(false),
        };
        let a = logical[at..].trim();
        if !a.starts_with('[') {
            return Ok(false);
        }
        let Ok(v) = serde_json::from_str::<Vec<serde_json::Value>>(a) else {
            return Ok(false);
        };
        if v.iter().any(|x| !x.is_string()) {
            return Err(self.problem(
                offs[at],
                format!(
                    "{kw} in JSON form: when using JSON array syntax, arrays must be comprised of strings only; expected [\"word\", …]"
                ),
            ));
        }
        // an empty exec form: BuildKit takes `ENTRYPOINT []` (it clears the inherited
        // entrypoint: `parseEntrypoint` keeps an empty list as nil) and `RUN []`
        // (`parseMaybeJSON` gives no arguments, `parseRun` requires none); parse-dockerfile
        // refuses both ("requires at least one argument"). The parser is given the shell no-op
        // `:` in the array's place.
        if v.is_empty() && matches!(kw, "ENTRYPOINT" | "RUN") {
            let text = self.text;
            let buf = self.out.get_or_insert_with(|| text.as_bytes().to_vec());
            let a = skip_ws(logical, at);
            let z = logical.trim_end().len();
            for k in a..z {
                buf[offs[k]] = b' ';
            }
            buf[offs[a]] = b':';
        }
        Ok(true)
    }

    /// The heredocs of a RUN, COPY or ADD: their markers and bodies blanked for the parser (a
    /// `:` where a word must stay), each body kept; `*i` moved past the bodies.
    fn heredocs(
        &mut self,
        i: &mut usize,
        line: &Logical,
        keyword: Keyword,
        posix_shell: bool,
        bodies: &mut Vec<Body>,
    ) -> Result<(), InputProblem> {
        let (logical, offs, kw, args_at) = (&line.text, &line.offs, &line.kw, line.args_at);
        let markers: Vec<Marker> = words(logical)
            .into_iter()
            .filter_map(|(s, e)| marker(logical, s, e))
            .collect();
        if markers.is_empty() {
            return Ok(());
        }
        if keyword != Keyword::Run {
            let all = words(logical);
            if let (Some(m), Some(w)) = (markers.last(), all.last())
                && m.start == w.0
            {
                // BuildKit `parseSourcesAndDest`
                return Err(self.problem(
                    offs[m.start],
                    format!("{kw} cannot accept a heredoc as a destination: expected `{kw} <<NAME /path/in/image`"),
                ));
            }
        }
        let text = self.text;
        let buf = self.out.get_or_insert_with(|| text.as_bytes().to_vec());
        // a command that is one heredoc word and nothing else: BuildKit runs the body itself
        let sole = markers.len() == 1 && markers[0].start == args_at && logical[markers[0].end..].trim().is_empty();
        for (n, m) in markers.iter().enumerate() {
            for k in m.start..m.end {
                buf[offs[k]] = b' ';
            }
            if (n == 0 && m.start == args_at) || keyword != Keyword::Run {
                buf[offs[m.start]] = b':';
            }
        }
        for m in &markers {
            let body_start = self.lines.get(*i).map_or(text.len(), |l| l.0);
            let mut body = String::new();
            let mut tabs = Vec::new();
            let mut end = None;
            while *i < self.lines.len() {
                let (ls, l) = self.lines[*i];
                *i += 1;
                let cand = if m.chomp { l.trim_start_matches('\t') } else { l };
                let is_end = cand == m.name;
                for b in &mut buf[ls..ls + l.len()] {
                    *b = b' ';
                }
                if is_end {
                    end = Some(());
                    break;
                }
                body.push_str(if m.chomp { cand } else { l });
                body.push('\n');
                if m.chomp {
                    tabs.push((l.len() - cand.len()) as u32);
                }
            }
            if end.is_none() {
                return Err(self.problem(
                    offs[m.start],
                    format!(
                        "unterminated heredoc: expected a line `{}` ending the here-document started here",
                        m.name
                    ),
                ));
            }
            // BuildKit runs a sole heredoc's body itself (through SHELL, or as a script when it
            // starts with `#!`); any other line goes to the shell with the bodies attached
            let shell = keyword == Keyword::Run
                && !line.onbuild
                && posix_shell
                && if sole {
                    shebang_is_shell(&body)
                } else {
                    m.fd.is_none_or(|fd| fd == 0) && stdin_of_shell(logical, args_at, m)
                };
            bodies.push(Body {
                instruction: line.at,
                keyword,
                onbuild: line.onbuild,
                name: m.name.clone(),
                fd: m.fd,
                expand: m.expand,
                chomp: m.chomp,
                tabs,
                start: body_start,
                text: body,
                shell,
            });
        }
        Ok(())
    }
}

/// `key = value` after a directive's `#` (BuildKit: `^([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.+?)\s*$`).
fn directive(rest: &str) -> Option<(String, &str)> {
    let rest = rest.trim_start();
    let klen = rest
        .char_indices()
        .find(|&(k, c)| !(c.is_ascii_alphabetic() || k > 0 && c.is_ascii_digit()))
        .map_or(rest.len(), |(k, _)| k);
    if klen == 0 {
        return None;
    }
    let value = rest[klen..].trim_start().strip_prefix('=')?.trim();
    if value.is_empty() {
        return None;
    }
    Some((rest[..klen].to_ascii_lowercase(), value))
}

/// A line without its continuation (the escape character last, trailing blanks after it,
/// not itself escaped), and whether it continues (BuildKit's `lineContinuationRegex`).
fn trim_continuation(line: &str, escape: u8) -> (&str, bool) {
    let t = line.trim_end_matches([' ', '\t']);
    let b = t.as_bytes();
    if b.last() == Some(&escape) && (b.len() == 1 || b[b.len() - 2] != escape) {
        (&t[..t.len() - 1], true)
    } else {
        (line, false)
    }
}

/// The word starting at or after `from` (whitespace-delimited) and the offset after it.
fn word_at(s: &str, from: usize) -> (&str, usize) {
    let start = skip_ws(s, from);
    let end = s[start..].find(char::is_whitespace).map_or(s.len(), |k| start + k);
    (&s[start..end], end)
}

fn skip_ws(s: &str, from: usize) -> usize {
    s[from..]
        .find(|c: char| !c.is_whitespace())
        .map_or(s.len(), |k| from + k)
}

/// Skips `--flag[=value]` words (BuildKit's builder flags), and a `--` ending them.
fn skip_flags(s: &str, from: usize) -> usize {
    let mut at = skip_ws(s, from);
    while s[at..].starts_with("--") {
        let (w, after) = word_at(s, at);
        at = skip_ws(s, after);
        if w == "--" {
            break;
        }
    }
    at
}

#[derive(Debug, Clone)]
struct Marker {
    /// Byte range of the heredoc word in the logical line.
    start: usize,
    end: usize,
    name: String,
    fd: Option<u32>,
    chomp: bool,
    expand: bool,
}

/// Byte ranges of the words of a logical line, BuildKit's way (`shell.ProcessWords` with raw
/// quotes and escapes): split at unquoted whitespace only; `<<` takes the blanks after it into
/// its word. An unbalanced quote: no words (BuildKit then finds no heredocs).
fn words(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b' ' || c == b'\t' || c == b'\r' || c == b'\n' {
            if let Some(st) = start.take() {
                out.push((st, i));
            }
            i += 1;
            continue;
        }
        if start.is_none() {
            start = Some(i);
        }
        match c {
            b'\'' => match b[i + 1..].iter().position(|&x| x == b'\'') {
                Some(k) => i += k + 2,
                None => return Vec::new(),
            },
            b'"' => {
                let mut j = i + 1;
                loop {
                    match b.get(j) {
                        None => return Vec::new(),
                        Some(b'"') => break,
                        Some(b'\\') => j += 2,
                        Some(_) => j += 1,
                    }
                }
                i = j + 1;
            }
            b'\\' => i += 2,
            b'$' if b.get(i + 1) == Some(&b'{') => match b[i..].iter().position(|&x| x == b'}') {
                Some(k) => i += k + 1,
                None => return Vec::new(),
            },
            b'<' if b.get(i + 1) == Some(&b'<') => {
                i += 2;
                while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    if let Some(st) = start {
        out.push((st, b.len().min(s.len())));
    }
    out.into_iter().map(|(a, e)| (a, e.min(s.len()))).collect()
}

/// Byte ranges of the words of an ENV/LABEL line (BuildKit `parseWords`: quotes group, the
/// escape character takes the next character).
fn name_val_words(s: &str, from: usize, escape: u8) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut quote: Option<u8> = None;
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        match quote {
            None if c == b' ' || c == b'\t' => {
                if let Some(st) = start.take() {
                    out.push((st, i));
                }
            }
            None => {
                start.get_or_insert(i);
                if c == b'\'' || c == b'"' {
                    quote = Some(c);
                } else if c == escape {
                    i += 1;
                }
            }
            Some(q) if c == q => quote = None,
            Some(q) if c == escape && q != b'\'' => i += 1,
            Some(_) => {}
        }
        i += 1;
    }
    if let Some(st) = start {
        out.push((st, b.len()));
    }
    out
}

/// The heredoc a word is, if it is one (BuildKit `ParseHeredoc`).
fn marker(s: &str, start: usize, end: usize) -> Option<Marker> {
    let w = s.get(start..end)?;
    let digits = w.bytes().take_while(u8::is_ascii_digit).count();
    let rest = w[digits..].strip_prefix("<<")?;
    let (chomp, rest) = match rest.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let rest = rest.trim_start_matches([' ', '\t']);
    if rest.is_empty() || rest.contains('<') {
        return None;
    }
    let (name, quoted) = unquote(rest)?;
    if name.is_empty() {
        return None;
    }
    let fd = if digits > 0 { w[..digits].parse().ok() } else { None };
    Some(Marker {
        start,
        end,
        name,
        fd,
        chomp,
        expand: !quoted,
    })
}

/// A heredoc word's name with quotes and escapes removed, and whether any part was quoted.
fn unquote(w: &str) -> Option<(String, bool)> {
    let mut out = String::new();
    let mut quoted = false;
    let mut it = w.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\'' => {
                quoted = true;
                loop {
                    match it.next()? {
                        '\'' => break,
                        x => out.push(x),
                    }
                }
            }
            '"' => {
                quoted = true;
                loop {
                    match it.next()? {
                        '"' => break,
                        '\\' if matches!(it.peek(), Some('"' | '$' | '\\')) => out.push(it.next()?),
                        x => out.push(x),
                    }
                }
            }
            '\\' => {
                if let Some(x) = it.next() {
                    out.push(x);
                }
            }
            c if c.is_whitespace() => return None, // more than one word
            c => out.push(c),
        }
    }
    Some((out, quoted))
}

fn is_posix_shell(cmd: &str) -> bool {
    let base = cmd.rsplit('/').next().unwrap_or(cmd);
    matches!(base, "sh" | "bash" | "dash" | "zsh" | "ash" | "ksh")
}

/// A sole heredoc's body is run by the shell unless it starts with `#!` naming another
/// interpreter (BuildKit then runs the body as a script file).
fn shebang_is_shell(body: &str) -> bool {
    let Some(line) = body.strip_prefix("#!") else {
        return true;
    };
    let line = line.lines().next().unwrap_or("");
    let mut w = line.split_whitespace();
    let Some(first) = w.next() else { return true };
    if first.rsplit('/').next() == Some("env") {
        return w.find(|x| !x.starts_with('-')).is_some_and(is_posix_shell);
    }
    is_posix_shell(first)
}

/// Is the heredoc `m` the standard input of a POSIX shell reading its script from it? The
/// simple command around the marker (between `&&`, `||`, `;`, `|`, `&`, parentheses) is a
/// shell (`bash`, `sh` …) given only options: `bash -ex <<EOF`, `<<EOF sh`, `sh -s <<EOF`.
fn stdin_of_shell(logical: &str, args_at: usize, m: &Marker) -> bool {
    let b = logical.as_bytes();
    let is_op = |c: u8| matches!(c, b'&' | b'|' | b';' | b'(' | b')' | b'\n');
    let mut s = m.start;
    while s > args_at && !is_op(b[s - 1]) {
        s -= 1;
    }
    let mut e = m.end;
    while e < b.len() && !is_op(b[e]) {
        e += 1;
    }
    let seg_words: Vec<(usize, usize)> = words(&logical[s..e]).into_iter().map(|(a, z)| (a + s, z + s)).collect();
    let mut cmd: Vec<&str> = Vec::new();
    let mut skip_next = false;
    for (a, z) in seg_words {
        let w = &logical[a..z];
        if skip_next {
            skip_next = false;
            continue;
        }
        if marker(logical, a, z).is_some() {
            continue;
        }
        let r = w.trim_start_matches(|c: char| c.is_ascii_digit());
        if r.starts_with('>') || r.starts_with('<') {
            // `> f`, `2>&1`, `<f`: the target may be the next word
            skip_next = r.trim_start_matches(['>', '<', '&', '|']).is_empty();
            continue;
        }
        if cmd.is_empty() && w.contains('=') && !w.starts_with('-') {
            continue; // VAR=value before the command
        }
        cmd.push(w);
    }
    let Some(first) = cmd.first() else { return false };
    is_posix_shell(first) && cmd[1..].iter().all(|w| w.starts_with('-'))
}

fn line_spans(text: &str) -> Vec<(usize, &str)> {
    let mut v = Vec::new();
    let mut at = 0;
    for l in text.split('\n') {
        v.push((at, l));
        at += l.len() + 1;
    }
    if text.ends_with('\n') {
        v.pop();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(t: &str) -> Vec<(String, bool)> {
        prepare(t)
            .unwrap()
            .map(|(_, b)| b.into_iter().map(|b| (b.name, b.shell)).collect())
            .unwrap_or_default()
    }

    #[test]
    fn lines_without_heredocs_are_left_as_they_are() {
        assert!(prepare("FROM a\nRUN echo '<<EOF'\n").unwrap().is_none());
        assert!(prepare("FROM a\nRUN cat <<< hi\n").unwrap().is_none());
        assert!(prepare("FROM a\nRUN cat<<EOF\n").unwrap().is_none()); // not a word of its own
        assert!(prepare("FROM a\nRUN [\"<<EOF\"]\n").unwrap().is_none());
        assert!(prepare("FROM a\nRUN echo <<EOF'\n").unwrap().is_none()); // unbalanced quote
        assert!(prepare("FROM a\nUSER <<X\n").unwrap().is_none());
    }

    #[test]
    fn heredocs_after_a_command_are_taken_out_with_offsets_kept() {
        let t = "FROM a\nRUN cd x && python - <<'PY'\nimport torch\nPY\nRUN bash -ex <<EOF\npip install torch==2.5.1\nEOF\n";
        let (masked, bodies) = prepare(t).unwrap().unwrap();
        assert_eq!(masked.len(), t.len());
        assert_eq!(masked.lines().count(), t.lines().count());
        assert!(!masked.contains("import torch") && !masked.contains("<<"));
        assert_eq!(bodies.len(), 2);
        assert!(!bodies[0].shell && bodies[0].text == "import torch\n" && !bodies[0].expand);
        assert!(bodies[1].shell && bodies[1].expand);
        assert_eq!(&t[bodies[1].start..bodies[1].start + 8], "pip inst");
        assert!(parse_dockerfile::parse(&masked).is_ok());
    }

    #[test]
    fn several_heredocs_strip_tabs_and_quotes() {
        let t = "FROM a\nRUN <<A bash <<-\"B\"\necho a\nA\n\tpip install x\n\tB\nCOPY <<C <<D /f/\nD\nC\nC\nD\n";
        let (masked, bodies) = prepare(t).unwrap().unwrap();
        assert_eq!(bodies.len(), 4, "{bodies:?}");
        assert!(bodies[0].shell && bodies[1].shell);
        assert_eq!(bodies[1].text, "pip install x\n");
        assert_eq!((bodies[2].name.as_str(), bodies[2].text.as_str()), ("C", "D\n"));
        assert_eq!((bodies[3].name.as_str(), bodies[3].text.as_str()), ("D", "C\n"));
        assert!(!bodies[2].shell && bodies[2].keyword == Keyword::Copy);
        assert!(masked.contains("RUN :"), "{masked}");
        assert!(parse_dockerfile::parse(&masked).is_ok(), "{masked}");
    }

    #[test]
    fn body_offsets_map_back_to_the_file() {
        // `<<-`: the tabs taken off each line are counted back in
        let t = "FROM a\nCOPY <<-EOF /r.txt\n\t\tnumpy\n\ttorch==2.5.1\n\nx\n\tEOF\n";
        let (_, bodies) = prepare(t).unwrap().unwrap();
        let b = &bodies[0];
        assert_eq!(b.text, "numpy\ntorch==2.5.1\n\nx\n");
        assert_eq!(b.tabs, [2, 1, 0, 0]);
        for needle in ["numpy", "torch==2.5.1", "2.5.1", "x\n"] {
            let at = b.text.find(needle).unwrap();
            let f = b.file_offset(at);
            assert_eq!(&t[f..f + needle.len()], needle, "{needle}");
        }
        // the end of a line maps to the end of that line in the file
        let end = b.text.find("numpy").unwrap() + 5;
        assert_eq!(&t[b.file_offset(end)..b.file_offset(end) + 1], "\n");
        // without `-` the text is the file's own bytes
        let t = "FROM a\nCOPY <<EOF /r.txt\n\ttorch\nEOF\n";
        let (_, bodies) = prepare(t).unwrap().unwrap();
        assert!(bodies[0].tabs.is_empty());
        assert_eq!(bodies[0].file_offset(1), t.find("torch").unwrap());
    }

    #[test]
    fn buildkit_heredoc_words() {
        let t = "FROM a\nRUN <<eo'f'\nx\neof\nRUN <<eo\\'f\nx\neo'f\nRUN << -E\nE\n-E\nRUN 3<<F cat /proc/self/fd/3\nF\nRUN <<'one two'\none two\nRUN <<$EOF\n$EOF\n";
        let n = names(t);
        let n: Vec<&str> = n.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(n, ["eof", "eo'f", "-E", "F", "one two", "$EOF"]);
    }

    #[test]
    fn what_runs_the_body() {
        let t = "FROM a\nRUN <<A\n#!/usr/bin/env python3\nA\nRUN <<B python3\nB\nRUN <<C\n#!/bin/bash\nC\nRUN X=1 sh -s <<D > /log 2>&1\nD\nRUN cat > /f <<E\nE\nONBUILD RUN <<F\nF\n";
        let s: Vec<bool> = names(t).into_iter().map(|x| x.1).collect();
        assert_eq!(s, [false, false, true, true, false, false]);
        let t = "FROM a\nSHELL [\"pwsh\", \"-c\"]\nRUN <<A\nx\nA\nFROM b\nRUN <<B\nx\nB\n";
        let s: Vec<bool> = names(t).into_iter().map(|x| x.1).collect();
        assert_eq!(s, [false, true]);
    }

    #[test]
    fn bodies_follow_the_whole_logical_line() {
        let t = "FROM a\nRUN cat <<A | tr a b; \\\n# a comment\n\n  cat <<B\nbody a\nA\nbody b \\\nB\nRUN x\n";
        let (masked, bodies) = prepare(t).unwrap().unwrap();
        assert_eq!(bodies.len(), 2);
        assert_eq!(bodies[1].text, "body b \\\n");
        assert!(parse_dockerfile::parse(&masked).is_ok(), "{masked}");
    }

    #[test]
    fn located_errors() {
        let e = prepare("FROM a\nRUN <<A <<B\nA\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 9), "{e:?}");
        assert!(e.message.contains("unterminated heredoc") && e.message.contains("`B`"));
        let e = prepare("# escape=`\n# escape=\\\nFROM a\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 1));
        let e = prepare("# escape=x\nFROM a\n").unwrap_err();
        assert!(e.message.contains("invalid escape token"));
        let e = prepare("FROM a\nENV PATH\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 5), "{e:?}");
        let e = prepare("FROM a\nLABEL a=1 \"b c\"\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 11), "{e:?}");
        assert!(prepare("FROM a\nENV a=\"x y\" b='1 2' c=d\\ e\nLABEL k v w\n").is_ok());
        let e = prepare("FROM a\nCMD [ \"echo\", [ \"x\" ] ]\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 5), "{e:?}");
        let long = format!("FROM a\nLABEL x={}\n", "a".repeat(MAX_LINE));
        assert_eq!(prepare(&long).unwrap_err().line, 2);
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for t in [
            "RUN --mount=x<<EOF\nEOF\n",
            "RUN a <<\n",
            "RUN a <<'EOF\nEOF\n",
            "RUN a <<EOF",
            "RUN é <<EOF\nü\nEOF",
            "# escape=`\nRUN a `\n <<EOF\nx\nEOF\n",
            "COPY --chmod=755 <<A <<B /x/\na\nA\nb\nB\n",
            "RUN \\",
            "RUN <<\\",
            "RUN ${x <<A\n",
            "ONBUILD",
            "HEALTHCHECK",
            "RUN \"\\",
            "\u{feff}RUN <<A\nA",
        ] {
            if let Ok(Some((m, _))) = prepare(t) {
                assert_eq!(m.len(), t.len(), "{t:?}");
            }
        }
    }
}
