//! Probes: turn the machine (or a captured directory tree standing in for it) into [`Facts`].
//!
//! Probes observe and never judge. Every file is read through a [`Root`] (`--root DIR`, default
//! `/`), so a tree captured from another machine — or a test fixture under
//! `tests/fixtures/sysroots/` — can stand in for the real one; the only subprocess (the Python
//! torch probe) goes through a [`ProcessRunner`], which tests replace with [`FakeRunner`].
//! Anything unreadable, empty or garbled becomes a [`ProbeProblem`] in [`Facts::problems`]; only
//! a root that is not a directory is an error.
//!
//! One file per area: [`gpu`] (KFD topology + DRM), [`devices`] (device nodes, groups,
//! container), [`rocm`] (user-space installs, libraries), [`rocm_pip`] (ROCm as pip wheels in
//! site-packages), [`kernel`] (driver, TTM, memory),
//! [`python`] (torch, through one subprocess), [`env_vars`] (the environment).

pub mod devices;
pub mod env_vars;
pub mod gpu;
pub mod kernel;
pub mod python;
pub mod rocm;
pub mod rocm_pip;

use crate::facts::{Facts, Origin, ProbeProblem, Subject};
use crate::matrix::Matrix;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the probes should do.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// The Python interpreter for the torch probe; None skips it (`--no-python`).
    pub python: Option<String>,
    /// Also initialise the GPU from torch (`--deep`).
    pub deep: bool,
    /// Time limit for the Python subprocess.
    pub timeout: Duration,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions {
            python: Some("python3".into()),
            deep: false,
            timeout: Duration::from_secs(30),
        }
    }
}

/// The root could not be probed at all.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// `--root` is missing or not a directory.
    #[error("--root {0}: not a directory")]
    RootNotDir(String),
}

/// Reads files under a root. Paths given to it are absolute paths on the probed machine.
#[derive(Debug, Clone)]
pub struct Root {
    base: PathBuf,
}

/// Why a read did not give text.
#[derive(Debug)]
pub enum ReadError {
    /// The file does not exist (not a problem by itself: most files are optional).
    Missing,
    /// It exists but could not be read (permissions, symlink loop, not UTF-8, …).
    Failed(String),
}

impl Root {
    /// A root at `base` (`/` for the running machine).
    pub fn new(base: impl Into<PathBuf>) -> Root {
        Root { base: base.into() }
    }

    /// True when this is the running machine's own `/`.
    pub fn is_system(&self) -> bool {
        self.base == Path::new("/")
    }

    /// The path on this machine of `p` (an absolute path on the probed machine). In a recorded
    /// root every symbolic link on the way is followed inside the root ([`Root::resolve`]): an
    /// absolute target `/x` is `<root>/x` and `..` stops at the root, so nothing outside the root
    /// is reached. A path whose links loop gives a path that cannot be opened.
    pub fn path(&self, p: &str) -> PathBuf {
        if self.is_system() {
            return self.base.join(p.trim_start_matches('/'));
        }
        match self.walk(p, true) {
            Walk::Found(r) | Walk::Stopped(r) => r,
            Walk::Loop => self.base.join(LOOP),
        }
    }

    /// [`Root::path`] with the last component left as it is (a link there is not followed):
    /// for reading a link itself.
    pub fn link_path(&self, p: &str) -> PathBuf {
        if self.is_system() {
            return self.base.join(p.trim_start_matches('/'));
        }
        match self.walk(p, false) {
            Walk::Found(r) | Walk::Stopped(r) => r,
            Walk::Loop => self.base.join(LOOP),
        }
    }

    /// Follows `p` component by component inside the root (up to 40 links).
    fn walk(&self, p: &str, follow_last: bool) -> Walk {
        let mut todo: std::collections::VecDeque<String> =
            p.split('/').filter(|c| !c.is_empty()).map(str::to_string).collect();
        let mut parts: Vec<String> = Vec::new();
        let mut hops = 0;
        let host = |parts: &[String]| {
            let mut h = self.base.clone();
            h.extend(parts);
            h
        };
        while let Some(c) = todo.pop_front() {
            match c.as_str() {
                "." => continue,
                ".." => {
                    parts.pop();
                    continue;
                }
                _ => {}
            }
            parts.push(c);
            if todo.is_empty() && !follow_last {
                break;
            }
            let cur = host(&parts);
            let Ok(meta) = std::fs::symlink_metadata(&cur) else {
                // missing (or unreadable): the rest is looked up under it and cannot exist
                let mut h = cur;
                h.extend(todo);
                return Walk::Stopped(h);
            };
            if meta.file_type().is_symlink() {
                hops += 1;
                if hops > 40 {
                    return Walk::Loop;
                }
                let Ok(target) = std::fs::read_link(&cur) else {
                    return Walk::Stopped(cur);
                };
                parts.pop();
                if target.is_absolute() {
                    parts.clear();
                }
                let comps: Vec<String> = target
                    .to_string_lossy()
                    .split('/')
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect();
                for (i, t) in comps.into_iter().enumerate() {
                    todo.insert(i, t);
                }
            }
        }
        Walk::Found(host(&parts))
    }

    /// Reads a text file. Control characters other than tab and line ends (an ANSI escape
    /// sequence in a recorded file) are replaced by U+FFFD, so nothing read reaches a terminal
    /// as a command.
    pub fn read(&self, p: &str) -> Result<String, ReadError> {
        // A recorded tree (`--root DIR`) is the user's files: a FIFO there would block the open
        // until a writer came, a device could be endless. Say what it is, never open it. The
        // live machine's sysfs and procfs hold regular files only.
        let full = if self.is_system() {
            self.base.join(p.trim_start_matches('/'))
        } else {
            match self.walk(p, true) {
                Walk::Found(r) => r,
                Walk::Stopped(_) => return Err(ReadError::Missing),
                Walk::Loop => return Err(ReadError::Failed("symbolic links loop (more than 40)".into())),
            }
        };
        let f = match crate::input::open_regular(&full) {
            Ok(f) => f,
            Err(crate::input::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ReadError::Missing);
            }
            Err(e) => return Err(ReadError::Failed(e.to_string())),
        };
        let mut buf = Vec::new();
        // sysfs files are small; cap reads so a wrong path to a huge file cannot stall a probe.
        f.take(1 << 20)
            .read_to_end(&mut buf)
            .map_err(|e| ReadError::Failed(e.to_string()))?;
        let text = String::from_utf8(buf).map_err(|_| ReadError::Failed("not UTF-8 text".into()))?;
        Ok(neutralise_controls(text))
    }

    /// True if the path exists (following symlinks, inside the root).
    pub fn exists(&self, p: &str) -> bool {
        self.path(p).exists()
    }

    /// True if `p` itself is a symbolic link (not followed).
    pub fn is_link(&self, p: &str) -> bool {
        std::fs::symlink_metadata(self.link_path(p)).is_ok_and(|m| m.file_type().is_symlink())
    }

    /// The real path of `p` on the probed machine: symbolic links are followed inside the root
    /// (an absolute link target is a path on the probed machine, as `update-alternatives` and
    /// `/opt/rocm -> /opt/rocm-6.2.4` write them, never one on this machine). None when a part
    /// of the path is missing or the links loop (more than 40 hops).
    pub fn resolve(&self, p: &str) -> Option<String> {
        let Walk::Found(h) = self.walk(p, true) else {
            return None;
        };
        let rel = h.strip_prefix(&self.base).ok()?;
        Some(format!("/{}", rel.to_str()?))
    }

    /// Entry names of a directory, sorted. Missing → empty; other errors → Err.
    pub fn list(&self, p: &str) -> Result<Vec<String>, String> {
        self.list_matching(p, |_| true)
    }

    /// Entry names of a directory that `keep` accepts, sorted. System library directories hold
    /// thousands of entries of which a probe wants a handful: filtering the raw names before
    /// they become `String`s and are sorted keeps `env` start-up short.
    pub fn list_matching(&self, p: &str, keep: impl Fn(&[u8]) -> bool) -> Result<Vec<String>, String> {
        use std::os::unix::ffi::OsStrExt;
        let dir = if self.is_system() {
            self.base.join(p.trim_start_matches('/'))
        } else {
            match self.walk(p, true) {
                Walk::Found(r) => r,
                Walk::Stopped(_) => return Ok(Vec::new()),
                Walk::Loop => return Err("symbolic links loop (more than 40)".into()),
            }
        };
        match std::fs::read_dir(dir) {
            Ok(rd) => {
                let mut v: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name())
                    .filter(|n| keep(n.as_bytes()))
                    .filter_map(|n| n.into_string().ok())
                    .collect();
                v.sort();
                Ok(v)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Where a walk inside a root ended.
enum Walk {
    /// Every component exists; the path on this machine, with no link left in it.
    Found(PathBuf),
    /// A component is missing or unreadable: a path under it (which cannot be opened).
    Stopped(PathBuf),
    /// The links loop.
    Loop,
}

/// The name a looping path is given under the root: a NUL byte, which no file name holds, so
/// the path cannot be opened.
const LOOP: &str = "\0";

/// Text read from a probed file with every control character other than tab, CR and LF (ESC
/// and the rest of C0, DEL, C1) replaced by U+FFFD.
fn neutralise_controls(s: String) -> String {
    if !s.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) {
        return s;
    }
    s.chars()
        .map(|c| {
            if c.is_control() && !matches!(c, '\t' | '\n' | '\r') {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

/// The probes' shared state: the root and the problems found so far.
pub struct Cx<'a> {
    /// Where files are read.
    pub root: &'a Root,
    /// The matrix (GPU names, APU kind).
    pub matrix: &'a Matrix,
    /// Problems so far.
    pub problems: Vec<ProbeProblem>,
}

impl Cx<'_> {
    /// Records a problem with a path.
    pub fn problem(&mut self, path: &str, message: impl Into<String>) {
        self.problems.push(ProbeProblem {
            origin: Origin::Path { path: path.to_string() },
            message: message.into(),
        });
    }

    /// Reads an optional file: missing → None silently, unreadable → None and a problem.
    pub fn read(&mut self, p: &str) -> Option<String> {
        match self.root.read(p) {
            Ok(s) => Some(s),
            Err(ReadError::Missing) => None,
            Err(ReadError::Failed(e)) => {
                self.problem(p, format!("cannot read: {e}"));
                None
            }
        }
    }

    /// Reads a file holding one number (decimal or `0x` hex); garbage or empty → a problem.
    pub fn read_u64(&mut self, p: &str) -> Option<u64> {
        let s = self.read(p)?;
        match parse_num(s.trim()) {
            Some(n) => Some(n),
            None => {
                self.problem(p, format!("expected a number, found {:?}", clip(s.trim())));
                None
            }
        }
    }

    /// Lists a directory: missing → empty, unreadable → empty and a problem.
    pub fn list(&mut self, p: &str) -> Vec<String> {
        match self.root.list(p) {
            Ok(v) => v,
            Err(e) => {
                self.problem(p, format!("cannot list: {e}"));
                Vec::new()
            }
        }
    }
}

/// Parses `123` or `0x7b`.
pub fn parse_num(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// Shortens a value for a message.
pub fn clip(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Runs every probe and returns the facts. `env` is the environment the checked processes see
/// (the real one from [`std::env::vars`], or a fixture's).
pub fn probe_all(
    root: &Path,
    opts: &ProbeOptions,
    runner: &dyn ProcessRunner,
    env: &BTreeMap<String, String>,
    matrix: &Matrix,
) -> Result<Facts, ProbeError> {
    if !root.is_dir() {
        return Err(ProbeError::RootNotDir(root.display().to_string()));
    }
    let r = Root::new(root);
    let mut cx = Cx {
        root: &r,
        matrix,
        problems: Vec::new(),
    };
    let mut facts = Facts::new(Subject::Host {
        root: root.display().to_string(),
    });
    facts.env = env_vars::probe(env);
    facts.gpus = gpu::probe(&mut cx);
    facts.targets = gpu::targets(&facts.gpus, env);
    facts.devices = Some(devices::probe(&mut cx));
    let (installs, libs) = rocm::probe(&mut cx, env);
    facts.rocm = installs;
    facts.libraries = libs;
    facts.kernel = Some(kernel::probe(&mut cx));
    if let Some(py) = &opts.python {
        let (python, torch) = python::probe(py, opts, runner, env);
        facts.python = Some(python);
        facts.torch = torch;
    }
    // ROCm as pip wheels, in the probed Python's site-packages and the usual places.
    let reported: Vec<String> = facts
        .python
        .as_ref()
        .map(|p| p.site_packages.clone())
        .unwrap_or_default();
    let dirs = rocm_pip::site_dirs(&mut cx, env, &reported);
    let (pip_installs, pip) = rocm_pip::probe(&mut cx, &dirs);
    facts.rocm.extend(pip_installs);
    facts.pip = pip;
    if let Some(lib) = facts.torch.as_ref().and_then(|t| t.value.hip_library.clone()) {
        rocm_pip::mark_loaded(&cx, &mut facts.rocm, &lib);
    }
    facts.problems = cx.problems;
    Ok(facts)
}

/// How a subprocess ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    /// Exited with a code.
    Exited(i32),
    /// Killed by a signal (a crash: 11 is a segfault).
    Signaled(i32),
    /// Ran past its time limit and was killed.
    TimedOut,
    /// Could not be started (not found, not executable).
    SpawnFailed(String),
}

/// The result of running a subprocess.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// How it ended.
    pub status: RunStatus,
    /// Standard output (lossy UTF-8).
    pub stdout: String,
    /// Standard error (lossy UTF-8).
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// Runs subprocesses: the real one spawns, tests use [`FakeRunner`].
pub trait ProcessRunner {
    /// Runs `program args…` (inheriting this process's environment), killing it after `timeout`.
    fn run(&self, program: &str, args: &[String], timeout: Duration) -> RunOutcome;
}

/// Spawns real processes: waits with a deadline, kills on timeout.
pub struct SystemRunner;

impl ProcessRunner for SystemRunner {
    fn run(&self, program: &str, args: &[String], timeout: Duration) -> RunOutcome {
        use std::process::{Command, Stdio};
        let start = Instant::now();
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                return RunOutcome {
                    status: RunStatus::SpawnFailed(e.to_string()),
                    stdout: String::new(),
                    stderr: String::new(),
                    elapsed: start.elapsed(),
                };
            }
        };
        // Drain both pipes on threads so a chatty child cannot block on a full pipe.
        let drain = |r: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                if let Some(mut r) = r {
                    let _ = r.read_to_end(&mut buf);
                }
                String::from_utf8_lossy(&buf).into_owned()
            })
        };
        let out = drain(child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
        let err = drain(child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
        let deadline = start + timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => {
                    use std::os::unix::process::ExitStatusExt;
                    break match (st.code(), st.signal()) {
                        (Some(c), _) => RunStatus::Exited(c),
                        (None, Some(s)) => RunStatus::Signaled(s),
                        _ => RunStatus::Exited(-1),
                    };
                }
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break RunStatus::TimedOut;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(e) => {
                    let _ = child.kill();
                    break RunStatus::SpawnFailed(e.to_string());
                }
            }
        };
        // A grandchild may hold the pipes open after a kill: do not wait for it forever.
        let join = |h: std::thread::JoinHandle<String>| {
            let until = Instant::now() + Duration::from_millis(500);
            while !h.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(2));
            }
            if h.is_finished() {
                h.join().unwrap_or_default()
            } else {
                String::new()
            }
        };
        RunOutcome {
            status,
            stdout: join(out),
            stderr: join(err),
            elapsed: start.elapsed(),
        }
    }
}

/// A runner for tests: answers every call with the same outcome and records the calls.
pub struct FakeRunner {
    /// The answer.
    pub outcome: RunOutcome,
    /// Calls made (program and args).
    pub calls: std::sync::Mutex<Vec<Vec<String>>>,
}

impl FakeRunner {
    /// A fake that answers with `outcome`.
    pub fn new(outcome: RunOutcome) -> FakeRunner {
        FakeRunner {
            outcome,
            calls: std::sync::Mutex::new(Vec::new()),
        }
    }
    /// A fake whose process exits 0 printing `stdout`.
    pub fn stdout(stdout: &str) -> FakeRunner {
        Self::new(RunOutcome {
            status: RunStatus::Exited(0),
            stdout: stdout.to_string(),
            stderr: String::new(),
            elapsed: Duration::from_millis(1),
        })
    }
}

impl ProcessRunner for FakeRunner {
    fn run(&self, program: &str, args: &[String], _timeout: Duration) -> RunOutcome {
        let mut call = vec![program.to_string()];
        call.extend(args.iter().cloned());
        if let Ok(mut c) = self.calls.lock() {
            c.push(call);
        }
        self.outcome.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_runner_times_out_and_reports_signals() {
        let r = SystemRunner;
        let o = r.run("sh", &["-c".into(), "sleep 5".into()], Duration::from_millis(200));
        assert_eq!(o.status, RunStatus::TimedOut);
        assert!(o.elapsed < Duration::from_secs(3));
        let o = r.run("sh", &["-c".into(), "kill -SEGV $$".into()], Duration::from_secs(5));
        assert_eq!(o.status, RunStatus::Signaled(11));
        let o = r.run("sh", &["-c".into(), "echo hi; exit 3".into()], Duration::from_secs(5));
        assert_eq!(o.status, RunStatus::Exited(3));
        assert_eq!(o.stdout.trim(), "hi");
        let o = r.run("/nonexistent/python3", &[], Duration::from_secs(1));
        assert!(matches!(o.status, RunStatus::SpawnFailed(_)));
    }

    #[test]
    fn root_that_is_not_a_directory_is_an_error() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let e = probe_all(
            f.path(),
            &ProbeOptions::default(),
            &FakeRunner::stdout(""),
            &BTreeMap::new(),
            Matrix::embedded(),
        );
        assert!(matches!(e, Err(ProbeError::RootNotDir(_))));
    }

    #[test]
    fn garbage_empty_and_looping_files_become_problems() {
        let d = tempfile::tempdir().unwrap();
        let node = d.path().join("sys/class/kfd/kfd/topology/nodes/1");
        std::fs::create_dir_all(&node).unwrap();
        std::fs::write(node.join("properties"), "gfx_target_version banana\nvendor_id 4098\n").unwrap();
        std::fs::create_dir_all(d.path().join("proc/sys/kernel")).unwrap();
        std::fs::write(d.path().join("proc/sys/kernel/osrelease"), "").unwrap();
        std::fs::create_dir_all(d.path().join("sys/module/ttm/parameters")).unwrap();
        let pl = d.path().join("sys/module/ttm/parameters/pages_limit");
        // a link to itself (an absolute target would be a path inside the root, missing there)
        std::os::unix::fs::symlink("pages_limit", &pl).unwrap();
        let facts = probe_all(
            d.path(),
            &ProbeOptions {
                python: None,
                ..ProbeOptions::default()
            },
            &FakeRunner::stdout(""),
            &BTreeMap::new(),
            Matrix::embedded(),
        )
        .unwrap();
        let msgs: Vec<String> = facts
            .problems
            .iter()
            .map(|p| format!("{:?} {}", p.origin, p.message))
            .collect();
        assert!(msgs.iter().any(|m| m.contains("gfx_target_version")), "{msgs:?}");
        assert!(
            msgs.iter().any(|m| m.contains("osrelease") && m.contains("empty")),
            "{msgs:?}"
        );
        assert!(msgs.iter().any(|m| m.contains("pages_limit")), "{msgs:?}");
        assert!(facts.gpus.is_empty());
    }

    #[test]
    fn links_resolve_inside_the_root() {
        let d = tempfile::tempdir().unwrap();
        let r = Root::new(d.path());
        std::fs::create_dir_all(d.path().join("opt/rocm/core-10.0/lib")).unwrap();
        std::fs::create_dir_all(d.path().join("etc/alternatives")).unwrap();
        // absolute targets are paths on the probed machine (update-alternatives writes them so)
        std::os::unix::fs::symlink("/opt/rocm/core-10.0", d.path().join("etc/alternatives/core")).unwrap();
        std::os::unix::fs::symlink("/etc/alternatives/core", d.path().join("opt/rocm/core")).unwrap();
        std::os::unix::fs::symlink("core-10.0/lib", d.path().join("opt/rocm/lib")).unwrap();
        std::os::unix::fs::symlink("../opt/rocm/core/./lib", d.path().join("etc/rocmlib")).unwrap();
        std::os::unix::fs::symlink("/loop", d.path().join("loop")).unwrap();
        assert_eq!(r.resolve("/opt/rocm/core").as_deref(), Some("/opt/rocm/core-10.0"));
        assert_eq!(
            r.resolve("/opt/rocm/core/lib").as_deref(),
            Some("/opt/rocm/core-10.0/lib")
        );
        assert_eq!(r.resolve("/opt/rocm/lib").as_deref(), Some("/opt/rocm/core-10.0/lib"));
        assert_eq!(r.resolve("/etc/rocmlib").as_deref(), Some("/opt/rocm/core-10.0/lib"));
        assert_eq!(r.resolve("/loop"), None, "a link loop ends");
        assert_eq!(r.resolve("/opt/missing"), None);
        assert!(r.is_link("/opt/rocm/core") && !r.is_link("/opt/rocm/core-10.0"));
    }
}
