//! A small pseudo-terminal harness for the tests: runs a command with stdin, stdout and stderr on
//! the slave side of a fresh pty (its controlling terminal, window size as given), reads the
//! master side, and kills the command's process group when a watchdog runs out, so that a
//! command that would hang under a terminal fails its test instead of hanging CI.
//!
//! Linux only (openpty from libc, TIOCSCTTY).

#![allow(dead_code)]

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
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

fn check(r: libc::c_int, what: &str) {
    assert!(r >= 0, "{what}: {}", std::io::Error::last_os_error());
}

/// Runs `cmd` under a new pty of `cols` × `rows` (0 × 0: a terminal that reports no size), and
/// kills its process group after `watchdog`.
pub fn run(cmd: &mut Command, cols: u16, rows: u16, watchdog: Duration) -> PtyRun {
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
    cmd.stdin(io(&slave)).stdout(io(&slave)).stderr(io(&slave));
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("spawn under the pty");
    drop(slave);
    let (tx, rx) = mpsc::channel();
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
    let deadline = Instant::now() + watchdog;
    let mut raw = Vec::new();
    let mut timed_out = false;
    let status = loop {
        while let Ok(b) = rx.try_recv() {
            raw.extend(b);
        }
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if Instant::now() >= deadline {
            timed_out = true;
            // SAFETY: the child leads its own process group (setsid above).
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // what is still in the pty after the exit (bounded: a grandchild may keep the slave open)
    let drain_until = Instant::now() + Duration::from_secs(2);
    while let Ok(b) = rx.recv_timeout(drain_until.saturating_duration_since(Instant::now())) {
        raw.extend(b);
    }
    PtyRun {
        code: status.and_then(|s| s.code()),
        raw,
        timed_out,
    }
}
