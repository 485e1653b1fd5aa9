//! The `rocmcheck` binary: parse arguments, run, map the outcome to an exit code. Nothing else.

use clap::Parser;
use rocmcheck::{cli, exit::ExitStatus};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

#[allow(clippy::disallowed_macros)]
fn main() -> ExitCode {
    let args = cli::Args::parse();
    // Rust's stdout is line-buffered: a pretty-printed JSON report of a big paste went out in
    // one write(2) per line (2,065 calls for 89 KB). Piped output is block-buffered, as ripgrep
    // does; a terminal keeps line buffering. Progress goes to stderr, so nothing waits on this.
    let stdout = std::io::stdout();
    let mut out: Box<dyn Write> = if stdout.is_terminal() {
        Box::new(stdout.lock())
    } else {
        Box::new(std::io::BufWriter::with_capacity(64 * 1024, stdout.lock()))
    };
    // Not `stderr().lock()`: a lock held for the whole run deadlocks with the progress bar's
    // thread, which draws to stderr on its own (`build` under a terminal hung for ever, issue
    // 24). Unbuffered `Stderr` takes its lock per write.
    let mut err = std::io::stderr();
    let status = match cli::run(args, &mut out, &mut err) {
        Ok(s) => s,
        Err(e) if is_broken_pipe(&e) => ExitStatus::Success,
        Err(e) => {
            let _ = writeln!(err, "rocmcheck failed: {e:#}");
            ExitStatus::Error
        }
    };
    if let Err(e) = out.flush()
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = writeln!(err, "rocmcheck failed: {e}");
        return ExitCode::from(ExitStatus::Error.code());
    }
    ExitCode::from(status.code())
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
