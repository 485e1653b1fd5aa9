//! `matrix sync` against a local HTTP server (127.0.0.1 only) serving the pages in
//! `tests/fixtures/sync/` (see its README), and against broken responses.

use rocmcheck::matrix::{IndexLayout, Matrix};
use rocmcheck::sync::{self, Change, Options, Outcome};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server answers.
enum Reply {
    /// A complete response.
    Full {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    },
    /// Declares `declared` bytes, sends `body`, closes.
    Truncated { declared: usize, body: Vec<u8> },
    /// No Content-Length: the body ends when the connection closes.
    Unsized { body: Vec<u8> },
}

fn ok(body: impl Into<Vec<u8>>, ctype: &str) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("Content-Type", ctype.to_string())],
        body: body.into(),
    }
}

fn status(code: u16) -> Reply {
    Reply::Full {
        status: code,
        headers: vec![],
        body: format!("status {code}").into_bytes(),
    }
}

type Handler = dyn Fn(&str, &str, usize) -> Reply + Send + Sync;

struct Server {
    base: String,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl Server {
    /// Starts a server on 127.0.0.1; `handler(base, path_and_query, nth_hit)`.
    fn start(handler: Box<Handler>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hits: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let (h, b, handler) = (hits.clone(), base.clone(), Arc::new(handler));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (h, b, handler) = (h.clone(), b.clone(), handler.clone());
                std::thread::spawn(move || serve(stream, &b, &h, &*handler));
            }
        });
        Server { base, hits }
    }

    fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

fn serve(mut s: TcpStream, base: &str, hits: &Mutex<HashMap<String, usize>>, handler: &Handler) {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = Vec::new();
    let mut buf = [0u8; 4096];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => req.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&req);
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let n = {
        let mut h = hits.lock().unwrap();
        let c = h.entry(path.clone()).or_default();
        *c += 1;
        *c
    };
    let reason = |c: u16| match c {
        200 => "OK",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Status",
    };
    let mut out = Vec::new();
    match handler(base, &path, n) {
        Reply::Full { status, headers, body } => {
            write!(
                out,
                "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                reason(status),
                body.len()
            )
            .unwrap();
            for (k, v) in headers {
                write!(out, "{k}: {v}\r\n").unwrap();
            }
            out.extend_from_slice(b"\r\n");
            out.extend_from_slice(&body);
        }
        Reply::Truncated { declared, body } => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            out.extend_from_slice(&body);
        }
        Reply::Unsized { body } => {
            // Headers first, then the body in pieces: the client cannot know its size.
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
            let _ = s.flush();
            for piece in body.chunks(1024) {
                std::thread::sleep(Duration::from_millis(20));
                let _ = s.write_all(piece);
                let _ = s.flush();
            }
        }
    }
    let _ = s.write_all(&out);
    let _ = s.flush();
    let _ = s.shutdown(std::net::Shutdown::Both);
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sync")
            .join(name),
    )
    .unwrap()
}

/// The recorded upstream: wheel pages and Docker Hub tag pages; everything else is 404.
fn upstream(base: &str, path: &str, _n: usize) -> Reply {
    let file = match path {
        "/whl/rocm6.4/torch/" => "whl/rocm6.4.html",
        "/whl/rocm7.2/torch/" => "whl/rocm7.2.html",
        "/whl/rocm7.3/torch/" => "whl/rocm7.3.html",
        "/v2/repositories/rocm/dev-ubuntu-24.04/tags?page_size=100" => "hub/dev-ubuntu-24.04.page1.json",
        "/v2/repositories/rocm/dev-ubuntu-24.04/tags?page=2&page_size=100" => "hub/dev-ubuntu-24.04.page2.json",
        "/v2/repositories/rocm/dev-ubuntu-22.04/tags?page_size=100" => "hub/dev-ubuntu-22.04.json",
        "/v2/repositories/rocm/pytorch/tags?page_size=100" => "hub/pytorch.json",
        _ => return status(404),
    };
    let ctype = if file.ends_with(".json") {
        "application/json"
    } else {
        "text/html"
    };
    ok(fixture(file).replace("{base}", base), ctype)
}

fn options(server: &Server) -> Options {
    let mut o = Options::new(Matrix::embedded());
    o.base_url = format!("{}/whl", server.base);
    o.docker_hub_url = server.base.clone();
    o.timeout = Duration::from_secs(10);
    o.retries = 2;
    o.backoff = Duration::from_millis(10);
    // AMD's indexes, served by the same server (404 unless a test's handler records them)
    o.amd_indexes = vec![
        (format!("{}/amd/whl-multi-arch/", server.base), IndexLayout::MultiArch),
        (format!("{}/amd/whl/", server.base), IndexLayout::PerFamily),
    ];
    o
}

fn run(o: &Options) -> Outcome {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(sync::sync(Matrix::embedded(), o))
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn proposes_exactly_what_the_recorded_pages_imply() {
    let server = Server::start(Box::new(upstream));
    let o = run(&options(&server));
    assert!(o.errors.is_empty(), "{:?}", o.errors);
    let b = &server.base;
    let tag = |repo: &str, t: &str, parsed: &[(&str, &str)], unknown: bool, page: &str| sync::Proposal {
        change: Change::ImageTag {
            repo: repo.into(),
            tag: t.into(),
            parsed: parsed.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            unknown_rocm: unknown,
        },
        source: format!("{b}/v2/repositories/{repo}/tags?{page}"),
    };
    let p1 = "page_size=100";
    let p2 = "page=2&page_size=100";
    let mut expected = vec![
        sync::Proposal {
            change: Change::TorchRelease {
                torch: "2.13.1".into(),
                rocm: "7.2".into(),
                python: strs(&["3.10", "3.11", "3.12", "3.13", "3.14"]),
            },
            source: format!("{b}/whl/rocm7.2/torch/"),
        },
        sync::Proposal {
            change: Change::WheelVariant {
                torch: "2.13.0".into(),
                rocm: "7.3".into(),
                python: strs(&["3.10", "3.11", "3.12", "3.13", "3.14"]),
            },
            source: format!("{b}/whl/rocm7.3/torch/"),
        },
        sync::Proposal {
            change: Change::Python {
                torch: "2.13.0".into(),
                rocm: "7.2".into(),
                python: strs(&["3.15"]),
            },
            source: format!("{b}/whl/rocm7.2/torch/"),
        },
        tag("rocm/dev-ubuntu-24.04", "7.3-complete", &[("rocm", "7.3")], true, p1),
        tag("rocm/dev-ubuntu-24.04", "7.3", &[("rocm", "7.3")], true, p1),
        tag(
            "rocm/dev-ubuntu-24.04",
            "7.2.3-complete",
            &[("rocm", "7.2.3")],
            false,
            p2,
        ),
        tag(
            "rocm/dev-ubuntu-22.04",
            "6.4.2-complete",
            &[("rocm", "6.4.2")],
            false,
            p1,
        ),
        tag(
            "rocm/pytorch",
            "rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.11.0",
            &[("rocm", "7.2.4"), ("python", "3.12"), ("torch", "2.11.0")],
            false,
            p1,
        ),
        tag(
            "rocm/pytorch",
            "rocm7.2.4_ubuntu22.04_py3.10_pytorch_release_2.9.1",
            &[("rocm", "7.2.4"), ("python", "3.10"), ("torch", "2.9.1")],
            false,
            p1,
        ),
    ];
    expected.sort();
    assert_eq!(o.proposals, expected);
    let unparsed: Vec<(&str, &str)> = o.unparsed.iter().map(|u| (u.repo.as_str(), u.tag.as_str())).collect();
    assert_eq!(
        unparsed,
        [
            ("rocm/dev-ubuntu-24.04", "7.3-complete-rc1"),
            (
                "rocm/pytorch",
                "rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.11.0_triton3.5"
            )
        ]
    );
    // Both tag pages were read once; the rocm6.4 page (all known) was read and proposed nothing.
    assert_eq!(
        server.hits("/v2/repositories/rocm/dev-ubuntu-24.04/tags?page=2&page_size=100"),
        1
    );
    assert_eq!(server.hits("/whl/rocm6.4/torch/"), 1);
    assert!(o.fetched.contains(&format!("{b}/whl/rocm6.4/torch/")));
}

#[test]
fn cli_prints_a_diff_with_sources_and_yaml_that_parses() {
    let server = Server::start(Box::new(upstream));
    let bin = env!("CARGO_BIN_EXE_rocmcheck");
    let args = |fmt: &str| {
        let o = std::process::Command::new(bin)
            .args(["matrix", "sync", "--base-url"])
            .arg(format!("{}/whl", server.base))
            .args(["--docker-hub-url", &server.base, "--backoff-ms", "10", "--format", fmt])
            // AMD's indexes are not recorded for this test: a path the server answers 404
            .args(["--amd-index-url", &format!("{}/absent/", server.base)])
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    let (code, out, err) = args("diff");
    assert_eq!(code, Some(1), "proposals exit 1\n{out}\n{err}");
    assert!(
        err.contains("9 proposal(s), 0 error(s); the matrix was not changed"),
        "{err}"
    );
    assert!(
        out.contains("+ wheels[torch 2.13.0].python: [\"3.15\"] (seen for rocm 7.2)"),
        "{out}"
    );
    // Every proposed line is followed by its source.
    let lines: Vec<&str> = out.lines().collect();
    for (i, l) in lines.iter().enumerate().filter(|(_, l)| l.starts_with("+ ")) {
        assert!(
            lines
                .get(i + 1)
                .is_some_and(|n| n.starts_with("#   source: http://127.0.0.1:")),
            "{l} has no source line"
        );
    }
    // Every proposed base tag is a `known:` record (YAML flow mapping) citing its page.
    let records: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("+ images["))
        .map(|l| l.split_once("].known: ").unwrap().1)
        .map(|l| l.split_once("  # ").unwrap().0)
        .collect();
    assert_eq!(records.len(), 6, "{out}");
    for r in records {
        let v: serde_yaml::Value = serde_yaml::from_str(r).unwrap_or_else(|e| panic!("{r}: {e}"));
        assert!(v["tag"].as_str().is_some(), "{r}");
        assert!(
            v["sources"][0]
                .as_str()
                .is_some_and(|s| s.starts_with(&format!("{}/v2/repositories/", server.base))),
            "{r}"
        );
    }
    let data = &Matrix::embedded().data;
    insta::assert_snapshot!(
        out.replace(&server.base, "http://127.0.0.1:PORT")
            .replace(&format!("matrix data {data}"), "matrix data DATA")
    );
    let (code, yaml, _) = args("yaml");
    assert_eq!(code, Some(1));
    let v: serde_yaml::Value = serde_yaml::from_str(&yaml).unwrap();
    let props = v["proposals"].as_sequence().unwrap();
    assert_eq!(props.len(), 9);
    assert!(
        props
            .iter()
            .all(|p| p["source"].as_str().unwrap().starts_with(&server.base))
    );
    // The matrix files were not touched: sync never writes.
    assert!(yaml.contains("Nothing was written"));
}

fn one_repo(server: &Server) -> Options {
    let mut o = options(server);
    o.wheels = false;
    o.rocm_wheels = false;
    o.repos = vec!["rocm/dev-ubuntu-22.04".into()];
    o
}

const TAGS_22: &str = "/v2/repositories/rocm/dev-ubuntu-22.04/tags?page_size=100";

#[test]
fn truncated_body_is_retried_then_reported() {
    let server = Server::start(Box::new(|_, _, _| Reply::Truncated {
        declared: 4000,
        body: br#"{"count": 4, "next": null, "results": [{"name": "6.4"#.to_vec(),
    }));
    let o = run(&one_repo(&server));
    assert_eq!(o.errors.len(), 1, "{:?}", o.errors);
    let msg = &o.errors[0].message;
    assert!(msg.contains("truncated response"), "{msg}");
    assert!(msg.contains("gave up after 3 attempts"), "{msg}");
    assert_eq!(server.hits(TAGS_22), 3);
    assert!(o.proposals.is_empty());
}

#[test]
fn truncated_json_without_length_is_a_clear_error() {
    let server = Server::start(Box::new(|_, _, _| Reply::Unsized {
        body: br#"{"count": 4, "next": null, "results": [{"name": "6.4.3-complete"}, {"na"#.to_vec(),
    }));
    let o = run(&one_repo(&server));
    assert_eq!(o.errors.len(), 1);
    assert!(
        o.errors[0].message.starts_with("truncated JSON at line 1"),
        "{}",
        o.errors[0].message
    );
}

#[test]
fn truncated_html_page_is_a_clear_error() {
    let server = Server::start(Box::new(|b, p, n| {
        if p == "/whl/rocm7.2/torch/" {
            let full = fixture("whl/rocm7.2.html");
            Reply::Unsized {
                body: full.as_bytes()[..full.len() / 2].to_vec(),
            }
        } else {
            upstream(b, p, n)
        }
    }));
    let mut o = options(&server);
    o.images = false;
    let out = run(&o);
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert!(out.errors[0].url.ends_with("/whl/rocm7.2/torch/"));
    assert!(
        out.errors[0].message.contains("does not end with </html>"),
        "{}",
        out.errors[0].message
    );
    // The other pages were still read: nothing from rocm7.2, nothing new on rocm6.4.
    assert!(out.proposals.is_empty(), "{:?}", out.proposals);
    assert_eq!(server.hits("/whl/rocm6.4/torch/"), 1);
}

#[test]
fn malformed_json_names_line_and_column() {
    let server = Server::start(Box::new(|_, _, _| {
        ok(
            "{\"count\": 1,\n \"results\": [{\"name\": \"6.4.3-complete\",}]}",
            "application/json",
        )
    }));
    let o = run(&one_repo(&server));
    assert_eq!(o.errors.len(), 1);
    let m = &o.errors[0].message;
    assert!(m.starts_with("malformed JSON at line 2 column"), "{m}");
    assert_eq!(server.hits(TAGS_22), 1, "a malformed body is not retried");
    let server = Server::start(Box::new(|_, _, _| {
        ok("{\"count\": 1, \"results\": {\"name\": \"x\"}}", "application/json")
    }));
    let o = run(&one_repo(&server));
    assert!(
        o.errors[0].message.starts_with("unexpected JSON shape"),
        "{}",
        o.errors[0].message
    );
}

#[test]
fn oversized_responses_are_refused() {
    let big = format!(
        "{{\"count\": 1, \"next\": null, \"results\": [{{\"name\": \"{}\"}}]}}",
        "x".repeat(5000)
    );
    let b2 = big.clone();
    let declared = format!("Content-Length {} bytes exceeds the 4096-byte cap", big.len());
    let server = Server::start(Box::new(move |_, _, _| ok(b2.clone(), "application/json")));
    let mut o = one_repo(&server);
    o.max_bytes = 4096;
    let out = run(&o);
    assert!(out.errors[0].message.contains(&declared), "{}", out.errors[0].message);
    assert_eq!(server.hits(TAGS_22), 1, "an oversized body is not retried");
    // Without Content-Length the cap holds while streaming.
    let server = Server::start(Box::new(move |_, _, _| Reply::Unsized {
        body: big.clone().into_bytes(),
    }));
    let mut o = one_repo(&server);
    o.max_bytes = 4096;
    let out = run(&o);
    assert!(
        out.errors[0].message.contains("more than the 4096-byte cap"),
        "{}",
        out.errors[0].message
    );
}

#[test]
fn rate_limit_then_success() {
    let server = Server::start(Box::new(|b, p, n| {
        if n == 1 {
            Reply::Full {
                status: 429,
                headers: vec![("Retry-After", "1".into())],
                body: b"{\"message\": \"Too Many Requests\"}".to_vec(),
            }
        } else {
            upstream(b, p, n)
        }
    }));
    let started = std::time::Instant::now();
    let o = run(&one_repo(&server));
    assert!(o.errors.is_empty(), "{:?}", o.errors);
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "Retry-After was honoured"
    );
    assert_eq!(server.hits(TAGS_22), 2);
    let tags: Vec<String> = o
        .proposals
        .iter()
        .filter_map(|p| match &p.change {
            Change::ImageTag { tag, .. } => Some(tag.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(tags, ["6.4.2-complete"]);
}

#[test]
fn rate_limit_longer_than_the_limit_is_not_waited_for() {
    let server = Server::start(Box::new(|_, _, _| Reply::Full {
        status: 429,
        headers: vec![("Retry-After", "3600".into())],
        body: vec![],
    }));
    let o = run(&one_repo(&server));
    assert!(
        o.errors[0].message.contains("Retry-After 3600 s is longer"),
        "{}",
        o.errors[0].message
    );
    assert_eq!(server.hits(TAGS_22), 1);
}

#[test]
fn server_error_forever_gives_up_after_the_retries() {
    let server = Server::start(Box::new(|_, _, _| status(500)));
    let o = run(&one_repo(&server));
    assert_eq!(o.errors.len(), 1);
    assert_eq!(
        o.errors[0].message,
        "HTTP 500 Internal Server Error (gave up after 3 attempts)"
    );
    assert_eq!(server.hits(TAGS_22), 3);
    assert!(o.proposals.is_empty());
}

#[test]
fn next_link_to_another_host_is_not_followed() {
    let server = Server::start(Box::new(|_, _, _| {
        ok(
            r#"{"count": 200, "next": "http://192.0.2.1/v2/repositories/rocm/dev-ubuntu-22.04/tags?page=2", "results": [{"name": "6.4.2-complete"}]}"#,
            "application/json",
        )
    }));
    let o = run(&one_repo(&server));
    assert!(
        o.errors[0]
            .message
            .contains("refusing to follow `next` to another host"),
        "{}",
        o.errors[0].message
    );
    // What was read before is still proposed.
    assert_eq!(o.proposals.len(), 1);
}

/// Runs `matrix sync --format yaml` against the recorded pages with the matrix in `dir`
/// (embedded when `None`) and returns the parsed patch.
fn sync_yaml(server: &Server, dir: Option<&Path>) -> serde_yaml::Value {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"));
    if let Some(d) = dir {
        cmd.arg("--matrix").arg(d);
    }
    let o = cmd
        .args(["matrix", "sync", "--base-url"])
        .arg(format!("{}/whl", server.base))
        .args([
            "--docker-hub-url",
            &server.base,
            "--backoff-ms",
            "10",
            "--format",
            "yaml",
        ])
        .args(["--amd-index-url", &format!("{}/absent/", server.base)])
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_yaml::from_str(&out).unwrap()
}

#[test]
fn base_tag_proposals_are_known_records_that_apply_and_validate() {
    let server = Server::start(Box::new(upstream));
    let patch = sync_yaml(&server, None);
    let tags: Vec<&serde_yaml::Value> = patch["proposals"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|p| p["op"].as_str() == Some("add-known-tag"))
        .collect();
    assert_eq!(tags.len(), 6, "{patch:?}");
    // Each value is a `known:` record whose evidence is the Docker Hub page that lists the tag.
    let page1 = format!(
        "{}/v2/repositories/rocm/dev-ubuntu-24.04/tags?page_size=100",
        server.base
    );
    let page2 = format!(
        "{}/v2/repositories/rocm/dev-ubuntu-24.04/tags?page=2&page_size=100",
        server.base
    );
    let record = |tag: &str| {
        tags.iter()
            .find(|p| p["value"]["tag"].as_str() == Some(tag))
            .unwrap_or_else(|| panic!("no proposal for {tag}"))["value"]
            .clone()
    };
    assert_eq!(record("7.2.3-complete")["sources"][0].as_str(), Some(page2.as_str()));
    assert_eq!(record("7.3")["sources"][0].as_str(), Some(page1.as_str()));
    assert!(
        record("7.3")["note"]
            .as_str()
            .is_some_and(|n| n.contains("not in rocm.yaml")),
        "a tag of an unknown ROCm release says so"
    );
    assert!(record("7.2.3-complete").get("note").is_none());

    // Apply every record under its repository's `known:` in a copy of the matrix.
    let tmp = tempfile::tempdir().unwrap();
    for name in rocmcheck::matrix::validate::FILES {
        std::fs::copy(Path::new("matrix").join(name), tmp.path().join(name)).unwrap();
    }
    let images = tmp.path().join("images.yaml");
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&std::fs::read_to_string(&images).unwrap()).unwrap();
    for p in &tags {
        let repo = p["repo"].as_str().unwrap();
        let entry = doc["repositories"]
            .as_sequence_mut()
            .unwrap()
            .iter_mut()
            .find(|r| r["repo"].as_str() == Some(repo))
            .unwrap();
        entry["known"].as_sequence_mut().unwrap().push(p["value"].clone());
    }
    std::fs::write(&images, serde_yaml::to_string(&doc).unwrap()).unwrap();
    // The patched matrix validates (records fit the schema and the grammar, no duplicates) ...
    let m = Matrix::from_dir(tmp.path()).unwrap_or_else(|d| panic!("{d:?}"));
    let ubuntu24 = m.images.iter().find(|r| r.repo == "rocm/dev-ubuntu-24.04").unwrap();
    assert!(ubuntu24.is_known("7.2.3-complete") && ubuntu24.is_known("7.3"));
    // ... and a second sync against it proposes no base tag again.
    let again = sync_yaml(&server, Some(tmp.path()));
    let left: Vec<&serde_yaml::Value> = again["proposals"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|p| p["op"].as_str() == Some("add-known-tag"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Offline, `matrix sync` stops at the first host name that cannot be resolved (rather than
/// trying every source, each after several attempts), with one error that says so, and shows a
/// progress line per source on stderr.
///
/// `a..b` cannot be resolved and costs no network traffic: glibc refuses a name with an empty
/// label before it builds a DNS query (checked here: the UDP datagrams sent, counted in
/// /proc/net/snmp, did not change over `getent hosts a..b`).
#[test]
fn offline_sync_stops_at_the_first_unresolvable_host_with_one_message() {
    let t = std::time::Instant::now();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args([
            "matrix",
            "sync",
            "--base-url",
            "http://a..b/whl",
            "--docker-hub-url",
            "http://a..b",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "one error, not one per source:\n{err}");
    assert!(errors[0].contains("cannot resolve the host name a..b"), "{err}");
    assert!(errors[0].contains("offline, or no DNS?"), "{err}");
    assert!(errors[0].contains("failed to lookup address"), "the cause: {err}");
    assert!(!errors[0].contains("gave up after"), "not retried: {err}");
    let progress: Vec<&str> = err.lines().filter(|l| l.starts_with("matrix sync: reading ")).collect();
    assert_eq!(progress.len(), 1, "{err}");
    assert!(err.contains("1 error(s); the matrix was not changed"), "{err}");
}

#[test]
fn sync_shows_one_progress_line_per_source_on_stderr() {
    let server = Server::start(Box::new(upstream));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["matrix", "sync", "--base-url"])
        .arg(format!("{}/whl", server.base))
        .args(["--docker-hub-url", &server.base, "--backoff-ms", "1"])
        .args(["--amd-index-url", &format!("{}/absent/", server.base)])
        .args(["--amd-family-index-url", &format!("{}/absent-family/", server.base)])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let progress: Vec<&str> = err.lines().filter(|l| l.starts_with("matrix sync: reading ")).collect();
    let total = progress.len();
    assert!(total > 3, "{err}");
    // the first lines' total is what is known before the image tags name more ROCm lines
    assert!(progress[0].starts_with("matrix sync: reading 1/"), "{err}");
    assert!(
        progress[0].contains(&format!(": {}/v2/repositories/", server.base)),
        "{err}"
    );
    assert!(
        progress[total - 1].starts_with(&format!(
            "matrix sync: reading {total}/{total}: {}/whl/rocm",
            server.base
        )),
        "{err}"
    );
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .all(|l| !l.starts_with("matrix sync: reading"))
    );
}

/// The Core SDK era's pages (`tests/fixtures/sync/coresdk/`, written by its `make.py` in PEP 503
/// form, each page's model cited there): download.pytorch.org's `whl/rocm7.14/` root and its
/// mirrored ROCm project pages (absolute links to repo.amd.com), AMD's multi-arch index (relative
/// `../<wheel>` links) and per-family indexes. Paths without a recorded page answer 404.
fn coresdk_upstream(_base: &str, path: &str, _n: usize) -> Reply {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sync/coresdk");
    let rel = match path.strip_prefix("/whl/") {
        Some(r) => format!("pytorch/{r}"),
        None => path.trim_start_matches('/').to_string(),
    };
    let rel = rel.trim_end_matches('/');
    for file in [format!("{rel}.html"), format!("{rel}/index.html")] {
        if let Ok(t) = std::fs::read_to_string(dir.join(&file)) {
            return ok(t, "text/html");
        }
    }
    status(404)
}

/// The matrix data as it stood on 2026-11-23, before torch 2.14.1 and ROCm 10.1.0's date and GPU
/// list were recorded (`tests/fixtures/matrix-2026-11-23/`).
fn matrix_2026_11_23() -> Matrix {
    Matrix::from_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/matrix-2026-11-23"))
        .expect("the frozen matrix validates")
}

/// A sync run of the 2026-11-23 data against the recorded pages proposes what it lacked: torch
/// 2.14.1 on both lines release/2.14 builds, ROCm 10.1.0 (published, its entry without a date or
/// GPU list), and the rest of the Core SDK era's shapes.
#[test]
fn core_sdk_indexes_propose_what_the_matrix_lacks() {
    let server = Server::start(Box::new(coresdk_upstream));
    let stale = matrix_2026_11_23();
    let mut o = options(&server);
    o.images = false;
    o.amd_indexes
        .push((format!("{}/amd/whl-next/", server.base), IndexLayout::MultiArch));
    let out = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(sync::sync(&stale, &o));
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let b = &server.base;
    let p = |change: Change, src: &str| sync::Proposal {
        change,
        source: format!("{b}{src}"),
    };
    let mut expected = vec![
        // torch 2.14.1 on whl/rocm7.14 and whl/rocm7.2: the release the 11-23 data lacked
        p(
            Change::TorchRelease {
                torch: "2.14.1".into(),
                rocm: "7.14".into(),
                python: strs(&["3.10", "3.11", "3.12", "3.13", "3.14"]),
            },
            "/whl/rocm7.14/torch/",
        ),
        p(
            Change::TorchRelease {
                torch: "2.14.1".into(),
                rocm: "7.2".into(),
                python: strs(&["3.10", "3.11", "3.12", "3.13", "3.14"]),
            },
            "/whl/rocm7.2/torch/",
        ),
        // ROCm 10.1.0 is published; the 11-23 entry had neither a day of release nor a GPU list
        p(
            Change::RocmIncomplete {
                package: "rocm".into(),
                version: "10.1.0".into(),
                missing: strs(&["release date", "GPU list"]),
            },
            "/amd/whl-next/rocm/",
        ),
        // device packages for a target gpus.yaml lacks: the PyTorch mirror's and AMD's split torch
        p(
            Change::DeviceTarget {
                package: "rocm-sdk-device-gfx1250".into(),
                gfx: "gfx1250".into(),
            },
            "/whl/rocm7.14/",
        ),
        p(
            Change::DeviceTarget {
                package: "amd-torch-device-gfx1250".into(),
                gfx: "gfx1250".into(),
            },
            "/amd/whl-multi-arch/",
        ),
        // ROCm wheel versions rocm.yaml does not know: a patch of a known line, a new line
        p(
            Change::RocmWheel {
                package: "rocm-sdk-core".into(),
                version: "7.14.2".into(),
                known_line: true,
            },
            "/whl/rocm7.14/rocm-sdk-core/",
        ),
        p(
            Change::RocmWheel {
                package: "rocm-sdk-core".into(),
                version: "10.2.0".into(),
                known_line: false,
            },
            "/amd/whl-multi-arch/rocm-sdk-core/",
        ),
        // a family distribution.yaml lacks, from the per-family root's listing (once)
        p(
            Change::Family {
                seen: "gfx125X-dcgpu/".into(),
                family: "gfx125X-dcgpu".into(),
            },
            "/amd/whl/",
        ),
    ];
    expected.sort();
    assert_eq!(out.proposals, expected);
    // the pages read: the mirror's root and ROCm pages, AMD's roots, family pages that exist
    for page in [
        "/whl/rocm7.14/",
        "/whl/rocm7.14/rocm/",
        "/whl/rocm7.14/rocm-sdk-core/",
        "/amd/whl-multi-arch/rocm/",
        "/amd/whl/gfx110X-all/",
        "/amd/whl/gfx125X-dcgpu/",
    ] {
        assert!(
            out.fetched.contains(&format!("{b}{page}")),
            "{page} not read: {:?}",
            out.fetched
        );
    }
    // device pages are not fetched (the project name says it all); a missing family index is quiet
    assert_eq!(server.hits("/whl/rocm7.14/rocm-sdk-device-gfx1250/"), 0);
    assert_eq!(server.hits("/amd/whl/gfx950-dcgpu/"), 1);
    // the diff names each file the proposals go to, with sources
    let mut diff = Vec::new();
    sync::render_diff(&stale, &out, &mut diff).unwrap();
    let diff = String::from_utf8(diff).unwrap();
    for want in [
        "--- matrix/rocm.yaml",
        "! rocm[10.1]: 10.1.0 is published",
        "has no release date and no GPU list",
        "+ rocm[7.14].patches: \"7.14.2\"",
        "+ rocm: a release for 10.2.0",
        "--- matrix/gpus.yaml",
        "+ gfx: gfx1250 (device package amd-torch-device-gfx1250 exists",
        "--- matrix/distribution.yaml",
        "+ families: {name: gfx125X-dcgpu",
    ] {
        assert!(diff.contains(want), "{want:?} not in:\n{diff}");
    }
    let mut yaml = Vec::new();
    sync::render_yaml(&stale, &out, &mut yaml).unwrap();
    let doc: serde_yaml::Value = serde_yaml::from_slice(&yaml).expect("the YAML patch parses");
    assert_eq!(doc["proposals"].as_sequence().unwrap().len(), expected.len());
    // the same pages against today's data: 2.14.1 and 10.1.0 are recorded, nothing is proposed
    // for them
    let now = run(&o);
    assert!(now.errors.is_empty(), "{:?}", now.errors);
    for p in &now.proposals {
        match &p.change {
            Change::TorchRelease { torch, .. } => assert_ne!(torch, "2.14.1", "{p:?}"),
            Change::RocmIncomplete { version, .. } => assert_ne!(version, "10.1.0", "{p:?}"),
            _ => {}
        }
    }
}

#[test]
fn core_sdk_page_shapes() {
    // PEP 503 root page → normalised project names
    let html = "<!DOCTYPE html><html><body><a href=\"Rocm_SDK.Core/\">Rocm_SDK.Core</a><a href=\"torch/\">torch</a></body></html>";
    assert_eq!(sync::parse_project_list(html).unwrap(), ["rocm-sdk-core", "torch"]);
    assert!(sync::parse_project_list(&html[..40]).unwrap_err().contains("truncated"));
    // distribution file names (PyPA binary distribution format; sdists)
    assert_eq!(
        sync::file_version("rocm_sdk_device_gfx1011-7.14.0-py3-none-linux_x86_64.whl").as_deref(),
        Some("7.14.0")
    );
    assert_eq!(
        sync::file_version("rocm-7.14.0.post1.tar.gz").as_deref(),
        Some("7.14.0.post1")
    );
    assert_eq!(sync::file_version("index.html"), None);
}
