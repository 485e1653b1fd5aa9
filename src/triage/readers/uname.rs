//! `uname -r` / `uname -a`, `/etc/os-release` (`PRETTY_NAME=`), `lsb_release -d`; WSL from a
//! `microsoft-standard-WSL2` kernel.

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::TrimSet;
use crate::triage::paste::trim;
use regex_lite::Regex;
use std::sync::LazyLock;

static RELEASE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[0-9]+\.[0-9]+(?:\.[0-9]+)?[-+.][0-9A-Za-z.+_-]*$").unwrap());
// the version field starts `#N-…`, or a URL where GitHub turned `#N` into a link to issue N
// (`… 6.17.0-1025-oem https://github.com/o/r/issues/25-Ubuntu SMP …`)
static UNAME_A: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Linux \S+ ([0-9]+\.[0-9]+\S*) (?:#|https?://\S+/(?:issues|pull|discussions)/[0-9]+)").unwrap()
});

/// Reads kernel release and OS lines.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    for (i, l) in lines.iter().enumerate() {
        let t = trim(&l.text);
        if l.command {
            continue;
        }
        if t == "WSL environment detected." {
            fired = true;
            let at = seen.at(true, l.no);
            Seen::first(&mut seen.wsl, at);
            continue;
        }
        let mut kernel = None;
        // `uname -a` as a report's list item (`- Linux fedora 7.0.4-200.fc44.x86_64 #1 SMP …`, a
        // benchmark script's platform bullet)
        let item = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).unwrap_or(t);
        if item.starts_with("Linux ")
            && let Some(c) = UNAME_A.captures(item)
        {
            kernel = Some(c[1].to_string());
            // the processor field names an APU's integrated GPU (`x86_64 AMD RYZEN AI MAX+ 395 w/
            // Radeon 8060S AuthenticAMD GNU/Linux`): that GPU, its target from the name
            if let Some((_, cpu)) = item.split_once(" x86_64 ")
                && cpu.has("Radeon")
                && let Some(name) = super::key_value::apu_model(cpu)
                && seen.agents.iter().all(|a| a.src.file != seen.file)
            {
                let src = crate::triage::Src {
                    file: seen.file,
                    line: l.no,
                };
                seen.agents.push(crate::triage::Agent::named("uname", src, name));
            }
        } else if t.as_bytes().first().is_some_and(u8::is_ascii_digit)
            // the regex last: a line after `uname` is rare, lines of digits are not
            && i > 0
            // the command just before, or before the fences a Markdown report puts between a
            // command and its output (they read as blank lines)
            && lines[i.saturating_sub(4)..i]
                .iter()
                .rev()
                .find(|p| !p.text.trim().is_empty())
                .is_some_and(|p| p.command && p.text.starts_with("uname") || typed_uname(&p.text))
            && RELEASE.is_match(t)
        {
            kernel = Some(t.to_string());
        }
        // `modinfo amdgpu`'s first line names the module file of the running kernel (modinfo
        // looks under `/lib/modules/$(uname -r)` unless told `-k`): `filename:
        // /lib/modules/6.8.0-100-generic/updates/dkms/amdgpu.ko.zst`
        if kernel.is_none() {
            kernel = modinfo_release(t).map(str::to_string);
        }
        if let Some(k) = kernel {
            fired = true;
            if k.to_ascii_lowercase().has("microsoft") {
                let at = seen.at(true, l.no);
                Seen::first(&mut seen.wsl, at);
            }
            let at = seen.at(k, l.no);
            Seen::first(&mut seen.kernel, at);
            continue;
        }
        let os = t
            .strip_prefix("PRETTY_NAME=")
            .map(|v| v.trim_matches('"').to_string())
            .or_else(|| t.strip_prefix("Description:").map(|v| v.trim().to_string()))
            .or_else(|| os_release_name(lines, i, t));
        if let Some(os) = os.filter(|o| !o.is_empty()) {
            fired = true;
            let at = seen.at(os, l.no);
            Seen::first(&mut seen.os, at);
        }
    }
    fired
}

/// The kernel release in `modinfo`'s `filename:` line (a module file under
/// `/lib/modules/<release>/`); nothing for another path or a built-in module (`(builtin)`).
fn modinfo_release(t: &str) -> Option<&str> {
    let path = t.strip_prefix("filename:")?.trim();
    let rest = path
        .strip_prefix("/lib/modules/")
        .or_else(|| path.strip_prefix("/usr/lib/modules/"))?;
    let (release, file) = rest.split_once('/')?;
    let module = file.rsplit('/').next()?;
    let ko = [".ko", ".ko.xz", ".ko.zst", ".ko.gz"]
        .iter()
        .any(|e| module.ends_with(e));
    (ko && RELEASE.is_match(release)).then_some(release)
}

/// The command typed as a label over its output, without a prompt (`uname -r`, `` `uname -a` ``,
/// `uname -r:`, a report's heading line).
fn typed_uname(t: &str) -> bool {
    let t = trim(t).trim_set(b"`*# ").trim_end_matches(':');
    matches!(t, "uname -r" | "uname -a" | "uname -sr" | "uname -rv")
}

/// `/etc/os-release`'s `NAME=` line where the file's `VERSION=` (or `VERSION_ID=`) follows within
/// its next lines, as `cat /etc/os-release` or a report's cut of it prints them (`NAME="Ubuntu"`
/// then `VERSION="22.04.5 LTS (Jammy Jellyfish)"`): the name and the version. A lone `NAME=` is
/// any program's variable.
fn os_release_name(lines: &[Line], i: usize, t: &str) -> Option<String> {
    let field = |t: &str, k: &str| {
        t.strip_prefix(k)
            .map(|v| v.trim().trim_matches('"').trim().to_string())
            .filter(|v| !v.is_empty() && v.len() <= 80)
    };
    let name = field(t, "NAME=")?;
    let next: Vec<&str> = lines[i + 1..].iter().take(8).map(|l| trim(&l.text)).collect();
    // the file's own full name follows (`PRETTY_NAME="SUSE Linux Enterprise Server 15 SP7"`
    // after `NAME="SLES"`): that line is read as itself
    if next.iter().any(|n| n.starts_with("PRETTY_NAME=")) {
        return None;
    }
    let version = next
        .iter()
        .find_map(|n| field(n, "VERSION="))
        .or_else(|| next.iter().find_map(|n| field(n, "VERSION_ID=")))?;
    Some(format!("{name} {version}"))
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn modinfo_s_module_file_names_the_running_kernel() {
        // `modinfo amdgpu` of a DKMS build (the shape of ROCm/rocm-systems#3191; values ours)
        let (fired, s) = run(
            read,
            "filename:       /lib/modules/6.11.0-29-generic/updates/dkms/amdgpu.ko.zst\nversion:        6.12.12\n",
        );
        assert!(fired);
        assert_eq!(s.kernel.map(|k| k.v).as_deref(), Some("6.11.0-29-generic"));
        for t in [
            "filename:       (builtin)\n",
            "filename:       /home/u/build/amdgpu.ko\n",
            "filename: /lib/modules/extra/amdgpu.ko\n",
            "Installing to /lib/modules/6.11.0-29-generic/updates/dkms/amdgpu.ko.zst\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.kernel.is_none(), "{t}");
        }
    }

    #[test]
    fn os_release_s_pretty_name_over_name_and_version() {
        // `cat /etc/os-release` on SLES (a 2026 issue's shape; values as os-release writes them)
        let (_, s) = run(
            read,
            "NAME=\"SLES\"\nVERSION=\"15-SP7\"\nVERSION_ID=\"15.7\"\nPRETTY_NAME=\"SUSE Linux Enterprise Server 15 SP7\"\n",
        );
        assert_eq!(
            s.os.map(|o| o.v).as_deref(),
            Some("SUSE Linux Enterprise Server 15 SP7")
        );
    }

    #[test]
    fn uname_and_os_release() {
        let (fired, s) = run(
            read,
            "$ uname -r\n6.8.0-45-generic\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\n",
        );
        assert!(fired);
        assert_eq!(s.kernel.unwrap().v, "6.8.0-45-generic");
        assert_eq!(s.os.unwrap().v, "Ubuntu 24.04.1 LTS");
        // the output in its own fence after the command's (values ours)
        let (fired, s) = run(read, "```bash\n$ uname -r\n```\n```\n6.1.0-18-amd64\n```\n");
        assert!(fired);
        assert_eq!(s.kernel.unwrap().v, "6.1.0-18-amd64");
        // the command typed as a label over its fenced output, no prompt (values ours)
        let (fired, s) = run(read, "uname -r\n```\n6.19.3-101.fc43.x86_64\n```\n");
        assert!(fired);
        assert_eq!(s.kernel.unwrap().v, "6.19.3-101.fc43.x86_64");
        let (_, s) = run(read, "run uname -r and see\n6.19.3-101.fc43.x86_64\n");
        assert!(s.kernel.is_none());
        // the processor field's integrated GPU (values ours)
        let (_, s) = run(
            read,
            "Linux box 7.0.3 #1 SMP PREEMPT_DYNAMIC Mon Jan 5 10:00:00 UTC 2026 x86_64 AMD Ryzen AI 9 HX 370 w/ Radeon 890M AuthenticAMD GNU/Linux\n",
        );
        assert_eq!(
            s.agents.first().and_then(|a| a.marketing.as_deref()),
            Some("Radeon 890M")
        );
        // a release after other output is not uname's
        let (_, s) = run(read, "$ uname -r\nsomething else\n6.1.0-18-amd64\n");
        assert!(s.kernel.is_none());
        let (_, s) = run(
            read,
            "Linux DESKTOP 5.15.167.4-microsoft-standard-WSL2 #1 SMP Tue Nov 5 00:21:55 UTC 2024 x86_64 GNU/Linux\n",
        );
        assert_eq!(s.kernel.unwrap().v, "5.15.167.4-microsoft-standard-WSL2");
        assert!(s.wsl.unwrap().v);
        // GitHub turned the version field's `#25` into a link (heldout-i 15 shape; values ours)
        let (_, s) = run(
            read,
            "Linux box 6.14.0-1010-oem https://github.com/o/r/issues/11-Ubuntu SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n",
        );
        assert_eq!(s.kernel.unwrap().v, "6.14.0-1010-oem");
        // or to a discussion of another repository (values ours)
        let (fired, s) = run(
            read,
            "Linux box 6.17.0-14-generic https://github.com/o/r/discussions/14-Ubuntu SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n",
        );
        assert!(fired);
        assert_eq!(s.kernel.unwrap().v, "6.17.0-14-generic");
        // as a report's list item (values ours); a sentence starting with the word is none
        let (_, s) = run(
            read,
            "- Linux box 6.18.2-100.fc43.x86_64 #1 SMP PREEMPT_DYNAMIC Tue Jan  6 10:00:00 UTC 2026 x86_64\n",
        );
        assert_eq!(s.kernel.unwrap().v, "6.18.2-100.fc43.x86_64");
        let (_, s) = run(read, "- Linux users see 6.18 #1 of the issues\n");
        assert!(s.kernel.is_none());
        // os-release's name and version lines (values ours); a lone NAME= is no OS
        let (_, s) = run(
            read,
            "NAME=\"Ubuntu\"\nVERSION=\"24.04.2 LTS (Noble Numbat)\"\nID=ubuntu\n",
        );
        assert_eq!(s.os.unwrap().v, "Ubuntu 24.04.2 LTS (Noble Numbat)");
        let (_, s) = run(read, "NAME=\"Fedora Linux\"\nVERSION_ID=44\n");
        assert_eq!(s.os.unwrap().v, "Fedora Linux 44");
        let (_, s) = run(read, "NAME=worker-3\nPORT=8080\n");
        assert!(s.os.is_none());
        let (fired, _) = run(read, "6.8.0-45-generic\n");
        assert!(!fired, "a bare release needs the uname command before it");
    }
}
