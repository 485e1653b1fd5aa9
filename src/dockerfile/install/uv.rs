//! uv projects: what `uv sync`, `uv run` and `uv pip install -r pyproject.toml` install as
//! torch, read from the project's `pyproject.toml` and `uv.lock` (both TOML, read with
//! `toml_edit`, which keeps the spans a finding points at).
//!
//! The configuration is uv's, as its PyTorch guide documents it
//! (<https://docs.astral.sh/uv/guides/integration/pytorch/>): indexes are `[[tool.uv.index]]`
//! tables (`name`, `url`, `explicit = true` for an index used only by the packages that name
//! it, `default = true` for the one that replaces PyPI); `[tool.uv.sources] torch = { index =
//! "…" }` (or a list of such tables with `marker` and `extra`) routes torch to one of them;
//! optional dependencies (`uv sync --extra rocm`) choose among per-accelerator pins. The lock
//! pins what is installed exactly: each `[[package]]` has its `version` (`2.10.0+rocm7.1`) and
//! `source = { registry = URL }`, and the project's own entry names, per extra, which torch
//! version it takes when several are locked (InvokeAI's `uv.lock` is the real-world shape).

use super::marker::holds;
use crate::facts::{IndexSite, Span, TorchSites};
use toml_edit::{Document, Item, Value};

/// A `[[tool.uv.index]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// `name`.
    pub name: Option<String>,
    /// `url`.
    pub url: String,
    /// `explicit = true`: only packages whose source names it come from it.
    pub explicit: bool,
    /// `default = true`: it replaces PyPI.
    pub default: bool,
    /// Where the URL is written, inside its quotes, when the literal is plain (no escapes):
    /// the place a fix changes it.
    pub url_at: Option<Span>,
}

/// Torch as a uv project (or its lock) installs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Torch {
    /// The requirement as written in `pyproject.toml` (`torch==2.5.1`), or the locked
    /// `torch==VERSION`.
    pub requirement: String,
    /// The exact version when pinned or locked.
    pub version: Option<String>,
    /// The indexes torch is resolved from, in the order uv searches them.
    pub index_urls: Vec<String>,
    /// Where the requirement (or the locked version) is written.
    pub at: Span,
    /// The extras of the requirement.
    pub extras: Vec<String>,
    /// Where a fix edits the pin and the index (`pyproject.toml` only; `path` unset).
    pub sites: Option<TorchSites>,
}

/// A TOML file that could not be read: a byte offset and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Byte offset in the file.
    pub at: usize,
    /// The parser's message.
    pub message: String,
}

fn parse(text: &str) -> Result<Document<&str>, Problem> {
    Document::parse(text).map_err(|e| Problem {
        at: e.span().map_or(0, |s| s.start),
        message: e.message().trim().to_string(),
    })
}

/// The parts of a `uv.lock` that [`lock`] reads, each at its byte offset, everything else
/// blanked (spaces; line ends kept): the `[[package]]` blocks of torch and of the project itself
/// (its `source` is `editable` or `virtual`); of those, an array's inline-table element line
/// (`{ name = "numpy" },`, `{ url = "…", hash = "…" },`) only where it names torch by `name`. A lock holds
/// thousands of packages and their wheel lists; the parser keeps a node per value, so parsing a
/// 16 MiB lock whole took gigabytes. Spans (a finding's place, a parse error's) stay those of
/// the file. A syntax error inside a blanked part is not reported (uv reports it).
fn lock_relevant(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut blank = |from: usize, to: usize| {
        let o = out.get_or_insert_with(|| b.to_vec());
        for x in &mut o[from..to] {
            if *x != b'\n' && *x != b'\r' {
                *x = b' ';
            }
        }
    };
    // the block being read: its start, whether a subtable header was seen, whether it is kept
    let mut block: Option<(usize, bool, bool)> = None;
    let mut pos = 0;
    while pos < b.len() {
        let end = memchr::memchr(b'\n', &b[pos..]).map_or(b.len(), |i| pos + i + 1);
        let line = text[pos..end].trim();
        if line == "[[package]]" {
            if let Some((start, _, false)) = block {
                blank(start, pos);
            }
            block = Some((pos, false, false));
        } else if let Some((_, sub, keep)) = &mut block {
            if line.starts_with('[') {
                *sub = true;
            } else if !*sub
                && let Some(v) = line.strip_prefix("name")
                && let Some(v) = v.trim_start().strip_prefix('=')
            {
                *keep |= req_name(v.trim().trim_matches(['"', '\''])) == "torch";
            } else if !*sub && line.starts_with("source") && (line.contains("editable") || line.contains("virtual")) {
                *keep = true;
            }
        }
        if line.starts_with('{')
            && (line.ends_with('}') || line.ends_with("},"))
            && !(line.contains("name") && line.to_ascii_lowercase().contains("torch"))
        {
            blank(pos, end);
        }
        pos = end;
    }
    if let Some((start, _, false)) = block {
        blank(start, b.len());
    }
    match out {
        // only ASCII spaces replaced whole lines: still UTF-8
        Some(o) => std::borrow::Cow::Owned(String::from_utf8(o).unwrap_or_else(|_| text.to_string())),
        None => std::borrow::Cow::Borrowed(text),
    }
}

fn span(r: Option<std::ops::Range<usize>>) -> Span {
    r.map_or(Span::new(0, 0), |r| Span::new(r.start, r.end))
}

/// The span inside the quotes of a one-line string literal whose text is its value (no escapes,
/// not multi-line): where an edit can replace the value without re-quoting it.
fn plain_inner(text: &str, v: &Value) -> Option<Span> {
    let s = v.as_str()?;
    let r = v.span()?;
    let raw = text.get(r.clone())?;
    let q = raw.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = raw.strip_prefix(q)?.strip_suffix(q)?;
    (inner == s && !inner.starts_with(q)).then(|| Span::new(r.start + 1, r.end - 1))
}

/// The `[[tool.uv.index]]` entries, in order.
fn indexes(text: &str, doc: &Document<&str>) -> Vec<Index> {
    let Some(aot) = doc
        .as_item()
        .get("tool")
        .and_then(|t| t.get("uv"))
        .and_then(|t| t.get("index"))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut push = |get: &dyn Fn(&str) -> Option<Value>| {
        if let Some(url) = get("url").and_then(|v| v.as_str().map(String::from)) {
            out.push(Index {
                name: get("name").and_then(|v| v.as_str().map(String::from)),
                url,
                explicit: get("explicit").and_then(|v| v.as_bool()).unwrap_or(false),
                default: get("default").and_then(|v| v.as_bool()).unwrap_or(false),
                url_at: get("url").and_then(|v| plain_inner(text, &v)),
            });
        }
    };
    if let Some(a) = aot.as_array_of_tables() {
        for t in a.iter() {
            push(&|k| t.get(k).and_then(|i| i.as_value().cloned()));
        }
    } else if let Some(a) = aot.as_array() {
        for v in a.iter() {
            if let Some(t) = v.as_inline_table() {
                push(&|k| t.get(k).cloned());
            }
        }
    }
    out
}

/// The requirement strings of a dependency list (`[project] dependencies`, an optional
/// dependency list, a dependency group), with their spans (inside the quotes when the literal
/// is plain, which is when it can be edited: the second span).
fn requirement_strings(text: &str, item: Option<&Item>) -> Vec<(String, Span, Option<Span>)> {
    let Some(a) = item.and_then(Item::as_array) else {
        return Vec::new();
    };
    a.iter()
        .filter_map(|v| {
            let s = v.as_str()?;
            let plain = plain_inner(text, v);
            Some((s.to_string(), plain.unwrap_or_else(|| span(v.span())), plain))
        })
        .collect()
}

/// The sites of a torch requirement string `req` written plainly at `inner` (the text there is
/// `req`): the pinned version after `==`, else the specifier (before any marker) that a pin
/// replaces. None for a direct reference (`torch @ URL`) or a range with a wildcard.
fn requirement_sites(req: &str, inner: Span) -> Option<TorchSites> {
    let name_end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .unwrap_or(req.len());
    let mut rest = name_end;
    let after_name = &req[rest..];
    if after_name.trim_start().starts_with('[') {
        rest += after_name.find(']')? + 1;
    }
    let marker = req.find(';').unwrap_or(req.len());
    let region = req.get(rest..marker)?;
    let lead = region.len() - region.trim_start().len();
    let spec = region.trim();
    if spec.contains(['@', '*']) {
        return None;
    }
    let at = |a: usize, b: usize| Span::new(inner.start + a, inner.start + b);
    let mut ts = TorchSites {
        pyproject: true,
        ..TorchSites::default()
    };
    let op = if spec.starts_with("===") {
        3
    } else if spec.starts_with("==") && !spec.contains(',') {
        2
    } else {
        0
    };
    if op > 0 {
        let v = spec[op..].trim_start();
        let start = rest + lead + (spec.len() - v.len());
        ts.version = Some(at(start, start + v.len()));
        ts.release_only = !v.contains('+');
    } else if spec.is_empty() {
        // a bare `torch`: the pin is inserted after the name (and extras)
        ts.specifier = Some(at(rest, rest));
        ts.release_only = true;
    } else {
        ts.specifier = Some(at(rest + lead, rest + lead + spec.len()));
        ts.release_only = true;
    }
    Some(ts)
}

/// The name of a PEP 508 requirement string, lower-cased.
fn req_name(r: &str) -> String {
    let end = r
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .unwrap_or(r.len());
    r[..end].to_ascii_lowercase().replace('_', "-")
}

fn split_marker(r: &str) -> (&str, Option<&str>) {
    match r.find(';') {
        Some(c) => (r[..c].trim(), Some(r[c + 1..].trim())),
        None => (r.trim(), None),
    }
}

/// Torch as `pyproject.toml` asks for it, for `uv sync` / `uv run` with these `extras`
/// (`--all-extras`: all of them) and the default `dev` group. None when the project does not
/// depend on torch directly.
pub fn project(text: &str, extras: &[String], all_extras: bool) -> Result<Option<Torch>, Problem> {
    let doc = parse(text)?;
    let root = doc.as_item();
    let mut cands: Vec<(String, Span, Option<Span>, Option<String>)> = Vec::new();
    if let Some(opt) = root
        .get("project")
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(Item::as_table_like)
    {
        for (name, item) in opt.iter() {
            if all_extras || extras.iter().any(|e| e == name) {
                for (r, s, plain) in requirement_strings(text, Some(item)) {
                    cands.push((r, s, plain, Some(name.to_string())));
                }
            }
        }
    }
    for item in [
        root.get("project").and_then(|p| p.get("dependencies")),
        root.get("dependency-groups").and_then(|g| g.get("dev")),
    ] {
        for (r, s, plain) in requirement_strings(text, item) {
            cands.push((r, s, plain, None));
        }
    }
    let applies = |r: &str| split_marker(r).1.is_none_or(|m| holds(m, extras, all_extras));
    let Some((req, at, plain, _)) = cands
        .iter()
        .find(|(r, ..)| req_name(r) == "torch" && applies(r))
        .cloned()
    else {
        return Ok(None);
    };
    let (spec, _) = split_marker(&req);
    let rest = spec[5.min(spec.len())..].trim_start();
    let (extras_of, rest) = match rest.strip_prefix('[') {
        Some(r) => match r.split_once(']') {
            Some((e, after)) => (
                e.split(',')
                    .map(|x| x.trim().to_ascii_lowercase())
                    .filter(|x| !x.is_empty())
                    .collect(),
                after.trim(),
            ),
            None => (Vec::new(), ""),
        },
        None => (Vec::new(), rest),
    };
    let version = rest
        .strip_prefix("===")
        .or_else(|| rest.strip_prefix("=="))
        .map(str::trim)
        .filter(|v| !v.is_empty() && !v.contains([',', '*']))
        .map(String::from);
    let idx = indexes(text, &doc);
    // `[tool.uv.sources] torch`: one table or a list; an entry with `extra` applies with that
    // extra only; one whose marker excludes the image does not apply
    let mut source: Option<String> = None;
    if let Some(s) = root
        .get("tool")
        .and_then(|t| t.get("uv"))
        .and_then(|t| t.get("sources"))
        .and_then(|t| t.get("torch"))
    {
        let mut entries: Vec<toml_edit::InlineTable> = Vec::new();
        if let Some(t) = s.as_inline_table() {
            entries.push(t.clone());
        } else if let Some(t) = s.as_table() {
            entries.push(t.clone().into_inline_table());
        } else if let Some(a) = s.as_array() {
            entries.extend(a.iter().filter_map(|v| v.as_inline_table().cloned()));
        }
        let applies = |t: &toml_edit::InlineTable, want_extra: bool| {
            let e = t.get("extra").and_then(|v| v.as_str());
            let m = t.get("marker").and_then(|v| v.as_str());
            let extra_ok = match e {
                Some(e) => want_extra && (all_extras || extras.iter().any(|x| x == e)),
                None => !want_extra,
            };
            extra_ok && m.is_none_or(|m| holds(m, extras, all_extras))
        };
        // entries for a requested extra first, then the others
        source = [true, false]
            .iter()
            .find_map(|&w| entries.iter().find(|t| applies(t, w)))
            .and_then(|t| t.get("index").and_then(|v| v.as_str()).map(String::from));
    }
    let by_source = source
        .as_deref()
        .and_then(|n| idx.iter().find(|i| i.name.as_deref() == Some(n)));
    let (index_urls, index_at) = match by_source {
        Some(i) => (vec![i.url.clone()], i.url_at),
        // no source: the indexes that are not explicit, in order (uv searches them before the
        // default; a `default = true` one replaces PyPI); a fix changes the one index only
        None => {
            let open: Vec<&Index> = idx.iter().filter(|i| !i.explicit).collect();
            let at = match open.as_slice() {
                [one] => one.url_at,
                _ => None,
            };
            (open.iter().map(|i| i.url.clone()).collect(), at)
        }
    };
    let sites = plain.and_then(|inner| requirement_sites(&req, inner)).map(|mut ts| {
        if let Some(u) = index_at {
            ts.index.push(IndexSite {
                flag: u,
                value: Some(u),
                extra: false,
                affix: None,
            });
        }
        // what else the project installs with torch (the requirements that apply here)
        for (r, _, plain, _) in cands.iter().filter(|(r, ..)| applies(r)) {
            match req_name(r).as_str() {
                "torch" | "triton" | "pytorch-triton-rocm" => {}
                "torchvision" | "torchaudio" => {
                    ts.companions_pinned |= r.contains("==");
                    // `torchaudio==2.6.0+rocm6.2.4`: the local version, to follow torch's
                    let local = plain
                        .and_then(|p| requirement_sites(r, p))
                        .and_then(|c| c.version)
                        .and_then(|v| {
                            let plus = text[v.start..v.end].find('+')?;
                            Some(Span::new(v.start + plus, v.end))
                        });
                    ts.companion_locals.extend(local);
                }
                _ => ts.other_packages = true,
            }
        }
        ts
    });
    Ok(Some(Torch {
        requirement: spec.to_string(),
        version,
        index_urls,
        at,
        extras: extras_of,
        sites,
    }))
}

/// Torch as `uv.lock` pins it for these extras: the version and registry of the `torch`
/// package the project's own entry takes (per extra when several torch builds are locked), or
/// the only torch in the lock. None when the lock has no torch, or several with nothing to
/// choose between them.
pub fn lock(text: &str, extras: &[String], all_extras: bool) -> Result<Option<Torch>, Problem> {
    let relevant = lock_relevant(text);
    let doc = parse(&relevant)?;
    let Some(packages) = doc.as_item().get("package").and_then(Item::as_array_of_tables) else {
        return Ok(None);
    };
    let torches: Vec<&toml_edit::Table> = packages
        .iter()
        .filter(|p| {
            p.get("name")
                .and_then(Item::as_str)
                .is_some_and(|n| req_name(n) == "torch")
        })
        .collect();
    if torches.is_empty() {
        return Ok(None);
    }
    // the project itself: its source is `editable = "."` or `virtual = "."`
    let root = packages.iter().find(|p| {
        p.get("source")
            .and_then(Item::as_table_like)
            .is_some_and(|s| s.contains_key("editable") || s.contains_key("virtual"))
    });
    // the torch versions the project takes: per requested extra first, then its dependencies
    let mut wanted: Vec<String> = Vec::new();
    if let Some(root) = root {
        let refs = |item: Option<&Item>| -> Vec<(Option<String>, Option<String>)> {
            item.and_then(Item::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_inline_table)
                        .filter(|t| {
                            t.get("name")
                                .and_then(Value::as_str)
                                .is_some_and(|n| req_name(n) == "torch")
                        })
                        .map(|t| {
                            (
                                t.get("version").and_then(Value::as_str).map(String::from),
                                t.get("marker").and_then(Value::as_str).map(String::from),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut lists: Vec<Option<&Item>> = Vec::new();
        if let Some(opt) = root.get("optional-dependencies").and_then(Item::as_table_like) {
            for (name, item) in opt.iter() {
                if all_extras || extras.iter().any(|e| e == name) {
                    lists.push(Some(item));
                }
            }
        }
        lists.push(root.get("dependencies"));
        for l in lists {
            for (v, m) in refs(l) {
                if let Some(v) = v
                    && m.as_deref().is_none_or(|m| holds(m, extras, all_extras))
                {
                    wanted.push(v);
                }
            }
        }
    }
    let chosen = wanted
        .iter()
        .find_map(|v| {
            torches
                .iter()
                .find(|p| p.get("version").and_then(Item::as_str) == Some(v.as_str()))
        })
        .or_else(|| (torches.len() == 1).then(|| &torches[0]));
    let Some(p) = chosen else { return Ok(None) };
    let Some(version) = p.get("version").and_then(Item::as_str) else {
        return Ok(None);
    };
    let at = span(p.get("version").and_then(Item::span));
    let at = if at.end >= at.start + 2 {
        Span::new(at.start + 1, at.end - 1)
    } else {
        at
    };
    let source = p.get("source").and_then(Item::as_table_like);
    let index_urls: Vec<String> = source
        .and_then(|s| s.get("registry").or_else(|| s.get("url")))
        .and_then(Item::as_str)
        .map(|u| vec![u.to_string()])
        .unwrap_or_default();
    Ok(Some(Torch {
        requirement: format!("torch=={version}"),
        version: Some(version.to_string()),
        index_urls,
        at,
        extras: Vec::new(),
        sites: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    // modelled on uv's PyTorch guide (docs.astral.sh/uv/guides/integration/pytorch, the ROCm
    // tab): an explicit index and a source with a marker
    const PYPROJECT: &str = r#"[project]
name = "demo"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
  "numpy>=2",
  "torch==2.5.1",
]

[tool.uv.sources]
torch = [
  { index = "pytorch-rocm", marker = "sys_platform == 'linux'" },
]

[[tool.uv.index]]
name = "pytorch-rocm"
url = "https://download.pytorch.org/whl/rocm6.2"
explicit = true
"#;

    #[test]
    fn pyproject_source_routes_torch_to_its_index() {
        let t = project(PYPROJECT, &[], false).unwrap().unwrap();
        assert_eq!(t.version.as_deref(), Some("2.5.1"));
        assert_eq!(t.index_urls, ["https://download.pytorch.org/whl/rocm6.2"]);
        assert_eq!(&PYPROJECT[t.at.start..t.at.end], "torch==2.5.1");
        // without the source, an explicit index is not searched for torch
        let no_source = PYPROJECT.replace(
            "[tool.uv.sources]\ntorch = [\n  { index = \"pytorch-rocm\", marker = \"sys_platform == 'linux'\" },\n]\n",
            "",
        );
        let t = project(&no_source, &[], false).unwrap().unwrap();
        assert!(t.index_urls.is_empty(), "{t:?}");
        // a source for macOS only does not apply in an image
        let mac = PYPROJECT.replace("sys_platform == 'linux'", "sys_platform == 'darwin'");
        assert!(project(&mac, &[], false).unwrap().unwrap().index_urls.is_empty());
    }

    // the shape of InvokeAI's pyproject.toml and uv.lock (invoke-ai/InvokeAI, main, 2026):
    // per-accelerator extras, sources per extra, several torch builds locked
    const EXTRAS: &str = r#"[project]
name = "app"
version = "1.0"
dependencies = ["torch>=2.7.0,<3.0; sys_platform != 'darwin'", "torch>=2.7.0,<2.8.0; sys_platform == 'darwin'"]
[project.optional-dependencies]
cuda = ["torch==2.7.1+cu128; sys_platform != 'linux' or platform_machine != 'aarch64'"]
rocm = ["torch==2.10.0+rocm7.1; sys_platform == 'linux' and platform_machine != 'aarch64'"]
[tool.uv.sources]
torch = [
  { index = "torch-cuda", extra = "cuda" },
  { index = "torch-rocm", extra = "rocm" },
  { index = "pypi", marker = "sys_platform == 'linux' and platform_machine == 'aarch64'" },
]
[[tool.uv.index]]
name = "pypi"
url = "https://pypi.org/simple"
[[tool.uv.index]]
name = "torch-cuda"
url = "https://download.pytorch.org/whl/cu128"
explicit = true
[[tool.uv.index]]
name = "torch-rocm"
url = "https://download.pytorch.org/whl/rocm7.1"
explicit = true
"#;

    #[test]
    fn extras_choose_the_pin_and_the_source() {
        let t = project(EXTRAS, &["rocm".into()], false).unwrap().unwrap();
        assert_eq!(t.version.as_deref(), Some("2.10.0+rocm7.1"));
        assert_eq!(t.index_urls, ["https://download.pytorch.org/whl/rocm7.1"]);
        let t = project(EXTRAS, &[], false).unwrap().unwrap();
        assert_eq!(t.version, None);
        assert_eq!(t.requirement, "torch>=2.7.0,<3.0");
    }

    const LOCK: &str = r#"version = 1
revision = 3
requires-python = ">=3.11"

[[package]]
name = "app"
version = "1.0"
source = { editable = "." }
dependencies = [
    { name = "torch", version = "2.7.1", source = { registry = "https://pypi.org/simple" }, marker = "sys_platform == 'darwin'" },
]

[package.optional-dependencies]
cuda = [
    { name = "torch", version = "2.7.1+cu128", source = { registry = "https://download.pytorch.org/whl/cu128" }, marker = "extra == 'extra-3-app-cuda'" },
]
rocm = [
    { name = "torch", version = "2.10.0+rocm7.1", source = { registry = "https://download.pytorch.org/whl/rocm7.1" }, marker = "(platform_machine == 'x86_64' and sys_platform == 'linux' and extra == 'extra-3-app-rocm') or (sys_platform == 'win32' and extra == 'extra-3-app-rocm')" },
]

[[package]]
name = "torch"
version = "2.7.1"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "torch"
version = "2.7.1+cu128"
source = { registry = "https://download.pytorch.org/whl/cu128" }

[[package]]
name = "torch"
version = "2.10.0+rocm7.1"
source = { registry = "https://download.pytorch.org/whl/rocm7.1" }
wheels = [
    { url = "https://download-r2.pytorch.org/whl/rocm7.1/torch-2.10.0%2Brocm7.1-cp312-cp312-manylinux_2_28_x86_64.whl", hash = "sha256:0000000000000000000000000000000000000000000000000000000000000000" },
]
"#;

    #[test]
    fn the_lock_pins_the_build_of_the_requested_extra() {
        let t = lock(LOCK, &["rocm".into()], false).unwrap().unwrap();
        assert_eq!(t.version.as_deref(), Some("2.10.0+rocm7.1"));
        assert_eq!(t.index_urls, ["https://download.pytorch.org/whl/rocm7.1"]);
        assert_eq!(&LOCK[t.at.start..t.at.end], "2.10.0+rocm7.1");
        let t = lock(LOCK, &["cuda".into()], false).unwrap().unwrap();
        assert_eq!(t.version.as_deref(), Some("2.7.1+cu128"));
        // no extra: the project's own torch is macOS-only, three builds are locked: no choice
        assert_eq!(lock(LOCK, &[], false).unwrap(), None);
    }

    #[test]
    fn only_the_parts_of_a_lock_that_are_read_are_parsed() {
        // the lock above with many other packages (dependency and wheel lists of inline tables)
        // before and after its torch entries
        let mut big = String::new();
        let other = |n: usize| {
            format!(
                "[[package]]\nname = \"pkg-{n}\"\nversion = \"1.{n}\"\nsource = {{ registry = \"https://pypi.org/simple\" }}\ndependencies = [\n    {{ name = \"numpy\" }},\n]\nwheels = [\n    {{ url = \"https://files.example/p{n}.whl\", hash = \"sha256:00\" }},\n]\n\n"
            )
        };
        let (head, tail) = LOCK.split_at(LOCK.find("[[package]]\nname = \"torch\"").unwrap());
        big.push_str(head);
        for n in 0..50 {
            big.push_str(&other(n));
        }
        big.push_str(tail);
        big.push('\n');
        big.push_str(&other(99));
        let kept = lock_relevant(&big);
        assert_eq!(kept.len(), big.len(), "offsets stay the file's");
        assert_eq!(kept.lines().count(), big.lines().count(), "lines stay the file's");
        assert!(!kept.contains("pkg-7") && !kept.contains("files.example"), "{kept}");
        assert!(kept.contains("2.10.0+rocm7.1") && kept.contains("editable = \".\""));
        let t = lock(&big, &["rocm".into()], false).unwrap().unwrap();
        assert_eq!(t.version.as_deref(), Some("2.10.0+rocm7.1"));
        assert_eq!(&big[t.at.start..t.at.end], "2.10.0+rocm7.1");
        // a syntax error in a part that is read is still a located problem
        let broken = big.replacen("version = \"2.10.0+rocm7.1\"", "version = 2.10.0+rocm7.1\"", 1);
        let p = lock(&broken, &["rocm".into()], false).unwrap_err();
        assert_eq!(
            broken[..p.at].lines().count(),
            big[..big.find("version = \"2.10.0+rocm7.1\"").unwrap()].lines().count()
        );
    }

    #[test]
    fn pyproject_sites_point_at_the_pin_and_the_index_url() {
        let t = project(PYPROJECT, &[], false).unwrap().unwrap();
        let s = t.sites.unwrap();
        assert!(s.pyproject && s.release_only && !s.companions_pinned && s.other_packages);
        assert_eq!(s.version.map(|v| &PYPROJECT[v.start..v.end]), Some("2.5.1"));
        let u = s.index[0].value.unwrap();
        assert_eq!(&PYPROJECT[u.start..u.end], "https://download.pytorch.org/whl/rocm6.2");
        // a marker, extras and spaces: the version ends before the marker
        let at = |text: &str| {
            let t = project(text, &["rocm".into()], false).unwrap().unwrap();
            let s = t.sites.expect("sites");
            let sp = s.version.or(s.specifier).unwrap();
            (
                text[sp.start..sp.end].to_string(),
                s.release_only,
                s.companion_locals.len(),
            )
        };
        let one = |dep: &str| format!("[project]\nname = \"x\"\ndependencies = [{dep}]\n");
        assert_eq!(
            at(&one("\"torch[opt] == 2.5.1+rocm6.2 ; sys_platform == 'linux'\""),),
            ("2.5.1+rocm6.2".into(), false, 0)
        );
        assert_eq!(at(&one("'torch>=2.4,<3'")), (">=2.4,<3".into(), true, 0));
        assert_eq!(at(&one("\"torch\"")), (String::new(), true, 0));
        assert_eq!(
            at(&one(
                "\"torch==2.6.0+rocm6.2.4\", \"torchaudio==2.6.0+rocm6.2.4\", \"torchvision>=0.21\""
            )),
            ("2.6.0+rocm6.2.4".into(), false, 1)
        );
        // an escape, a multi-line string, a direct reference: no site (the fix would re-quote)
        for dep in [
            "\"torch==2.5.1\\u002b\"",
            "\"\"\"torch==2.5.1\"\"\"",
            "\"torch @ https://download.pytorch.org/whl/rocm6.2/torch-2.5.1%2Brocm6.2-cp312-cp312-linux_x86_64.whl\"",
        ] {
            let t = project(&one(dep), &[], false).unwrap().unwrap();
            assert!(t.sites.is_none(), "{dep}: {:?}", t.sites);
        }
        // an optional dependency chosen with `--extra`, its source per extra (InvokeAI's shape)
        let t = project(EXTRAS, &["rocm".into()], false).unwrap().unwrap();
        let s = t.sites.unwrap();
        assert_eq!(s.version.map(|v| &EXTRAS[v.start..v.end]), Some("2.10.0+rocm7.1"));
        let u = s.index[0].value.unwrap();
        assert_eq!(&EXTRAS[u.start..u.end], "https://download.pytorch.org/whl/rocm7.1");
        // the default `dev` dependency group
        let dev = "[project]\nname = \"x\"\n[dependency-groups]\ndev = [\"torch==2.5.1\"]\n";
        let s = project(dev, &[], false).unwrap().unwrap().sites.unwrap();
        assert_eq!(s.version.map(|v| &dev[v.start..v.end]), Some("2.5.1"));
        // several open indexes: no index site (which one would the fix change?)
        let two = format!(
            "{}[[tool.uv.index]]\nurl = \"https://pypi.org/simple\"\n[[tool.uv.index]]\nurl = \"https://download.pytorch.org/whl/rocm6.2\"\n",
            one("\"torch==2.5.1\"")
        );
        let t = project(&two, &[], false).unwrap().unwrap();
        assert_eq!(t.index_urls.len(), 2);
        assert!(t.sites.unwrap().index.is_empty());
    }

    #[test]
    fn bad_toml_is_a_located_problem() {
        let e = project("[project]\ndependencies = [\"torch\"\n", &[], false).unwrap_err();
        assert!(e.at > 0, "{e:?}");
        assert!(!e.message.is_empty());
    }
}
