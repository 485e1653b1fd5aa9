//! `rocmcheck matrix sync`: read the upstream sources and propose matrix updates for review.
//!
//! Sources:
//! - the official PyTorch wheel index, one PEP 503 simple-index page per ROCm line
//!   (`<base>/rocm6.4/torch/`), listing files such as
//!   `torch-2.9.0+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl` → torch releases, ROCm variants
//!   and Python tags the matrix does not have;
//! - Docker Hub tag listings (`<hub>/v2/repositories/<repo>/tags?page_size=100`, paginated JSON
//!   with `next`) → tags the matrix does not list, read through the repository's tag grammar;
//! - the Core SDK era's ROCm wheels (`distribution.yaml`): the PEP 503 project list of each
//!   wheel-based PyTorch ROCm line (`<base>/rocm7.14/`, which mirrors `rocm`, `rocm-sdk-core`,
//!   `rocm-sdk-libraries` and `rocm-sdk-device-<gfx>` with absolute links to repo.amd.com:
//!   pytorch/test-infra s3_management/update_dependencies.py@61a77570), AMD's multi-arch indexes
//!   (`https://repo.amd.com/rocm/whl-multi-arch/`, relative `../<wheel>.whl` links) and per-family
//!   indexes (`<root><family>/`) → device packages for gfx targets `gpus.yaml` lacks (including
//!   AMD's split `amd-torch-device-<gfx>`), per-family library packages of families
//!   `distribution.yaml` lacks, and `rocm` / `rocm-sdk-core` versions newer than `rocm.yaml`
//!   knows (a release line it lacks, or a patch it does not list).
//!
//! Every proposed line carries the URL it came from. Nothing here writes the matrix: support
//! claims are a person's decision. Network behaviour: a timeout per request, retries with
//! exponential backoff on connection errors, timeouts, truncated bodies and 5xx, `Retry-After`
//! honoured on 429, a cap on every response's size, and a clear error for a truncated, malformed
//! or oversized response. One failing source does not stop the others.

use crate::matrix::{Channel, IndexChannel, IndexLayout, Matrix, PackageRole};
use crate::version::Version;
use regex::Regex;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::LazyLock;
use std::time::Duration;

/// Docker Hub's API root.
pub const DOCKER_HUB: &str = "https://hub.docker.com";

/// The repositories whose tags are read by default.
pub const DEFAULT_REPOS: &[&str] = &["rocm/dev-ubuntu-22.04", "rocm/dev-ubuntu-24.04", "rocm/pytorch"];

/// How sync talks to the network.
#[derive(Debug, Clone)]
pub struct Options {
    /// The wheel index root (`https://download.pytorch.org/whl`); default: the matrix's.
    pub base_url: String,
    /// Docker Hub's API root.
    pub docker_hub_url: String,
    /// Docker Hub repositories to read.
    pub repos: Vec<String>,
    /// Timeout of one request (connect + headers + body).
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// The first backoff; doubled on each retry.
    pub backoff: Duration,
    /// The longest `Retry-After` that is waited for.
    pub max_retry_after: Duration,
    /// The largest response accepted, in bytes.
    pub max_bytes: usize,
    /// The most tag pages read per repository.
    pub max_pages: usize,
    /// Read the wheel index.
    pub wheels: bool,
    /// Read Docker Hub.
    pub images: bool,
    /// AMD's package indexes to read for ROCm wheels (default: the stable ones of
    /// `distribution.yaml`), each with its layout.
    pub amd_indexes: Vec<(String, IndexLayout)>,
    /// Read the ROCm wheel indexes (the PyTorch mirror of wheel-based lines and AMD's).
    pub rocm_wheels: bool,
}

impl Options {
    /// Defaults for the real sources.
    pub fn new(m: &Matrix) -> Options {
        Options {
            base_url: m.torch.index.clone(),
            docker_hub_url: DOCKER_HUB.into(),
            repos: DEFAULT_REPOS.iter().map(|s| s.to_string()).collect(),
            timeout: Duration::from_secs(30),
            retries: 3,
            backoff: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(120),
            max_bytes: 16 << 20,
            max_pages: 100,
            wheels: true,
            images: true,
            amd_indexes: m
                .distribution
                .indexes
                .iter()
                .filter(|ix| ix.channel == IndexChannel::Stable)
                .map(|ix| (ix.url.clone(), ix.layout))
                .collect(),
            rocm_wheels: true,
        }
    }
}

/// Where a proposal goes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Change {
    /// A torch release the matrix has no wheel entry for.
    TorchRelease {
        /// The torch version.
        torch: String,
        /// The ROCm variant it was seen for.
        rocm: String,
        /// Python tags seen (`3.12`, `3.13t`).
        python: Vec<String>,
    },
    /// A ROCm variant missing from a known torch release.
    WheelVariant {
        /// The torch version (as listed in the matrix group).
        torch: String,
        /// The new ROCm variant.
        rocm: String,
        /// Python tags seen.
        python: Vec<String>,
    },
    /// Python tags missing from a known torch release.
    Python {
        /// The torch version.
        torch: String,
        /// The ROCm variant they were seen for.
        rocm: String,
        /// The new Python tags.
        python: Vec<String>,
    },
    /// A ROCm wheel (`rocm`, `rocm-sdk-core`) version `rocm.yaml` does not know: its release
    /// line is missing, or the line does not list the patch.
    RocmWheel {
        /// The package (`rocm-sdk-core`).
        package: String,
        /// The version on the index (`10.2.0`).
        version: String,
        /// The release line is in `rocm.yaml` (only the patch is new).
        known_line: bool,
    },
    /// A ROCm release published upstream (its wheel is on an index) whose `rocm.yaml` entry is
    /// incomplete: no day of release, or no GPU list. What is missing is read from AMD's release
    /// notes and hardware table, which sync does not read.
    RocmIncomplete {
        /// The package (`rocm-sdk-core`).
        package: String,
        /// The version on the index (`10.1.0`).
        version: String,
        /// What the entry lacks (`release date`, `GPU list`).
        missing: Vec<String>,
    },
    /// A per-target device package (`rocm-sdk-device-<gfx>`, `amd-torch-device-<gfx>`) for a gfx
    /// target `gpus.yaml` does not have.
    DeviceTarget {
        /// The package.
        package: String,
        /// The target.
        gfx: String,
    },
    /// A GPU family `distribution.yaml` does not have: a per-family library package
    /// (`rocm-sdk-libraries-<family>`) or a family directory of a per-family index root.
    Family {
        /// What shows it (the package name, or `<family>/` for an index directory).
        seen: String,
        /// The family name.
        family: String,
    },
    /// A tag missing from an image repository's known tags.
    ImageTag {
        /// `rocm/dev-ubuntu-24.04`.
        repo: String,
        /// The tag.
        tag: String,
        /// What the tag grammar read from it (`rocm 7.2.5`, `python 3.12`).
        parsed: Vec<(String, String)>,
        /// The tag's ROCm is not among the matrix's ROCm releases.
        unknown_rocm: bool,
    },
}

/// One proposed matrix line with its source.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Proposal {
    /// What to add.
    #[serde(flatten)]
    pub change: Change,
    /// The URL it was read from.
    pub source: String,
}

/// A tag the repository's grammar does not read (reported, not proposed).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Unparsed {
    /// Repository.
    pub repo: String,
    /// Tag.
    pub tag: String,
    /// The page it was on.
    pub source: String,
}

/// A failed fetch or an unreadable response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncError {
    /// The URL.
    pub url: String,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for SyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.url, self.message)
    }
}

/// What a sync found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Outcome {
    /// Proposed additions, sorted.
    pub proposals: Vec<Proposal>,
    /// Tags not read by their repository's grammar.
    pub unparsed: Vec<Unparsed>,
    /// Sources that could not be read.
    pub errors: Vec<SyncError>,
    /// URLs read successfully.
    pub fetched: Vec<String>,
}

// ----------------------------------------------------------------------------------- HTTP

struct Fetcher {
    client: reqwest::Client,
    opts: Options,
    /// Set at the first name-resolution failure (offline, no DNS): every later source would fail
    /// the same way, each after its retries, so sync stops there with one message.
    unresolved: std::sync::Mutex<Option<String>>,
}

/// Does this error chain say a host name could not be resolved?
fn is_name_resolution(chain: &str) -> bool {
    chain.contains("dns error")
        || chain.contains("failed to lookup address")
        || chain.contains("Name or service not known")
}

enum Attempt {
    Retry(String, Option<Duration>),
    Fail(String),
}

impl Fetcher {
    fn new(opts: &Options) -> Result<Fetcher, String> {
        let client = crate::http::client(&crate::http::ClientOptions {
            purpose: "matrix sync",
            timeout: opts.timeout,
            connect_timeout: Some(opts.timeout),
            redirects: Some(5),
        })?;
        Ok(Fetcher {
            client,
            opts: opts.clone(),
            unresolved: std::sync::Mutex::new(None),
        })
    }

    /// The host that could not be resolved, once one could not.
    fn unresolved(&self) -> Option<String> {
        self.unresolved.lock().ok().and_then(|g| g.clone())
    }

    /// GETs `url`; Ok(None) for 404. Retries what may pass on a second try.
    async fn get(&self, url: &str) -> Result<Option<Vec<u8>>, String> {
        let mut attempt = 0u32;
        loop {
            let failure = match self.try_get(url).await {
                Ok(body) => return Ok(body),
                Err(f) => f,
            };
            let (message, wait) = match failure {
                Attempt::Fail(m) => return Err(m),
                Attempt::Retry(m, wait) => (m, wait),
            };
            if attempt >= self.opts.retries {
                return Err(if attempt == 0 {
                    message
                } else {
                    format!("{message} (gave up after {} attempts)", attempt + 1)
                });
            }
            let backoff = self.opts.backoff * 2u32.saturating_pow(attempt);
            tokio::time::sleep(wait.unwrap_or(backoff)).await;
            attempt += 1;
        }
    }

    async fn try_get(&self, url: &str) -> Result<Option<Vec<u8>>, Attempt> {
        let resp = match self.client.get(url).send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Err(Attempt::Retry(format!("timed out after {:?}", self.opts.timeout), None));
            }
            Err(e) if e.is_builder() => return Err(Attempt::Fail(format!("invalid URL: {e}"))),
            Err(e) => {
                let c = chain(&e);
                if is_name_resolution(&c) {
                    // not retried: a missing network or DNS does not come back in a second
                    let host = reqwest::Url::parse(url)
                        .ok()
                        .and_then(|u| u.host_str().map(String::from))
                        .unwrap_or_else(|| url.to_string());
                    if let Ok(mut g) = self.unresolved.lock() {
                        *g = Some(host.clone());
                    }
                    return Err(Attempt::Fail(format!("cannot resolve the host name {host}: {c}")));
                }
                return Err(Attempt::Retry(format!("request failed: {c}"), None));
            }
        };
        let status = resp.status();
        // download.pytorch.org answers 403 (its storage's AccessDenied) for a path that does not
        // exist, like a ROCm line with no wheels; both mean "absent".
        if status == reqwest::StatusCode::NOT_FOUND || status == reqwest::StatusCode::FORBIDDEN {
            return Ok(None);
        }
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            let after = resp
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            return match after {
                Some(d) if d > self.opts.max_retry_after => Err(Attempt::Fail(format!(
                    "HTTP 429 Too Many Requests; Retry-After {} s is longer than the {} s this waits",
                    d.as_secs(),
                    self.opts.max_retry_after.as_secs()
                ))),
                _ => Err(Attempt::Retry(
                    "HTTP 429 Too Many Requests (rate limited)".into(),
                    after,
                )),
            };
        }
        if status.is_server_error() {
            return Err(Attempt::Retry(format!("HTTP {status}"), None));
        }
        if !status.is_success() {
            return Err(Attempt::Fail(format!("HTTP {status}")));
        }
        let cap = self.opts.max_bytes;
        let declared = resp.content_length();
        if let Some(n) = declared
            && n > cap as u64
        {
            return Err(Attempt::Fail(format!(
                "response too large: Content-Length {n} bytes exceeds the {cap}-byte cap"
            )));
        }
        let mut resp = resp;
        let mut body = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(c)) => {
                    if body.len() + c.len() > cap {
                        return Err(Attempt::Fail(format!(
                            "response too large: more than the {cap}-byte cap"
                        )));
                    }
                    body.extend_from_slice(&c);
                }
                Ok(None) => break,
                Err(e) if e.is_timeout() => {
                    return Err(Attempt::Retry(
                        format!("timed out reading the body after {} bytes", body.len()),
                        None,
                    ));
                }
                Err(e) => {
                    return Err(Attempt::Retry(
                        format!(
                            "truncated response: the connection ended after {} of {} bytes ({})",
                            body.len(),
                            declared.map(|n| n.to_string()).unwrap_or_else(|| "?".into()),
                            chain(&e)
                        ),
                        None,
                    ));
                }
            }
        }
        if let Some(n) = declared
            && (body.len() as u64) < n
        {
            return Err(Attempt::Retry(
                format!("truncated response: {} of {n} bytes", body.len()),
                None,
            ));
        }
        Ok(Some(body))
    }
}

/// An error with its causes (`error sending request: …: tcp connect error: Connection refused`),
/// each cause once.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        let t = inner.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        src = inner.source();
    }
    s
}

// ----------------------------------------------------------------------------------- parsing

/// One torch wheel file name, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WheelFile {
    /// `2.9.0`.
    pub torch: String,
    /// `6.4` (the `+rocm…` local version).
    pub rocm: String,
    /// `3.12`, or `3.13t` for a free-threaded build.
    pub python: String,
}

static WHEEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^torch-(?P<torch>\d+\.\d+\.\d+)\+rocm(?P<rocm>\d+(?:\.\d+)+)-cp(?P<py>\d)(?P<pyminor>\d+)-(?P<abi>[a-z0-9_]+)-(?P<plat>[a-z0-9_.]+)\.whl$",
    )
    .expect("valid regex")
});
static ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?is)<a\s[^>]*href\s*=\s*["']([^"']*)["'][^>]*>(.*?)</a>"#).expect("valid regex"));

/// Reads a torch wheel file name; None for other files, other platforms and non-ROCm builds.
pub fn parse_wheel(name: &str) -> Option<WheelFile> {
    let c = WHEEL.captures(name)?;
    let plat = &c["plat"];
    if !plat.ends_with("x86_64") || !(plat.starts_with("manylinux") || plat.starts_with("linux")) {
        return None;
    }
    let abi = &c["abi"];
    let free_threaded = abi.ends_with('t') && abi.starts_with("cp");
    Some(WheelFile {
        torch: c["torch"].to_string(),
        rocm: c["rocm"].to_string(),
        python: format!("{}.{}{}", &c["py"], &c["pyminor"], if free_threaded { "t" } else { "" }),
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads a PEP 503 simple-index page into the torch wheel files it lists. Errors on a page that
/// is not a simple index or ends early.
pub fn parse_index_page(html: &str) -> Result<Vec<WheelFile>, String> {
    Ok(index_page_files(html)?.iter().filter_map(|n| parse_wheel(n)).collect())
}

/// The file names a PEP 503 simple-index page links to (the anchor text when it names a file,
/// else the last segment of the href, percent-decoded), in page order.
pub fn index_page_files(html: &str) -> Result<Vec<String>, String> {
    let lower = html.to_ascii_lowercase();
    if !lower.contains("<html") && !lower.contains("<a ") {
        return Err("not an HTML simple-index page (no <html> or <a> element)".into());
    }
    if !lower.trim_end().ends_with("</html>") {
        return Err("truncated page: the simple index does not end with </html>".into());
    }
    let mut out = Vec::new();
    for c in ANCHOR.captures_iter(html) {
        let text = c[2].trim();
        let from_href = || {
            let href = c[1].split(['#', '?']).next().unwrap_or("");
            percent_decode(href.rsplit('/').next().unwrap_or(""))
        };
        let is_file = |n: &str| [".whl", ".tar.gz", ".zip"].iter().any(|e| n.ends_with(e));
        out.push(if is_file(text) { text.to_string() } else { from_href() });
    }
    Ok(out)
}

/// One page of a Docker Hub tag listing.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct TagPage {
    /// Total tags.
    #[serde(default)]
    pub count: Option<u64>,
    /// The next page's URL.
    #[serde(default)]
    pub next: Option<String>,
    /// Tags on this page.
    pub results: Vec<TagEntry>,
}

/// One tag.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct TagEntry {
    /// The tag.
    pub name: String,
}

/// Reads a Docker Hub tag page.
pub fn parse_tag_page(body: &[u8]) -> Result<TagPage, String> {
    serde_json::from_slice(body).map_err(|e| {
        let what = if e.is_eof() {
            "truncated JSON"
        } else if e.is_data() {
            "unexpected JSON shape (expected {\"count\", \"next\", \"results\": [{\"name\": …}]})"
        } else {
            "malformed JSON"
        };
        format!("{what} at line {} column {}: {e}", e.line(), e.column())
    })
}

fn origin(url: &str) -> &str {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let host_len = rest.find('/').unwrap_or(rest.len());
    &url[..url.len() - rest.len() + host_len]
}

// ----------------------------------------------------------------------------------- sync

/// Reads the sources and proposes additions. Never writes anything.
pub async fn sync(m: &Matrix, opts: &Options) -> Outcome {
    sync_with_progress(m, opts, &mut |_| {}).await
}

/// [`sync`], calling `progress` with a line before each source is read (`reading 3/25: URL`).
/// At the first host name that cannot be resolved (offline, no DNS) it stops: one error that
/// says so and how many sources were not read, instead of one per source after its retries.
pub async fn sync_with_progress(m: &Matrix, opts: &Options, progress: &mut dyn FnMut(&str)) -> Outcome {
    let mut out = Outcome::default();
    let f = match Fetcher::new(opts) {
        Ok(f) => f,
        Err(e) => {
            out.errors.push(SyncError {
                url: opts.base_url.clone(),
                message: e,
            });
            return out;
        }
    };
    let mut rocm_lines: BTreeSet<String> = BTreeSet::new();
    if opts.wheels {
        for r in &m.rocm {
            rocm_lines.insert(r.version.line().to_string());
        }
        for w in &m.torch.wheels {
            for v in &w.variants {
                rocm_lines.insert(v.rocm.to_string());
            }
        }
    }
    // the image tags can name more ROCm lines: the total grows to what is known before each part
    let mut total = if opts.images { opts.repos.len() } else { 0 } + rocm_lines.len();
    let mut n = 0;
    let hub = opts.docker_hub_url.trim_end_matches('/');
    if opts.images {
        for repo in &opts.repos {
            if f.unresolved().is_some() {
                break;
            }
            n += 1;
            progress(&format!("reading {n}/{total}: {hub}/v2/repositories/{repo}/tags"));
            images(m, &f, repo, &mut out, &mut rocm_lines).await;
        }
    }
    if opts.wheels && f.unresolved().is_none() {
        total = n + rocm_lines.len();
        wheels(m, &f, &rocm_lines, &mut out, &mut |url: &str| {
            n += 1;
            progress(&format!("reading {n}/{total}: {url}"));
        })
        .await;
    }
    // the Core SDK era's ROCm wheel indexes (not counted in the progress total); not read at all
    // once a host name could not be resolved, and stopped at the first one that cannot be
    if opts.rocm_wheels && f.unresolved().is_none() {
        rocm_wheel_indexes(m, &f, &mut out).await;
    }
    if let Some(host) = f.unresolved()
        && let Some(e) = out.errors.last_mut()
    {
        e.message.push_str(&format!(
            "; stopped there: {host} cannot be resolved (offline, or no DNS?), {} of {total} source(s) not read",
            total.saturating_sub(n)
        ));
    }
    out.proposals.sort();
    out.proposals.dedup();
    out.unparsed.sort();
    out
}

async fn images(m: &Matrix, f: &Fetcher, repo: &str, out: &mut Outcome, rocm_lines: &mut BTreeSet<String>) {
    let hub = f.opts.docker_hub_url.trim_end_matches('/');
    let Some(known) = m.images.iter().find(|r| r.repo == repo) else {
        out.errors.push(SyncError {
            url: repo.to_string(),
            message: "the repository is not in the matrix (images.yaml): no tag grammar to read its tags".into(),
        });
        return;
    };
    let mut url = format!("{hub}/v2/repositories/{repo}/tags?page_size=100");
    let mut pages = 0;
    loop {
        pages += 1;
        let body = match f.get(&url).await {
            Ok(Some(b)) => b,
            Ok(None) => {
                out.errors.push(SyncError {
                    url,
                    message: "HTTP 404/403: no such repository".into(),
                });
                return;
            }
            Err(e) => {
                out.errors.push(SyncError { url, message: e });
                return;
            }
        };
        let page = match parse_tag_page(&body) {
            Ok(p) => p,
            Err(e) => {
                out.errors.push(SyncError { url, message: e });
                return;
            }
        };
        out.fetched.push(url.clone());
        for t in &page.results {
            let tag = t.name.as_str();
            if known.is_known(tag) || known.moving.iter().any(|k| k == tag) {
                continue;
            }
            let Some(im) = m.parse_image(repo, Some(tag)) else {
                continue;
            };
            if !known.grammar.is_match(tag) {
                out.unparsed.push(Unparsed {
                    repo: repo.to_string(),
                    tag: tag.to_string(),
                    source: url.clone(),
                });
                continue;
            }
            let mut parsed = Vec::new();
            let mut unknown_rocm = false;
            if let Some(r) = &im.rocm {
                parsed.push(("rocm".to_string(), r.clone()));
                match Version::parse(r) {
                    Ok(v) => {
                        unknown_rocm = m.rocm_release(&v).is_none();
                        rocm_lines.insert(v.line().to_string());
                    }
                    Err(_) => unknown_rocm = true,
                }
            }
            // The OS is the repository's (dev-ubuntu-*) or spelled in the tag itself (rocm/pytorch).
            for (k, v) in [("python", &im.python), ("torch", &im.torch), ("gfx", &im.gfx)] {
                if let Some(v) = v {
                    parsed.push((k.to_string(), v.clone()));
                }
            }
            out.proposals.push(Proposal {
                change: Change::ImageTag {
                    repo: repo.to_string(),
                    tag: tag.to_string(),
                    parsed,
                    unknown_rocm,
                },
                source: url.clone(),
            });
        }
        match page.next {
            Some(next) if !next.is_empty() => {
                if origin(&next) != origin(&url) {
                    out.errors.push(SyncError {
                        url: url.clone(),
                        message: format!("refusing to follow `next` to another host: {next}"),
                    });
                    return;
                }
                if pages >= f.opts.max_pages {
                    out.errors.push(SyncError {
                        url: next,
                        message: format!("stopped after {pages} pages (the page limit); the rest was not read"),
                    });
                    return;
                }
                url = next;
            }
            _ => return,
        }
    }
}

async fn wheels(
    m: &Matrix,
    f: &Fetcher,
    rocm_lines: &BTreeSet<String>,
    out: &mut Outcome,
    progress: &mut dyn FnMut(&str),
) {
    let base = f.opts.base_url.trim_end_matches('/');
    // (torch, rocm) → (python tags, source)
    let mut seen: BTreeMap<(String, String), (BTreeSet<String>, String)> = BTreeMap::new();
    for line in rocm_lines {
        if f.unresolved().is_some() {
            break;
        }
        let url = format!("{base}/rocm{line}/torch/");
        progress(&url);
        let body = match f.get(&url).await {
            Ok(Some(b)) => b,
            Ok(None) => continue, // no wheels for this ROCm line
            Err(e) => {
                out.errors.push(SyncError { url, message: e });
                continue;
            }
        };
        let text = match String::from_utf8(body) {
            Ok(t) => t,
            Err(_) => {
                out.errors.push(SyncError {
                    url,
                    message: "the page is not UTF-8".into(),
                });
                continue;
            }
        };
        match parse_index_page(&text) {
            Ok(files) => {
                out.fetched.push(url.clone());
                for w in files.into_iter().filter(|w| &w.rocm == line) {
                    let e = seen
                        .entry((w.torch.clone(), w.rocm.clone()))
                        .or_insert_with(|| (BTreeSet::new(), url.clone()));
                    e.0.insert(w.python);
                }
            }
            Err(e) => out.errors.push(SyncError { url, message: e }),
        }
    }
    for ((torch, rocm), (pythons, source)) in seen {
        let (Ok(tv), Ok(rv)) = (Version::parse(&torch), Version::parse(&rocm)) else {
            continue;
        };
        let group = m
            .torch
            .wheels
            .iter()
            .filter(|w| w.channel == Channel::Release)
            .find(|w| w.torch.contains(&tv));
        let python: Vec<String> = pythons.iter().cloned().collect();
        let change = match group {
            None => Change::TorchRelease { torch, rocm, python },
            Some(g) => {
                if !g.variants.iter().any(|v| v.rocm == rv) {
                    Change::WheelVariant { torch, rocm, python }
                } else {
                    let missing: Vec<String> = python.into_iter().filter(|p| !g.python.contains(p)).collect();
                    // An empty python list in the matrix means "not recorded": propose them all.
                    if missing.is_empty() {
                        continue;
                    }
                    Change::Python {
                        torch,
                        rocm,
                        python: missing,
                    }
                }
            }
        };
        out.proposals.push(Proposal { change, source });
    }
}

// ---------------------------------------------------------------------- ROCm wheel indexes

/// Reads a PEP 503 page into its links: (anchor text, href). Errors as [`parse_index_page`].
fn page_links(html: &str) -> Result<Vec<(String, String)>, String> {
    let lower = html.to_ascii_lowercase();
    if !lower.contains("<html") && !lower.contains("<a ") {
        return Err("not an HTML simple-index page (no <html> or <a> element)".into());
    }
    if !lower.trim_end().ends_with("</html>") {
        return Err("truncated page: the simple index does not end with </html>".into());
    }
    Ok(ANCHOR
        .captures_iter(html)
        .map(|c| (c[2].trim().to_string(), c[1].to_string()))
        .collect())
}

/// The project names of a PEP 503 root page (`<a href="rocm-sdk-core/">rocm-sdk-core</a>`),
/// normalised (PEP 503: lower case, runs of `-_.` → `-`).
pub fn parse_project_list(html: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = page_links(html)?
        .into_iter()
        .map(|(text, href)| {
            let name = if text.is_empty() {
                href.trim_end_matches('/').rsplit('/').next().unwrap_or("").to_string()
            } else {
                text
            };
            normalise(&name)
        })
        .filter(|n| !n.is_empty())
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// A distribution name normalised as PEP 503 says (lower case, runs of `-_.` → `-`).
pub fn normalise(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The version in a distribution file name: a wheel (`rocm_sdk_core-7.14.0-py3-none-linux_x86_64.whl`,
/// PyPA binary distribution format) or an sdist (`rocm-7.14.0.post1.tar.gz`). None for others.
pub fn file_version(file: &str) -> Option<String> {
    let stem = file
        .strip_suffix(".whl")
        .or_else(|| file.strip_suffix(".tar.gz"))
        .or_else(|| file.strip_suffix(".zip"))?;
    let b = stem.as_bytes();
    let start = (1..b.len()).find(|&i| b[i - 1] == b'-' && b[i].is_ascii_digit())?;
    let rest = &stem[start..];
    let v = if file.ends_with(".whl") {
        rest.split('-').next().unwrap_or(rest)
    } else {
        rest
    };
    (!v.is_empty()).then(|| v.to_string())
}

/// The file names a PEP 503 project page lists (anchor text when it is a file name, else the
/// href's last segment, percent-decoded: absolute links to repo.amd.com and relative
/// `../<wheel>.whl` links alike).
fn page_files(html: &str) -> Result<Vec<String>, String> {
    Ok(page_links(html)?
        .into_iter()
        .map(|(text, href)| {
            if text.ends_with(".whl") || text.ends_with(".tar.gz") {
                text
            } else {
                let h = href.split(['#', '?']).next().unwrap_or("");
                percent_decode(h.rsplit('/').next().unwrap_or(""))
            }
        })
        .collect())
}

/// A release version `X.Y.Z` (or `X.Y.Z.postN`): (line `X.Y`, `X.Y.Z`). None for pre-releases,
/// nightlies and dev builds (`7.15.0a20260630`, `10.0.0rc1`, `…dev0+…`).
fn release_version(v: &str) -> Option<(String, String)> {
    let base = match v.split_once(".post") {
        Some((b, post)) if !post.is_empty() && post.bytes().all(|c| c.is_ascii_digit()) => b,
        Some(_) => return None,
        None => v,
    };
    let parts: Vec<&str> = base.split('.').collect();
    if !(2..=3).contains(&parts.len())
        || !parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    Some((format!("{}.{}", parts[0], parts[1]), base.to_string()))
}

async fn get_text(f: &Fetcher, url: &str, out: &mut Outcome) -> Option<String> {
    match f.get(url).await {
        Ok(Some(b)) => match String::from_utf8(b) {
            Ok(t) => Some(t),
            Err(_) => {
                out.errors.push(SyncError {
                    url: url.to_string(),
                    message: "the page is not UTF-8".into(),
                });
                None
            }
        },
        Ok(None) => None,
        Err(e) => {
            out.errors.push(SyncError {
                url: url.to_string(),
                message: e,
            });
            None
        }
    }
}

/// The wheel-based PyTorch ROCm lines (variants with `rocm_from: wheels`) and the Core SDK
/// releases of `rocm.yaml`: the lines whose `<base>/rocm<line>/` mirrors ROCm wheels.
fn wheel_lines(m: &Matrix) -> BTreeSet<String> {
    let mut lines: BTreeSet<String> = m
        .torch
        .wheels
        .iter()
        .flat_map(|w| w.variants.iter())
        .filter(|v| v.rocm_from_wheels)
        .map(|v| v.rocm.to_string())
        .collect();
    lines.extend(
        m.rocm
            .iter()
            .filter(|r| r.stream == crate::matrix::Stream::CoreSdk)
            .map(|r| r.version.line().to_string()),
    );
    lines
}

async fn rocm_wheel_indexes(m: &Matrix, f: &Fetcher, out: &mut Outcome) {
    let base = f.opts.base_url.trim_end_matches('/');
    let mut roots: Vec<String> = wheel_lines(m).into_iter().map(|l| format!("{base}/rocm{l}/")).collect();
    for (url, layout) in &f.opts.amd_indexes {
        if f.unresolved().is_some() {
            return;
        }
        let root = format!("{}/", url.trim_end_matches('/'));
        match layout {
            IndexLayout::MultiArch => roots.push(root),
            IndexLayout::PerFamily => {
                let mut fams: Vec<String> = m.distribution.families.iter().map(|f| f.name.clone()).collect();
                // The root's own listing of family directories: its format is not documented
                // (it is no PEP 503 page); any anchor whose text is a `gfx…` name is taken as a
                // family directory, and a root without such a listing is not an error.
                if let Some(text) = get_text(f, &root, out).await
                    && let Ok(links) = page_links(&text)
                {
                    out.fetched.push(root.clone());
                    for (t, _) in links {
                        let name = t.trim_end_matches('/').to_string();
                        if !name.starts_with("gfx") || name.contains(['/', ' ']) || fams.contains(&name) {
                            continue;
                        }
                        if m.distribution.family(&name).is_none() && crate::version::Gfx::parse(&name).is_err() {
                            out.proposals.push(Proposal {
                                change: Change::Family {
                                    seen: format!("{name}/"),
                                    family: name.clone(),
                                },
                                source: root.clone(),
                            });
                        }
                        fams.push(name);
                    }
                }
                for fam in fams {
                    roots.push(format!("{root}{fam}/"));
                }
            }
        }
    }
    // (package, version) → source, once each
    let mut versions: BTreeMap<(String, String), String> = BTreeMap::new();
    for root in roots {
        if f.unresolved().is_some() {
            return;
        }
        // An index or line that does not exist (404/403) is not an error: not every family has
        // an index, not every Core SDK line a PyTorch mirror.
        let Some(text) = get_text(f, &root, out).await else {
            continue;
        };
        let projects = match parse_project_list(&text) {
            Ok(p) => p,
            Err(e) => {
                out.errors.push(SyncError { url: root, message: e });
                continue;
            }
        };
        out.fetched.push(root.clone());
        for name in projects {
            let Some(pm) = m.distribution.package(&name) else {
                continue;
            };
            match (pm.role, pm.suffix) {
                (PackageRole::Device | PackageRole::TorchDevice, Some(g)) => {
                    let is_target = crate::version::Gfx::parse(&g).is_ok_and(|x| x.as_str() == g);
                    if is_target && m.gpu(&g).is_none() {
                        out.proposals.push(Proposal {
                            change: Change::DeviceTarget {
                                package: name.clone(),
                                gfx: g,
                            },
                            source: root.clone(),
                        });
                    }
                }
                (PackageRole::FamilyLibraries, Some(fam)) => {
                    let already = out.proposals.iter().any(
                        |p| matches!(&p.change, Change::Family { family, .. } if family.eq_ignore_ascii_case(&fam)),
                    );
                    if !already && m.distribution.family(&fam).is_none() && crate::version::Gfx::parse(&fam).is_err() {
                        out.proposals.push(Proposal {
                            change: Change::Family {
                                seen: name.clone(),
                                family: fam,
                            },
                            source: root.clone(),
                        });
                    }
                }
                (PackageRole::Selector | PackageRole::Core, _) => {
                    let url = format!("{root}{name}/");
                    let Some(page) = get_text(f, &url, out).await else {
                        continue;
                    };
                    let files = match page_files(&page) {
                        Ok(v) => v,
                        Err(e) => {
                            out.errors.push(SyncError { url, message: e });
                            continue;
                        }
                    };
                    out.fetched.push(url.clone());
                    for v in files.iter().filter_map(|x| file_version(x)) {
                        versions.entry((name.clone(), v)).or_insert_with(|| url.clone());
                    }
                }
                _ => {}
            }
        }
    }
    for ((package, version), source) in versions {
        let Some((line, patch)) = release_version(&version) else {
            continue;
        };
        let (Ok(lv), Ok(pv)) = (Version::parse(&line), Version::parse(&patch)) else {
            continue;
        };
        let release = m.rocm.iter().find(|r| r.version.line() == lv.line());
        let known_line = release.is_some();
        if let Some(r) = release.filter(|r| r.patches.contains(&pv) || r.version == pv) {
            let mut missing = Vec::new();
            if r.released.as_deref().is_none_or(|d| d.len() < "YYYY-MM-DD".len()) {
                missing.push("release date".to_string());
            }
            if r.gfx_list == crate::matrix::GfxList::Unknown {
                missing.push("GPU list".to_string());
            }
            let seen = out
                .proposals
                .iter()
                .any(|p| matches!(&p.change, Change::RocmIncomplete { version: v, .. } if *v == patch));
            if !missing.is_empty() && !seen {
                out.proposals.push(Proposal {
                    change: Change::RocmIncomplete {
                        package,
                        version: patch,
                        missing,
                    },
                    source,
                });
            }
            continue;
        }
        out.proposals.push(Proposal {
            change: Change::RocmWheel {
                package,
                version: patch,
                known_line,
            },
            source,
        });
    }
}

// ----------------------------------------------------------------------------------- output

fn quote_list(v: &[String]) -> String {
    let q: Vec<String> = v.iter().map(|s| format!("\"{s}\"")).collect();
    format!("[{}]", q.join(", "))
}

/// Writes the proposal as a readable diff against the matrix files.
pub fn render_diff(m: &Matrix, o: &Outcome, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "# rocmcheck matrix sync: {} proposed addition(s) to matrix data {} (nothing was written; review each line)",
        o.proposals.len(),
        m.data
    )?;
    let torch: Vec<&Proposal> = o
        .proposals
        .iter()
        .filter(|p| {
            matches!(
                p.change,
                Change::TorchRelease { .. } | Change::WheelVariant { .. } | Change::Python { .. }
            )
        })
        .collect();
    let images: Vec<&Proposal> = o
        .proposals
        .iter()
        .filter(|p| matches!(p.change, Change::ImageTag { .. }))
        .collect();
    if !torch.is_empty() {
        writeln!(out, "--- matrix/torch.yaml\n+++ matrix/torch.yaml (proposed)")?;
        for p in torch {
            match &p.change {
                Change::TorchRelease { torch, rocm, python } => writeln!(
                    out,
                    "+ wheels: torch {torch} (new release) variant rocm {rocm}, python {}\n#   source: {}",
                    quote_list(python),
                    p.source
                )?,
                Change::WheelVariant { torch, rocm, python } => writeln!(
                    out,
                    "+ wheels[torch {torch}].variants: rocm {rocm} (python {})\n#   source: {}",
                    quote_list(python),
                    p.source
                )?,
                Change::Python { torch, rocm, python } => writeln!(
                    out,
                    "+ wheels[torch {torch}].python: {} (seen for rocm {rocm})\n#   source: {}",
                    quote_list(python),
                    p.source
                )?,
                _ => {}
            }
        }
    }
    let core: Vec<&Proposal> = o
        .proposals
        .iter()
        .filter(|p| {
            matches!(
                p.change,
                Change::RocmWheel { .. }
                    | Change::RocmIncomplete { .. }
                    | Change::DeviceTarget { .. }
                    | Change::Family { .. }
            )
        })
        .collect();
    for (file, pick) in [("rocm.yaml", 0u8), ("gpus.yaml", 1), ("distribution.yaml", 2)] {
        let mine: Vec<&&Proposal> = core
            .iter()
            .filter(|p| match p.change {
                Change::RocmWheel { .. } | Change::RocmIncomplete { .. } => pick == 0,
                Change::DeviceTarget { .. } => pick == 1,
                _ => pick == 2,
            })
            .collect();
        if mine.is_empty() {
            continue;
        }
        writeln!(out, "--- matrix/{file}\n+++ matrix/{file} (proposed)")?;
        for p in mine {
            match &p.change {
                Change::RocmWheel {
                    package,
                    version,
                    known_line: false,
                } => writeln!(
                    out,
                    "+ rocm: a release for {version} (ROCm wheels: {package} {version} is on the index; rocm.yaml has no such line)\n#   source: {}",
                    p.source
                )?,
                Change::RocmWheel { package, version, .. } => writeln!(
                    out,
                    "+ rocm[{}].patches: \"{version}\" ({package} {version} is on the index)\n#   source: {}",
                    version.rsplit_once('.').map(|x| x.0).unwrap_or(version),
                    p.source
                )?,
                Change::RocmIncomplete {
                    package,
                    version,
                    missing,
                } => writeln!(
                    out,
                    "! rocm[{}]: {version} is published ({package} {version} is on the index) but its entry has no {}: read AMD's release notes and hardware table for {version}\n#   source: {}",
                    version.rsplit_once('.').map(|x| x.0).unwrap_or(version),
                    missing.join(" and no "),
                    p.source
                )?,
                Change::DeviceTarget { package, gfx } => writeln!(
                    out,
                    "+ gfx: {gfx} (device package {package} exists; gpus.yaml has no such target)\n#   source: {}",
                    p.source
                )?,
                Change::Family { seen, family } => writeln!(
                    out,
                    "+ families: {{name: {family}, gfx: [?]}} ({seen} exists; its targets are TheRock's therock_amdgpu_targets.cmake to read)\n#   source: {}",
                    p.source
                )?,
                _ => {}
            }
        }
    }
    if !images.is_empty() {
        writeln!(out, "--- matrix/images.yaml\n+++ matrix/images.yaml (proposed)")?;
        for p in images {
            if let Change::ImageTag {
                repo,
                tag,
                parsed,
                unknown_rocm,
            } = &p.change
            {
                // The `+` line is a `known:` record (tag and the page that lists it as its
                // evidence), ready to paste under the repository's `known:`.
                let fields: Vec<String> = parsed.iter().map(|(k, v)| format!("{k} {v}")).collect();
                writeln!(
                    out,
                    "+ images[{repo}].known: {}  # {}{}\n#   source: {}",
                    known_record(tag, &p.source, *unknown_rocm),
                    fields.join(", "),
                    if *unknown_rocm {
                        "; this ROCm is not in rocm.yaml"
                    } else {
                        ""
                    },
                    p.source
                )?;
            }
        }
    }
    if !o.unparsed.is_empty() {
        writeln!(out, "# tags the repository's grammar does not read (not proposed):")?;
        for u in &o.unparsed {
            writeln!(out, "#   {}:{}  ({})", u.repo, u.tag, u.source)?;
        }
    }
    Ok(())
}

/// The note of a proposed tag whose ROCm release is not in `rocm.yaml`.
const UNKNOWN_ROCM_NOTE: &str = "listed on Docker Hub; this ROCm release is not in rocm.yaml";

/// A `known:` record in YAML flow style: `{tag: "…", sources: ["…"]}`.
fn known_record(tag: &str, source: &str, unknown_rocm: bool) -> String {
    let note = if unknown_rocm {
        format!(", note: {}", yaml_str(UNKNOWN_ROCM_NOTE))
    } else {
        String::new()
    };
    format!("{{tag: {}, sources: [{}]{note}}}", yaml_str(tag), yaml_str(source))
}

fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// Writes the proposal as a YAML patch: a list of `add` operations, each with its source.
pub fn render_yaml(m: &Matrix, o: &Outcome, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(out, "# rocmcheck matrix sync proposal against matrix data {}.", m.data)?;
    writeln!(out, "# Nothing was written: apply by hand after review.")?;
    writeln!(out, "matrix_data: {}", yaml_str(&m.data))?;
    writeln!(out, "proposals:")?;
    if o.proposals.is_empty() {
        writeln!(out, "  []")?;
    }
    for p in &o.proposals {
        match &p.change {
            Change::TorchRelease { torch, rocm, python } => {
                writeln!(out, "  - file: torch.yaml\n    op: add-release")?;
                writeln!(
                    out,
                    "    value:\n      torch: [{}]\n      channel: release",
                    yaml_str(torch)
                )?;
                writeln!(out, "      python: {}", quote_list(python))?;
                writeln!(out, "      variants:\n        - rocm: {}", yaml_str(rocm))?;
            }
            Change::WheelVariant { torch, rocm, python } => {
                writeln!(
                    out,
                    "  - file: torch.yaml\n    op: add-variant\n    torch: {}",
                    yaml_str(torch)
                )?;
                writeln!(out, "    value:\n      rocm: {}", yaml_str(rocm))?;
                writeln!(out, "    python_seen: {}", quote_list(python))?;
            }
            Change::Python { torch, rocm, python } => {
                writeln!(
                    out,
                    "  - file: torch.yaml\n    op: add-python\n    torch: {}",
                    yaml_str(torch)
                )?;
                writeln!(out, "    rocm: {}\n    value: {}", yaml_str(rocm), quote_list(python))?;
            }
            Change::RocmWheel {
                package,
                version,
                known_line,
            } => {
                if *known_line {
                    writeln!(out, "  - file: rocm.yaml\n    op: add-patch")?;
                } else {
                    writeln!(out, "  - file: rocm.yaml\n    op: add-release")?;
                }
                writeln!(
                    out,
                    "    value: {}\n    package: {}",
                    yaml_str(version),
                    yaml_str(package)
                )?;
            }
            Change::RocmIncomplete {
                package,
                version,
                missing,
            } => {
                writeln!(out, "  - file: rocm.yaml\n    op: complete-release")?;
                writeln!(
                    out,
                    "    value: {}\n    package: {}\n    missing: {}",
                    yaml_str(version),
                    yaml_str(package),
                    quote_list(missing)
                )?;
            }
            Change::DeviceTarget { package, gfx } => {
                writeln!(out, "  - file: gpus.yaml\n    op: add-target")?;
                writeln!(out, "    value: {}\n    package: {}", yaml_str(gfx), yaml_str(package))?;
            }
            Change::Family { seen, family } => {
                writeln!(out, "  - file: distribution.yaml\n    op: add-family")?;
                writeln!(out, "    value: {}\n    seen: {}", yaml_str(family), yaml_str(seen))?;
            }
            Change::ImageTag {
                repo,
                tag,
                parsed,
                unknown_rocm,
            } => {
                writeln!(
                    out,
                    "  - file: images.yaml\n    op: add-known-tag\n    repo: {}",
                    yaml_str(repo)
                )?;
                // `value` is the `known:` record to add: the tag with the page as its source.
                writeln!(out, "    value:\n      tag: {}", yaml_str(tag))?;
                writeln!(out, "      sources: [{}]", yaml_str(&p.source))?;
                if *unknown_rocm {
                    writeln!(out, "      note: {}", yaml_str(UNKNOWN_ROCM_NOTE))?;
                }
                if !parsed.is_empty() {
                    writeln!(out, "    parsed:")?;
                    for (k, v) in parsed {
                        writeln!(out, "      {k}: {}", yaml_str(v))?;
                    }
                }
            }
        }
        writeln!(out, "    source: {}", yaml_str(&p.source))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_names() {
        let w = parse_wheel("torch-2.9.0+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl").unwrap();
        assert_eq!(
            (w.torch.as_str(), w.rocm.as_str(), w.python.as_str()),
            ("2.9.0", "6.4", "3.12")
        );
        let w = parse_wheel("torch-2.9.0+rocm6.4-cp313-cp313t-manylinux_2_28_x86_64.whl").unwrap();
        assert_eq!(w.python, "3.13t");
        let w = parse_wheel("torch-2.6.0+rocm6.2.4-cp310-cp310-linux_x86_64.whl").unwrap();
        assert_eq!(w.rocm, "6.2.4");
        assert!(parse_wheel("torch-2.9.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl").is_none());
        assert!(parse_wheel("torch-2.9.0+rocm6.4-cp312-cp312-manylinux_2_28_aarch64.whl").is_none());
        assert!(parse_wheel("torchvision-0.24.0+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl").is_none());
    }

    #[test]
    fn index_page_reads_href_when_text_is_not_a_file_name() {
        let html = r#"<!DOCTYPE html><html><body><h1>Links for torch</h1>
<a href="/whl/rocm6.4/torch-2.8.0%2Brocm6.4-cp311-cp311-manylinux_2_28_x86_64.whl#sha256=ab">link</a><br/>
</body></html>"#;
        let w = parse_index_page(html).unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].python, "3.11");
        assert!(
            parse_index_page(&html[..html.len() - 10])
                .unwrap_err()
                .contains("truncated")
        );
        assert!(parse_index_page("{\"not\": \"html\"}").is_err());
    }

    #[test]
    fn origin_of_urls() {
        assert_eq!(origin("http://127.0.0.1:80/v2/x?page=2"), "http://127.0.0.1:80");
        assert_eq!(origin("https://hub.docker.com"), "https://hub.docker.com");
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%2Bb%2"), "a+b%2");
    }
}
