//! Heredocs where the parser cannot take them: after a command (`RUN cd x && python - <<'PY'`,
//! `RUN bash -ex <<EOF`) and several on one line (`RUN <<A <<B`).
//!
//! BuildKit has accepted heredocs anywhere in a RUN/COPY/ADD line since Dockerfile syntax 1.4
//! (https://docs.docker.com/reference/dockerfile/#here-documents); parse-dockerfile 0.1.9 reads
//! only one heredoc that starts the arguments ("TODO: here-doc is not always start from first",
//! "TODO: multiple here-docs"), and parses any other body as instructions — so one such line made
//! the whole file an input error. This layer is ours rather than a patched fork: it is small,
//! it runs before the parser, and it leaves the parser's own heredoc path (one heredoc that starts
//! the arguments, whose fix sites we rely on) untouched.
//!
//! What it does, for those instructions only: the heredoc markers and bodies are blanked (spaces,
//! newlines kept, so every byte offset and line:column stays the file's own) in the text given to
//! the parser, and the bodies are returned with their place in the file. A marker becomes spaces,
//! or `:` (the shell's no-op) where it started the arguments, so the instruction stays a valid
//! shell command. The caller reads each body by what runs it: a shell (`RUN <<EOF`, `bash <<EOF`,
//! `sh -s <<EOF` …) is read like a RUN line; anything else (`python - <<'PY'`, `cat > f <<EOF`,
//! COPY/ADD file contents) is not read for installs — a Python body installs through pip only via
//! `subprocess`/`os.system`, which this layer does not interpret (said in `Body::shell`).

/// A heredoc body the parser was not given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// Byte offset of the instruction's keyword (`RUN`) in the file.
    pub instruction: usize,
    /// Byte offset of the body's first byte in the file.
    pub start: usize,
    /// The body as the command receives it (`<<-`: leading tabs removed from each line).
    pub text: String,
    /// A shell runs the body: read it like a RUN line.
    pub shell: bool,
}

/// The text to give the parser, and the bodies taken out of it. `None` when nothing needed it
/// (the parser reads the file as it is).
pub fn prepare(text: &str) -> Option<(String, Vec<Body>)> {
    let mut out: Option<Vec<u8>> = None;
    let mut bodies = Vec::new();
    let bytes = text.as_bytes();
    let lines: Vec<(usize, &str)> = line_spans(text);
    let mut i = 0;
    let mut escape = '\\';
    // parser directives (`# escape=`) come first in the file
    for (_, l) in &lines {
        let t = l.trim();
        if let Some(rest) = t.strip_prefix('#') {
            let d = rest.trim().to_ascii_lowercase();
            if let Some(e) = d.strip_prefix("escape=") {
                if let Some(c) = e.trim().chars().next() {
                    escape = c;
                }
                continue;
            }
            if d.starts_with("syntax=") || d.starts_with("check=") {
                continue;
            }
        }
        break;
    }
    while i < lines.len() {
        let (start, line) = lines[i];
        let trimmed = line.trim_start();
        let kw: String = trimmed
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_ascii_uppercase();
        if !matches!(kw.as_str(), "RUN" | "COPY" | "ADD") {
            i += 1;
            continue;
        }
        let instr_at = start + (line.len() - trimmed.len());
        // the instruction's lines: continuations (a trailing escape char) join the next line
        let mut last = i;
        while last + 1 < lines.len() && lines[last].1.trim_end().ends_with(escape) {
            last += 1;
        }
        let mut markers = Vec::new();
        for (k, (ls, l)) in lines.iter().enumerate().take(last + 1).skip(i) {
            let from = if k == i { (instr_at - ls) + kw.len() } else { 0 };
            markers.extend(find_markers(l, from).into_iter().map(|m| Marker { at: ls + m.at, ..m }));
        }
        if markers.is_empty() {
            i = last + 1;
            continue;
        }
        let args_start = {
            // first argument after the keyword and any --flags
            let after_kw = instr_at + kw.len();
            first_arg(text, after_kw, lines[last].0 + lines[last].1.len())
        };
        let leading = markers[0].at == args_start;
        if markers.len() == 1 && leading {
            // the parser's own path; skip its body
            let (_, skip) = body_end(&lines, last + 1, &markers[0]);
            i = skip;
            continue;
        }
        let buf = out.get_or_insert_with(|| bytes.to_vec());
        // blank the markers
        for (n, m) in markers.iter().enumerate() {
            for b in &mut buf[m.at..m.at + m.len] {
                *b = b' ';
            }
            if n == 0 && leading {
                buf[m.at] = b':';
            }
        }
        // bodies follow the instruction's last line, in marker order
        let mut next = last + 1;
        for (n, m) in markers.iter().enumerate() {
            let (body_lines, after) = body_end(&lines, next, m);
            let body_start = lines.get(next).map_or(text.len(), |l| l.0);
            let mut body = String::new();
            for &(ls, l) in &lines[next..body_lines] {
                body.push_str(if m.strip_tabs { l.trim_start_matches('\t') } else { l });
                body.push('\n');
                for b in &mut buf[ls..ls + l.len()] {
                    *b = b' ';
                }
            }
            // the delimiter line
            if body_lines < lines.len() {
                let (ls, l) = lines[body_lines];
                for b in &mut buf[ls..ls + l.len()] {
                    *b = b' ';
                }
            }
            let shell = kw == "RUN" && ((n == 0 && leading) || runs_shell(text, args_start, m.at));
            bodies.push(Body {
                instruction: instr_at,
                start: body_start,
                text: body,
                shell,
            });
            next = after;
        }
        i = next;
    }
    let buf = out?;
    // only spaces, `:` and newlines were written over whole characters' bytes… except inside a
    // multi-byte character, which spaces would split: blank those fully
    let s = String::from_utf8(buf).unwrap_or_else(|e| {
        let mut b = e.into_bytes();
        for x in &mut b {
            if *x >= 0x80 {
                *x = b' ';
            }
        }
        String::from_utf8(b).unwrap_or_default()
    });
    Some((s, bodies))
}

#[derive(Debug, Clone)]
struct Marker {
    /// Byte offset of `<<` (in the line, then in the file).
    at: usize,
    /// Length of the marker (`<<-'EOF'`).
    len: usize,
    word: String,
    strip_tabs: bool,
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

/// `<<WORD`, `<<-WORD`, `<<"WORD"`, `<<'WORD'` outside quotes, from byte `from` of the line;
/// not `<<<` (a here-string).
fn find_markers(line: &str, from: usize) -> Vec<Marker> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut quote: Option<u8> = None;
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'\'' || c == b'"' => quote = Some(c),
            None if c == b'#' && (i == 0 || b[i - 1].is_ascii_whitespace()) => break,
            None if c == b'<'
                && b.get(i + 1) == Some(&b'<')
                && b.get(i + 2) != Some(&b'<')
                && (i == 0 || b[i - 1] != b'<') =>
            {
                let mut j = i + 2;
                let strip_tabs = b.get(j) == Some(&b'-');
                if strip_tabs {
                    j += 1;
                }
                let q = b.get(j).copied().filter(|c| *c == b'\'' || *c == b'"');
                if q.is_some() {
                    j += 1;
                }
                let ws = j;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'-' || b[j] == b'.') {
                    j += 1;
                }
                if j > ws {
                    let word = line[ws..j].to_string();
                    if let Some(q) = q {
                        if b.get(j) != Some(&q) {
                            i += 2;
                            continue;
                        }
                        j += 1;
                    }
                    out.push(Marker {
                        at: i,
                        len: j - i,
                        word,
                        strip_tabs,
                    });
                    i = j;
                    continue;
                }
            }
            None => {}
        }
        i += 1;
    }
    out
}

/// The index of the delimiter line of a body starting at line `from`, and the line after it.
fn body_end(lines: &[(usize, &str)], from: usize, m: &Marker) -> (usize, usize) {
    let mut k = from;
    while k < lines.len() {
        let l = lines[k].1;
        let l = if m.strip_tabs { l.trim_start_matches('\t') } else { l };
        if l == m.word {
            return (k, k + 1);
        }
        k += 1;
    }
    (lines.len(), lines.len())
}

/// Byte offset of the first argument after `from`, skipping `--flag[=value]` words and
/// continuations.
fn first_arg(text: &str, from: usize, end: usize) -> usize {
    let b = text.as_bytes();
    let mut i = from;
    loop {
        while i < end && (b[i] == b' ' || b[i] == b'\t' || b[i] == b'\\' || b[i] == b'\n') {
            i += 1;
        }
        if i + 1 < end && b[i] == b'-' && b[i + 1] == b'-' {
            while i < end && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            continue;
        }
        return i;
    }
}

/// Does a shell read the heredoc at `marker`? The command word of the marker's shell segment:
/// `bash`, `sh`, `dash`, `zsh` (with flags only, no script path).
fn runs_shell(text: &str, args_start: usize, marker: usize) -> bool {
    let Some(seg) = text.get(args_start..marker) else {
        return false; // a marker inside a --flag word
    };
    let seg = seg
        .rsplit(['&', '|', ';', '\n'])
        .next()
        .unwrap_or(seg)
        .replace('\\', " ");
    let words: Vec<&str> = seg
        .split_whitespace()
        .filter(|w| !w.contains('=') && !w.starts_with("<<"))
        .collect();
    let Some(cmd) = words.first() else { return false };
    let base = cmd.rsplit('/').next().unwrap_or(cmd);
    matches!(base, "bash" | "sh" | "dash" | "zsh") && words[1..].iter().all(|w| w.starts_with('-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_leading_heredoc_is_left_to_the_parser() {
        assert!(prepare("FROM a\nRUN <<EOF\necho hi\nEOF\n").is_none());
        assert!(prepare("FROM a\nRUN echo '<<EOF'\n").is_none());
        assert!(prepare("FROM a\nRUN cat <<< hi\n").is_none());
    }

    #[test]
    fn heredocs_after_a_command_are_taken_out_with_offsets_kept() {
        let t = "FROM a\nRUN cd x && python - <<'PY'\nimport torch\nPY\nRUN bash -ex <<EOF\npip install torch==2.5.1\nEOF\n";
        let (masked, bodies) = prepare(t).unwrap();
        assert_eq!(masked.len(), t.len());
        assert_eq!(masked.lines().count(), t.lines().count());
        assert!(!masked.contains("import torch") && !masked.contains("<<"));
        assert_eq!(bodies.len(), 2);
        assert!(!bodies[0].shell && bodies[0].text == "import torch\n");
        assert!(bodies[1].shell);
        assert_eq!(&t[bodies[1].start..bodies[1].start + 8], "pip inst");
        assert!(parse_dockerfile::parse(&masked).is_ok());
    }

    #[test]
    fn several_heredocs_strip_tabs_and_quotes() {
        let t = "FROM a\nRUN <<A bash <<-\"B\"\necho a\nA\n\tpip install x\n\tB\nCOPY <<C /f\nhello\nC\n";
        let (masked, bodies) = prepare(t).unwrap();
        assert_eq!(bodies.len(), 2, "{bodies:?}");
        assert!(bodies[0].shell && bodies[1].shell);
        assert_eq!(bodies[1].text, "pip install x\n");
        assert!(masked.contains("RUN :"), "{masked}");
        assert!(parse_dockerfile::parse(&masked).is_ok(), "{masked}");
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
        ] {
            let t = t.replace("\\n", "\n");
            if let Some((m, _)) = prepare(&t) {
                assert_eq!(m.len(), t.len(), "{t:?}");
            }
        }
    }
}
