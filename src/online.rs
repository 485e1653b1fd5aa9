//! `--online` (issue 21, opt-in): confirm a torch/ROCm wheel against the live wheel index.
//!
//! One simple-index page per ROCm variant (`<index>/rocm7.2/torch/`), asked for as PEP 691 JSON
//! (`application/vnd.pypi.simple.v1+json`) with PEP 503 HTML accepted as the fallback, through an
//! on-disk HTTP cache (`<cache dir>/http/`: a fresh entry by `Cache-Control: max-age` is used
//! without a request, a stale one is revalidated with `If-None-Match`) and one timeout. What it
//! finds is notice lines only: findings never change because of the network, and an index that
//! cannot be read is one line.

use crate::matrix::Matrix;
use crate::version::Version;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
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
    let (body, json, how) = get_cached(opts, &url)?;
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
        let files = crate::sync::parse_index_page(&html).map_err(|e| format!("{url}: {e}"))?;
        files
            .into_iter()
            .map(|w| format!("torch-{}+rocm{}-cp312-cp312-linux_x86_64.whl", w.torch, w.rocm))
            .collect()
    };
    let want = rocm.to_string();
    let torch = names
        .iter()
        .filter_map(|n| crate::sync::parse_wheel(n))
        .filter(|w| w.rocm == want)
        .filter_map(|w| Version::parse(&w.torch).ok())
        .collect();
    Ok(Listing { url, torch, how })
}

fn get_cached(opts: &Options, url: &str) -> Result<(Vec<u8>, bool, &'static str), String> {
    let paths = opts.cache.as_ref().map(|d| {
        let k = key(url);
        (d.join(format!("{k}.meta")), d.join(format!("{k}.body")))
    });
    let cached: Option<(Meta, Vec<u8>)> = paths.as_ref().and_then(|(m, b)| {
        let meta: Meta = serde_json::from_slice(&std::fs::read(m).ok()?).ok()?;
        (meta.url == url).then_some(())?;
        Some((meta, std::fs::read(b).ok()?))
    });
    if let Some((meta, body)) = &cached {
        if now().saturating_sub(meta.fetched) < meta.max_age {
            return Ok((body.clone(), meta.json, "cached"));
        }
    }
    let etag = cached.as_ref().and_then(|(m, _)| m.etag.clone());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let resp = rt.block_on(async {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(opts.timeout)
            .connect_timeout(opts.timeout)
            .user_agent(concat!("rocmcheck/", env!("CARGO_PKG_VERSION"), " (--online)"))
            .build()
            .map_err(|e| format!("cannot create the HTTP client: {e}"))?;
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
                format!("request failed: {e}")
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
                format!("reading the body: {e}")
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

/// The HTTP cache directory of `--online`: `<data cache>/http`.
pub fn cache_dir() -> Option<PathBuf> {
    crate::data::cache_dir().map(|d| d.join("http"))
}
