//! `pixi.toml` on its own: the install a `pixi install` does for torch, written as the
//! commands whose facts rocmcheck already knows, so a pixi project gets the findings a
//! Dockerfile running those commands gets.
//!
//! Pixi's manifest, as its reference documents it
//! (<https://pixi.sh/latest/reference/pixi_manifest/>, and the PyTorch guide
//! <https://pixi.sh/latest/python/pytorch/>):
//! - `[dependencies]` are conda packages from the workspace's `channels` (`[workspace]`, or the
//!   older `[project]`); a dependency's own `channel = "…"` comes first;
//! - `[pypi-dependencies]` are PyPI packages, installed after the conda ones through pixi's uv
//!   integration (uv's index semantics: the first index that has the package decides, unless
//!   `index-strategy` says otherwise); a package's own `index = "…"` is the only index it comes from;
//! - `[pypi-options]` holds `index-url` (replaces PyPI), `extra-index-urls`, `find-links` and
//!   `index-strategy`;
//! - `[feature.<name>.…]` tables add to (and override) these for the environments that list
//!   the feature; `[target.<platform>.…]` tables for one platform.
//!
//! What is read: the default environment — the top-level tables and their `linux-64`
//! targets — together with the features a ROCm environment is made of (a feature whose name says
//! `rocm`, `amd` or `hip`, or whose torch comes from a ROCm index), as AMD users run that one.
//! What is not: `pixi.lock` (the lock is not read: findings are about what the manifest asks
//! for), other platforms, `[tool.pixi]` inside `pyproject.toml`, git/path/url sources (not from an
//! index: nothing to judge).

use toml_edit::{Document, Item, Table, Value};

/// The commands of a `pixi install` of a manifest, as shell text, and the byte offset in the
/// manifest of the torch entry they install (the place findings point at).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// `conda install …` and/or `uv pip install …`, joined with ` && `; empty when the manifest
    /// installs no torch.
    pub command: String,
    /// Byte offset of the torch entry's key in the manifest.
    pub torch_at: Option<usize>,
}

/// A manifest that is not TOML: the byte offset and the parser's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Byte offset.
    pub at: usize,
    /// What went wrong.
    pub message: String,
}

/// Conda package names that are torch (conda-forge's meta-packages included).
const CONDA_TORCH: &[&str] = &["pytorch", "pytorch-cpu", "pytorch-gpu"];

/// Feature names that select a ROCm environment.
fn rocm_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("rocm") || n.contains("amd") || n.contains("hip")
}

/// What one layer of tables (top level, a feature, a target) says.
#[derive(Default)]
struct Layer<'a> {
    conda: Option<(&'a str, Spec)>,
    pypi: Option<(&'a str, Spec)>,
    index_url: Option<String>,
    extra: Vec<String>,
    strategy: Option<String>,
}

/// A dependency's spec: version text, its own channel or index, where it is written.
#[derive(Clone, Default)]
struct Spec {
    version: Option<String>,
    source: Option<String>,
    /// Not from an index (git, path, url): nothing to judge.
    elsewhere: bool,
    at: Option<usize>,
}

fn spec(item: &Item, source_key: &str) -> Spec {
    let at = None;
    match item {
        Item::Value(Value::String(s)) => Spec {
            version: Some(s.value().clone()),
            at,
            ..Spec::default()
        },
        Item::Value(Value::InlineTable(t)) => Spec {
            version: t.get("version").and_then(|v| v.as_str()).map(String::from),
            source: t.get(source_key).and_then(|v| v.as_str()).map(String::from),
            elsewhere: ["git", "path", "url"].iter().any(|k| t.contains_key(k)),
            at,
        },
        Item::Table(t) => Spec {
            version: t.get("version").and_then(|v| v.as_str()).map(String::from),
            source: t.get(source_key).and_then(|v| v.as_str()).map(String::from),
            elsewhere: ["git", "path", "url"].iter().any(|k| t.contains_key(k)),
            at,
        },
        _ => Spec {
            elsewhere: true,
            ..Spec::default()
        },
    }
}

fn strings(item: Option<&Item>) -> Vec<String> {
    match item.and_then(|i| i.as_array()) {
        Some(a) => a.iter().filter_map(|v| v.as_str().map(String::from)).collect(),
        None => Vec::new(),
    }
}

/// The layer of tables under `t` (the document root, a feature, a target).
fn layer<'a>(t: &'a Table) -> Layer<'a> {
    let mut l = Layer::default();
    if let Some(deps) = t.get("dependencies").and_then(|d| d.as_table_like()) {
        for (k, v) in deps.iter() {
            if CONDA_TORCH.contains(&k) {
                let mut s = spec(v, "channel");
                s.at = deps.key(k).and_then(|k| k.span()).map(|r| r.start);
                l.conda = Some((k, s));
            }
        }
    }
    if let Some(deps) = t.get("pypi-dependencies").and_then(|d| d.as_table_like()) {
        for (k, v) in deps.iter() {
            if k.eq_ignore_ascii_case("torch") {
                let mut s = spec(v, "index");
                s.at = deps.key(k).and_then(|k| k.span()).map(|r| r.start);
                l.pypi = Some((k, s));
            }
        }
    }
    if let Some(o) = t.get("pypi-options").and_then(|d| d.as_table_like()) {
        l.index_url = o.get("index-url").and_then(|v| v.as_str()).map(String::from);
        l.extra = strings(o.get("extra-index-urls"));
        l.strategy = o.get("index-strategy").and_then(|v| v.as_str()).map(String::from);
    }
    l
}

/// The layers of one table and its `linux-64` target, in the order they apply (later wins).
fn with_target<'a>(t: &'a Table, out: &mut Vec<Layer<'a>>) {
    out.push(layer(t));
    if let Some(tt) = t
        .get("target")
        .and_then(|x| x.as_table())
        .and_then(|x| x.get("linux-64"))
        .and_then(|x| x.as_table())
    {
        out.push(layer(tt));
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A conda or PyPI version spec as a requirement: `*` or nothing → the bare name; a bare
/// version (`2.5.1`) → `==2.5.1` (conda's exact match; pixi takes PEP 440 for PyPI, where a bare
/// version is invalid and pixi refuses it — read as the pin it means).
fn requirement(name: &str, version: Option<&str>, conda: bool) -> String {
    let v = version.map(str::trim).unwrap_or("*");
    if v.is_empty() || v == "*" {
        return name.to_string();
    }
    let starts_op = v.starts_with(['=', '<', '>', '!', '~']);
    if starts_op {
        // conda's `=2.5` is "2.5.*"; written as conda writes it
        format!("{name}{v}")
    } else if conda {
        format!("{name}={v}")
    } else {
        format!("{name}=={v}")
    }
}

/// Reads a `pixi.toml` (its text) → the install commands for torch; `rocm_index` tells a wheel
/// index that serves ROCm builds (the matrix's PyTorch and AMD indexes).
pub fn install(text: &str, rocm_index: &dyn Fn(&str) -> bool) -> Result<Install, Problem> {
    let doc = Document::parse(text).map_err(|e| Problem {
        at: e.span().map(|s| s.start).unwrap_or(0),
        message: e.message().to_string(),
    })?;
    let root = doc.as_table();
    let ws = root
        .get("workspace")
        .or_else(|| root.get("project"))
        .and_then(|w| w.as_table_like());
    let channels: Vec<String> = ws
        .and_then(|w| w.get("channels"))
        .and_then(|c| c.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s.value().clone()),
                    Value::InlineTable(t) => t.get("channel").and_then(|c| c.as_str()).map(String::from),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();

    let mut layers = Vec::new();
    with_target(root, &mut layers);
    if let Some(features) = root.get("feature").and_then(|f| f.as_table()) {
        for (name, f) in features.iter() {
            let Some(f) = f.as_table() else { continue };
            let mut fl = Vec::new();
            with_target(f, &mut fl);
            let from_rocm = fl.iter().any(|l| {
                l.pypi
                    .as_ref()
                    .and_then(|(_, s)| s.source.as_deref())
                    .is_some_and(rocm_index)
                    || l.index_url.as_deref().is_some_and(rocm_index)
                    || l.extra.iter().any(|u| rocm_index(u))
            });
            if rocm_name(name) || from_rocm {
                layers.extend(fl);
            }
        }
    }

    let (mut conda, mut pypi) = (None, None);
    let (mut index_url, mut extra, mut strategy) = (None, Vec::new(), None);
    for l in layers {
        conda = l.conda.or(conda);
        pypi = l.pypi.or(pypi);
        index_url = l.index_url.or(index_url);
        extra.extend(l.extra);
        strategy = l.strategy.or(strategy);
    }

    let mut cmds = Vec::new();
    let mut at = None;
    if let Some((name, s)) = &conda
        && !s.elsewhere
    {
        let mut c = String::from("conda install -y");
        // a dependency's own channel is searched first, then the workspace's
        for ch in s.source.iter().chain(channels.iter()) {
            c.push_str(&format!(" -c {}", quote(ch)));
        }
        c.push(' ');
        c.push_str(&quote(&requirement(name, s.version.as_deref(), true)));
        cmds.push(c);
        at = s.at;
    }
    if let Some((name, s)) = &pypi
        && !s.elsewhere
    {
        let mut c = String::from("uv pip install");
        match &s.source {
            // the package's own index is the only one it is taken from
            Some(ix) => c.push_str(&format!(" --index-url {}", quote(ix))),
            None => {
                if let Some(u) = &index_url {
                    c.push_str(&format!(" --index-url {}", quote(u)));
                }
                for e in &extra {
                    c.push_str(&format!(" --extra-index-url {}", quote(e)));
                }
                if let Some(st) = &strategy {
                    c.push_str(&format!(" --index-strategy {}", quote(st)));
                }
            }
        }
        c.push(' ');
        c.push_str(&quote(&requirement(name, s.version.as_deref(), false)));
        cmds.push(c);
        at = s.at.or(at);
    }
    Ok(Install {
        command: cmds.join(" && "),
        torch_at: at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn install(text: &str) -> Result<Install, Problem> {
        let m = crate::matrix::Matrix::embedded();
        super::install(text, &|u| crate::dockerfile::install::dependents::rocm_index(u, m))
    }

    // Modelled on the shapes pixi's PyTorch guide documents (a per-feature torch with its own
    // `index`, conda-forge's `pytorch-gpu`); written for these tests.
    #[test]
    fn feature_index_is_the_only_index() {
        let t = "[workspace]\nchannels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n\n[dependencies]\npython = \"3.12.*\"\n\n[feature.rocm.pypi-dependencies]\ntorch = { version = \">=2.5.1\", index = \"https://download.pytorch.org/whl/rocm6.2\" }\n\n[environments]\nrocm = [\"rocm\"]\n";
        let i = install(t).unwrap();
        assert_eq!(
            i.command,
            "uv pip install --index-url 'https://download.pytorch.org/whl/rocm6.2' 'torch>=2.5.1'"
        );
        let at = i.torch_at.unwrap();
        assert!(t[at..].starts_with("torch = {"), "{}", &t[at..]);
    }

    #[test]
    fn cuda_feature_is_not_the_rocm_environment() {
        let t = "[project]\nchannels = [\"conda-forge\"]\n[pypi-dependencies]\ntorch = \"==2.5.1\"\n[feature.cuda.pypi-dependencies]\ntorch = { version = \"*\", index = \"https://download.pytorch.org/whl/cu124\" }\n";
        assert_eq!(install(t).unwrap().command, "uv pip install 'torch==2.5.1'");
    }

    #[test]
    fn options_and_conda_torch() {
        let t = "[workspace]\nchannels = [\"conda-forge\", \"pytorch\"]\n[dependencies]\npytorch = \"2.5.*\"\n[pypi-dependencies]\ntorch = \"*\"\n[pypi-options]\nextra-index-urls = [\"https://download.pytorch.org/whl/rocm6.2\"]\nindex-strategy = \"unsafe-best-match\"\n";
        assert_eq!(
            install(t).unwrap().command,
            "conda install -y -c 'conda-forge' -c 'pytorch' 'pytorch=2.5.*' && uv pip install --extra-index-url 'https://download.pytorch.org/whl/rocm6.2' --index-strategy 'unsafe-best-match' 'torch'"
        );
    }

    #[test]
    fn no_torch_and_non_index_sources() {
        assert_eq!(install("[dependencies]\nnumpy = \"*\"\n").unwrap().command, "");
        let t = "[pypi-dependencies]\ntorch = { git = \"https://github.com/pytorch/pytorch\" }\n";
        assert_eq!(install(t).unwrap().command, "");
    }

    #[test]
    fn invalid_toml_is_located() {
        let p = install("[pypi-dependencies]\ntorch = \n").unwrap_err();
        assert!(p.at > 0, "{p:?}");
    }
}
