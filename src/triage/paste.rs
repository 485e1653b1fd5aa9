//! Pasted text → clean, numbered lines.
//!
//! People paste command output inside Markdown code fences, block quotes, behind shell prompts,
//! with terminal colour codes, CRLF line ends, `[turn … continued]` fragment markers and lines
//! cut short. This module only cleans and numbers lines (1-based, as in the pasted file); it
//! never interprets them. Readers see the original line number, so findings point at the paste.

/// One line of a paste, cleaned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// Line number in the input (1-based).
    pub no: u32,
    /// The text with fences, quote markers, colour codes and a trailing `\r` removed. A prompt
    /// line keeps its command here (`$ rocminfo` → `rocminfo`) and sets [`Line::command`].
    pub text: std::borrow::Cow<'a, str>,
    /// The line is a command typed at a shell or Python prompt (`$ `, `# `, `>>> `, `PS C:\> `).
    pub command: bool,
}

/// Substring search for the readers' short literal needles: the first byte by `memchr`, then a
/// compare. `str::contains(&str)` builds a two-way searcher on every call, which was a fifth of
/// a 200 KB paste's triage. Linear in the haystack for a needle of fixed length.
pub trait Has {
    /// Where `needle` first occurs.
    fn at(&self, needle: &str) -> Option<usize>;
    /// Whether `needle` occurs.
    #[inline]
    fn has(&self, needle: &str) -> bool {
        self.at(needle).is_some()
    }
    /// `split_once(needle)`, found by [`Has::at`].
    fn split_on(&self, needle: &str) -> Option<(&str, &str)>;
    /// Where `needle` last occurs (`rfind`): the last byte of the needle's first byte by
    /// `memrchr`, then a compare.
    fn rat(&self, needle: &str) -> Option<usize>;
}

/// Lines up to this many bytes are searched without `memchr`.
const SHORT: usize = 32;

impl Has for str {
    #[inline]
    fn split_on(&self, needle: &str) -> Option<(&str, &str)> {
        let p = self.at(needle)?;
        Some((&self[..p], &self[p + needle.len()..]))
    }

    #[inline]
    fn rat(&self, needle: &str) -> Option<usize> {
        let (h, n) = (self.as_bytes(), needle.as_bytes());
        let Some(&first) = n.first() else { return Some(h.len()) };
        let last = h.len().checked_sub(n.len())?;
        memchr::memrchr_iter(first, &h[..=last]).find(|&s| h[s..].starts_with(n))
    }

    #[inline]
    fn at(&self, needle: &str) -> Option<usize> {
        let (h, n) = (self.as_bytes(), needle.as_bytes());
        let Some(&first) = n.first() else { return Some(0) };
        // A line shorter than the needle cannot hold it: no `memchr` set-up. Every reader asks
        // every line for a few needles; on `rocm_agent_enumerator`'s 8-byte lines this is a
        // third of the instructions (callgrind, 200 KB worst input: 220 M -> 148 M).
        if h.len() < n.len() {
            return None;
        }
        // A short line is searched byte by byte: `memchr`'s vector set-up costs more than the
        // line (callgrind, 1 MB of 8-byte lines: ~70 instructions a call, a quarter of the run).
        if h.len() <= SHORT {
            return h.windows(n.len()).position(|w| w[0] == first && w == n);
        }
        let mut i = 0;
        while let Some(p) = memchr::memchr(first, &h[i..]) {
            let s = i + p;
            if h[s..].starts_with(n) {
                return Some(s);
            }
            i = s + 1;
        }
        None
    }
}

/// Every match of `ac` in the lines' texts, as (index into `lines`, pattern id), in line order.
/// The lines are joined with `\n` into chunks of about 64 KiB and each chunk is searched once:
/// one search per line cost a few hundred instructions of set-up on every line (callgrind, 1 MB
/// of 8-byte lines: a fifth of the run). A match that spans a line end is not reported, so a
/// needle holding `\n` never joins two lines. Memory: one chunk, whatever the paste's size.
pub fn matches_by_line(lines: &[Line], ac: &aho_corasick::AhoCorasick, mut f: impl FnMut(usize, usize)) {
    const CHUNK: usize = 64 * 1024;
    let mut buf = String::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        buf.clear();
        starts.clear();
        let first = i;
        while i < lines.len() && (buf.is_empty() || buf.len() + lines[i].text.len() < CHUNK) {
            starts.push(buf.len());
            buf.push_str(&lines[i].text);
            buf.push('\n');
            i += 1;
        }
        for m in ac.find_overlapping_iter(buf.as_str()) {
            let at = starts.partition_point(|&s| s <= m.start()) - 1;
            let end = starts.get(at + 1).map_or(buf.len(), |&s| s) - 1;
            if m.end() <= end {
                f(first + at, m.pattern().as_usize());
            }
        }
    }
}

/// `s.trim()`, fast for the usual case: ASCII whitespace is cut byte-wise, and when the ends
/// left are ASCII the result is what `str::trim` gives (every other whitespace is non-ASCII);
/// otherwise `str::trim` decides. Readers trim every line, and `str::trim` was an eighth of a
/// 200 KB paste's triage.
pub fn trim(s: &str) -> &str {
    let t = s.trim_ascii();
    match (t.as_bytes().first(), t.as_bytes().last()) {
        (Some(a), Some(b)) if a.is_ascii() && b.is_ascii() => t,
        (None, _) | (_, None) => t,
        _ => t.trim(),
    }
}

/// `trim_matches` for a set of ASCII characters, byte-wise: `trim_matches` with a char array
/// decodes and compares char by char (the key/value layer trims every key and value this way;
/// it was 6 % of a 1 MB llama.cpp log). An ASCII byte is never part of a multi-byte character,
/// so the cut is a char boundary and the result is `trim_matches`'s.
pub trait TrimSet {
    /// `self.trim_matches(set)`, `set` ASCII.
    fn trim_set(&self, set: &[u8]) -> &str;
    /// `self.trim()`, the ASCII white space cut byte-wise; where an end left is not ASCII (it may
    /// be Unicode white space), `str::trim` decides. Unlike [`trim`], it cuts U+000B too, as
    /// `str::trim` does. (`str::trim` decodes char by char: 4 % of a 1 MB llama.cpp log.)
    fn trim_ws(&self) -> &str;
    /// `self.trim_start()`, byte-wise as [`TrimSet::trim_ws`].
    fn trim_start_ws(&self) -> &str;
}

impl TrimSet for str {
    #[inline]
    fn trim_set(&self, set: &[u8]) -> &str {
        debug_assert!(set.is_ascii());
        let b = self.as_bytes();
        let start = b.iter().position(|c| !set.contains(c)).unwrap_or(b.len());
        let end = b[start..]
            .iter()
            .rposition(|c| !set.contains(c))
            .map_or(start, |e| start + e + 1);
        &self[start..end]
    }

    #[inline]
    fn trim_start_ws(&self) -> &str {
        let b = self.as_bytes();
        let start = b
            .iter()
            .position(|c| !matches!(c, b'\t'..=b'\r' | b' '))
            .unwrap_or(b.len());
        let t = &self[start..];
        // a first char left that is not ASCII may be white space
        if t.as_bytes().first().is_some_and(|c| !c.is_ascii()) {
            t.trim_start()
        } else {
            t
        }
    }

    #[inline]
    fn trim_ws(&self) -> &str {
        // U+0009..=U+000D and U+0020: the ASCII characters that `char::is_whitespace` holds
        let t = self.trim_set(b"\t\n\x0b\x0c\r ");
        match (t.as_bytes().first(), t.as_bytes().last()) {
            (Some(a), Some(z)) if !a.is_ascii() || !z.is_ascii() => t.trim(),
            _ => t,
        }
    }
}

/// The lines of a paste as written, line ends removed: `\n` and `\r\n` end a line; in a text
/// without any `\n`, a `\r` does (classic Mac line ends, a log saved from a terminal that
/// wrote carriage returns only), so line numbers are the ones an editor shows. A `\r` inside a
/// text that has `\n` line ends stays in its line (a progress bar redrawn in place).
pub fn raw_lines(text: &str) -> impl Iterator<Item = &str> {
    let cr_only = memchr::memchr(b'\n', text.as_bytes()).is_none();
    let sep = if cr_only { '\r' } else { '\n' };
    text.split(sep)
        .map(move |l| if cr_only { l } else { l.strip_suffix('\r').unwrap_or(l) })
}

/// A line-number prefix as an agent's file viewer or `cat -n` writes it (`12: text`, `    12→text`,
/// `    12\ttext`): the number and the prefix's length.
fn number_prefix(t: &str) -> Option<(u64, usize)> {
    let b = t.as_bytes();
    // a cheap first test: a digit or a blank first (most lines fail here)
    if !b.first().is_some_and(|c| c.is_ascii_digit() || *c == b' ') {
        return None;
    }
    let lead = b.iter().take(8).take_while(|c| **c == b' ').count();
    let digits = b[lead..].iter().take(7).take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 6 {
        return None;
    }
    let rest = &t[lead + digits..];
    let sep = if rest.starts_with(": ") {
        2
    } else if rest == ":" || rest.starts_with('\t') {
        1
    } else if rest.starts_with('\u{2192}') {
        '\u{2192}'.len_utf8()
    } else {
        return None;
    };
    let n: u64 = t[lead..lead + digits].parse().ok()?;
    Some((n, lead + digits + sep))
}

/// Cuts the line-number prefixes of an agent's view of a file pasted with its numbers, given the
/// prefixes seen (line number, number, prefix): the lines of runs numbered one after another, when
/// the paste has a run of at least three; then its runs of two (the lines kept after a cut `...`)
/// are cut too. A lone `1: …` or `ip`'s `2: enp3s0: …` records are no run.
fn cut_numbered_runs(out: &mut [Line<'_>], seen: &[(u32, u64, &str)]) {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < seen.len() {
        let mut j = i + 1;
        while j < seen.len() && seen[j].0 == seen[j - 1].0 + 1 && seen[j].1 == seen[j - 1].1 + 1 {
            j += 1;
        }
        if j - i >= 2 {
            runs.push((i, j));
        }
        i = j;
    }
    if !runs.iter().any(|(i, j)| j - i >= 3) {
        return;
    }
    for (i, j) in runs {
        for &(no, _, prefix) in &seen[i..j] {
            let from = out.partition_point(|l| l.no < no);
            for l in out[from..].iter_mut().take_while(|l| l.no == no) {
                if let Some(rest) = l.text.strip_prefix(prefix) {
                    l.text = rest.to_string().into();
                }
            }
        }
    }
}

/// A raw line without what wraps the text in it: block quotes, a terminal panel's frame,
/// `docker compose`'s service prefix, HTML code-block tags, a comment after a file's value, an
/// arrow that marks a comment as a command's output. None for a line that is only an HTML tag.
fn unwrap_line<'t>(raw: &'t str, services: &[&str]) -> Option<&'t str> {
    let mut t = raw;
    // Block quotes (`> `, possibly nested) from replies that quote a paste.
    // `>>> ` is a Python prompt, not a quote.
    while !t.starts_with(">>>") {
        let Some(rest) = t.strip_prefix('>') else { break };
        t = rest.strip_prefix(' ').unwrap_or(rest);
    }
    t = strip_frame(t);
    // `docker compose`'s service prefix (`comfyui-1  | [INFO] Device: …`): the service's line
    if !services.is_empty()
        && let Some((name, rest)) = compose_prefix(t)
        && services.contains(&name)
    {
        t = rest;
    }
    // an HTML code block's tags (`<pre>`, `<pre><code>`, `</code></pre>` of a forum post or a
    // README): the text without them
    if let Some(inner) = html_block_tags(t) {
        if inner.trim().is_empty() {
            return None;
        }
        t = inner;
    }
    // the reporter's comment after a value (`gfx_target_version 110500  # = gfx1150`,
    // `103079215104        # 96.00 GiB`): the value; a comment needs two blanks before it
    if let Some(v) = trailing_comment(t) {
        t = v;
    }
    // a command's output written as a comment under it, marked by an arrow (`# → gfx1101`,
    // `# -> ROCm0: …`, a guide's shell block): the output
    let lead = t.trim_start();
    if lead.as_bytes().first() == Some(&b'#')
        && let Some(out) = ["# → ", "# -> ", "#→ "].iter().find_map(|m| lead.strip_prefix(m))
    {
        t = out;
    }
    Some(t)
}

/// Splits and cleans a paste. Blank lines are kept (empty text) so that readers see block ends.
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::with_capacity(text.len() / 40 + 1);
    let mut last_json_command: Option<(u32, String)> = None;
    // line-number prefixes (an agent's view of a file), cut at the end where they make runs
    let mut numbered: Vec<(u32, u64, &str)> = Vec::new();
    let services = compose_services(text);
    for (i, raw) in raw_lines(text).enumerate() {
        let no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if let Some((n, len)) = number_prefix(raw) {
            numbered.push((no, n, &raw[..len]));
        }
        let Some(mut t) = unwrap_line(raw, &services) else {
            // a tag of an HTML code block alone: a fence
            out.push(Line {
                no,
                text: "".into(),
                command: false,
            });
            continue;
        };
        let trimmed = t.trim_start_ws();
        // A backtick fence's info string holds no backtick (CommonMark): "```text```" on one line
        // is a code span around the text, which is kept without its backticks.
        if let Some(inner) = trimmed.strip_prefix("```")
            && let Some(inner) = inner.trim_end().strip_suffix("```")
            && !inner.trim().is_empty()
            && !inner.contains('`')
        {
            t = inner.trim();
        } else if let Some(inner) = trimmed.strip_prefix('`')
            && let Some(inner) = inner.trim_end().strip_suffix('`')
            && inner.len() >= 20
            && !inner.contains('`')
            && !inner.starts_with(' ')
        {
            // a whole line that is one code span (`` `Linux host 6.12.74 #1 SMP … GNU/Linux` ``, a
            // command's output quoted inline): the output without its backticks
            t = inner;
        } else if let Some(info) = fence_text(trimmed) {
            // an opening fence with the first line of the output on it (```` ```> Building NixOS
            // configuration ````): the text, without the fence
            t = info;
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            out.push(Line {
                no,
                text: "".into(),
                command: false,
            });
            continue;
        }
        if is_turn_marker(trimmed) {
            out.push(Line {
                no,
                text: "".into(),
                command: false,
            });
            continue;
        }
        let text: std::borrow::Cow<str> = if t.contains('\u{1b}') {
            strip_ansi(t).into()
        } else {
            t.into()
        };
        // CJK full-width punctuation (`GPU：AMD Radeon AI PRO R9700（32GB）`) as ASCII, so that
        // every reader sees `Key: value (…)`; one byte search on most lines (U+FF00 forms start 0xEF)
        let text = match memchr::memchr(0xEF, text.as_bytes()) {
            Some(_) if text.contains(['：', '（', '）', '，', '；']) => std::borrow::Cow::Owned(
                text.replace('：', ": ")
                    .replace('（', " (")
                    .replace('）', ")")
                    .replace('，', ", ")
                    .replace('；', "; "),
            ),
            _ => text,
        };
        // HTML inline tags of a comment posted as rendered HTML (`… build <code>2b22ab01</code> …`)
        let text = if text.has("</") {
            strip_inline_tags(&text).map_or(text, std::borrow::Cow::Owned)
        } else {
            text
        };
        // a JSON report's member that holds the command a tool ran (`"command": "free -b",`): the
        // command, so that the output after it is read as that command's
        let json_command = {
            let t = text.trim_start();
            ["\"command\": \"", "\"cmd\": \""]
                .iter()
                .filter(|_| t.as_bytes().first() == Some(&b'"'))
                .find_map(|k| t.strip_prefix(k))
                .and_then(|r| r.trim_end().trim_end_matches(',').strip_suffix('"'))
                .filter(|c| !c.contains('"') || c.contains("\\\""))
                .map(unescape)
        };
        if let Some(c) = &json_command {
            last_json_command = Some((no, c.clone()));
        }
        let (text, command) = match json_command {
            Some(c) => (std::borrow::Cow::Owned(c), true),
            None => match prompt_command(&text) {
                Some(c) => (
                    std::borrow::Cow::Owned(c.trim_end_matches('`').trim_end().to_string()),
                    true,
                ),
                None => (text, false),
            },
        };
        // a message printed with its line breaks escaped (a Rust `{:?}` of an error, a JSON
        // string: `Torch("No CUDA GPUs are available\nException raised from …\nframe #0: …")`):
        // each escaped line is a line
        // (not a Windows path, whose `\node_modules` is no escape)
        // a JSON report's output member right after its command member, even of one line
        // (`"output": "7.2.1"` after `"command": "cat /opt/rocm/.info/version"`)
        let after_command = !command
            && last_json_command
                .as_ref()
                .is_some_and(|(at, _)| no.saturating_sub(*at) <= 8)
            && ["\"output\": \"", "\"stdout\": \"", "\"stderr\": \""]
                .iter()
                .any(|k| text.trim_start().starts_with(k))
            && json_string_member(&text).is_some();
        if after_command
            || (text.len() >= 80
                && memchr::memchr(b'\\', text.as_bytes()).is_some()
                && text.matches("\\n").nth(1).is_some()
                && !windows_path(&text))
        {
            // a JSON member's string (`"output": "PRETTY_NAME=\"Ubuntu …\"\nNAME=…",`): the
            // string alone, its escapes undone, so that each line reads as the command printed it
            let member = json_string_member(&text);
            // the member's command again just before its output (the report's other members,
            // `"exit_code": 0,`, stand between them)
            if member.is_some()
                && let Some((at, c)) = last_json_command.take()
                && no.saturating_sub(at) <= 8
            {
                out.push(Line {
                    no,
                    text: c.into(),
                    command: true,
                });
            }
            let body = member.unwrap_or(&text);
            for p in body.split("\\n").filter(|p| !p.trim().is_empty()) {
                out.push(Line {
                    no,
                    text: unescape(p).into(),
                    command: false,
                });
            }
            continue;
        }
        if let Some(parts) = unflatten(&text) {
            for p in parts {
                out.push(Line {
                    no,
                    text: p.to_string().into(),
                    command: false,
                });
            }
            continue;
        }
        out.push(Line { no, text, command });
    }
    cut_numbered_runs(&mut out, &numbered);
    blank_package_listings(&mut out);
    comment_outputs(&mut out);
    out
}

/// A command's output written as comments under it (`λ pip freeze | grep torch` then `#
/// torch==2.9.1+rocm7.11.0a20260109`, a reporter's shell session): the output, where the
/// comment lines follow a command typed at a prompt with no blank line between.
fn comment_outputs(out: &mut [Line<'_>]) {
    let mut after_command = false;
    for l in out.iter_mut() {
        if l.command {
            after_command = true;
            continue;
        }
        if !after_command {
            continue;
        }
        match l.text.strip_prefix("# ") {
            Some(rest) if !rest.trim().is_empty() => {
                l.text = std::borrow::Cow::Owned(rest.to_string());
            }
            _ => after_command = false,
        }
    }
}

/// A command that lists the files inside a package or archive file (`rpm -qlp x.rpm`, `dpkg -c
/// x.deb`, `tar -tvf x.tar.gz`, `unzip -l x.zip`), typed at a prompt or bare: what it prints is
/// what the file would install, not the machine's.
fn package_file_listing(t: &str) -> bool {
    // every line is asked: the command's first letter first
    // (what the trims and prefixes below leave starts at the first byte they may cut not, so
    // the command or `sudo` starts there)
    let Some(first) = t
        .bytes()
        .position(|b| !matches!(b, b' ' | b'\t' | b'*' | b'`' | b'$' | b'#'))
    else {
        return false;
    };
    if !["rpm", "dpkg", "tar", "unzip", "sudo"]
        .iter()
        .any(|w| t.as_bytes()[first..].starts_with(w.as_bytes()))
    {
        return false;
    }
    let t = t.trim().trim_set(b"*`").trim();
    let t = t
        .strip_prefix("$ ")
        .or_else(|| t.strip_prefix("# "))
        .unwrap_or(t)
        .trim_start();
    let t = t.strip_prefix("sudo ").unwrap_or(t);
    let mut w = t.split_whitespace();
    let (Some(cmd), Some(flags)) = (w.next(), w.next()) else {
        return false;
    };
    let short =
        |f: &str, all: &[char]| f.starts_with('-') && !f.starts_with("--") && all.iter().all(|c| f.contains(*c));
    match cmd {
        "rpm" => short(flags, &['q', 'l', 'p']),
        "dpkg" | "dpkg-deb" => flags == "-c" || flags == "--contents",
        "tar" => {
            let f = flags.trim_start_matches('-');
            !flags.starts_with("--") && f.contains('t') && !f.contains('x') && !f.contains('c')
        }
        "unzip" => flags == "-l",
        _ => false,
    }
}

/// A package's or archive's listing, blanked so that no reader takes the files it names
/// (`/opt/rocm/core-7.11/lib/…` in `rpm -qlp amdrocm-profiler7.11-….rpm`) for installed ones:
/// the output of a listing command ([`package_file_listing`]) up to a blank line, the next command
/// or a cut (`...`), and any member line of its own shape ([`archive_member`], a `dpkg -c` or
/// `tar -tv` row pasted without its command).
fn blank_package_listings(out: &mut [Line<'_>]) {
    let mut i = 0;
    while i < out.len() {
        if out[i].text.len() > 300 || !package_file_listing(&out[i].text) {
            if archive_member(&out[i].text) {
                out[i].text = "".into();
            }
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < out.len() {
            let t = out[j].text.trim();
            if t.is_empty() || out[j].command || t == "..." || t == "…" || package_file_listing(t) {
                break;
            }
            out[j].text = "".into();
            j += 1;
        }
        i = j;
    }
}

/// The string of a JSON object's member written on one line (`"output": "…",`), without its
/// quotes; None for any other line.
fn json_string_member(t: &str) -> Option<&str> {
    let t = t.trim();
    let rest = t.strip_prefix('"')?;
    let k = rest.find("\": \"")?;
    if rest[..k].contains(['"', ' ']) {
        return None;
    }
    let v = &rest[k + 4..];
    let v = v.strip_suffix(',').unwrap_or(v);
    v.strip_suffix('"')
}

/// JSON's (and Rust's debug print's) escapes undone in one line of an escaped string: `\"`,
/// `\t`, `\\`, `\/`; other escapes stay as written.
fn unescape(p: &str) -> String {
    if !p.contains('\\') {
        return p.to_string();
    }
    let mut out = String::with_capacity(p.len());
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('/') => out.push('/'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A Windows path with one backslash after its drive (`C:\Users\…`), where `\\n` starts a name.
fn windows_path(t: &str) -> bool {
    let b = t.as_bytes();
    memchr::memchr_iter(b':', b).any(|i| {
        i > 0
            && b[i - 1].is_ascii_alphabetic()
            && b.get(i + 1) == Some(&b'\\')
            && b.get(i + 2).is_some_and(u8::is_ascii_alphanumeric)
    })
}

/// rocminfo's lines run together on one line (an issue form's one-line field joins them:
/// `Name:  gfx1201   Marketing Name:  AMD Radeon RX 9070 XT   Name:  amdgcn-…`): the fields,
/// each on its own line again. Only a long line with three `Name:` fields and a `Marketing
/// Name:` one, cut where three blanks come before a field rocminfo prints.
fn unflatten(t: &str) -> Option<Vec<&str>> {
    if t.len() < 120 || !t.has("Marketing Name:") || t.matches("Name:").count() < 3 {
        return None;
    }
    const FIELDS: [&str; 6] = [
        "Marketing Name:",
        "Name:",
        "Uuid:",
        "Chip ID:",
        "Device Type:",
        "Compute Unit:",
    ];
    let mut cuts = vec![0];
    let b = t.as_bytes();
    for (i, _) in t.match_indices("   ") {
        let mut j = i;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        if j < b.len() && FIELDS.iter().any(|f| t[j..].starts_with(f)) && cuts.last() != Some(&j) {
            cuts.push(j);
        }
    }
    if cuts.len() < 3 {
        return None;
    }
    cuts.push(t.len());
    Some(
        cuts.windows(2)
            .map(|w| t[w[0]..w[1]].trim_end())
            .filter(|p| !p.is_empty())
            .collect(),
    )
}

/// A member line of a package's or an archive's listing (`dpkg -c`, `tar -tv`): a mode, an
/// `owner/group` pair, and a path relative to the archive (`-rw-r--r-- root/root 4960656
/// 2026-07-28 16:49 ./opt/rocm/core-7.15/lib/librocdxg.so.1.1.0`). The files are in a package,
/// not installed on the machine the paste comes from.
fn archive_member(t: &str) -> bool {
    let t = t.trim_start();
    let b = t.as_bytes();
    b.len() > 12
        && matches!(b[0], b'-' | b'd' | b'l')
        && b[1..10]
            .iter()
            .all(|c| matches!(c, b'r' | b'w' | b'x' | b'-' | b's' | b'S' | b't' | b'T'))
        && b[10] == b' '
        && {
            let mut w = t[11..].split_whitespace();
            w.next().is_some_and(|o| o.contains('/')) && w.next().is_some_and(|n| n.bytes().all(|c| c.is_ascii_digit()))
        }
        && t.has(" ./")
}

/// A terminal panel's frame (rich's and other TUI libraries' box drawing): `│ OS: linux   │` is
/// the line inside the frame, and a border line (`╭────╮`, `├──┤`) holds nothing.
fn strip_frame(t: &str) -> &str {
    const SIDES: [char; 3] = ['│', '┃', '║'];
    let s = t.trim_start();
    let Some(first) = s.chars().next() else { return t };
    // only box-drawing characters (U+2500–U+257F) and spaces: a border
    if ('\u{2500}'..='\u{257f}').contains(&first)
        && s.chars().all(|c| c == ' ' || ('\u{2500}'..='\u{257f}').contains(&c))
    {
        return "";
    }
    const BRANCHES: [char; 6] = ['├', '└', '┣', '┗', '┝', '┕'];
    let boxed = |c: char| ('\u{2500}'..='\u{257f}').contains(&c);
    if !(SIDES.contains(&first) || BRANCHES.contains(&first)) {
        return t;
    }
    // a frame's side, or a tree's branches (`├─AMD RYZEN AI MAX+ 395 w/ Radeon 8060S:`, `│ │
    // Summary: …` as fwupdmgr, lsblk and systemd draw them): the text after them
    let inner = s.trim_start_matches(|c: char| c == ' ' || boxed(c)).trim_end();
    let inner = if SIDES.contains(&first) {
        inner.strip_suffix(SIDES).unwrap_or(inner)
    } else {
        inner
    };
    inner.trim()
}

/// `[turn 3 continued]`, `[… continued]`: markers some tools put between fragments.
/// A `docker compose up` / `logs` line's service and the line after its prefix (`comfyui-1  |
/// [INFO] …` → `comfyui-1`, `[INFO] …`): a name of one word, blanks, `| `.
fn compose_prefix(t: &str) -> Option<(&str, &str)> {
    let lead = t.trim_start();
    let n = lead
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        .count();
    if n == 0 || n > 64 || lead.as_bytes()[..n].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let after = &lead[n..];
    let rest = after.trim_start_matches(' ');
    if rest.len() == after.len() {
        return None;
    }
    let rest = rest.strip_prefix("| ").or_else(|| (rest == "|").then_some(""))?;
    Some((&lead[..n], rest))
}

/// The services of `docker compose` output in a paste: names that prefix three lines or more (a
/// table row without its leading bar names one thing once).
fn compose_services(text: &str) -> Vec<&str> {
    let mut counts: Vec<(&str, u32)> = Vec::new();
    for l in raw_lines(text) {
        let head = &l.as_bytes()[..l.len().min(80)];
        if memchr::memchr(b'|', head).is_none() {
            continue;
        }
        if let Some((name, _)) = compose_prefix(l) {
            if let Some(k) = counts.iter().position(|(n, _)| *n == name) {
                counts[k].1 += 1;
            } else if counts.len() < 16 {
                counts.push((name, 1));
            }
        }
    }
    counts.into_iter().filter(|(_, c)| *c >= 3).map(|(n, _)| n).collect()
}

/// The line without a shell-style comment after a file's value (`value  # note`, `name value  #
/// note`: a number, alone or after one word, as sysfs and KFD's properties print them): two
/// blanks (or a tab) before `# `. A comment after anything else is kept: it can carry the meaning
/// (`HSA_OVERRIDE_GFX_VERSION=11.5.1  # Not set`). A `#` inside a word (`#1 SMP`) is none.
fn trailing_comment(t: &str) -> Option<&str> {
    let v = trailing_comment_at(t)?;
    let words: Vec<&str> = v.split_whitespace().collect();
    let number = |w: &str| {
        let h = w.strip_prefix("0x").unwrap_or(w);
        !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()) && w.bytes().any(|c| c.is_ascii_digit())
    };
    (matches!(words.len(), 1 | 2) && number(words[words.len() - 1])).then_some(v)
}

fn trailing_comment_at(t: &str) -> Option<&str> {
    let b = t.as_bytes();
    let mut from = 0;
    while let Some(p) = memchr::memchr(b'#', &b[from..]).map(|p| p + from) {
        from = p + 1;
        let blanks = b[..p].iter().rev().take_while(|&&c| c == b' ' || c == b'\t').count();
        let spaced = blanks >= 2 || (blanks >= 1 && b[p - 1] == b'\t');
        if spaced && b.get(p + 1) == Some(&b' ') && !t[..p].trim().is_empty() {
            return Some(t[..p].trim_end());
        }
    }
    None
}

/// The line without the HTML block tags at its start and end (`<pre>`, `<pre class="…">`,
/// `<code>`, `<p>`, `<li>`, `<h2 dir="ltr">`, `<div>` and their closing tags), where it has any:
/// a report written in HTML, or a comment posted as GitHub's rendered HTML.
fn html_block_tags(t: &str) -> Option<&str> {
    let lead = t.trim_start();
    let tail = t.trim_end();
    if !(lead.starts_with('<') || tail.ends_with('>')) {
        return None;
    }
    let mut s = t.trim();
    loop {
        let before = s.len();
        if let Some(rest) = s.strip_prefix('<')
            && let Some(e) = rest.find('>')
            && block_tag(&rest[..e])
        {
            s = &rest[e + 1..];
        }
        for tag in ["<br>", "<br/>", "<br />"] {
            s = s.strip_suffix(tag).unwrap_or(s);
        }
        if let Some(open) = s.strip_suffix('>')
            && let Some(b) = open.rfind("</")
            && block_tag(&open[b + 2..])
        {
            s = &s[..b];
        }
        if s.len() == before {
            break;
        }
    }
    (s.len() != t.trim().len()).then_some(s)
}

/// An HTML block element's tag with its attributes (`h2 dir="ltr"`, `pre class="x"`, `li`).
fn block_tag(tag: &str) -> bool {
    let name = tag.split(' ').next().unwrap_or("");
    const BLOCK: [&str; 16] = [
        "pre",
        "code",
        "li",
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "div",
        "blockquote",
        "td",
        "th",
        "tr",
        "dd",
    ];
    BLOCK.iter().any(|b| name.eq_ignore_ascii_case(b)) && (name.len() == tag.len() || !tag.contains('<'))
}

/// The text without HTML inline tags (`<code>2b22ab01</code>`, `<strong>`, `<em>`, `<a href=…>`)
/// where the line closes one: a comment posted as rendered HTML.
fn strip_inline_tags(t: &str) -> Option<String> {
    const INLINE: [&str; 8] = ["code", "strong", "em", "b", "i", "kbd", "span", "a"];
    let closes = |name: &str| INLINE.iter().any(|n| name.eq_ignore_ascii_case(n));
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    let mut changed = false;
    while let Some(p) = rest.find('<') {
        let after = &rest[p + 1..];
        let end = after.find('>');
        let tag = end.map(|e| &after[..e]);
        let name = tag.map(|g| g.trim_start_matches('/').split(' ').next().unwrap_or(""));
        match (end, name) {
            (Some(e), Some(n)) if closes(n) && !after[..e].contains('<') => {
                out.push_str(&rest[..p]);
                rest = &after[e + 1..];
                changed = true;
            }
            _ => {
                out.push_str(&rest[..=p]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// The text on an opening fence's line where it is no info string: a line of output or a prompt
/// typed right after the backticks (```` ```> Building NixOS configuration ````, ```` ```$ rocminfo
/// ````, ```` ```Traceback (most recent call last): ````). An info string is a language's name,
/// perhaps with attributes (```` ```python ````, ```` ```{.bash} ````, ```` ```console title="x" ````).
fn fence_text(t: &str) -> Option<&str> {
    let info = t.strip_prefix("```").or_else(|| t.strip_prefix("~~~"))?;
    let info = info.trim_start_matches(['`', '~']).trim_ws();
    let first = info.chars().next()?;
    if info.contains('`') {
        return None;
    }
    let not_a_name = !(first.is_alphanumeric() || matches!(first, '{' | '.' | '-' | '_' | '+'));
    let prose = info.split_whitespace().count() >= 3 && !info.contains('=');
    (not_a_name || prose).then_some(info)
}

fn is_turn_marker(t: &str) -> bool {
    t.starts_with('[') && t.trim_end().ends_with("continued]") && t.len() < 80
}

/// Removes ANSI CSI sequences (`ESC [ … letter`) and lone ESC characters.
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if it.peek() == Some(&'[') {
            it.next();
            for d in it.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        }
    }
    out
}

/// The command of a prompt line: `$ cmd`, `user@host:~$ cmd`, `(venv) $ cmd`, `# cmd` (root,
/// only when followed by a known command word), `>>> expr`, `PS C:\> cmd`.
fn prompt_command(t: &str) -> Option<&str> {
    // a prompt inside inline code (`` `# dmesg | grep -i GCVM_L2_PROTECTION_FAULT_STATUS |wc -l ``,
    // its closing backtick on the next line): the code span's marks are no part of the command
    let s = t.trim_start().trim_start_matches('`');
    if let Some(r) = s.strip_prefix(">>> ") {
        return Some(r.trim());
    }
    if let Some(r) = s.strip_prefix("$ ") {
        return Some(r.trim());
    }
    if let Some(r) = s.strip_prefix("# ") {
        let w = r.split_whitespace().next().unwrap_or("");
        const WORDS: &[&str] = &[
            "rocminfo",
            "rocm-smi",
            "amd-smi",
            "cat",
            "dmesg",
            "uname",
            "python",
            "python3",
            "pip",
            "pip3",
            "free",
            "journalctl",
            "rocm_agent_enumerator",
            "nvidia-smi",
            "export",
            "env",
            "ollama",
            "uv",
            "amd-ttm",
        ];
        return WORDS.contains(&w).then(|| r.trim());
    }
    // Themed prompts: `(.venv) git:(main) λ cmd`, `❯ cmd`. The marks are not ASCII: an ASCII
    // line (most) is not searched for them (three searches a line, 4 % of a paste of short lines).
    if !s.is_ascii() {
        for mark in ["λ ", "❯ ", "➜ "] {
            if let Some(p) = s.at(mark) {
                return Some(s[p + mark.len()..].trim());
            }
        }
    }
    // `[user@host ~]$ cmd`
    if s.starts_with('[')
        && let Some(p) = s.at("]$ ").or_else(|| s.at("]# "))
    {
        return Some(s[p + 3..].trim());
    }
    // `user@host:~/dir$ cmd`, `(venv) user@host:~$ cmd`, `root@box:/# cmd`.
    let head_end = s.at("$ ").or_else(|| s.at("# "))?;
    let head = &s[..head_end];
    if head.contains('@') && head.contains(':') && !head.contains(' ') || head.starts_with('(') && head.contains('@') {
        return Some(s[head_end + 2..].trim());
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn docker_compose_service_prefixes_are_cut() {
        // `docker compose up` output (a 2026 README's shape; values ours)
        let t = "   comfyui-1  | [INFO] Device: cuda:0 AMD Radeon RX 7600 : native\n   comfyui-1  | [INFO] AMD arch: gfx1102\n   comfyui-1  | [INFO] Starting server\n";
        let got: Vec<String> = lines(t).iter().map(|l| l.text.to_string()).collect();
        assert_eq!(got[1], "[INFO] AMD arch: gfx1102");
        // a table without leading bars, each first cell once: kept as written
        let t = "GPU   | gfx1100\nROCm  | 7.2.1\ntorch | 2.9.1\n";
        let got: Vec<String> = lines(t).iter().map(|l| l.text.to_string()).collect();
        assert_eq!(got[0], "GPU   | gfx1100");
    }

    #[test]
    fn a_comment_after_a_value_is_cut() {
        // a blog's shell block (msf.github.io, 2026; values ours)
        assert_eq!(
            trailing_comment("gfx_target_version 110300  # = gfx1103"),
            Some("gfx_target_version 110300")
        );
        assert_eq!(trailing_comment("17163091968\t# 16 GiB"), Some("17163091968"));
        for t in [
            "Linux host 6.8.0-45-generic #45-Ubuntu SMP",
            "frame #0: c10::Error::Error",
            "# Title",
            "    # only a comment",
            "see issue  #123",
            "a  #b",
            // a comment that carries the meaning is kept
            "HSA_OVERRIDE_GFX_VERSION=11.5.1  # Not set",
            "Device: gfx1100  # the dGPU",
        ] {
            assert_eq!(trailing_comment(t), None, "{t:?}");
        }
    }

    #[test]
    fn html_code_block_tags_are_fences() {
        // a guide's `<pre>` blocks (Waxford44/Strix-Halo-gfx1151-Forge-Guide's shape; our text)
        let t = "<pre>\npip install torch</pre>\n<pre class=\"sh\"><code>uname -r\n6.18.2-arch1-1</code></pre>\n<class 'torch.Tensor'>";
        let got: Vec<String> = lines(t).iter().map(|l| l.text.to_string()).collect();
        assert_eq!(
            got,
            [
                "",
                "pip install torch",
                "uname -r",
                "6.18.2-arch1-1",
                "<class 'torch.Tensor'>"
            ]
        );
        assert_eq!(html_block_tags("  Device 0: gfx1100"), None);
        assert_eq!(html_block_tags("<pre>"), Some(""));
        // a report written in HTML: its list items' and paragraphs' text (values ours)
        assert_eq!(html_block_tags("  <li>OS: Windows</li>"), Some("OS: Windows"));
        assert_eq!(
            html_block_tags("<p>GPU: AMD Radeon RX 7600<br>"),
            Some("GPU: AMD Radeon RX 7600")
        );
        assert_eq!(html_block_tags("<ul>"), None);
        // a comment posted as GitHub's rendered HTML (values ours)
        assert_eq!(
            html_block_tags("<h2 dir=\"ltr\">gfx1030 data point</h2>"),
            Some("gfx1030 data point")
        );
        assert_eq!(html_block_tags("<div dir=\"ltr\">"), Some(""));
        assert_eq!(html_block_tags("<section>"), None);
        assert_eq!(
            strip_inline_tags("same build <code>abc</code> is <strong>quiet</strong> <x>").as_deref(),
            Some("same build abc is quiet <x>")
        );
        assert_eq!(strip_inline_tags("a < b and c > d"), None);
        assert_eq!(strip_inline_tags("Vec<String> </br>"), None);
    }

    #[test]
    fn an_agent_s_numbered_file_view() {
        // an agent tool's view of a log, with its line numbers (values ours)
        let t = "<content>1: ggml_cuda_init: found 1 ROCm devices:\n2:   Device 0: AMD Radeon RX 7600, gfx1102 (0x1102)\n3: main: build\n4: \n";
        let ls = lines(t);
        assert_eq!(ls[1].text, "  Device 0: AMD Radeon RX 7600, gfx1102 (0x1102)");
        assert_eq!(ls[2].text, "main: build");
        assert_eq!(ls[3].text, "");
        // cat -n's tab and an arrow
        let ls = lines("     9\tone\n    10\ttwo\n    11\tthree\n");
        assert_eq!(ls[2].text, "three");
        let ls = lines("     1\u{2192}one\n     2\u{2192}two\n     3\u{2192}three\n");
        assert_eq!(ls[0].text, "one");
        // two numbered lines, or numbers that do not follow each other, are kept as written
        let ls = lines("1: lo: <LOOPBACK,UP>\n2: enp3s0: <BROADCAST>\nok\n");
        assert_eq!(ls[0].text, "1: lo: <LOOPBACK,UP>");
        let ls = lines("0: a\n2: b\n4: c\n");
        assert_eq!(ls[1].text, "2: b");
        // a view's pair of lines after a cut
        let ls = lines("1: a\n2: b\n3: c\n...\n40: d\n41: e\n");
        assert_eq!((ls[4].text.as_ref(), ls[5].text.as_ref()), ("d", "e"));
    }

    #[test]
    fn full_width_punctuation_and_escaped_line_breaks() {
        // a CJK hardware list (values ours)
        let l = lines("GPU 2：NVIDIA RTX 4070（12GB）\n");
        assert_eq!(l[0].text, "GPU 2: NVIDIA RTX 4070 (12GB)");
        // a Rust `{:?}` of an error with its line breaks escaped (values ours)
        let t = "Err(Torch(\"No HIP GPUs are available\\nException raised from x at /src/a.cpp:1 (most recent call first):\\nframe #0: f() + 0x1\"))\n";
        let l = lines(t);
        assert_eq!(l.iter().filter(|x| !x.text.is_empty()).count(), 3);
        assert!(l[0].text.ends_with("No HIP GPUs are available"));
        assert!(l.iter().filter(|x| !x.text.is_empty()).all(|x| x.no == 1));
        // a Windows path is not split at its `\\n…` folders
        let p = "loaded C:\\Users\\me\\node_modules\\x\\nvidia\\lib.dll from C:\\Program Files\\nothing\\here.dll\n";
        assert_eq!(lines(p).iter().filter(|x| !x.text.is_empty()).count(), 1);
    }

    #[test]
    fn an_output_written_as_an_arrow_comment_is_the_output() {
        // a guide's shell block (values ours)
        let l = lines("rocminfo | grep -i gfx\n# → gfx1100  (Navi 31)\n# plain comment\n");
        assert_eq!(l[1].text, "gfx1100  (Navi 31)");
        assert_eq!(l[2].text, "# plain comment");
    }

    #[test]
    fn a_json_member_s_escaped_output_is_its_lines() {
        // an environment report's JSON with a command's output in one string (values ours)
        let t = "      \"output\": \"PRETTY_NAME=\\\"Ubuntu 24.04.2 LTS\\\"\\nNAME=\\\"Ubuntu\\\"\\nGPU[0]\\t\\t: Card Series: \\t\\tAMD Radeon RX 7900 XTX\"\n";
        let l: Vec<String> = lines(t)
            .into_iter()
            .map(|l| l.text.into_owned())
            .filter(|x| !x.is_empty())
            .collect();
        assert_eq!(
            l,
            [
                "PRETTY_NAME=\"Ubuntu 24.04.2 LTS\"",
                "NAME=\"Ubuntu\"",
                "GPU[0]\t\t: Card Series: \t\tAMD Radeon RX 7900 XTX"
            ]
        );
        // one line of output after its command member
        let l = lines("\"command\": \"cat /opt/rocm/.info/version\",\n\"exit_code\": 0,\n\"output\": \"7.2.1\"\n");
        let t: Vec<(&str, bool)> = l[2..]
            .iter()
            .filter(|l| !l.text.is_empty())
            .map(|l| (l.text.as_ref(), l.command))
            .collect();
        assert_eq!(t, [("cat /opt/rocm/.info/version", true), ("7.2.1", false)]);
        // the member that names the command is the command, named again before its output
        let l = lines(
            "      \"command\": \"free -b\",\n      \"exit_code\": 0,\n      \"output\": \"total        used        free\\nMem:  68719476736  1  2\\nSwap:  0  0  0\"\n",
        );
        assert!(l[0].command);
        assert_eq!(l[0].text, "free -b");
        let t: Vec<(&str, bool)> = l[2..]
            .iter()
            .filter(|l| !l.text.is_empty())
            .map(|l| (l.text.as_ref(), l.command))
            .collect();
        assert_eq!(
            t,
            [
                ("free -b", true),
                ("total        used        free", false),
                ("Mem:  68719476736  1  2", false),
                ("Swap:  0  0  0", false)
            ]
        );
    }

    #[test]
    fn terminal_panel_frames_are_not_text() {
        // a border with a title keeps its title (text); a bare border is blank
        let l = lines(
            "╭──── Hardware ────╮\n│ OS: linux          │\n┃ GPU 0: RX 7900 XTX\n╰──────────────────╯\n├── gfx1100\n│ │     Summary:  AMD\n└─AMD RYZEN AI MAX+ 395 w/ Radeon 8060S:\n| a | b |\n",
        );
        let t: Vec<&str> = l.iter().map(|l| l.text.as_ref()).collect();
        assert_eq!(
            t,
            [
                "╭──── Hardware ────╮",
                "OS: linux",
                "GPU 0: RX 7900 XTX",
                "",
                // a tree's branches (fwupdmgr's, lsblk's) are not text either
                "gfx1100",
                "Summary:  AMD",
                "AMD RYZEN AI MAX+ 395 w/ Radeon 8060S:",
                "| a | b |",
                ""
            ]
        );
    }

    #[test]
    fn a_command_s_output_written_as_comments() {
        // cmder's `λ` prompt, pip freeze's rows as `# ` comments (a 2026 PR's shape; values ours)
        let l = super::lines(
            "λ pip freeze | grep torch\n# torch==2.9.1+rocm7.11.0a20260109\n# torchvision==0.24.0\n\n# a note\n",
        );
        assert_eq!(l[1].text, "torch==2.9.1+rocm7.11.0a20260109");
        assert_eq!(l[2].text, "torchvision==0.24.0");
        assert_eq!(l[4].text, "# a note", "after a blank line a comment is a comment");
        let l = super::lines("import torch\n# On Windows this may fail\n");
        assert_eq!(l[1].text, "# On Windows this may fail");
    }

    #[test]
    fn a_package_file_s_listing_is_blanked() {
        // `rpm -qlp` of a package file, bare or at a prompt, up to the cut (a 2026 issue's
        // shape; values ours); what follows the cut is read again
        let t = "rpm -qlp amdrocm-profiler7.11-7.11.0-2.x86_64.rpm | grep dw\n/opt/rocm/core-7.11/lib/libdw.so\n...\n$ cat /opt/rocm/.info/version\n7.2.1\n";
        let l = super::lines(t);
        assert_eq!(l[1].text, "");
        assert_eq!(l[4].text, "7.2.1");
        let l = super::lines("$ tar -tzf rocm.tar.gz\nopt/rocm-7.11/bin/hipcc\n\nROCm 7.2.1\n");
        assert_eq!(l[1].text, "");
        assert_eq!(l[3].text, "ROCm 7.2.1");
        // an installed package's files (`rpm -ql`, `dpkg -L`) are the machine's
        let l = super::lines("rpm -ql rocm-core\n/opt/rocm-7.2.1/.info/version\n");
        assert_eq!(l[1].text, "/opt/rocm-7.2.1/.info/version");
        assert!(!super::package_file_listing("dpkg -L rocm-core"));
        assert!(super::package_file_listing("**dpkg -c amdrocm-base_7.14.deb**"));
    }

    #[test]
    fn archive_listings_are_members_not_installed_files() {
        // values ours
        assert!(super::archive_member(
            "-rw-r--r-- root/root   4960656 2026-07-28 16:49 ./opt/rocm/core-7.15/lib/librocdxg.so.1.1.0"
        ));
        assert!(super::archive_member(
            "drwxr-xr-x root/root         0 2026-07-28 16:49 ./opt/rocm/"
        ));
        // `ls -l` of an installed tree: owner and group apart, an absolute path
        assert!(!super::archive_member(
            "-rw-r--r-- 1 root root 4960656 Jul 28 16:49 /opt/rocm/core-7.15/lib/librocdxg.so.1.1.0"
        ));
        assert!(!super::archive_member("drwxr-xr-x root/root see ./README"));
        // pasted without its command, a member line is blanked all the same; an installed
        // tree's `ls -l` stays
        let l = super::lines(
            "-rw-r--r-- root/root   4960656 2026-07-28 16:49 ./opt/rocm/core-7.15/lib/librocdxg.so.1.1.0\n-rw-r--r-- 1 root root 4960656 Jul 28 16:49 /opt/rocm/core-7.15/lib/librocdxg.so.1.1.0\n",
        );
        assert_eq!(l[0].text, "");
        assert!(l[1].text.starts_with("-rw-r--r-- 1 root root"));
    }

    #[test]
    fn has_finds_what_contains_finds() {
        use super::Has;
        let hs = [
            "",
            "a",
            "amdgpu: amdgpu 0000:03:00.0",
            "xxamdgpu",
            "amdgp",
            "ttm.pages_limit=1",
            "λ ❯ é",
            // both sides of the short-line path's bound (32 bytes)
            "xxxxxxxxxxxxxxxxxxxxxxxxxamdgpu0",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxamdgpu0",
            "[drm] amdgpu kernel modesetting enabled; ttm.pages_limit=1 é zz",
        ];
        let ns = [
            "a",
            "amdgpu",
            "gpu",
            "0000:",
            "ttm.",
            "pages_limit=1",
            "❯ ",
            "é",
            "zz",
            "amdgpu 0",
        ];
        for h in hs {
            for n in ns {
                assert_eq!(h.at(n), h.find(n), "{h:?} {n:?}");
            }
        }
        // long lines: haystacks and needles of a small alphabet (blanks, common and rare bytes),
        // matches at the ends, overlapping and repeated (a fixed pseudo-random sequence)
        let alphabet = b" aeA:Z(q";
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as usize
        };
        for _ in 0..4000 {
            let hl = 30 + next(70);
            let h: String = (0..hl).map(|_| alphabet[next(alphabet.len())] as char).collect();
            let nl = 1 + next(5);
            let n: String = if next(2) == 0 {
                let s = next(hl - nl);
                h[s..s + nl].to_string()
            } else {
                (0..nl).map(|_| alphabet[next(alphabet.len())] as char).collect()
            };
            assert_eq!(h.at(&n), h.find(n.as_str()), "{h:?} {n:?}");
        }
    }

    #[test]
    fn trim_is_str_trim() {
        for s in [
            "",
            " ",
            "  a b \t",
            "\u{a0}x\u{a0}",
            " \u{2003}gfx1100 ",
            "é ",
            "\u{3000}",
            "a\u{a0} ",
        ] {
            assert_eq!(super::trim(s), s.trim(), "{s:?}");
        }
    }

    use super::*;

    #[test]
    fn text_typed_on_an_opening_fence_is_kept() {
        // shapes of the 2026 held-out set ma (a nixos-rebuild log opened on the fence's line)
        let l = lines(
            "```> Building NixOS configuration\nerror:\n```\n```$ rocminfo\n```Traceback (most recent call last):\n",
        );
        assert_eq!(l[0].text, "> Building NixOS configuration");
        assert_eq!(l[2].text, "");
        assert_eq!(l[3].text, "rocminfo");
        assert_eq!(l[4].text, "Traceback (most recent call last):");
        // info strings stay fences
        for f in [
            "```python",
            "```{.bash}",
            "```console title=\"out.txt\"",
            "~~~~~~~~",
            "```text ",
            "``` bash",
        ] {
            assert_eq!(fence_text(f), None, "{f}");
        }
    }

    #[test]
    fn a_one_line_code_span_in_fence_backticks_keeps_its_text() {
        let l = lines("```pytorch version: 2.9.1+rocm7.2.1```\n```python\nx\n```\n");
        assert_eq!(l[0].text, "pytorch version: 2.9.1+rocm7.2.1");
        // a real fence (info string, or bare) is still a blank line
        assert_eq!(l[1].text, "");
        assert_eq!(l[2].text, "x");
        assert_eq!(l[3].text, "");
    }

    #[test]
    fn fences_quotes_prompts_and_colours_are_cleaned() {
        let p = "```\r\n$ rocminfo\n> quoted: yes\n\u{1b}[32mName:\u{1b}[0m gfx1100\n[turn 2 continued]\n>>> torch.__version__\nuser@box:~$ uname -r\n~~~";
        let l = lines(p);
        assert_eq!(l.len(), 8);
        assert_eq!(l[0].text, "");
        assert_eq!((l[1].text.as_ref(), l[1].command, l[1].no), ("rocminfo", true, 2));
        assert_eq!(l[2].text, "quoted: yes");
        assert_eq!(l[3].text, "Name: gfx1100");
        assert_eq!(l[4].text, "");
        assert_eq!((l[5].text.as_ref(), l[5].command), ("torch.__version__", true));
        assert_eq!((l[6].text.as_ref(), l[6].command), ("uname -r", true));
        assert_eq!(l[7].text, "");
    }

    #[test]
    fn a_root_prompt_needs_a_known_command() {
        assert_eq!(prompt_command("# rocm-smi --showhw"), Some("rocm-smi --showhw"));
        assert_eq!(prompt_command("# This is a heading"), None);
        // a prompt inside inline code (values ours)
        assert_eq!(
            prompt_command("`# dmesg | grep -i GCVM_L2_PROTECTION_FAULT_STATUS |wc -l"),
            Some("dmesg | grep -i GCVM_L2_PROTECTION_FAULT_STATUS |wc -l")
        );
        let l = lines("`$ uname -r`\n");
        assert_eq!((l[0].text.as_ref(), l[0].command), ("uname -r", true));
        assert_eq!(prompt_command("  Name:   gfx1100"), None);
        // themed prompts (non-ASCII marks)
        assert_eq!(prompt_command("(.venv) git:(main) λ rocminfo"), Some("rocminfo"));
        assert_eq!(prompt_command("❯ uname -r"), Some("uname -r"));
        assert_eq!(prompt_command("➜  ~ amd-smi"), Some("~ amd-smi"));
        assert_eq!(prompt_command("➜ amd-smi"), Some("amd-smi"));
    }

    #[test]
    fn matches_come_with_their_lines_and_never_span_two() {
        let ac = aho_corasick::AhoCorasick::new(["gfx", "a\nb", "c"]).unwrap();
        // more than one chunk of lines, a needle across a line end, lines of every length
        let mut text = String::new();
        for i in 0..20_000 {
            text.push_str(if i % 3 == 0 { "gfx1100 a" } else { "b c" });
            text.push('\n');
        }
        let ls = lines(&text);
        let mut got: Vec<(usize, usize)> = Vec::new();
        matches_by_line(&ls, &ac, |i, p| got.push((i, p)));
        let want: Vec<(usize, usize)> = (0..20_000).map(|i| if i % 3 == 0 { (i, 0) } else { (i, 2) }).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_short_line_is_searched_as_a_long_one() {
        for (h, n) in [
            ("gfx1100", "1100"),
            ("abcabd", "abd"),
            ("aaa", "aaaa"),
            ("", "x"),
            ("xyz", ""),
        ] {
            let long = format!("{}{h}", " ".repeat(40));
            assert_eq!(h.at(n), h.find(n), "{h:?} {n:?}");
            assert_eq!(long.at(n), long.find(n), "{h:?} {n:?}");
        }
    }

    #[test]
    fn rocminfo_fields_run_together_are_lines_again() {
        let t = "Name:                    AMD Ryzen 7 9800X3D 8-Core Processor   Marketing Name:          AMD Ryzen 7 9800X3D   Name:                    gfx1201                               Marketing Name:          AMD Radeon RX 9070 XT                     Name:                    amdgcn-amd-amdhsa--gfx1201\n";
        let ls = lines(t);
        // five fields on line 1, then the empty line after the last line end
        assert_eq!(ls.len(), 6, "{ls:?}");
        assert!(ls[..5].iter().all(|l| l.no == 1));
        assert_eq!(ls[2].text, "Name:                    gfx1201");
        // a long line with one such field stays whole
        let one = format!("Marketing Name: AMD Radeon RX 9070 XT   {}\n", "x ".repeat(80));
        assert_eq!(lines(&one).len(), 2);
    }
}
