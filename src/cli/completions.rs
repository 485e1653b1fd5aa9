//! `rocmcheck completions SHELL` and `rocmcheck man`: shell completions (clap_complete) and the
//! man page (clap_mangen), both generated from the one clap definition in `cli/mod.rs`, so they can
//! never disagree with `--help`.

use super::{Args, Globals};
use crate::exit::ExitStatus;
use clap::CommandFactory;
use std::io::Write;
use std::path::PathBuf;

/// Print shell completions (bash, zsh, fish, powershell, elvish).
#[derive(Debug, clap::Args)]
#[command(after_help = "Where to put them:\n  \
    bash        rocmcheck completions bash > ~/.local/share/bash-completion/completions/rocmcheck\n  \
    zsh         rocmcheck completions zsh > ~/.zfunc/_rocmcheck   (with fpath+=(~/.zfunc) before compinit)\n  \
    fish        rocmcheck completions fish > ~/.config/fish/completions/rocmcheck.fish\n  \
    powershell  rocmcheck completions powershell >> $PROFILE\n  \
    elvish      rocmcheck completions elvish >> ~/.config/elvish/rc.elv")]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Print the man page (roff), or write one page per subcommand with --out-dir.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Install: rocmcheck man > ~/.local/share/man/man1/rocmcheck.1 (then `man rocmcheck`),\n\
    or rocmcheck man --out-dir ~/.local/share/man/man1 for one page per subcommand too."
)]
pub struct ManArgs {
    /// Write rocmcheck.1 and one page per subcommand (rocmcheck-lint.1, …) into DIR instead of
    /// printing rocmcheck.1.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// The clap command the completions are generated from.
///
/// The subcommands' arguments are deferred (built only for the subcommand that runs, for start-up
/// time), and clap copies the tree of the `help` subcommand before nested deferred
/// subcommands (`matrix …`, `report …`) resolve. So: build once, then start again from the
/// resolved subcommands, and the completions see the whole tree.
pub fn command() -> clap::Command {
    let mut built = Args::command();
    built.build();
    let mut cmd = Args::command();
    for sub in built.get_subcommands() {
        let name = sub.get_name().to_string();
        if cmd.find_subcommand(&name).is_some() {
            let resolved = sub.clone();
            cmd = cmd.mut_subcommand(name, |_| resolved);
        }
    }
    cmd
}

/// Runs `rocmcheck completions`.
pub fn run_completions(
    _: &Globals,
    a: CompletionsArgs,
    out: &mut dyn Write,
    _: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    let mut cmd = command();
    let name = cmd.get_name().to_string();
    // clap_complete panics when its writer fails (`rocmcheck completions bash | head`): write
    // into memory, then out, where a closed pipe ends the run quietly like every other output.
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, name, &mut buf);
    out.write_all(&buf)?;
    Ok(ExitStatus::Success)
}

/// Runs `rocmcheck man`.
pub fn run_man(_: &Globals, a: ManArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    // clap_mangen builds each page's command itself: the deferred arguments resolve there, and
    // the resolved tree of [`command`] would add pages for `matrix help …`.
    let cmd = Args::command();
    match a.out_dir {
        None => {
            clap_mangen::Man::new(cmd).render(out)?;
            Ok(ExitStatus::Success)
        }
        Some(dir) => {
            if !dir.is_dir() {
                writeln!(err, "error: --out-dir {}: not a directory", dir.display())?;
                return Ok(ExitStatus::Error);
            }
            if let Err(e) = clap_mangen::generate_to(cmd, &dir) {
                writeln!(
                    err,
                    "error: --out-dir {}: cannot write the man pages: {e}",
                    dir.display()
                )?;
                return Ok(ExitStatus::Error);
            }
            let mut pages: Vec<String> = std::fs::read_dir(&dir)?
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("rocmcheck") && n.ends_with(".1"))
                .collect();
            pages.sort();
            writeln!(
                out,
                "wrote {} man page(s) to {}: {}",
                pages.len(),
                dir.display(),
                pages.join(" ")
            )?;
            Ok(ExitStatus::Success)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subcommand_is_in_the_completions_and_the_man_page() {
        let mut bash = Vec::new();
        clap_complete::generate(clap_complete::Shell::Bash, &mut command(), "rocmcheck", &mut bash);
        let bash = String::from_utf8(bash).unwrap();
        let mut man = Vec::new();
        clap_mangen::Man::new(command()).render(&mut man).unwrap();
        let man = String::from_utf8(man).unwrap();
        let subs: Vec<String> = command().get_subcommands().map(|s| s.get_name().to_string()).collect();
        assert!(subs.len() >= 9, "{subs:?}");
        for s in &subs {
            assert!(bash.contains(&format!("rocmcheck,{s})")), "bash completions lack {s}");
            assert!(man.contains(&format!("rocmcheck\\-{s}")), "man page lacks {s}");
        }
        assert!(
            man.starts_with(".ie \\n(.g .ds Aq"),
            "not roff: {}",
            &man[..40.min(man.len())]
        );
        assert!(man.contains(".TH rocmcheck 1"));
    }
}
