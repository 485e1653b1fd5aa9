//! Ctrl-C as a person gives it: the command runs with stdin and stderr on a fresh pty (its
//! controlling terminal, so the terminal's ^C sends SIGINT to its process group) and stdout on a
//! pipe (the report, read apart from the progress); when `ready` says so, ^C is written to the
//! master side. A watchdog kills the process group if it does not end.
//!
//! Linux only (openpty from libc, TIOCSCTTY).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What the command did.
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

/// Runs `cmd`; polls `ready(terminal_so_far)` every 100 ms and sends ^C once it returns true.
pub fn run_and_interrupt(cmd: &mut Command, mut ready: impl FnMut(&str) -> bool, watchdog: Duration) -> Interrupted {
    let (mut master, mut slave) = (-1, -1);
    let ws = libc::winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors; the name buffer and termios may be null.
    let r = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &ws) };
    assert!(r >= 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let io = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup the pty slave"));
    cmd.stdin(io(&slave)).stderr(io(&slave)).stdout(Stdio::piped());
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
    let mut stdout = child.stdout.take().expect("stdout pipe");
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let mut writer = std::fs::File::from(master.try_clone().expect("dup the pty master"));
    let (tx, rx) = mpsc::channel();
    let mut reader = std::fs::File::from(master);
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
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
    let mut sent = false;
    let status = loop {
        while let Ok(b) = rx.try_recv() {
            raw.extend(b);
        }
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if !sent && ready(&String::from_utf8_lossy(&raw)) {
            writer.write_all(b"\x03").expect("write ^C to the terminal");
            sent = true;
        }
        if Instant::now() >= deadline {
            // SAFETY: the child leads its own process group (setsid above).
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let drain_until = Instant::now() + Duration::from_secs(2);
    while let Ok(b) = rx.recv_timeout(drain_until.saturating_duration_since(Instant::now())) {
        raw.extend(b);
    }
    Interrupted {
        code: status.and_then(|s| s.code()),
        stdout: out_thread.join().unwrap_or_default(),
        terminal: String::from_utf8_lossy(&raw).into_owned(),
        sent,
    }
}
