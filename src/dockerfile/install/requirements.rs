//! pip requirements and constraints files (`pip install -r FILE`, `-c FILE`), as pip reads
//! them (<https://pip.pypa.io/en/stable/reference/requirements-file-format/>): one requirement
//! or option line per logical line, `\` + newline continues a line, `#` at the start of a line
//! or after whitespace starts a comment, options (`-r`, `-c`, `-i`/`--index-url`,
//! `--extra-index-url`, `-f`, `--no-index`, `--pre`) on their own lines, per-requirement
//! options after the requirement (`--hash=sha256:…`, as `pip-compile --generate-hashes`
//! writes them), environment markers after `;`.
//!
//! pip expands `${NAME}` (upper-case ASCII letters, digits and `_` only) from its environment
//! in each line after comments are taken off ([`expand_env`]); the entries keep the text as
//! written, and the reader expands them.
//!
//! Pure: text in, entries with byte spans out; the resolver reads the files and turns the
//! entries into install facts.

use crate::facts::Span;

/// One thing a requirements file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// `-i URL` / `--index-url URL` (`primary`) or `--extra-index-url URL`.
    Index {
        /// `--index-url` (replaces PyPI) rather than `--extra-index-url`.
        primary: bool,
        /// The URL as written.
        url: String,
        /// The flag itself.
        flag: Span,
        /// The URL.
        value: Span,
    },
    /// `-f URL` / `--find-links URL`.
    FindLinks(String),
    /// `--no-index`.
    NoIndex,
    /// `--pre`.
    Pre,
    /// `-r FILE` (`constraint` false) or `-c FILE`, relative to this file's directory.
    Nested {
        /// `-c` / `--constraint`.
        constraint: bool,
        /// The path as written.
        path: String,
        /// Where the path is written.
        at: Span,
    },
    /// A requirement (`torch==2.5.1+rocm6.2`, `torch @ https://…/torch-….whl`), without its
    /// marker and per-requirement options.
    Requirement {
        /// The requirement text.
        text: String,
        /// Where it is written.
        at: Span,
        /// The environment marker after `;`, if any.
        marker: Option<String>,
    },
}

/// The file's text with comments and line continuations replaced by spaces (same length, so
/// every offset stays the file's own).
fn blank(text: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    let mut i = 0;
    let mut line_start = true;
    let mut prev_ws = true;
    while i < b.len() {
        let c = b[i];
        if c == b'#' && (line_start || prev_ws) {
            // a comment runs to the end of the physical line (a `\` at its end continues nothing)
            while i < b.len() && b[i] != b'\n' {
                b[i] = b' ';
                i += 1;
            }
            continue;
        }
        if c == b'\\' {
            let n = if b.get(i + 1) == Some(&b'\n') {
                2
            } else if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') {
                3
            } else {
                0
            };
            if n > 0 {
                for x in &mut b[i..i + n] {
                    *x = b' ';
                }
                i += n;
                prev_ws = true;
                line_start = false;
                continue;
            }
        }
        line_start = c == b'\n';
        prev_ws = c.is_ascii_whitespace();
        i += 1;
    }
    // only ASCII bytes were replaced by ASCII spaces, at ASCII positions: still UTF-8
    String::from_utf8(b).unwrap_or_else(|_| text.to_string())
}

/// Whitespace-separated words of `s` with their offsets (a requirements line is split like
/// pip's `shlex.split`, quotes aside: quoted values are rare in these files).
fn words(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            if let Some(st) = start.take() {
                out.push((st, &s[st..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push((st, &s[st..]));
    }
    out
}

fn unquote(s: &str) -> &str {
    s.trim_matches(|c| c == '"' || c == '\'')
}

/// The entries of a requirements (or constraints) file, in order.
pub fn parse(text: &str) -> Vec<Entry> {
    let blanked = blank(text);
    let mut out = Vec::new();
    let mut line_at = 0;
    for line in blanked.split('\n') {
        let base = line_at;
        line_at += line.len() + 1;
        let ws = words(line);
        let Some(&(_, first)) = ws.first() else { continue };
        if !first.starts_with('-') {
            // a requirement: up to the first option word (`--hash=…`), marker after `;`
            let end = ws
                .iter()
                .skip(1)
                .find(|(_, w)| w.starts_with('-'))
                .map_or(line.trim_end().len(), |(o, _)| *o);
            let req = line[..end].trim_end();
            let start = ws[0].0;
            let req_text = &req[start..];
            // `name @ url ; marker` needs a space before `;` (the URL may hold one)
            let cut = if req_text.contains(" @ ") || req_text.contains('@') {
                req_text.find(" ;")
            } else {
                req_text.find(';')
            };
            let (spec, marker) = match cut {
                Some(c) => (
                    req_text[..c].trim_end(),
                    Some(req_text[c..].trim_start_matches([' ', ';']).trim().to_string()),
                ),
                None => (req_text, None),
            };
            out.push(Entry::Requirement {
                text: spec.to_string(),
                at: Span::new(base + start, base + start + spec.len()),
                marker,
            });
            continue;
        }
        let mut j = 0;
        while j < ws.len() {
            let (o, w) = ws[j];
            let (flag, inline) = match w.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some((o + f.len() + 1, v))),
                _ => match w {
                    // `-rfile`, `-ihttps://…`: a short flag glued to its value
                    _ if w.len() > 2
                        && matches!(w.get(..2), Some("-r" | "-c" | "-i" | "-f"))
                        && !w.starts_with("--") =>
                    {
                        (&w[..2], Some((o + 2, &w[2..])))
                    }
                    _ => (w, None),
                },
            };
            let value = |j: &mut usize| -> Option<(usize, &str)> {
                match inline {
                    Some(v) => Some(v),
                    None => {
                        *j += 1;
                        ws.get(*j).copied()
                    }
                }
            };
            let span = |(at, v): (usize, &str)| Span::new(base + at, base + at + v.len());
            match flag {
                "-i" | "--index-url" | "--extra-index-url" => {
                    if let Some(v) = value(&mut j) {
                        out.push(Entry::Index {
                            primary: flag != "--extra-index-url",
                            url: unquote(v.1).to_string(),
                            flag: Span::new(base + o, base + o + flag.len()),
                            value: span(v),
                        });
                    }
                }
                "-f" | "--find-links" => {
                    if let Some(v) = value(&mut j) {
                        out.push(Entry::FindLinks(unquote(v.1).to_string()));
                    }
                }
                "-r" | "--requirement" | "-c" | "--constraint" => {
                    if let Some(v) = value(&mut j) {
                        out.push(Entry::Nested {
                            constraint: matches!(flag, "-c" | "--constraint"),
                            path: unquote(v.1).to_string(),
                            at: span(v),
                        });
                    }
                }
                "--no-index" => out.push(Entry::NoIndex),
                "--pre" => out.push(Entry::Pre),
                // `-e path` / `--editable`: a local project, not a distribution from an index
                "-e" | "--editable" => break,
                // options with a value we do not need (`--trusted-host h`, `--hash …`)
                "--trusted-host" | "--hash" | "--config-settings" | "--global-option" | "--use-feature"
                | "--only-binary" | "--no-binary"
                    if inline.is_none() =>
                {
                    j += 1;
                }
                _ => {}
            }
            j += 1;
        }
    }
    out
}

/// A requirements line's text as pip reads it: each `${NAME}` whose NAME is upper-case ASCII
/// letters, digits and `_` is replaced by the value `env` gives it; one without a value (unset,
/// or set to the empty string) is left as written. `$NAME`, `${name}` and other forms are
/// never expanded. Returns the text and the names left as written, in order, each once.
///
/// pip `src/pip/_internal/req/req_file.py` at 6d309205789d368b2749d93fd6193d584811efd5:
/// `ENV_VAR_RE = re.compile(r"(?P<var>\$\{(?P<name>[A-Z0-9_]+)\})")`, and
/// `expand_env_variables` replaces each match by `os.getenv(name)` unless that is unset or
/// empty (`if not value: continue`); it runs after `join_lines` and `ignore_comments`.
/// Documented in "Requirements File Format → Using environment variables" (pip ≥ 10).
pub fn expand_env(line: &str, mut env: impl FnMut(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(line.len());
    let mut unknown: Vec<String> = Vec::new();
    let mut rest = line;
    while let Some(p) = rest.find("${") {
        out.push_str(&rest[..p]);
        let after = &rest[p + 2..];
        let name_len = after
            .bytes()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
            .count();
        if name_len > 0 && after.as_bytes().get(name_len) == Some(&b'}') {
            let name = &after[..name_len];
            match env(name).filter(|v| !v.is_empty()) {
                Some(v) => out.push_str(&v),
                None => {
                    out.push_str(&rest[p..p + 3 + name_len]);
                    if !unknown.iter().any(|u| u == name) {
                        unknown.push(name.to_string());
                    }
                }
            }
            rest = &after[name_len + 1..];
        } else {
            out.push_str("${");
            rest = after;
        }
    }
    out.push_str(rest);
    (out, unknown)
}

/// Whether an environment marker rules out the image (Linux on x86-64, no extras): a
/// requirement under such a marker is not installed there ([`super::marker::holds`]).
pub fn excludes_image(marker: &str) -> bool {
    !super::marker::holds(marker, &[], false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at<'a>(text: &'a str, s: &Span) -> &'a str {
        &text[s.start..s.end]
    }

    #[test]
    fn options_requirements_hashes_and_markers() {
        // the shape `pip-compile --generate-hashes` writes (pip-tools' README): a header
        // comment, an index line, `\` continuations with `--hash` options, `# via` comments
        let text = "#\n# pip-compile --generate-hashes\n#\n--index-url https://download.pytorch.org/whl/rocm6.2\n--extra-index-url=https://pypi.org/simple\n\nfilelock==3.16.1 \\\n    --hash=sha256:2082e5703d51fbf98ea75855d9d5527e33d8ff23099bec374a134febee6946b0\n    # via torch\ntorch==2.5.1+rocm6.2 \\\n    --hash=sha256:aaaa \\\n    --hash=sha256:bbbb\n    # via -r requirements.in\ntorch==2.5.1 ; sys_platform == \"darwin\"\n-r base.txt\n-cconstraints.txt\n--pre\n-e ./local\n";
        let e = parse(text);
        let reqs: Vec<(&str, Option<&str>)> = e
            .iter()
            .filter_map(|x| match x {
                Entry::Requirement { text, marker, .. } => Some((text.as_str(), marker.as_deref())),
                _ => None,
            })
            .collect();
        assert_eq!(
            reqs,
            [
                ("filelock==3.16.1", None),
                ("torch==2.5.1+rocm6.2", None),
                ("torch==2.5.1", Some("sys_platform == \"darwin\""))
            ]
        );
        let Entry::Index {
            primary,
            url,
            flag,
            value,
        } = &e[0]
        else {
            panic!("{e:?}")
        };
        assert!(*primary);
        assert_eq!(url, "https://download.pytorch.org/whl/rocm6.2");
        assert_eq!(at(text, flag), "--index-url");
        assert_eq!(at(text, value), "https://download.pytorch.org/whl/rocm6.2");
        let Entry::Index { primary, value, .. } = &e[1] else {
            panic!("{e:?}")
        };
        assert!(!*primary);
        assert_eq!(at(text, value), "https://pypi.org/simple");
        // spans are the file's own bytes
        let torch = e
            .iter()
            .find_map(|x| match x {
                Entry::Requirement { text: t, at: a, .. } if t.starts_with("torch==2.5.1+") => Some(*a),
                _ => None,
            })
            .unwrap();
        assert_eq!(at(text, &torch), "torch==2.5.1+rocm6.2");
        let nested: Vec<(bool, &str)> = e
            .iter()
            .filter_map(|x| match x {
                Entry::Nested { constraint, path, .. } => Some((*constraint, path.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(nested, [(false, "base.txt"), (true, "constraints.txt")]);
        assert!(e.contains(&Entry::Pre));
        // `-e` is a local project: nothing from it
        assert!(
            !e.iter()
                .any(|x| matches!(x, Entry::Requirement { text, .. } if text.contains("local")))
        );
    }

    #[test]
    fn a_word_that_starts_with_a_wide_character_is_no_short_flag() {
        // a fuzzer's mutant: `—` is three bytes, so a two-byte prefix is no character boundary
        let e = parse("--pre —rx\ntorch==2.9.1\n");
        assert!(
            e.iter()
                .any(|x| matches!(x, Entry::Requirement { text, .. } if text.starts_with("torch"))),
            "{e:?}"
        );
    }

    #[test]
    fn comments_and_urls() {
        let text = "torch @ https://download.pytorch.org/whl/rocm6.2/torch-2.5.1%2Brocm6.2-cp311-cp311-linux_x86_64.whl ; python_version == \"3.11\"\nnumpy # not#a comment\n# torch==1.0\n";
        let e = parse(text);
        assert_eq!(e.len(), 2, "{e:?}");
        let Entry::Requirement { text: t, marker, .. } = &e[0] else {
            panic!()
        };
        assert!(t.ends_with(".whl"), "{t}");
        assert_eq!(marker.as_deref(), Some("python_version == \"3.11\""));
        let Entry::Requirement { text: t, .. } = &e[1] else {
            panic!()
        };
        assert_eq!(t, "numpy");
    }

    #[test]
    fn environment_variables_as_pip_expands_them() {
        let env = |k: &str| match k {
            "TORCH_VERSION" => Some("2.5.1".to_string()),
            "ROCM_2" => Some("rocm6.2".to_string()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        assert_eq!(
            expand_env("torch==${TORCH_VERSION}+${ROCM_2}", env),
            ("torch==2.5.1+rocm6.2".to_string(), vec![])
        );
        // unset or empty: left as written, and named
        assert_eq!(
            expand_env("torch==${NOPE}${EMPTY}${NOPE}", env),
            (
                "torch==${NOPE}${EMPTY}${NOPE}".to_string(),
                vec!["NOPE".to_string(), "EMPTY".to_string()]
            )
        );
        // only `${UPPER_CASE}`: not `$NAME`, not lower case, not defaults
        for s in [
            "torch==$TORCH_VERSION",
            "torch==${torch_version}",
            "torch==${Torch_Version}",
            "torch==${TORCH_VERSION:-2.4.0}",
            "x==${}",
            "x==${",
            "x==$",
        ] {
            assert_eq!(expand_env(s, env), (s.to_string(), vec![]), "{s}");
        }
        // a value is not expanded again
        let nested = |k: &str| (k == "A").then(|| "${TORCH_VERSION}".to_string());
        assert_eq!(expand_env("x==${A}", nested).0, "x==${TORCH_VERSION}");
    }

    #[test]
    fn markers_that_exclude_the_image() {
        assert!(excludes_image("sys_platform == \"darwin\""));
        assert!(excludes_image(
            "platform_system == 'Windows' and python_version >= '3.10'"
        ));
        assert!(excludes_image("sys_platform != 'linux'"));
        assert!(excludes_image(
            "sys_platform == 'linux' and platform_machine == 'aarch64'"
        ));
        assert!(!excludes_image("sys_platform == 'linux'"));
        assert!(!excludes_image("sys_platform == 'darwin' or sys_platform == 'linux'"));
        assert!(!excludes_image("python_version >= '3.10'"));
        assert!(!excludes_image("platform_machine == 'x86_64'"));
        assert!(!excludes_image("sys_platform != 'darwin'"));
    }
}
