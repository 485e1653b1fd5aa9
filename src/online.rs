//! `--online` (opt-in): confirm a torch/ROCm wheel against the live wheel index.
//!
//! One simple-index page per ROCm variant (`<index>/rocm7.2/torch/`), asked for as PEP 691 JSON
//! (`application/vnd.pypi.simple.v1+json`) with PEP 503 HTML accepted as the fallback, through an
//! on-disk HTTP cache (`<cache dir>/http/`: a fresh entry by `Cache-Control: max-age` is used
//! without a request, a stale one is revalidated with `If-None-Match`) and one timeout. What it
//! finds is notice lines only: findings never change because of the network, and an index that
//! cannot be read is one line.

use crate::facts::Origin;
use crate::matrix::Matrix;
use crate::report::Notice;
use crate::version::Version;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How `--online` reads the index.
#[derive(Debug, Clone)]
pub struct Options {
    /// The index root (`https://download.pytorch.org/whl`).
    pub index: String,
    /// Timeout of the whole request.
    pub timeout: Duration,
    /// The HTTP cache directory (none: no caching).
    pub cache: Option<PathBuf>,
}

/// The torch versions an index page lists for one ROCm variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The page read.
    pub url: String,
    /// Torch versions (public part) with a wheel for this ROCm variant.
    pub torch: BTreeSet<Version>,
    /// From the cache without a request, revalidated (304) or fetched.
    pub how: &'static str,
}

#[derive(Serialize, Deserialize)]
struct Meta {
    url: String,
    etag: Option<String>,
    json: bool,
    fetched: u64,
    max_age: u64,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn key(url: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in url.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Reads the page of `rocm` (`7.2`) from the index.
pub fn listing(opts: &Options, rocm: &Version) -> Result<Listing, String> {
    let url = format!("{}/rocm{rocm}/torch/", opts.index.trim_end_matches('/'));
    let (names, how) = page_files(opts, &url)?;
    let want = rocm.to_string();
    let torch = names
        .iter()
        .filter_map(|n| crate::sync::parse_wheel(n))
        .filter(|w| w.rocm == want)
        .filter_map(|w| Version::parse(&w.torch).ok())
        .collect();
    Ok(Listing { url, torch, how })
}

/// The file names one simple-index project page lists: PEP 691 JSON (`files[].filename`) when
/// the server answers with it, else the PEP 503 HTML anchors; and how the page was had.
pub fn page_files(opts: &Options, url: &str) -> Result<(Vec<String>, &'static str), String> {
    let (body, json, how) = match get_cached(opts, url) {
        // PEP 503: a project the index does not have is a 404; it lists nothing.
        Err(e) if e == "HTTP 404 Not Found" => return Ok((Vec::new(), "fetched")),
        r => r?,
    };
    let names: Vec<String> = if json {
        #[derive(Deserialize)]
        struct File {
            filename: String,
        }
        #[derive(Deserialize)]
        struct Page {
            files: Vec<File>,
        }
        let p: Page = serde_json::from_slice(&body).map_err(|e| format!("{url}: not a PEP 691 JSON page: {e}"))?;
        p.files.into_iter().map(|f| f.filename).collect()
    } else {
        let html = String::from_utf8_lossy(&body);
        crate::sync::index_page_files(&html).map_err(|e| format!("{url}: {e}"))?
    };
    Ok((names, how))
}

fn get_cached(opts: &Options, url: &str) -> Result<(Vec<u8>, bool, &'static str), String> {
    let paths = opts.cache.as_ref().map(|d| {
        let k = key(url);
        (d.join(format!("{k}.meta")), d.join(format!("{k}.body")))
    });
    let cached: Option<(Meta, Vec<u8>)> = paths.as_ref().and_then(|(m, b)| {
        // a cache entry that is not a regular file of sane size is a miss, never opened
        let meta: Meta = serde_json::from_slice(&crate::input::read_regular(m, 64 << 10).ok()?).ok()?;
        (meta.url == url).then_some(())?;
        Some((meta, crate::input::read_regular(b, 64 << 20).ok()?))
    });
    if let Some((meta, body)) = &cached {
        if now().saturating_sub(meta.fetched) < meta.max_age {
            return Ok((body.clone(), meta.json, "cached"));
        }
    }
    let etag = cached.as_ref().and_then(|(m, _)| m.etag.clone());
    let rt = crate::http::runtime().map_err(|e| format!("cannot start the runtime: {e}"))?;
    let resp = rt.block_on(async {
        let client = crate::http::client(&crate::http::ClientOptions {
            purpose: "--online",
            timeout: opts.timeout,
            connect_timeout: Some(opts.timeout),
            redirects: None,
        })?;
        let mut req = client.get(url).header(
            reqwest::header::ACCEPT,
            "application/vnd.pypi.simple.v1+json, text/html;q=0.1",
        );
        if let Some(e) = &etag {
            req = req.header(reqwest::header::IF_NONE_MATCH, e);
        }
        let r = req.send().await.map_err(|e| {
            if e.is_timeout() {
                format!("timed out after {} s", opts.timeout.as_secs_f32())
            } else {
                format!("request failed: {}", crate::data::chain(&e))
            }
        })?;
        let status = r.status();
        let header =
            |n: reqwest::header::HeaderName| r.headers().get(n).and_then(|v| v.to_str().ok()).map(str::to_string);
        let etag = header(reqwest::header::ETAG);
        let json =
            header(reqwest::header::CONTENT_TYPE).is_some_and(|c| c.contains("application/vnd.pypi.simple.v1+json"));
        let max_age = header(reqwest::header::CACHE_CONTROL)
            .and_then(|c| {
                c.split(',')
                    .find_map(|d| d.trim().strip_prefix("max-age=").and_then(|v| v.parse::<u64>().ok()))
            })
            .unwrap_or(0);
        let body = r.bytes().await.map_err(|e| {
            if e.is_timeout() {
                format!("timed out after {} s", opts.timeout.as_secs_f32())
            } else {
                format!("reading the body: {}", crate::data::chain(&e))
            }
        })?;
        Ok::<_, String>((status, etag, json, max_age, body.to_vec()))
    })?;
    let (status, new_etag, json, max_age, body) = resp;
    let store = |meta: &Meta, body: &[u8]| {
        if let Some((m, b)) = &paths {
            if let Some(d) = m.parent() {
                let _ = std::fs::create_dir_all(d);
            }
            let _ = std::fs::write(b, body);
            let _ = std::fs::write(m, serde_json::to_vec(meta).unwrap_or_default());
        }
    };
    if status == reqwest::StatusCode::NOT_MODIFIED {
        if let Some((mut meta, body)) = cached {
            meta.fetched = now();
            meta.max_age = max_age;
            store(&meta, &body);
            return Ok((body, meta.json, "revalidated"));
        }
    }
    if !status.is_success() {
        return Err(format!("HTTP {status}"));
    }
    store(
        &Meta {
            url: url.to_string(),
            etag: new_etag,
            json,
            fetched: now(),
            max_age,
        },
        &body,
    );
    Ok((body, json, "fetched"))
}

/// The torch versions the matrix knows for a ROCm variant.
fn known(m: &Matrix, rocm: &Version) -> BTreeSet<Version> {
    m.torch
        .wheels
        .iter()
        .filter(|w| w.variants.iter().any(|v| &v.rocm == rocm))
        .flat_map(|w| w.torch.iter().cloned())
        .collect()
}

/// Notice lines about `torch` (a public version, if one is pinned) for ROCm variant `rocm`.
pub fn check(m: &Matrix, opts: &Options, torch: Option<&Version>, rocm: &Version) -> Vec<String> {
    let l = match listing(opts, rocm) {
        Ok(l) => l,
        Err(e) => {
            return vec![format!(
                "notice: --online: the wheel index could not be read ({e}; {}/rocm{rocm}/torch/): nothing above depends on it",
                opts.index.trim_end_matches('/')
            )];
        }
    };
    let mut out = Vec::new();
    if let Some(t) = torch {
        if l.torch.iter().any(|v| v == t) {
            out.push(format!(
                "online: the index lists torch {t} for rocm{rocm} ({}, {})",
                l.url, l.how
            ));
        } else {
            out.push(format!(
                "notice: --online: the index does not list torch {t} for rocm{rocm} ({})",
                l.url
            ));
        }
    }
    let known = known(m, rocm);
    let newest_known = known.iter().next_back();
    for v in l
        .torch
        .iter()
        .filter(|v| !known.contains(v) && newest_known.is_none_or(|n| *v > n))
    {
        out.push(format!(
            "notice: --online: the index has torch {v} for rocm{rocm}; the matrix does not know it yet — run `rocmcheck matrix update`"
        ));
    }
    out
}

// ------------------------------------------------------------------------- lint --online

/// A pinned distribution of a linted file (`torch==2.5.1+rocm6.2`, `rocm-sdk-core==7.14.0`)
/// with the indexes of its install command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The distribution name as written.
    pub name: String,
    /// The version after `==`.
    pub version: String,
    /// `--index-url` / `--extra-index-url` values of the command, in order.
    pub index_urls: Vec<String>,
    /// Where it is pinned.
    pub origin: Origin,
}

/// Torch and the companions pytorch.org builds per ROCm variant.
const TORCH_FAMILY: &[&str] = &["torch", "torchvision", "torchaudio"];

/// The pins of a linted file that `--online` can confirm: the torch install, and every pinned
/// torchvision/torchaudio and ROCm Python package (`rocm`, `rocm-sdk-*`, `amd-torch-device-*`:
/// the ones `distribution.yaml` knows).
pub fn pins(m: &Matrix, facts: &crate::facts::Facts) -> Vec<Pin> {
    use crate::facts::TorchFrom;
    let mut out: Vec<Pin> = Vec::new();
    if let Some(t) = &facts.torch {
        if let (Some(v), Some(TorchFrom::PipInstall | TorchFrom::Requirements)) = (&t.value.version, &t.value.from) {
            out.push(Pin {
                name: "torch".into(),
                version: v.clone(),
                index_urls: t.value.index_urls.clone(),
                origin: t.origin.clone(),
            });
        }
    }
    for p in &facts.pip {
        let Some(v) = &p.value.version else { continue };
        let n = crate::sync::normalise(&p.value.name);
        if !TORCH_FAMILY.contains(&n.as_str()) && m.distribution.package(&n).is_none() {
            continue;
        }
        // torch is in both facts (the torch install and its requirement word): one pin, the
        // indexes of both
        let same = out
            .iter_mut()
            .find(|q| crate::sync::normalise(&q.name) == n && &q.version == v && q.origin == p.origin);
        match same {
            Some(q) => {
                for u in &p.value.index_urls {
                    if !q.index_urls.contains(u) {
                        q.index_urls.push(u.clone());
                    }
                }
            }
            None => out.push(Pin {
                name: p.value.name.clone(),
                version: v.clone(),
                index_urls: p.value.index_urls.clone(),
                origin: p.origin.clone(),
            }),
        }
    }
    out
}

/// The simple-index project pages a pin is looked up on, each with the ROCm variant of a
/// pytorch.org release page (for the "index ahead of the matrix" check). pytorch.org URLs are
/// read from `opts.index` (the `--index` root); other literal http(s) indexes as written.
fn pages(m: &Matrix, opts: &Options, pin: &Pin) -> Vec<(String, Option<Version>)> {
    let name = crate::sync::normalise(&pin.name);
    let torch_family = TORCH_FAMILY.contains(&name.as_str());
    if !torch_family && m.distribution.package(&name).is_none() {
        return Vec::new();
    }
    let root = opts.index.trim_end_matches('/');
    let mut out: Vec<(String, Option<Version>)> = Vec::new();
    for u in &pin.index_urls {
        let literal = (u.starts_with("http://") || u.starts_with("https://")) && !u.contains(['$', '{', ' ']);
        if !literal {
            continue;
        }
        let page = match m.parse_index_url(u) {
            Some((Some(c), rocm)) => (format!("{root}/{c}/rocm{rocm}/{name}/"), None),
            Some((None, rocm)) => (format!("{root}/rocm{rocm}/{name}/"), Some(rocm)),
            None => (format!("{}/{name}/", u.trim_end_matches('/')), None),
        };
        if !out.contains(&page) {
            out.push(page);
        }
    }
    if out.is_empty() && torch_family {
        // `torch==2.5.1+rocm6.2` with no index on the command: pytorch.org's variant page
        if let Some(rocm) = pin
            .version
            .split_once('+')
            .and_then(|(_, l)| l.strip_prefix("rocm"))
            .and_then(|r| Version::parse(r).ok())
        {
            out.push((format!("{root}/rocm{rocm}/{name}/"), Some(rocm)));
        }
    }
    out
}

/// The version of distribution `name` (normalised) a file name carries: a wheel
/// (`torch-2.5.1+rocm6.2-cp312-…whl`, `rocm_sdk_core-7.14.0-py3-none-…whl`) or an sdist
/// (`rocm-7.14.0.tar.gz`). None for another distribution's file.
fn file_version(name: &str, file: &str) -> Option<String> {
    if let Some(stem) = file.strip_suffix(".whl") {
        let mut parts = stem.split('-');
        let dist = parts.next()?;
        let ver = parts.next()?;
        return (crate::sync::normalise(dist) == name).then(|| ver.to_string());
    }
    let stem = file.strip_suffix(".tar.gz").or_else(|| file.strip_suffix(".zip"))?;
    let (dist, ver) = stem.rsplit_once('-')?;
    (crate::sync::normalise(dist) == name).then(|| ver.to_string())
}

/// `==pin` selects `listed` as PEP 440 reads it: release numbers compare zero-padded
/// (`2.14` is `2.14.0`), and a pin without a local label matches any local label.
fn pin_matches(pin: &str, listed: &str) -> bool {
    let split = |v: &str| {
        let v = v.trim().to_ascii_lowercase();
        match v.split_once('+') {
            Some((p, l)) => (p.to_string(), Some(l.to_string())),
            None => (v, None),
        }
    };
    let ((pp, pl), (lp, ll)) = (split(pin), split(listed));
    let public = match (Version::parse(&pp), Version::parse(&lp)) {
        (Ok(a), Ok(b)) => a == b,
        _ => pp == lp,
    };
    public && (pl.is_none() || pl == ll)
}

fn at(o: &Origin) -> String {
    match o {
        Origin::File { path, line, .. } => format!("{path}:{line}: "),
        Origin::Path { path } => format!("{path}: "),
        _ => String::new(),
    }
}

fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// Confirms each pin against its index. Notices only: a pin the index lists (`info`), one it
/// does not list, torch versions the index has that the matrix does not know yet, and one
/// notice for everything that could not be read (after the first failure of a host, its other
/// pages are not asked: a down index costs one timeout, not one per pin).
pub fn check_pins(m: &Matrix, opts: &Options, pins: &[Pin]) -> Vec<Notice> {
    let mut out = Vec::new();
    let mut pages_read: BTreeMap<String, Result<(Vec<String>, &'static str), String>> = BTreeMap::new();
    let mut down: BTreeSet<String> = BTreeSet::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    let mut unchecked = 0usize;
    let mut ahead_done: BTreeSet<Version> = BTreeSet::new();
    let mut ahead_notices = Vec::new();
    for pin in pins {
        let name = crate::sync::normalise(&pin.name);
        let pages = pages(m, opts, pin);
        let (mut found, mut read, mut all_read) = (None, 0usize, true);
        for (url, variant) in &pages {
            if down.contains(host(url)) {
                all_read = false;
                unchecked += 1;
                continue;
            }
            let r = pages_read
                .entry(url.clone())
                .or_insert_with(|| page_files(opts, url))
                .clone();
            match r {
                Ok((files, how)) => {
                    read += 1;
                    let versions: Vec<String> = files.iter().filter_map(|f| file_version(&name, f)).collect();
                    if found.is_none() && versions.iter().any(|v| pin_matches(&pin.version, v)) {
                        found = Some((url.clone(), how));
                    }
                    if let Some(rocm) = variant.as_ref().filter(|_| name == "torch") {
                        if ahead_done.insert(rocm.clone()) {
                            ahead_notices.extend(ahead(m, rocm, &versions, url));
                        }
                    }
                }
                Err(e) => {
                    all_read = false;
                    if e.starts_with("timed out") || e.starts_with("request failed") {
                        down.insert(host(url).to_string());
                    }
                    if !failed.iter().any(|(u, _)| u == url) {
                        failed.push((url.clone(), e));
                    }
                }
            }
        }
        let what = format!("{}=={}", pin.name, pin.version);
        if let Some((url, how)) = found {
            out.push(Notice {
                kind: "online-listed".into(),
                level: "info".into(),
                message: format!("{}the index lists {what} ({url}, {how})", at(&pin.origin)),
                origin: Some(pin.origin.clone()),
                url: Some(url),
            });
        } else if read > 0 && all_read {
            let urls: Vec<&str> = pages.iter().map(|(u, _)| u.as_str()).collect();
            out.push(Notice {
                kind: "online-not-listed".into(),
                level: "notice".into(),
                message: format!(
                    "{}the index does not list {what} ({}): pip cannot install it from there",
                    at(&pin.origin),
                    urls.join(", ")
                ),
                origin: Some(pin.origin.clone()),
                url: urls.first().map(|u| u.to_string()),
            });
        }
    }
    out.extend(ahead_notices);
    if let Some((url, e)) = failed.first() {
        let more = failed.len() - 1 + unchecked;
        out.push(Notice {
            kind: "online-unreadable".into(),
            level: "notice".into(),
            message: format!(
                "the wheel index could not be read ({e}; {url}{}): nothing above depends on it",
                if more > 0 {
                    format!("; {more} more page(s) not checked")
                } else {
                    String::new()
                }
            ),
            origin: None,
            url: Some(url.clone()),
        });
    }
    out
}

/// "the index has torch X for rocmR; the matrix does not know it yet" for each listed torch
/// release newer than every one the matrix knows for that variant.
fn ahead(m: &Matrix, rocm: &Version, versions: &[String], url: &str) -> Vec<Notice> {
    let known = known(m, rocm);
    let newest = known.iter().next_back();
    let suffix = format!("+rocm{rocm}");
    let listed: BTreeSet<Version> = versions
        .iter()
        .filter_map(|v| v.strip_suffix(&suffix))
        .filter_map(|v| Version::parse(v).ok())
        .collect();
    listed
        .into_iter()
        .filter(|v| !known.contains(v) && newest.is_none_or(|n| v > n))
        .map(|v| Notice {
            kind: "online-index-ahead".into(),
            level: "notice".into(),
            message: format!(
                "the index has torch {v} for rocm{rocm}; the matrix does not know it yet — run `rocmcheck matrix update`"
            ),
            origin: None,
            url: Some(url.to_string()),
        })
        .collect()
}

/// The notice `--online` gives instead when offline (`--offline` / `ROCMCHECK_OFFLINE`).
pub fn offline_notice() -> Notice {
    Notice {
        kind: "online-offline".into(),
        level: "notice".into(),
        message: "ignored: offline (--offline or ROCMCHECK_OFFLINE) wins over --online; no connection was made".into(),
        origin: None,
        url: None,
    }
}

/// The HTTP cache directory of `--online`: `<data cache>/http`.
pub fn cache_dir() -> Option<PathBuf> {
    crate::data::cache_dir().map(|d| d.join("http"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_give_their_distribution_s_version() {
        assert_eq!(
            file_version("torch", "torch-2.14.0+rocm7.14-cp312-cp312-manylinux_2_28_x86_64.whl").as_deref(),
            Some("2.14.0+rocm7.14")
        );
        assert_eq!(
            file_version("rocm-sdk-core", "rocm_sdk_core-7.14.0-py3-none-linux_x86_64.whl").as_deref(),
            Some("7.14.0")
        );
        assert_eq!(
            file_version("rocm", "rocm-7.14.0.post1.tar.gz").as_deref(),
            Some("7.14.0.post1")
        );
        assert_eq!(
            file_version("torch", "torchvision-0.29.0+rocm7.14-cp312-cp312-x.whl"),
            None
        );
        assert_eq!(
            file_version("rocm", "rocm_sdk_core-7.14.0-py3-none-linux_x86_64.whl"),
            None
        );
        assert_eq!(file_version("rocm", "index.html"), None);
    }

    #[test]
    fn a_pin_matches_as_pip_reads_it() {
        assert!(pin_matches("2.14.0+rocm7.14", "2.14.0+rocm7.14"));
        assert!(
            pin_matches("2.14.0", "2.14.0+rocm7.14"),
            "no local label: any local label"
        );
        assert!(!pin_matches("2.14.0+rocm7.2", "2.14.0+rocm7.14"));
        assert!(pin_matches("2.14", "2.14.0+rocm7.14"), "zero-padded");
        assert!(!pin_matches("2.14.1", "2.14.0+rocm7.14"));
        assert!(!pin_matches("7.14.0", "7.14.0.post1"));
    }

    #[test]
    fn hosts() {
        assert_eq!(
            host("https://download.pytorch.org/whl/rocm7.14/torch/"),
            "download.pytorch.org"
        );
        assert_eq!(host("http://127.0.0.1:8080/whl/"), "127.0.0.1:8080");
    }
}
