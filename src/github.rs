//! Reads an issue's body and comments through the GitHub REST API, for `triage --github-issue`.
//!
//! A side-effecting module beside [`crate::sync`]: it only fetches text and never judges. It
//! sends `GITHUB_TOKEN` when given, follows `Link: rel="next"` pagination, waits out a short
//! `Retry-After` (secondary rate limit) once, and turns an exhausted primary rate limit
//! (`x-ratelimit-remaining: 0`) into an error that says when it resets. Comments that carry
//! rocmcheck's own reply marker are skipped, so a bot never triages its own answer.
//! API: <https://docs.github.com/en/rest/issues/issues#get-an-issue>,
//! <https://docs.github.com/en/rest/issues/comments#list-issue-comments>,
//! <https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api>.

use crate::triage::Input;
use serde::Deserialize;
use std::time::Duration;

/// `OWNER/REPO#N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueRef {
    /// Owner.
    pub owner: String,
    /// Repository.
    pub repo: String,
    /// Issue number.
    pub number: u64,
}

impl IssueRef {
    /// Parses `OWNER/REPO#N` (also `https://github.com/OWNER/REPO/issues/N`).
    pub fn parse(s: &str) -> Result<IssueRef, String> {
        let bad = || format!("`{s}`: expected OWNER/REPO#N, e.g. ROCm/ROCm#1234");
        let t = s.trim();
        let (path, num) = if let Some(rest) = t.strip_prefix("https://github.com/") {
            let (p, n) = rest.split_once("/issues/").ok_or_else(bad)?;
            (p, n.trim_end_matches('/'))
        } else {
            t.split_once('#').ok_or_else(bad)?
        };
        let (owner, repo) = path.split_once('/').ok_or_else(bad)?;
        let ok = |x: &str| !x.is_empty() && x.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !ok(owner) || !ok(repo) {
            return Err(bad());
        }
        let number = num.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(bad)?;
        Ok(IssueRef {
            owner: owner.into(),
            repo: repo.into(),
            number,
        })
    }
}

impl std::fmt::Display for IssueRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}#{}", self.owner, self.repo, self.number)
    }
}

#[derive(Deserialize)]
struct Issue {
    body: Option<String>,
}

#[derive(Deserialize)]
struct Comment {
    id: u64,
    body: Option<String>,
}

/// Longest `Retry-After` waited before giving up.
const MAX_WAIT: Duration = Duration::from_secs(60);
/// Pages of comments read at most (100 each): a thread of thousands of comments is read in a
/// bounded time, and the reply says it was cut.
pub const MAX_PAGES: usize = 30;
/// Bytes of response bodies read at most (issue and comment pages together).
pub const MAX_BYTES: usize = 16 << 20;

/// What [`issue_inputs`] read.
#[derive(Debug, Clone, Default)]
pub struct Fetched {
    /// The issue body and the comments, in order.
    pub inputs: Vec<Input>,
    /// Set when the thread was longer than [`MAX_PAGES`] / [`MAX_BYTES`]: says what was read.
    pub cut: Option<String>,
}

/// Fetches the issue body and its comments as triage inputs, within [`MAX_PAGES`] and
/// [`MAX_BYTES`]. `Link: rel="next"` is followed only to the API's own origin, so the token
/// is never sent elsewhere.
pub async fn issue_inputs(api: &str, issue: &IssueRef, token: Option<&str>) -> Result<Fetched, String> {
    let client = crate::http::client(&crate::http::ClientOptions {
        purpose: "triage",
        timeout: Duration::from_secs(30),
        connect_timeout: None,
        redirects: None,
    })?;
    let api = api.trim_end_matches('/');
    let base = format!("{api}/repos/{}/{}/issues/{}", issue.owner, issue.repo, issue.number);
    let (body, _) = get(&client, &base, token).await?;
    let i: Issue = serde_json::from_slice(&body).map_err(|e| format!("{base}: not an issue object: {e}"))?;
    let mut out = vec![Input {
        name: issue.to_string(),
        text: i.body.unwrap_or_default(),
    }];
    let origin = origin_of(api);
    let mut bytes = body.len();
    let mut url = Some(format!("{base}/comments?per_page=100"));
    let mut pages = 0;
    let mut comments = 0usize;
    let mut cut = None;
    while let Some(u) = url.take() {
        if pages == MAX_PAGES || bytes >= MAX_BYTES {
            cut = Some(format!(
                "the thread is longer than rocmcheck reads: the issue and its first {comments} comments \
                 ({pages} pages, {} KiB) were read, later comments were not (limits: {MAX_PAGES} pages of 100, \
                 {} MiB)",
                bytes >> 10,
                MAX_BYTES >> 20
            ));
            break;
        }
        if origin_of(&u) != origin {
            return Err(format!(
                "{base}: the next page of comments is on another host ({u}); not followed"
            ));
        }
        pages += 1;
        let (body, next) = get(&client, &u, token).await?;
        bytes += body.len();
        let cs: Vec<Comment> =
            serde_json::from_slice(&body).map_err(|e| format!("{u}: not a list of comments: {e}"))?;
        for c in cs {
            let text = c.body.unwrap_or_default();
            if text.contains(crate::report::markdown::TRIAGE_MARKER) {
                continue;
            }
            comments += 1;
            out.push(Input {
                name: format!("{issue} comment {}", c.id),
                text,
            });
        }
        url = next;
    }
    Ok(Fetched { inputs: out, cut })
}

/// `scheme://host[:port]` of a URL (lower case), for the same-origin check.
fn origin_of(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    format!("{}://{}", scheme.to_ascii_lowercase(), host.to_ascii_lowercase())
}

/// GET with the API headers; returns the body and the `rel="next"` link.
async fn get(client: &reqwest::Client, url: &str, token: Option<&str>) -> Result<(Vec<u8>, Option<String>), String> {
    let mut waited = false;
    loop {
        let mut req = client
            .get(url)
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28");
        if let Some(t) = token.filter(|t| !t.is_empty()) {
            req = req.bearer_auth(t);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| format!("{url}: request failed: {}", crate::sync::chain(&e)))?;
        let status = resp.status();
        let h = resp.headers();
        let header = |k: &str| h.get(k).and_then(|v| v.to_str().ok()).map(str::to_string);
        if status.is_success() {
            let next = header("link").and_then(|l| next_link(&l));
            let body = resp
                .bytes()
                .await
                .map_err(|e| format!("{url}: reading the body: {}", crate::sync::chain(&e)))?;
            return Ok((body.to_vec(), next));
        }
        let remaining = header("x-ratelimit-remaining");
        let retry_after = header("retry-after").and_then(|v| v.trim().parse::<u64>().ok());
        if (status.as_u16() == 403 || status.as_u16() == 429) && remaining.as_deref() == Some("0") {
            let reset = header("x-ratelimit-reset").and_then(|v| v.parse::<u64>().ok());
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let when = match reset {
                Some(r) => format!("; it resets at {r} (in {} s)", r.saturating_sub(now)),
                None => String::new(),
            };
            return Err(format!(
                "{url}: GitHub API rate limit exhausted (limit {}){when}; set GITHUB_TOKEN for a higher limit",
                header("x-ratelimit-limit").unwrap_or_else(|| "?".into())
            ));
        }
        if let Some(s) = retry_after
            && (status.as_u16() == 403 || status.as_u16() == 429)
        {
            let d = Duration::from_secs(s);
            if !waited && d <= MAX_WAIT {
                waited = true;
                tokio::time::sleep(d).await;
                continue;
            }
            return Err(format!("{url}: HTTP {status}: rate limited, retry after {s} s"));
        }
        let msg = resp
            .bytes()
            .await
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_string))
            .unwrap_or_default();
        return Err(format!(
            "{url}: HTTP {status}{}",
            if msg.is_empty() {
                String::new()
            } else {
                format!(": {msg}")
            }
        ));
    }
}

/// The `rel="next"` URL of a `Link` header.
fn next_link(link: &str) -> Option<String> {
    link.split(',').find_map(|part| {
        let (u, rel) = part.split_once(';')?;
        rel.contains("rel=\"next\"")
            .then(|| u.trim().trim_start_matches('<').trim_end_matches('>').to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_refs() {
        let r = IssueRef::parse("ROCm/ROCm#4321").unwrap();
        assert_eq!((r.owner.as_str(), r.repo.as_str(), r.number), ("ROCm", "ROCm", 4321));
        assert_eq!(
            IssueRef::parse("https://github.com/ollama/ollama/issues/7/")
                .unwrap()
                .number,
            7
        );
        for bad in ["ROCm#1", "a/b#x", "a/b#0", "a b/c#1", "a/b"] {
            assert!(IssueRef::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn link_header() {
        let l = "<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2>; rel=\"next\", <https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=3>; rel=\"last\"";
        assert_eq!(
            next_link(l).as_deref(),
            Some("https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2")
        );
        assert_eq!(next_link("<x>; rel=\"prev\""), None);
    }

    #[test]
    fn origins() {
        assert_eq!(
            origin_of("https://API.github.com/repos/a?x=1"),
            "https://api.github.com"
        );
        assert_eq!(origin_of("http://127.0.0.1:80/x"), "http://127.0.0.1:80");
        assert_ne!(origin_of("http://127.0.0.1:81/x"), origin_of("http://127.0.0.1:80"));
    }
}
