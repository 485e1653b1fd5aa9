//! `rocmcheck matrix update` against bundles served from 127.0.0.1: install, a
//! tampered or untrusted bundle, an older serial, a newer schema, a truncated download,
//! concurrent updates, an update stopped at each step, the earlier cache layout, `--offline`,
//! and which data the other commands then use.
//!
//! The signing keys are generated per test run with the `minisign` crate (a dev-dependency):
//! test-only keys, never the project's. The binary trusts them only through the explicit
//! `--trusted-key FILE` flag; one test shows a bundle signed by them is refused without it.
//! Every test has its own `ROCMCHECK_CACHE_DIR`, so no test reads or writes a user's cache.

use rocmcheck::data;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A test-only key pair and its public key file.
struct TestKey {
    kp: minisign::KeyPair,
    pub_file: PathBuf,
    _dir: tempfile::TempDir,
}

impl TestKey {
    fn new() -> TestKey {
        let kp = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let pub_file = dir.path().join("test-only-minisign.pub");
        std::fs::write(&pub_file, kp.pk.to_box().unwrap().to_string()).unwrap();
        TestKey {
            kp,
            pub_file,
            _dir: dir,
        }
    }

    fn sign(&self, bundle: &[u8]) -> String {
        minisign::sign(
            Some(&self.kp.pk),
            &self.kp.sk,
            std::io::Cursor::new(bundle),
            Some("rocmcheck test bundle"),
            None,
        )
        .unwrap()
        .to_string()
    }
}

/// The embedded matrix files with `data:` set to `date` and a marker in the first known issue's
/// title, so a command's answer shows which data it used.
fn files(date: &str, marker: &str) -> BTreeMap<String, String> {
    let mut f = rocmcheck::matrix::embedded::files();
    let stamp = f.get_mut("matrix.yaml").unwrap();
    let embedded = &rocmcheck::matrix::Matrix::embedded().data;
    assert!(
        stamp.contains(&format!("data: \"{embedded}\"")),
        "matrix.yaml stamp layout changed:\n{stamp}"
    );
    *stamp = stamp.replace(&format!("data: \"{embedded}\""), &format!("data: \"{date}\""));
    let issues = f.get_mut("issues.yaml").unwrap();
    *issues = issues.replacen("title: \"", &format!("title: \"{marker} "), 1);
    f
}

fn bundle(date: &str, marker: &str, serial: u64) -> Vec<u8> {
    data::build_bundle(&files(date, marker), serial).unwrap()
}

/// A date later than the embedded data's (the cache must win over it).
const FRESH: &str = "2099-01-31";

// ------------------------------------------------------------------ a 127.0.0.1 server

/// What the server answers on one path.
#[derive(Clone, Default)]
struct Page {
    body: Vec<u8>,
    ctype: &'static str,
    etag: Option<String>,
    cache_control: Option<String>,
    delay: Duration,
}

type Routes = Arc<Mutex<BTreeMap<String, Page>>>;

struct Server {
    base: String,
    routes: Routes,
    truncate: Arc<Mutex<Vec<String>>>,
    hits: Arc<Mutex<usize>>,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let routes: Routes = Arc::default();
        let truncate: Arc<Mutex<Vec<String>>> = Arc::default();
        let hits: Arc<Mutex<usize>> = Arc::default();
        let (r, t, h) = (routes.clone(), truncate.clone(), hits.clone());
        std::thread::spawn(move || {
            for s in listener.incoming() {
                let Ok(s) = s else { continue };
                *h.lock().unwrap() += 1;
                let (r, t) = (r.clone(), t.clone());
                std::thread::spawn(move || answer(s, &r, &t));
            }
        });
        Server {
            base,
            routes,
            truncate,
            hits,
        }
    }

    /// Serves `bundle` at /NAME and its signature at /NAME.minisig; the bundle's URL.
    fn put(&self, name: &str, bundle: &[u8], sig: &str) -> String {
        let mut r = self.routes.lock().unwrap();
        let page = |body: &[u8]| Page {
            body: body.to_vec(),
            ctype: "application/octet-stream",
            ..Page::default()
        };
        r.insert(format!("/{name}"), page(bundle));
        r.insert(format!("/{name}.minisig"), page(sig.as_bytes()));
        format!("{}/{name}", self.base)
    }

    fn page(&self, path: &str, page: Page) {
        self.routes.lock().unwrap().insert(path.to_string(), page);
    }

    fn hits(&self) -> usize {
        *self.hits.lock().unwrap()
    }
}

fn answer(mut s: TcpStream, routes: &Routes, truncate: &Mutex<Vec<String>>) {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = Vec::new();
    let mut buf = [0u8; 2048];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => req.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&req).to_string();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let if_none_match = head.lines().find_map(|l| {
        l.to_ascii_lowercase()
            .strip_prefix("if-none-match:")
            .map(|v| v.trim().to_string())
    });
    let Some(page) = routes.lock().unwrap().get(&path).cloned() else {
        let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    std::thread::sleep(page.delay);
    let mut extra = String::new();
    if let Some(e) = &page.etag {
        extra.push_str(&format!("ETag: {e}\r\n"));
    }
    if let Some(c) = &page.cache_control {
        extra.push_str(&format!("Cache-Control: {c}\r\n"));
    }
    if page.etag.is_some() && if_none_match.as_deref() == page.etag.as_deref().map(str::to_ascii_lowercase).as_deref() {
        let _ = write!(s, "HTTP/1.1 304 Not Modified\r\n{extra}Connection: close\r\n\r\n");
        return;
    }
    let body = if truncate.lock().unwrap().contains(&path) {
        &page.body[..page.body.len() / 2]
    } else {
        &page.body[..]
    };
    let _ = write!(
        s,
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n",
        page.ctype,
        page.body.len()
    );
    let _ = s.write_all(body);
    let _ = s.flush();
    let _ = s.shutdown(std::net::Shutdown::Both);
}

// ------------------------------------------------------------------------- the binary

fn rocmcheck(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(args)
        .env("ROCMCHECK_CACHE_DIR", cache)
        .env_remove("ROCMCHECK_MATRIX")
        .env_remove("ROCMCHECK_OFFLINE")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn update(cache: &Path, from: &str, key: &TestKey) -> Output {
    rocmcheck(
        cache,
        &[
            "matrix",
            "update",
            "--from",
            from,
            "--trusted-key",
            key.pub_file.to_str().unwrap(),
        ],
    )
}

/// `matrix version` as key → value.
fn version(cache: &Path) -> BTreeMap<String, String> {
    let o = rocmcheck(cache, &["matrix", "version"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn assert_serial(cache: &Path, serial: &str) {
    let v = version(cache);
    assert_eq!(v["serial"], serial, "{v:?}");
    assert!(v["source"].starts_with("cache "), "{v:?}");
}

/// Installs a fresh bundle with `serial` from the server.
fn install(srv: &Server, cache: &Path, key: &TestKey, serial: u64) {
    let b = bundle(FRESH, "CACHED", serial);
    let url = srv.put(&format!("good-{serial}.tar"), &b, &key.sign(&b));
    let o = update(cache, &url, key);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

// ------------------------------------------------------------------------------ tests

#[test]
fn update_installs_a_signed_bundle_and_every_command_then_answers_from_it() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    let before = version(cache.path());
    assert_eq!(before["source"], "embedded (embedded in this binary)", "{before:?}");
    assert_eq!(before["serial"], "none");

    let b = bundle(FRESH, "CACHED-ANSWER", 5);
    let url = srv.put("rocmcheck-data.tar", &b, &key.sign(&b));
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("installed matrix data {FRESH}")), "{out}");
    assert!(out.contains("serial 5") && out.contains("--trusted-key key"), "{out}");

    let v = version(cache.path());
    assert_eq!(v["data"], FRESH);
    assert_eq!(v["serial"], "5");
    assert!(v["source"].contains(&url) && v["source"].starts_with("cache "), "{v:?}");

    // The stale-by-comparison embedded data loses to the fresh cache: the answer is the cache's.
    let o = rocmcheck(cache.path(), &["matrix", "show", "issues", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("CACHED-ANSWER"),
        "{}",
        text(&o)
    );

    // Report stamps name the serial (JSON, SARIF, markdown).
    let d = tempfile::tempdir().unwrap();
    let df = d.path().join("Dockerfile");
    std::fs::write(&df, "FROM scratch\n").unwrap();
    let df = df.to_str().unwrap();
    let o = rocmcheck(cache.path(), &["lint", df, "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(j["stamp"]["matrix_serial"], 5, "{j}");
    assert_eq!(j["stamp"]["matrix_source"], "cache", "{j}");
    assert_eq!(j["stamp"]["matrix_data"], FRESH, "{j}");
    let o = rocmcheck(cache.path(), &["lint", df, "--format", "sarif"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(j["runs"][0]["properties"]["matrix_serial"], 5, "{j}");
    let o = rocmcheck(cache.path(), &["lint", df, "--format", "markdown"]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("serial 5 (cache)"),
        "{}",
        text(&o)
    );

    // An explicit --matrix DIR wins over the cache.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("matrix");
    let o = rocmcheck(cache.path(), &["--matrix", dir.to_str().unwrap(), "matrix", "version"]);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(s.contains("source dir") && s.contains("serial none"), "{}", text(&o));

    // The same serial again: nothing to do.
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("already installed"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_cache_no_newer_than_the_embedded_data_is_not_used() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    let embedded = rocmcheck::matrix::Matrix::embedded().data.clone();
    let b = bundle(&embedded, "SAME-DAY", 3);
    let url = srv.put("same.tar", &b, &key.sign(&b));
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("keep using it"),
        "{}",
        text(&o)
    );
    assert_eq!(version(cache.path())["serial"], "none");
}

#[test]
fn a_bundle_signed_by_an_untrusted_key_or_tampered_with_is_refused_and_nothing_changes() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    install(&srv, cache.path(), &key, 5);

    // Signed by the test key, but the key is not passed: only the built-in keys are trusted.
    let b = bundle(FRESH, "UNTRUSTED", 6);
    let url = srv.put("untrusted.tar", &b, &key.sign(&b));
    let o = rocmcheck(cache.path(), &["matrix", "update", "--from", &url]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("does not trust"),
        "{}",
        text(&o)
    );
    assert_serial(cache.path(), "5");

    // One byte of the YAML changed after signing.
    let mut t = bundle(FRESH, "TAMPERED", 7);
    let sig = key.sign(&t);
    let at = t.windows(8).position(|w| w == b"TAMPERED").unwrap();
    t[at] = b'X';
    let url = srv.put("tampered.tar", &t, &sig);
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("does not match its signature"),
        "{}",
        text(&o)
    );
    assert_serial(cache.path(), "5");
}

#[test]
fn an_older_serial_is_refused() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    install(&srv, cache.path(), &key, 10);
    let b = bundle(FRESH, "OLDER", 9);
    let url = srv.put("older.tar", &b, &key.sign(&b));
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("serial 9, older than the installed serial 10"),
        "{}",
        text(&o)
    );
    assert_serial(cache.path(), "10");
}

#[test]
fn a_newer_schema_is_refused_with_the_upgrade_message() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    install(&srv, cache.path(), &key, 5);
    // A bundle as a future rocmcheck would write it: schema + 1 in the manifest and the stamp.
    let newer = rocmcheck::matrix::SCHEMA + 1;
    let mut f = files(FRESH, "NEWER");
    let stamp = f.get_mut("matrix.yaml").unwrap();
    *stamp = stamp.replace(
        &format!("schema: {}", rocmcheck::matrix::SCHEMA),
        &format!("schema: {newer}"),
    );
    let manifest = format!("{{\"format\": 1, \"schema\": {newer}, \"data\": \"{FRESH}\", \"serial\": 99}}");
    let mut tar = tar::Builder::new(Vec::new());
    for (name, body) in std::iter::once(("manifest.json".to_string(), manifest))
        .chain(f.into_iter().map(|(n, t)| (format!("matrix/{n}"), t)))
    {
        let mut h = tar::Header::new_ustar();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        tar.append_data(&mut h, name, body.as_bytes()).unwrap();
    }
    let b = tar.into_inner().unwrap();
    let url = srv.put("newer.tar", &b, &key.sign(&b));
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("upgrade rocmcheck") && e.contains("Nothing was changed"),
        "{}",
        text(&o)
    );
    assert!(e.contains(&format!("matrix schema {newer}")), "{}", text(&o));
    assert_serial(cache.path(), "5");
}

#[test]
fn a_truncated_download_leaves_the_previous_data() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    install(&srv, cache.path(), &key, 5);
    let b = bundle(FRESH, "TRUNCATED", 6);
    let url = srv.put("cut.tar", &b, &key.sign(&b));
    srv.truncate.lock().unwrap().push("/cut.tar".into());
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("nothing was changed"),
        "{}",
        text(&o)
    );
    assert_serial(cache.path(), "5");
    // A bundle file cut short on disk fails its signature the same way.
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("cut.tar");
    std::fs::write(&f, &b[..b.len() / 2]).unwrap();
    std::fs::write(d.path().join("cut.tar.minisig"), key.sign(&b)).unwrap();
    let o = update(cache.path(), f.to_str().unwrap(), &key);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_serial(cache.path(), "5");
}

#[test]
fn concurrent_updates_leave_a_valid_cache() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    let urls: Vec<String> = (20..24)
        .map(|serial| {
            let b = bundle(FRESH, &format!("SERIAL{serial}"), serial);
            srv.put(&format!("c{serial}.tar"), &b, &key.sign(&b))
        })
        .collect();
    let children: Vec<_> = urls
        .iter()
        .map(|u| {
            Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
                .args([
                    "matrix",
                    "update",
                    "--from",
                    u,
                    "--trusted-key",
                    key.pub_file.to_str().unwrap(),
                ])
                .env("ROCMCHECK_CACHE_DIR", cache.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        // Each one either installs or, when a newer serial won the lock first, refuses to go back.
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.code() == Some(0) || (o.status.code() == Some(2) && e.contains("refusing to go back")),
            "{}",
            text(&o)
        );
    }
    // The newest serial always ends up installed, and the cache decodes.
    assert_serial(cache.path(), "23");
    let o = rocmcheck(cache.path(), &["matrix", "show", "issues", "--format", "json"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("SERIAL23"), "{}", text(&o));
    let leftovers: Vec<String> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind: {leftovers:?}");
}

#[test]
fn offline_makes_no_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/rocmcheck-data.tar", listener.local_addr().unwrap());
    let cache = tempfile::tempdir().unwrap();
    let o = rocmcheck(cache.path(), &["--offline", "matrix", "update", "--from", &url]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("offline"), "{}", text(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["matrix", "update", "--from", &url])
        .env("ROCMCHECK_CACHE_DIR", cache.path())
        .env("ROCMCHECK_OFFLINE", "1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("offline"), "{}", text(&o));
    // The listener was there all along: had anything connected, accept would return it.
    std::thread::sleep(Duration::from_millis(200));
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("something connected to the listener: {other:?}"),
    }
    // The control: without --offline the same command does connect (so the check above can fail).
    let o = rocmcheck(cache.path(), &["matrix", "update", "--from", &url, "--timeout", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let mut accepted = false;
    for _ in 0..50 {
        if listener.accept().is_ok() {
            accepted = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(accepted, "the control update never connected: {}", text(&o));
}

#[test]
fn an_unusable_cache_is_one_notice_and_the_embedded_data_answers() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    install(&srv, cache.path(), &key, 5);
    std::fs::write(
        cache.path().join("matrix.cache"),
        b"rocmcheck matrix cache 1\n{not json\n",
    )
    .unwrap();
    let o = rocmcheck(cache.path(), &["matrix", "version"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("source embedded"),
        "{}",
        text(&o)
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{}", text(&o));
    assert!(e.contains("run `rocmcheck matrix update`"), "{}", text(&o));
    // And the server saw only the install's two requests: nothing fetched on its own.
    assert_eq!(srv.hits(), 2);
}

// ------------------------------------------------------------------------- --online

/// A stack the matrix recommends (derived from the data, so it survives a data update), and a
/// torch version newer than any the matrix knows for its ROCm variant.
fn stack() -> (String, String, String, String) {
    let m = rocmcheck::matrix::Matrix::embedded();
    let gfx = "gfx1100";
    let best = m.best_for(gfx).expect("the matrix recommends a stack for gfx1100");
    let (torch, rocm) = (best.torch.to_string(), best.rocm.to_string());
    let newest = m
        .torch
        .wheels
        .iter()
        .filter(|w| w.variants.iter().any(|v| v.rocm == best.rocm))
        .flat_map(|w| w.torch.iter())
        .max()
        .unwrap()
        .to_string();
    let mut parts: Vec<u64> = newest.split('.').map(|p| p.parse().unwrap()).collect();
    while parts.len() < 3 {
        parts.push(0);
    }
    parts[2] += 50;
    let ahead = parts.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(".");
    (gfx.to_string(), torch, rocm, ahead)
}

fn wheel(torch: &str, rocm: &str) -> String {
    format!("torch-{torch}+rocm{rocm}-cp312-cp312-manylinux_2_28_x86_64.whl")
}

fn json_page(torch: &[&str], rocm: &str) -> Page {
    let files: Vec<serde_json::Value> = torch
        .iter()
        .map(|t| serde_json::json!({"filename": wheel(t, rocm), "url": format!("../../{}", wheel(t, rocm)), "hashes": {}}))
        .collect();
    Page {
        body: serde_json::to_vec(&serde_json::json!({"meta": {"api-version": "1.1"}, "name": "torch", "files": files}))
            .unwrap(),
        ctype: "application/vnd.pypi.simple.v1+json",
        ..Page::default()
    }
}

fn query(cache: &Path, index: Option<&str>, extra: &[&str]) -> Output {
    let (gfx, torch, rocm, _) = stack();
    let pin = format!("{torch}+rocm{rocm}");
    let mut args = vec!["matrix", "query", "--gfx", &gfx, "--torch", &pin];
    if let Some(i) = index {
        args.extend(["--online", "--index", i, "--online-timeout", "2"]);
    }
    args.extend_from_slice(extra);
    rocmcheck(cache, &args)
}

#[test]
fn online_says_when_the_index_is_ahead_of_the_matrix_and_changes_no_finding() {
    let (srv, cache) = (Server::start(), tempfile::tempdir().unwrap());
    let (_, torch, rocm, ahead) = stack();
    srv.page(&format!("/whl/rocm{rocm}/torch/"), json_page(&[&torch, &ahead], &rocm));
    let plain = query(cache.path(), None, &[]);
    let o = query(cache.path(), Some(&format!("{}/whl", srv.base)), &[]);
    assert_eq!(o.status.code(), plain.status.code(), "{}", text(&o));
    assert_eq!(o.stdout, plain.stdout, "the answer does not change");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(&format!("the index lists torch {torch} for rocm{rocm}")),
        "{}",
        text(&o)
    );
    assert!(
        e.contains(&format!(
            "the index has torch {ahead} for rocm{rocm}; the matrix does not know it yet — run `rocmcheck matrix update`"
        )),
        "{}",
        text(&o)
    );
}

#[test]
fn online_reads_pep_503_html_and_caches_by_max_age_and_etag() {
    let (srv, cache) = (Server::start(), tempfile::tempdir().unwrap());
    let (_, torch, rocm, _) = stack();
    let w = wheel(&torch, &rocm);
    let html = format!("<!DOCTYPE html>\n<html><body>\n<a href=\"/whl/{w}#sha256=00\">{w}</a><br/>\n</body></html>\n");
    let path = format!("/whl/rocm{rocm}/torch/");
    srv.page(
        &path,
        Page {
            body: html.into_bytes(),
            ctype: "text/html",
            cache_control: Some("max-age=600".into()),
            ..Page::default()
        },
    );
    let index = format!("{}/whl", srv.base);
    let o = query(cache.path(), Some(&index), &[]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(&format!("lists torch {torch} for rocm{rocm}")) && e.contains("fetched"),
        "{}",
        text(&o)
    );
    assert_eq!(srv.hits(), 1);
    // Fresh by max-age: no request at all.
    let o = query(cache.path(), Some(&index), &[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("cached"), "{}", text(&o));
    assert_eq!(srv.hits(), 1);
    // Stale with an ETag: revalidated with If-None-Match, answered 304.
    let (srv2, cache2) = (Server::start(), tempfile::tempdir().unwrap());
    let mut page = json_page(&[&torch], &rocm);
    page.etag = Some("\"v1\"".into());
    srv2.page(&path, page);
    let index2 = format!("{}/whl", srv2.base);
    let o = query(cache2.path(), Some(&index2), &[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("fetched"), "{}", text(&o));
    let o = query(cache2.path(), Some(&index2), &[]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("revalidated"),
        "{}",
        text(&o)
    );
    assert_eq!(srv2.hits(), 2);
}

#[test]
fn online_with_the_index_down_or_slow_is_one_notice_line() {
    let cache = tempfile::tempdir().unwrap();
    let plain = query(cache.path(), None, &[]);
    // Down: a port nothing listens on any more.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let o = query(cache.path(), Some(&format!("http://127.0.0.1:{port}/whl")), &[]);
    assert_eq!(o.status.code(), plain.status.code(), "{}", text(&o));
    assert_eq!(o.stdout, plain.stdout);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().filter(|l| l.contains("--online")).count(), 1, "{}", text(&o));
    assert!(e.contains("could not be read"), "{}", text(&o));
    // Slow: the server answers after 6 s, the timeout is 2 s.
    let srv = Server::start();
    let (_, torch, rocm, _) = stack();
    let mut page = json_page(&[&torch], &rocm);
    page.delay = Duration::from_secs(6);
    srv.page(&format!("/whl/rocm{rocm}/torch/"), page);
    let o = query(cache.path(), Some(&format!("{}/whl", srv.base)), &[]);
    assert_eq!(o.status.code(), plain.status.code(), "{}", text(&o));
    assert_eq!(o.stdout, plain.stdout);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("could not be read (timed out after 2 s"), "{}", text(&o));
    // Offline wins over --online: no connection, one notice.
    let o = query(
        cache.path(),
        Some(&format!("http://127.0.0.1:{port}/whl")),
        &["--offline"],
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--online ignored: offline"),
        "{}",
        text(&o)
    );
}

// -------------------------------------------------------------------- lint --online

/// A page from the recorded fixtures (`tests/fixtures/sync/coresdk/…`, `tests/fixtures/online/`).
fn fixture_page(rel: &str) -> Page {
    let body = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel)).unwrap();
    Page {
        body,
        ctype: if rel.ends_with(".json") {
            "application/vnd.pypi.simple.v1+json"
        } else {
            "text/html"
        },
        ..Page::default()
    }
}

/// download.pytorch.org's `whl/rocm7.14/` project pages for torch (2.14.0 and 2.14.1: the
/// matrix knows 2.14.0 only), torchvision (PEP 691 JSON) and the mirrored `rocm` /
/// `rocm-sdk-core` (PEP 503 HTML).
fn rocm714_index(srv: &Server) {
    srv.page(
        "/whl/rocm7.14/torch/",
        fixture_page("sync/coresdk/pytorch/rocm7.14/torch.html"),
    );
    srv.page(
        "/whl/rocm7.14/torchvision/",
        fixture_page("online/torchvision-rocm7.14.json"),
    );
    srv.page(
        "/whl/rocm7.14/rocm/",
        fixture_page("sync/coresdk/pytorch/rocm7.14/rocm.html"),
    );
    srv.page(
        "/whl/rocm7.14/rocm-sdk-core/",
        fixture_page("sync/coresdk/pytorch/rocm7.14/rocm-sdk-core.html"),
    );
}

/// A Dockerfile installing the Core SDK stack from pytorch.org's rocm7.14 index, as the
/// install selector shows it (pytorch/pytorch#194367; ROCm/TheRock:RELEASES.md), with the pins
/// given.
fn core_sdk_dockerfile(dir: &Path, pins: &str) -> String {
    let p = dir.join("Dockerfile");
    std::fs::write(
        &p,
        format!(
            "FROM ubuntu:24.04\nRUN apt-get update && apt-get install -y python3-pip\nRUN pip install --index-url https://download.pytorch.org/whl/rocm7.14 {pins}\n"
        ),
    )
    .unwrap();
    p.to_str().unwrap().to_string()
}

fn lint(cache: &Path, file: &str, format: &str, extra: &[&str]) -> Output {
    let mut args = vec!["lint", file, "--format", format];
    args.extend_from_slice(extra);
    rocmcheck(cache, &args)
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

/// The `notices` of a JSON report as (kind, message).
fn notices(v: &serde_json::Value) -> Vec<(String, String)> {
    v["notices"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|n| {
                    (
                        n["kind"].as_str().unwrap().to_string(),
                        n["message"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Findings, exit code and everything but `notices` are the same with and without --online.
fn assert_same_findings(plain: &Output, online: &Output) {
    assert_eq!(
        plain.status.code(),
        online.status.code(),
        "{}\n{}",
        text(plain),
        text(online)
    );
    let (mut a, mut b) = (json(plain), json(online));
    assert!(
        a.get("notices").is_none(),
        "no notices without --online: {}",
        text(plain)
    );
    b.as_object_mut().unwrap().remove("notices");
    a.as_object_mut().unwrap().remove("notices");
    assert_eq!(a, b, "the report apart from notices must not change");
}

#[test]
fn lint_online_confirms_pins_and_says_when_the_index_is_ahead_of_the_matrix() {
    let (srv, cache, dir) = (
        Server::start(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    rocm714_index(&srv);
    let file = core_sdk_dockerfile(
        dir.path(),
        "torch==2.14.0 torchvision==0.29.0 \"rocm[libraries,device-gfx1100]==7.14.0\"",
    );
    let index = format!("{}/whl", srv.base);
    // the data of 2026-11-23, which did not know torch 2.14.1 (the index is ahead of it)
    let stale = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/matrix-2026-11-23");
    let plain = lint(cache.path(), &file, "json", &["--matrix", stale]);
    assert_eq!(srv.hits(), 0, "a plain lint touches no network");
    let o = lint(
        cache.path(),
        &file,
        "json",
        &["--matrix", stale, "--online", "--index", &index],
    );
    assert_same_findings(&plain, &o);
    let n = notices(&json(&o));
    let kinds: Vec<&str> = n.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        ["online-listed", "online-listed", "online-listed", "online-index-ahead"],
        "{n:#?}"
    );
    assert!(
        n[0].1.ends_with(&format!(
            "the index lists torch==2.14.0 ({index}/rocm7.14/torch/, fetched)"
        )),
        "{n:#?}"
    );
    assert_eq!(
        n[3].1,
        "the index has torch 2.14.1 for rocm7.14; the matrix does not know it yet — run `rocmcheck matrix update`"
    );
    assert!(n[1].1.contains("torchvision==0.29.0"), "PEP 691 JSON page: {n:#?}");
    assert!(n[2].1.contains("rocm==7.14.0"), "an sdist on a PEP 503 page: {n:#?}");
    assert!(
        n[0].1.starts_with(&format!("{file}:3: ")),
        "the pin's file and line: {n:#?}"
    );
    // The same lines on stderr, in every format.
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("notice: --online: the index has torch 2.14.1 for rocm7.14; the matrix does not know it yet — run `rocmcheck matrix update`"),
        "{}",
        text(&o)
    );
    assert!(
        e.contains("online: ") && e.contains("torchvision==0.29.0"),
        "{}",
        text(&o)
    );
    // Human output: stdout is byte for byte the plain run's.
    let (ph, oh) = (
        lint(cache.path(), &file, "human", &["--matrix", stale]),
        lint(
            cache.path(),
            &file,
            "human",
            &["--matrix", stale, "--online", "--index", &index],
        ),
    );
    assert_eq!(ph.stdout, oh.stdout, "{}", text(&oh));
    assert_eq!(ph.status.code(), oh.status.code());
}

#[test]
fn lint_online_says_when_a_pin_is_not_on_the_index_and_sarif_carries_notifications() {
    let (srv, cache, dir) = (
        Server::start(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    rocm714_index(&srv);
    // torch 2.14.2 and rocm-sdk-core 7.14.1 do not exist on the index (2.14.0/2.14.1 and
    // 7.14.0/7.14.2 do).
    let file = core_sdk_dockerfile(dir.path(), "torch==2.14.2 rocm-sdk-core==7.14.1");
    let index = format!("{}/whl", srv.base);
    let plain = lint(cache.path(), &file, "json", &[]);
    let o = lint(cache.path(), &file, "json", &["--online", "--index", &index]);
    assert_same_findings(&plain, &o);
    let n = notices(&json(&o));
    let missing: Vec<&String> = n
        .iter()
        .filter(|(k, _)| k == "online-not-listed")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(missing.len(), 2, "{n:#?}");
    assert!(
        missing[0].contains(&format!(
            "the index does not list torch==2.14.2 ({index}/rocm7.14/torch/): pip cannot install it from there"
        )),
        "{n:#?}"
    );
    assert!(
        missing[1].contains("the index does not list rocm-sdk-core==7.14.1"),
        "{n:#?}"
    );
    // SARIF: the same results; the notices are tool-execution notifications.
    let (ps, os) = (
        lint(cache.path(), &file, "sarif", &[]),
        lint(cache.path(), &file, "sarif", &["--online", "--index", &index]),
    );
    assert_eq!(ps.status.code(), os.status.code(), "{}", text(&os));
    let (ps, os) = (json(&ps), json(&os));
    assert_eq!(ps["runs"][0]["results"], os["runs"][0]["results"]);
    let inv = &os["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true, "{inv:#}");
    let notes: Vec<&str> = inv["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"]["text"].as_str().unwrap())
        .collect();
    assert!(
        notes.iter().any(|t| t.contains("does not list torch==2.14.2")),
        "{notes:#?}"
    );
    assert!(
        ps["runs"][0]["invocations"][0]
            .get("toolExecutionNotifications")
            .is_none()
    );
}

#[test]
fn lint_online_with_the_index_down_or_slow_is_one_notice_and_changes_nothing() {
    let (cache, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = core_sdk_dockerfile(
        dir.path(),
        "torch==2.14.0 torchvision==0.29.0 \"rocm[libraries,device-gfx1100]==7.14.0\"",
    );
    let plain = lint(cache.path(), &file, "json", &[]);
    // Down: a port nothing listens on any more.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let down = format!("http://127.0.0.1:{port}/whl");
    let o = lint(
        cache.path(),
        &file,
        "json",
        &["--online", "--index", &down, "--online-timeout", "2"],
    );
    assert_same_findings(&plain, &o);
    let n = notices(&json(&o));
    assert_eq!(n.len(), 1, "{n:#?}");
    assert_eq!(n[0].0, "online-unreadable");
    assert!(
        n[0].1.contains("could not be read") && n[0].1.contains("2 more page(s) not checked"),
        "{n:#?}"
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().filter(|l| l.contains("--online")).count(), 1, "{}", text(&o));
    // Slow: every page answers after 6 s; the timeout is 2 s. Three pins on one host cost one
    // timeout, not three.
    let srv = Server::start();
    rocm714_index(&srv);
    for p in [
        "/whl/rocm7.14/torch/",
        "/whl/rocm7.14/torchvision/",
        "/whl/rocm7.14/rocm/",
    ] {
        let mut page = srv.routes.lock().unwrap()[p].clone();
        page.delay = Duration::from_secs(6);
        srv.page(p, page);
    }
    let t = std::time::Instant::now();
    let o = lint(
        cache.path(),
        &file,
        "json",
        &[
            "--online",
            "--index",
            &format!("{}/whl", srv.base),
            "--online-timeout",
            "2",
        ],
    );
    let took = t.elapsed();
    assert_same_findings(&plain, &o);
    let n = notices(&json(&o));
    assert_eq!(n.len(), 1, "{n:#?}");
    assert!(n[0].1.contains("could not be read (timed out after 2 s"), "{n:#?}");
    assert!(
        took < Duration::from_millis(5500),
        "one timeout, not one per pin: {took:?}"
    );
    assert_eq!(srv.hits(), 1, "after the first timeout the host is not asked again");
}

#[test]
fn lint_offline_beats_online_and_makes_no_connection() {
    let (cache, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = core_sdk_dockerfile(dir.path(), "torch==2.14.0");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let index = format!("http://{}/whl", listener.local_addr().unwrap());
    let plain = lint(cache.path(), &file, "json", &[]);
    let o = lint(
        cache.path(),
        &file,
        "json",
        &["--offline", "--online", "--index", &index],
    );
    assert_same_findings(&plain, &o);
    assert_eq!(notices(&json(&o))[0].0, "online-offline", "{}", text(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["lint", &file, "--format", "json", "--online", "--index", &index])
        .env("ROCMCHECK_CACHE_DIR", cache.path())
        .env("ROCMCHECK_OFFLINE", "1")
        .output()
        .unwrap();
    assert_same_findings(&plain, &o);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("offline (--offline or ROCMCHECK_OFFLINE) wins over --online"),
        "{}",
        text(&o)
    );
    std::thread::sleep(Duration::from_millis(200));
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("something connected to the listener: {other:?}"),
    }
    // The control: without offline the same command connects.
    let o = lint(
        cache.path(),
        &file,
        "json",
        &["--online", "--index", &index, "--online-timeout", "1"],
    );
    assert_same_findings(&plain, &o);
    let mut accepted = false;
    for _ in 0..50 {
        if listener.accept().is_ok() {
            accepted = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(accepted, "the control lint --online never connected: {}", text(&o));
}

// ------------------------------------------------------------ pinning a data serial

/// `matrix update --serial N` (or ROCMCHECK_DATA_SERIAL) with `--from`.
fn update_serial(cache: &Path, from: &str, key: &TestKey, serial: Option<&str>, env_serial: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rocmcheck"));
    c.args([
        "matrix",
        "update",
        "--from",
        from,
        "--trusted-key",
        key.pub_file.to_str().unwrap(),
    ])
    .env("ROCMCHECK_CACHE_DIR", cache)
    .env_remove("ROCMCHECK_MATRIX")
    .env_remove("ROCMCHECK_OFFLINE")
    .env_remove("ROCMCHECK_DATA_SERIAL");
    if let Some(s) = serial {
        c.args(["--serial", s]);
    }
    if let Some(s) = env_serial {
        c.env("ROCMCHECK_DATA_SERIAL", s);
    }
    c.output().unwrap()
}

/// `matrix version` with ROCMCHECK_DATA_SERIAL set.
fn version_pinned(cache: &Path, serial: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["matrix", "version"])
        .env("ROCMCHECK_CACHE_DIR", cache)
        .env_remove("ROCMCHECK_MATRIX")
        .env("ROCMCHECK_DATA_SERIAL", serial)
        .output()
        .unwrap()
}

#[test]
fn a_pinned_serial_installs_that_bundle_even_when_older_and_commands_then_use_exactly_it() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    // Serial 5 is old data (older than the embedded matrix); serial 9 is fresh.
    let old = bundle("2001-01-01", "PINNED", 5);
    srv.put("matrix-data-5/rocmcheck-data.tar", &old, &key.sign(&old));
    install(&srv, cache.path(), &key, 9);
    assert_serial(cache.path(), "9");
    let pattern = format!("{}/matrix-data-{{serial}}/rocmcheck-data.tar", srv.base);
    // A plain update to the older serial is refused ...
    let o = update(cache.path(), &pattern.replace("{serial}", "5"), &key);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("older than the installed serial 9"),
        "{}",
        text(&o)
    );
    // ... a pinned one is installed: `{serial}` in --from is replaced by the pin.
    let o = update_serial(cache.path(), &pattern, &key, Some("5"), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("serial 5, replacing serial 9"), "{}", text(&o));
    assert!(out.contains("serial 5 is pinned"), "{}", text(&o));
    // Unpinned, data of 2001 loses to the embedded data ...
    assert_eq!(version(cache.path())["source"], "embedded (embedded in this binary)");
    // ... pinned, exactly serial 5 answers, whatever is newer.
    let o = version_pinned(cache.path(), "5");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v = String::from_utf8_lossy(&o.stdout);
    assert!(
        v.contains("serial 5\n") && v.contains("data 2001-01-01") && v.contains("source cache"),
        "{}",
        text(&o)
    );
    // Another pin than the cache holds: refused, exit 2, with what to run.
    let o = version_pinned(cache.path(), "9");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("data serial 9 is pinned (--data-serial or ROCMCHECK_DATA_SERIAL), but the cache")
            && String::from_utf8_lossy(&o.stderr)
                .contains("holds data serial 5 (2001-01-01), not 9; run `rocmcheck matrix update --serial 9` first"),
        "{}",
        text(&o)
    );
    // The global flag does the same as the variable, on lint too.
    let o = rocmcheck(cache.path(), &["--data-serial", "9", "lint", "-"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    // An empty cache with a pin: refused.
    let empty = tempfile::tempdir().unwrap();
    let o = version_pinned(empty.path(), "5");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("holds no data bundle"),
        "{}",
        text(&o)
    );
    // ROCMCHECK_DATA_SERIAL is also what `matrix update` fetches when no --serial is given.
    let o = update_serial(empty.path(), &pattern, &key, None, Some("5"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(version_pinned(empty.path(), "5").status.code(), Some(0));
}

#[test]
fn a_bundle_of_another_serial_than_the_pin_is_refused_and_nothing_changes() {
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    install(&srv, cache.path(), &key, 9);
    // The URL says 7, the bundle there is serial 8 (a mislabelled mirror).
    let b = bundle(FRESH, "EIGHT", 8);
    let url = srv.put("matrix-data-7/rocmcheck-data.tar", &b, &key.sign(&b));
    let o = update_serial(cache.path(), &url, &key, Some("7"), None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("has serial 8, not the pinned serial 7: refusing it"),
        "{}",
        text(&o)
    );
    assert_serial(cache.path(), "9");
    // Same serial as installed: nothing to do, still a success.
    let nine = format!("{}/good-9.tar", srv.base);
    let o = update_serial(cache.path(), &nine, &key, Some("9"), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("already installed"),
        "{}",
        text(&o)
    );
}

#[test]
fn the_default_url_of_a_pinned_serial_is_its_immutable_release() {
    assert_eq!(
        data::serial_url(1732300000),
        format!(
            "{}/releases/download/matrix-data-1732300000/rocmcheck-data.tar",
            env!("CARGO_PKG_REPOSITORY").trim_end_matches('/')
        )
    );
}

// ------------------------------------------------------- a new error wording is data only

/// The codes `triage --format json` reports for `paste`, with the data in `cache`.
fn triage_codes(cache: &Path, paste: &Path) -> (Vec<String>, String) {
    let o = rocmcheck(
        cache,
        &["triage", "--offline", "--format", "json", paste.to_str().unwrap()],
    );
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let v = json(&o);
    let codes = v["subjects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    (codes, String::from_utf8_lossy(&o.stdout).into_owned())
}

#[test]
fn a_new_error_wording_reaches_an_installed_binary_through_matrix_update() {
    // An AMD_LOG_LEVEL line in HIP's `Returned hipErrorX` shape (as in the traces of
    // https://github.com/ROCm/legacy-rocm-build/issues/5461); a wording the embedded
    // signatures.yaml does not list, so this binary cannot know what it means yet.
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    let paste = cache.path().join("paste.txt");
    std::fs::write(
        &paste,
        ":3:hip_module.cpp           :671 : 2871604210 us: [pid:4242  tid:0x7f00] hipModuleLaunchKernel: Returned hipErrorLaunchFailure :\n",
    )
    .unwrap();
    let (before, _) = triage_codes(cache.path(), &paste);
    assert!(!before.contains(&"RC315".to_string()), "{before:?}");

    // The data change: one more entry in signatures.yaml, shipped as a signed bundle.
    let mut f = files(FRESH, "CACHED");
    let sigs = f.get_mut("signatures.yaml").unwrap();
    sigs.push_str(
        "  - id: hip-error-launch-failure-name\n    needles: [\"hipErrorLaunchFailure\"]\n    event: gpu-exception\n    diagnosis: \"NEW-WORDING a GPU kernel failed while running (hipErrorLaunchFailure).\"\n    sources:\n      - \"https://github.com/ROCm/TheRock/issues/4214\"\n",
    );
    let b = data::build_bundle(&f, 7).unwrap();
    let url = srv.put("sig-7.tar", &b, &key.sign(&b));
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_serial(cache.path(), "7");

    let (after, out) = triage_codes(cache.path(), &paste);
    assert!(after.contains(&"RC315".to_string()), "{after:?}\n{out}");
    assert!(
        out.contains("NEW-WORDING"),
        "the finding shows the signature's diagnosis:\n{out}"
    );
}

#[test]
fn a_new_key_wording_reaches_an_installed_binary_through_matrix_update() {
    // A reporter's environment list whose ROCm key (`Installed ROCm stack:`) the embedded
    // keys.yaml does not list: this binary does not read the version from it yet.
    let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
    let paste = cache.path().join("paste.txt");
    std::fs::write(&paste, "- **Installed ROCm stack:** 6.4.1\n").unwrap();
    let asks_for_rocm = |cache: &Path| {
        let o = rocmcheck(
            cache,
            &["triage", "--offline", "--format", "json", paste.to_str().unwrap()],
        );
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
        let v = json(&o);
        v["subjects"][0]["next"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["what"].as_str().unwrap().contains("installed ROCm version not seen"))
    };
    assert!(asks_for_rocm(cache.path()));

    // The data change: one more key under `rocm` in keys.yaml, shipped as a signed bundle.
    let mut f = files(FRESH, "CACHED");
    let keys = f.get_mut("keys.yaml").unwrap();
    assert!(keys.contains("  rocm:\n"), "keys.yaml layout changed:\n{keys}");
    *keys = keys.replacen("  rocm:\n", "  rocm:\n    - installed rocm stack\n", 1);
    let b = data::build_bundle(&f, 7).unwrap();
    let url = srv.put("keys-7.tar", &b, &key.sign(&b));
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_serial(cache.path(), "7");

    assert!(
        !asks_for_rocm(cache.path()),
        "the installed keys.yaml reads the ROCm version"
    );
}

// ------------------------------------------------------------------ a stopped update

/// `matrix show issues` with ROCMCHECK_DATA_SERIAL pinned: its exit code, output and errors.
fn issues_pinned(cache: &Path, serial: &str) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
        .args(["matrix", "show", "issues", "--format", "json"])
        .env("ROCMCHECK_CACHE_DIR", cache)
        .env_remove("ROCMCHECK_MATRIX")
        .env_remove("ROCMCHECK_TEST_FAULT")
        .env("ROCMCHECK_DATA_SERIAL", serial)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Each pinned serial answers with its own data or is refused (exit 2, the cache holds another
/// serial or is unusable), never with the other serial's data; `serving` is the one that answers.
fn assert_consistent(cache: &Path, serving: &str, context: &str) {
    for (serial, mine, other) in [("1", "SERIAL-ONE", "SERIAL-TWO"), ("2", "SERIAL-TWO", "SERIAL-ONE")] {
        let (code, out, err) = issues_pinned(cache, serial);
        assert!(
            !out.contains(other),
            "{context}: serial {serial} answered with serial {other}'s data:\n{out}{err}"
        );
        if serial == serving {
            assert_eq!(code, Some(0), "{context}: serial {serial}:\n{err}");
            assert!(out.contains(mine), "{context}: serial {serial}:\n{out}");
        } else {
            assert_eq!(code, Some(2), "{context}: serial {serial}:\n{out}{err}");
        }
    }
}

/// The temporary files in a cache directory (`.name.XXXXXX`).
fn temporaries(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// An update stopped at each point (as a kill would: `ROCMCHECK_TEST_FAULT` aborts the process
/// there, debug builds only) leaves the previous data whole (before the rename) or the new data
/// whole (after it), never new data under the old header; the next update removes the temporary
/// file the stopped one left and completes.
#[cfg(debug_assertions)]
#[test]
fn an_update_stopped_at_any_point_leaves_old_or_new_data_whole_and_the_next_one_cleans_up() {
    for (point, serving, left) in [("locked", "1", 0), ("written", "1", 1), ("renamed", "2", 0)] {
        let (srv, key, cache) = (Server::start(), TestKey::new(), tempfile::tempdir().unwrap());
        let one = bundle("2099-01-01", "SERIAL-ONE", 1);
        let url = srv.put("one.tar", &one, &key.sign(&one));
        let o = update(cache.path(), &url, &key);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let two = bundle("2099-02-01", "SERIAL-TWO", 2);
        let url = srv.put("two.tar", &two, &key.sign(&two));
        let o = Command::new(env!("CARGO_BIN_EXE_rocmcheck"))
            .args(["matrix", "update", "--from", &url, "--trusted-key"])
            .arg(&key.pub_file)
            .env("ROCMCHECK_CACHE_DIR", cache.path())
            .env_remove("ROCMCHECK_MATRIX")
            .env_remove("ROCMCHECK_DATA_SERIAL")
            .env("ROCMCHECK_TEST_FAULT", point)
            .output()
            .unwrap();
        assert!(
            !o.status.success() && String::from_utf8_lossy(&o.stderr).contains(&format!("stopping at `{point}`")),
            "{point}: {}",
            text(&o)
        );
        assert_consistent(cache.path(), serving, &format!("stopped at {point}"));
        let temps = temporaries(cache.path());
        assert_eq!(temps.len(), left, "{point}: {temps:?}");
        let o = update(cache.path(), &url, &key);
        assert_eq!(o.status.code(), Some(0), "{point}: {}", text(&o));
        assert_eq!(temporaries(cache.path()), Vec::<String>::new(), "{point}");
        assert_consistent(cache.path(), "2", &format!("updated after a stop at {point}"));
    }
}

/// A cache in the earlier layout (`matrix.cache` of header and packed matrix, the bundle in
/// `rocmcheck-data.tar` beside it) is still read; written by a build with other matrix types it
/// is re-derived from that bundle only when the bundle is the header's serial (an update stopped
/// between the two renames left a newer bundle under the older header: refused, not read), and
/// rewritten in the one-file layout.
#[test]
fn a_cache_in_the_earlier_layout_is_read_and_a_bundle_of_another_serial_is_refused() {
    let key = TestKey::new();
    let one = bundle("2099-01-01", "SERIAL-ONE", 1);
    let two = bundle("2099-02-01", "SERIAL-TWO", 2);
    let trusted = [data::TrustedKey::from_file(&key.pub_file).unwrap()];
    let v1 = |layout: &str, cache: &Path, beside: &[u8]| {
        let verified = data::open(&one, &key.sign(&one), &trusted, "test").unwrap();
        let header = serde_json::json!({
            "layout": layout, "manifest": verified.manifest, "from": "https://example.test/one.tar", "key": "--trusted-key test",
        });
        let mut body = format!("rocmcheck matrix cache 1\n{header}\n").into_bytes();
        body.extend(rocmcheck::matrix::validate::pack_matrix(&verified.matrix).unwrap());
        std::fs::write(cache.join("matrix.cache"), body).unwrap();
        std::fs::write(cache.join("rocmcheck-data.tar"), beside).unwrap();
        std::fs::write(cache.join("rocmcheck-data.tar.minisig"), key.sign(beside)).unwrap();
    };
    let first_line = |cache: &Path| {
        let t = std::fs::read(cache.join("matrix.cache")).unwrap();
        String::from_utf8_lossy(t.split(|b| *b == b'\n').next().unwrap()).into_owned()
    };

    // this build's layout: the packed matrix answers; the file is left as it is
    let cache = tempfile::tempdir().unwrap();
    v1(data::LAYOUT, cache.path(), &one);
    assert_consistent(cache.path(), "1", "earlier layout, same types");
    assert_eq!(first_line(cache.path()), "rocmcheck matrix cache 1");

    // other types, the header's bundle beside it: re-derived, answered, rewritten as one file
    let cache = tempfile::tempdir().unwrap();
    v1("an-older-build", cache.path(), &one);
    assert_consistent(cache.path(), "1", "earlier layout, other types");
    assert_eq!(first_line(cache.path()), "rocmcheck matrix cache 2");
    assert!(!cache.path().join("rocmcheck-data.tar").exists());
    assert_consistent(cache.path(), "1", "rewritten");

    // other types, serial 2's bundle beside serial 1's header: refused, never serial 2's data
    let cache = tempfile::tempdir().unwrap();
    v1("an-older-build", cache.path(), &two);
    let (code, out, err) = issues_pinned(cache.path(), "1");
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(!out.contains("SERIAL-TWO"), "{out}");
    assert!(
        err.contains("the bundle is data serial 2 (2099-02-01) but the cache header says serial 1"),
        "{err}"
    );
    // and the next update replaces it
    let srv = Server::start();
    let url = srv.put("two.tar", &two, &key.sign(&two));
    let o = update(cache.path(), &url, &key);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(first_line(cache.path()), "rocmcheck matrix cache 2");
    assert!(!cache.path().join("rocmcheck-data.tar").exists());
    assert_consistent(cache.path(), "2", "updated from the earlier layout");
}
