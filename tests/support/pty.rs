//! A small pseudo-terminal harness for the tests: runs a command on the slave side of a fresh pty
//! (its controlling terminal), reads the master side, and kills the command's process group when
//! a watchdog runs out, so that a command that would hang under a terminal fails its test
//! instead of hanging CI.
//!
//! - [`run`]: stdin, stdout and stderr on the terminal (window size as given);
//! - [`run_and_interrupt`]: Ctrl-C as a person gives it: stdin and stderr on the terminal (so the
//!   terminal's ^C sends SIGINT to the process group), stdout on a pipe (the report, read apart
//!   from the progress); ^C is written to the master side once `ready` says so.
//!
//! Linux only (openpty from libc, TIOCSCTTY).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a command did under the terminal.
#[derive(Debug)]
pub struct PtyRun {
    /// Exit code; None when killed by the watchdog or a signal.
    pub code: Option<i32>,
    /// Everything written to the terminal (stdout and stderr together), as bytes.
    pub raw: Vec<u8>,
    /// The watchdog ran out and killed the command.
    pub timed_out: bool,
}

impl PtyRun {
    /// The output as text: CR LF → LF, ANSI escape sequences removed, and what a carriage return
    /// or an erase-line overwrote dropped (as the screen would show it, roughly).
    pub fn text(&self) -> String {
        let s = String::from_utf8_lossy(&self.raw);
        let mut out = String::new();
        let mut line = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\x1b' => {
                    // CSI: ESC [ params final-byte; other escapes: ESC + one char
                    if chars.peek() == Some(&'[') {
                        chars.next();
                        let mut params = String::new();
                        for d in chars.by_ref() {
                            if ('@'..='~').contains(&d) {
                                if d == 'K' {
                                    line.clear();
                                }
                                break;
                            }
                            params.push(d);
                        }
                    } else {
                        chars.next();
                    }
                }
                '\r' if chars.peek() == Some(&'\n') => {}
                '\r' => line.clear(),
                '\n' => {
                    out.push_str(&line);
                    out.push('\n');
                    line.clear();
                }
                c => line.push(c),
            }
        }
        out.push_str(&line);
        out
    }

    /// Asserts the command finished (not killed by the watchdog) with `code`.
    #[track_caller]
    pub fn assert_code(&self, code: i32) {
        assert!(
            !self.timed_out,
            "the command HUNG under a terminal (killed by the watchdog); output so far:\n{}",
            self.text()
        );
        assert_eq!(self.code, Some(code), "exit code; output:\n{}", self.text());
    }
}

/// What the command did when interrupted ([`run_and_interrupt`]).
#[derive(Debug)]
pub struct Interrupted {
    /// Exit code; None when killed by the watchdog.
    pub code: Option<i32>,
    /// stdout (the pipe).
    pub stdout: String,
    /// What the terminal showed (stderr), raw.
    pub terminal: String,
    /// Whether ^C was sent (`ready` said so before the command ended).
    pub sent: bool,
}

fn check(r: libc::c_int, what: &str) {
    assert!(r >= 0, "{what}: {}", std::io::Error::last_os_error());
}

/// A command started on a fresh pty: the child, what the terminal shows (read on a thread) and
/// the master side to type on.
struct OnPty {
    child: Child,
    shown: mpsc::Receiver<Vec<u8>>,
    keyboard: std::fs::File,
}

/// Starts `cmd` with stdin and stderr (and stdout when `stdout_too`, else stdout is piped) on a
/// new pty of `cols` × `rows` (0 × 0: a terminal that reports no size), as its controlling
/// terminal and the leader of its own process group.
fn spawn(cmd: &mut Command, cols: u16, rows: u16, stdout_too: bool) -> OnPty {
    let (mut master, mut slave) = (-1, -1);
    let ws = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors; the name buffer and termios may be null.
    check(
        unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &ws) },
        "openpty",
    );
    // SAFETY: both descriptors were just opened and are owned here.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let io = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup the pty slave"));
    cmd.stdin(io(&slave)).stderr(io(&slave));
    if stdout_too {
        cmd.stdout(io(&slave));
    } else {
        cmd.stdout(Stdio::piped());
    }
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn().expect("spawn under the pty");
    drop(slave);
    let keyboard = std::fs::File::from(master.try_clone().expect("dup the pty master"));
    let (tx, shown) = mpsc::channel();
    let mut reader = std::fs::File::from(master);
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                // EIO once the last slave descriptor is closed
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    OnPty { child, shown, keyboard }
}

impl OnPty {
    /// Waits for the command, every `poll` collecting what the terminal shows and calling
    /// `tick(shown so far, keyboard)` while it runs; kills its process group after `watchdog`.
    /// Returns its exit status (None when killed) and everything the terminal showed.
    fn watch(
        &mut self,
        watchdog: Duration,
        poll: Duration,
        mut tick: impl FnMut(&[u8], &mut std::fs::File),
    ) -> (Option<ExitStatus>, Vec<u8>) {
        let deadline = Instant::now() + watchdog;
        let mut raw = Vec::new();
        let status = loop {
            while let Ok(b) = self.shown.try_recv() {
                raw.extend(b);
            }
            if let Some(s) = self.child.try_wait().expect("wait") {
                break Some(s);
            }
            tick(&raw, &mut self.keyboard);
            if Instant::now() >= deadline {
                // SAFETY: the child leads its own process group (setsid in `spawn`).
                unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(poll);
        };
        // what is still in the pty after the exit (bounded: a grandchild may keep the slave open)
        let drain_until = Instant::now() + Duration::from_secs(2);
        while let Ok(b) = self
            .shown
            .recv_timeout(drain_until.saturating_duration_since(Instant::now()))
        {
            raw.extend(b);
        }
        (status, raw)
    }
}

/// Runs `cmd` under a new pty of `cols` × `rows` (0 × 0: a terminal that reports no size), and
/// kills its process group after `watchdog`.
pub fn run(cmd: &mut Command, cols: u16, rows: u16, watchdog: Duration) -> PtyRun {
    let mut p = spawn(cmd, cols, rows, true);
    let (status, raw) = p.watch(watchdog, Duration::from_millis(20), |_, _| {});
    PtyRun {
        code: status.and_then(|s| s.code()),
        raw,
        timed_out: status.is_none(),
    }
}

/// Runs `cmd` on a 120 × 40 terminal with stdout on a pipe; polls `ready(terminal so far)` every
/// 100 ms and types ^C once it returns true; kills its process group after `watchdog`.
pub fn run_and_interrupt(cmd: &mut Command, mut ready: impl FnMut(&str) -> bool, watchdog: Duration) -> Interrupted {
    let mut p = spawn(cmd, 120, 40, false);
    let mut stdout = p.child.stdout.take().expect("stdout pipe");
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let mut sent = false;
    let (status, raw) = p.watch(watchdog, Duration::from_millis(100), |raw, keyboard| {
        if !sent && ready(&String::from_utf8_lossy(raw)) {
            keyboard.write_all(b"\x03").expect("write ^C to the terminal");
            sent = true;
        }
    });
    Interrupted {
        code: status.and_then(|s| s.code()),
        stdout: out_thread.join().unwrap_or_default(),
        terminal: String::from_utf8_lossy(&raw).into_owned(),
        sent,
    }
}
