//! `rocmcheck smoke --local`: the payload run by this host's `python3`, no Docker.
//!
//! The payload re-runs itself for its torch child, so it needs a real file: it is written to a
//! private temporary file that is removed afterwards. A hard timeout bounds the run even if the
//! payload's own watchdog cannot fire.

use super::result::{Classification, SmokeResult};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Options of a local run.
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// The interpreter (default `python3`).
    pub python: PathBuf,
    /// Arguments passed to the payload.
    pub payload_args: Vec<String>,
    /// Hard limit for the whole run.
    pub timeout: Duration,
}

struct TempPayload(PathBuf);

impl Drop for TempPayload {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn write_payload() -> std::io::Result<TempPayload> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let path = std::env::temp_dir().join(format!("rocmcheck-payload-{}-{nanos}.py", std::process::id()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    let mut f = opts.open(&path)?;
    std::io::Write::write_all(&mut f, super::PAYLOAD.as_bytes())?;
    Ok(TempPayload(path))
}

fn reader(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// Runs the payload with the local interpreter. Errors only when the interpreter cannot be
/// started (a usage problem); everything the payload does is a result.
pub fn run_local(opts: &LocalOptions) -> std::io::Result<SmokeResult> {
    let file = write_payload()?;
    run_file(&file.0, opts)
}

fn run_file(file: &Path, opts: &LocalOptions) -> std::io::Result<SmokeResult> {
    let start = Instant::now();
    let mut child = Command::new(&opts.python)
        .arg(file)
        .args(&opts.payload_args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot run {}: {e}", opts.python.display())))?;
    let out = reader(child.stdout.take().expect("piped stdout"));
    let err = reader(child.stderr.take().expect("piped stderr"));
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if start.elapsed() >= opts.timeout {
            timed_out = true;
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let wall_ms = start.elapsed().as_secs_f64() * 1000.0;
    let code = status.and_then(|s| s.code()).map(i64::from);
    #[cfg(unix)]
    let signal = {
        use std::os::unix::process::ExitStatusExt;
        status.and_then(|s| s.signal()).map(signal_name)
    };
    #[cfg(not(unix))]
    let signal: Option<String> = None;
    let mut r = if timed_out {
        let mut r = SmokeResult::from_output("local", &stdout, &stderr, code, None);
        if r.payload.is_none() || r.classification != Classification::Hang {
            r.classification = Classification::Hang;
            r.detail = Some(format!("no result within {} s; killed", opts.timeout.as_secs_f64()));
        }
        r
    } else {
        SmokeResult::from_output("local", &stdout, &stderr, code, signal.as_deref())
    };
    if signal.is_some() && r.payload.is_some() && r.classification == Classification::Pass {
        r.classification = Classification::Crash;
    }
    r.wall_ms = Some(wall_ms);
    Ok(r)
}

fn signal_name(sig: i32) -> String {
    super::result::signal_from_exit(128 + i64::from(sig))
        .map(str::to_string)
        .unwrap_or_else(|| format!("signal {sig}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python() -> Option<PathBuf> {
        Command::new("python3")
            .arg("-c")
            .arg("pass")
            .status()
            .ok()
            .filter(|s| s.success())
            .map(|_| "python3".into())
    }

    #[test]
    fn local_run_gives_a_document_and_removes_its_file() {
        let Some(py) = python() else { return };
        let opts = LocalOptions {
            python: py,
            payload_args: vec!["--no-torch".into(), "--no-memory".into()],
            timeout: Duration::from_secs(60),
        };
        let r = run_local(&opts).unwrap();
        assert!(r.payload.is_some(), "{r:?}");
        // This machine has no GPU runtime, or one without a device; either way a real verdict.
        assert_ne!(r.classification, Classification::Crash, "{r:?}");
        let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("rocmcheck-payload-{}-", std::process::id()))
            })
            .collect();
        assert!(left.is_empty());
    }

    #[test]
    fn hard_timeout_kills_a_stuck_payload() {
        let Some(py) = python() else { return };
        let dir = std::env::temp_dir().join(format!("rocmcheck-local-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("stuck.py");
        std::fs::write(&f, "import time\ntime.sleep(30)\n").unwrap();
        let opts = LocalOptions {
            python: py,
            payload_args: vec![],
            timeout: Duration::from_millis(500),
        };
        let t = Instant::now();
        let r = run_file(&f, &opts).unwrap();
        assert_eq!(r.classification, Classification::Hang);
        assert!(t.elapsed() < Duration::from_secs(10));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_interpreter_is_an_error() {
        let opts = LocalOptions {
            python: "/nonexistent/python3".into(),
            payload_args: vec![],
            timeout: Duration::from_secs(5),
        };
        assert!(run_local(&opts).is_err());
    }
}
