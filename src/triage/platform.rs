//! Where a paste was produced — Linux, WSL, Windows or macOS — from what it shows: an operating
//! system named in a key/value line or a template answer, a kernel release (a `microsoft`
//! kernel is WSL), WSL's own messages, Windows paths, DLL and EXE names and PowerShell prompts,
//! build names (`-win-x86_64`), macOS names, and Linux-only shapes (kernel logs, `…-linux-gnu`,
//! `Linux x86_64` build lines, `lib….so` libraries, lspci's lines and bound driver, rocm-smi's
//! banner, `/opt/rocm` and `/var/lib/` paths, a Singularity/Apptainer prompt, a distribution's
//! name in a typed list).
//!
//! A stated operating system (an `OS:` value, a kernel release) outweighs the hints of paths and
//! file names; hints of two platforms with no stated one leave the platform unknown (say less).
//! WSL wins over Linux and Windows: a WSL paste shows both.

use super::paste::{Has, Line};
use super::{At, Seen, Src};
use crate::facts::Platform;
use crate::triage::paste::TrimSet;

/// The first line of each platform's hints, per kind of evidence.
#[derive(Debug, Clone, Default)]
pub struct Hints {
    /// Linux-only shapes.
    pub linux: Option<Src>,
    /// WSL's messages and devices.
    pub wsl: Option<Src>,
    /// Windows paths, DLL/EXE names, PowerShell prompts.
    pub windows: Option<Src>,
    /// macOS names.
    pub macos: Option<Src>,
    /// A kernel log line (dmesg's `[  123.456789]` or `[Fri Apr 17 19:56:16 2026]`, a journal's
    /// `Sep 03 21:38:54 host`): Linux's, whatever else the log names (a game's `.exe` under
    /// Proton).
    pub kernel_log: Option<Src>,
}

/// A drive-letter path (`C:\Users`, `D:/a/…`): one letter, a colon and a backslash or a slash.
fn drive_path(t: &str) -> bool {
    let b = t.as_bytes();
    let mut from = 0;
    while let Some(p) = t[from..].at(":\\").or_else(|| t[from..].at(":/")) {
        let i = from + p;
        // `D:/a/…` (CI build paths in a Windows binary's messages) but not `https://`, `file:///`
        let slash_ok = b.get(i + 1) == Some(&b'\\') || b.get(i + 2).is_some_and(|c| *c != b'/');
        if i >= 1 && b[i - 1].is_ascii_alphabetic() && (i == 1 || !b[i - 2].is_ascii_alphanumeric()) && slash_ok {
            return true;
        }
        from = i + 2;
        if from >= t.len() {
            break;
        }
    }
    false
}

/// A `name.dll`, `name.exe` or `name.bat` token.
fn windows_file(t: &str) -> bool {
    for ext in [".dll", ".exe", ".DLL", ".EXE", ".bat", ".BAT"] {
        let mut from = 0;
        while let Some(p) = t[from..].at(ext) {
            let i = from + p;
            let before = i > 0 && t.as_bytes()[i - 1].is_ascii_alphanumeric();
            let after = t.as_bytes().get(i + 4).is_none_or(|c| !c.is_ascii_alphanumeric());
            if before && after {
                return true;
            }
            from = i + 4;
            if from >= t.len() {
                break;
            }
        }
    }
    false
}

/// A `libname.so` token that ends there (`libamd_smi.so:`, `libhipfile.so `): `.so.N` is
/// matched apart.
fn shared_object(t: &str) -> bool {
    let b = t.as_bytes();
    let mut from = 0;
    while let Some(p) = t[from..].at(".so") {
        let i = from + p;
        let before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let after = b
            .get(i + 3)
            .is_none_or(|c| !c.is_ascii_alphanumeric() && *c != b'.' && *c != b'_');
        if before
            && after
            && t[..i]
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || "_-+.".contains(c)))
                .next()
                .is_some_and(|w| w.starts_with("lib"))
        {
            return true;
        }
        from = i + 3;
        if from >= t.len() {
            break;
        }
    }
    false
}

/// What a needle of the platform scan says when it occurs in a line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Wsl,
    Windows,
    Macos,
    Linux,
    /// `:\\` or `:/`: a drive-letter path if [`drive_path`] says so.
    DrivePath,
    /// `.dll` / `.exe`: a Windows file if [`windows_file`] says so.
    WindowsFile,
    /// `.so`: a library if [`shared_object`] says so.
    SharedObject,
    /// A distribution's name: Linux if a version follows it ([`distro_version`]).
    Distro,
    /// `manylinux`: Linux if a downloaded wheel's file name holds it ([`linux_wheel_fetched`]).
    ManyLinux,
    /// A Linux directory (`/home/`, `/opt/rocm`): Linux unless every one follows a drive letter
    /// ([`posix_path`]; TheRock's Windows builds print their CI's `C:/home/runner/_work/…`).
    PosixPath,
}

/// The needles of [`Hint::PosixPath`].
const POSIX_DIRS: &[&str] = &[
    "/var/lib/",
    "/opt/rocm",
    "/home/",
    "/usr/src/",
    "/root/",
    "/lib64/",
    "/media/",
];

/// A Linux directory in `t` that is not a Windows path's (`C:/home/runner/_work/…`).
fn posix_path(t: &str) -> bool {
    let b = t.as_bytes();
    POSIX_DIRS.iter().any(|d| {
        memchr::memmem::find_iter(b, d.as_bytes()).any(|p| {
            // one letter and a colon, the letter a word of its own (`C:/home/…`, not
            // `OLLAMA_MODELS:/root/…`)
            let drive = p >= 2
                && b[p - 1] == b':'
                && b[p - 2].is_ascii_alphabetic()
                && (p == 2 || !(b[p - 3].is_ascii_alphanumeric() || b[p - 3] == b'_'));
            !drive
        })
    })
}

/// Every literal of the platform scan, with what it says. One automaton finds them all in one
/// pass over a line (a search per needle and line was a sixth of a 10 MB log's triage).
const NEEDLES: &[(&str, Hint)] = &[
    ("WSL environment detected", Hint::Wsl),
    ("microsoft-standard-WSL", Hint::Wsl),
    ("WSL2", Hint::Wsl),
    ("WSL 2", Hint::Wsl),
    ("/dev/dxg", Hint::Wsl),
    ("librocdxg", Hint::Wsl),
    // WSL's GPU paravirtualisation driver in the guest's kernel log, and `wsl --version`
    ("misc dxg", Hint::Wsl),
    ("dxgkrnl", Hint::Wsl),
    ("WSL version:", Hint::Wsl),
    ("WSLg version:", Hint::Wsl),
    // amdgpu-install's WSL use case (AMD's WSL install: `amdgpu-install -y --usecase=wsl,rocm
    // --no-dkms`), which only a WSL guest installs
    ("--usecase=wsl", Hint::Wsl),
    (":\\", Hint::DrivePath),
    (":/", Hint::DrivePath),
    (".dll", Hint::WindowsFile),
    (".exe", Hint::WindowsFile),
    (".DLL", Hint::WindowsFile),
    (".EXE", Hint::WindowsFile),
    (".bat", Hint::WindowsFile),
    (".BAT", Hint::WindowsFile),
    ("[MSC v.", Hint::Windows),
    // Python's interactive banner names the platform it was built for (`Python 3.12.3 (main, …)
    // [GCC 13.3.0] on linux`, `… [MSC v.1942 64 bit (AMD64)] on win32`, `… [Clang …] on darwin`)
    ("] on win32", Hint::Windows),
    ("] on darwin", Hint::Macos),
    ("] on linux", Hint::Linux),
    ("win_amd64", Hint::Windows),
    ("%HIP_PATH%", Hint::Windows),
    ("for Windows AMD64", Hint::Windows),
    ("for Windows x86", Hint::Windows),
    // Python's faulthandler names the platform's fault (`Windows fatal exception: access
    // violation`; on Linux it prints `Fatal Python error: Segmentation fault`)
    ("Windows fatal exception", Hint::Windows),
    // build and package names that carry their platform (`llama.cpp-win-x86_64-…`,
    // `…-bin-win-hip-x64.zip`)
    ("-win-x86_64", Hint::Windows),
    ("-win-x64", Hint::Windows),
    ("-win-hip-", Hint::Windows),
    ("windows-x86_64", Hint::Windows),
    ("macOS", Hint::Macos),
    ("Mac OS X", Hint::Macos),
    ("Darwin", Hint::Macos),
    ("Apple Silicon", Hint::Macos),
    ("macosx_", Hint::Macos),
    // pip's download line of a Linux wheel, its size after it (`Downloading https://…/torch-…-
    // cp312-cp312-linux_x86_64.whl (225.3 MB)`): pip fetches only wheels of its own platform; a
    // file name typed in a command has no size after it
    ("-linux_x86_64.whl (", Hint::Linux),
    // pip freeze's direct reference to the wheel a package was installed from (`torch @
    // https://…/torch-…-linux_x86_64.whl#sha256=…`): a Linux wheel installs only on Linux
    ("-linux_x86_64.whl#sha256=", Hint::Linux),
    ("-linux_aarch64.whl (", Hint::Linux),
    // Apple's OpenCL platform, which only macOS has (an OpenCL enumeration's `Platform name:
    // Apple`; Linux on Apple silicon lists Mesa's rusticl)
    ("Platform name: Apple", Hint::Macos),
    // macOS's shared libraries and Homebrew's prefix on Apple Silicon (`libamd_comgr.dylib …
    // /opt/homebrew/lib`); a path a program looks for (`/dev/kfd`) does not outrank them
    (".dylib", Hint::Macos),
    ("/opt/homebrew/", Hint::Macos),
    // Vulkan on Apple's Metal (`ggml_vulkan: 0 = AMD Radeon RX 6900 XT (MoltenVK) | …`): the
    // layer exists only for Apple's systems
    ("MoltenVK", Hint::Macos),
    // Metal, Apple's GPU API, and macOS's application bundles (`ggml_metal_device_init: GPU
    // family: MTLGPUFamilyMetal3`, `/Applications/App.app/Contents/Resources/…`)
    ("ggml_metal", Hint::Macos),
    ("MTLGPUFamily", Hint::Macos),
    (".app/Contents/", Hint::Macos),
    // Mesa's Vulkan driver on the amdgpu kernel driver (libdrm): Linux (WSL has no amdgpu)
    ("radv/amdgpu:", Hint::Linux),
    ("Linux x86_64", Hint::Linux),
    ("Linux-x86_64", Hint::Linux),
    ("-linux-gnu", Hint::Linux),
    // ROCm's OpenCL driver version on Linux (`3581.0 (HSA1.1,LC)`; Windows' driver writes
    // `(PAL,LC)`)
    ("(HSA1.1,LC)", Hint::Linux),
    // pytest's session header (`platform linux -- Python 3.11.13, pytest-9.0.2, …`)
    ("platform linux -- Python", Hint::Linux),
    // pip's and uv's download of a manylinux wheel (`Downloading torch-…-manylinux_2_28_x86_64.whl
    // (3.1 GB)`); a tag named in a resolver's hint (`Wheels are available … on the following
    // platform: `manylinux_2_28_x86_64``) is where a wheel exists, not where the user is
    ("manylinux", Hint::ManyLinux),
    ("] amdgpu ", Hint::Linux),
    ("kernel: amdgpu", Hint::Linux),
    // strace's system calls relative to the working directory (`openat(AT_FDCWD, "…", O_RDONLY)`):
    // strace is Linux's
    ("(AT_FDCWD, ", Hint::Linux),
    // inxi's graphics block on Linux: the in-kernel driver (`driver: amdgpu v: kernel`)
    ("driver: amdgpu v: kernel", Hint::Linux),
    (".so.", Hint::Linux),
    (".so", Hint::SharedObject),
    // lspci -k / -v: the driver bound to a device
    ("Kernel driver in use:", Hint::Linux),
    // Linux's own file systems, home directories and ROCm's prefix (WSL shows its own lines
    // and wins)
    ("/var/lib/", Hint::PosixPath),
    ("/opt/rocm", Hint::PosixPath),
    // amdgpu's device nodes, as containers are given them (`--device /dev/kfd`)
    ("/dev/kfd", Hint::Linux),
    ("/dev/dri", Hint::Linux),
    ("/sys/class/kfd", Hint::Linux),
    ("/sys/class/drm/", Hint::Linux),
    ("/sys/module/amdgpu", Hint::Linux),
    // the amdkfd driver's ioctls (`AMDKFD_IOC_CREATE_QUEUE` returning `EINVAL`), Linux's only
    ("AMDKFD_IOC_", Hint::Linux),
    ("/home/", Hint::PosixPath),
    // Ollama's Linux install (its install script's `/usr/local/lib/ollama`, distributions'
    // `/usr/lib/ollama`); on Windows it lives under `AppData`, on macOS in its app bundle
    ("/lib/ollama/", Hint::Linux),
    // Linux distributions' own paths and tools: debug sources, multiarch and lib64 libraries,
    // glibc's backtrace frames (`libfoo.so(+0x108bd)`), apt's and dpkg's messages
    ("/usr/src/", Hint::PosixPath),
    // Debian's Python layout and root's home (containers)
    ("/dist-packages/", Hint::Linux),
    // a venv's POSIX layout (Windows writes `Lib\\site-packages`); macOS shows its own names
    ("/lib/python3.", Hint::Linux),
    // Debian's package tools: `dpkg -l` and its rows' revision of an Ubuntu release
    ("dpkg -l", Hint::Linux),
    // `apt list`'s warning and its installed marks
    ("apt does not have a stable CLI", Hint::Linux),
    (" [installed,automatic]", Hint::Linux),
    ("~22.04", Hint::Linux),
    ("~24.04", Hint::Linux),
    ("~26.04", Hint::Linux),
    ("/root/", Hint::PosixPath),
    // removable and data disks as udisks mounts them (macOS mounts under `/Volumes/`)
    ("/media/", Hint::PosixPath),
    // distribution names that are nothing else; others only before a version (`Ubuntu 24.04`)
    ("CachyOS", Hint::Linux),
    ("EndeavourOS", Hint::Linux),
    ("Manjaro", Hint::Linux),
    ("SteamOS", Hint::Linux),
    ("Bazzite", Hint::Linux),
    // Spack's platform in its arch triples (`spack find`'s `-- linux-ubuntu24.04-x86_64_v3 / …`
    // header, a spec's `arch=linux-rhel9-zen4`, `platform=linux`)
    ("-- linux-", Hint::Linux),
    ("arch=linux-", Hint::Linux),
    ("platform=linux", Hint::Linux),
    // the Linux kernel's IOMMU parameter for AMD systems (`amd_iommu=off`)
    ("amd_iommu=", Hint::Linux),
    // Arch Linux names Linux whatever its case (`rocm 7.1.1 on arch linux`)
    ("Arch Linux", Hint::Linux),
    ("arch linux", Hint::Linux),
    // and in one word as its users write it (`Only the iGPU is present. Archlinux.`)
    ("Archlinux", Hint::Linux),
    ("ArchLinux", Hint::Linux),
    // Proxmox VE, a Debian-based hypervisor, and Linux's containers that it runs (`Proxmox 9 LXC`)
    ("Proxmox", Hint::Linux),
    // the kernel's firmware package, which only Linux distributions ship (`linux-firmware
    // 20260110`, `linux-firmware-neptune`)
    ("linux-firmware", Hint::Linux),
    // image-based Linux systems' deployment tools (`bootc status`'s `Staged ostree`, rpm-ostree)
    ("ostree", Hint::Linux),
    ("Ubuntu ", Hint::Distro),
    ("Fedora ", Hint::Distro),
    ("Debian ", Hint::Distro),
    // as a sentence types them (`not working for me on gfx1201 on ubuntu 25.10`), before a version
    ("ubuntu ", Hint::Distro),
    ("fedora ", Hint::Distro),
    ("debian ", Hint::Distro),
    ("Linux Mint ", Hint::Distro),
    ("Rocky Linux ", Hint::Distro),
    ("CentOS ", Hint::Distro),
    ("RHEL ", Hint::Distro),
    ("Pop!_OS ", Hint::Distro),
    ("NixOS ", Hint::Distro),
    // NixOS's rebuild of the system (`nixos-rebuild switch`, `Building NixOS configuration`)
    ("nixos-rebuild", Hint::Linux),
    ("NixOS configuration", Hint::Linux),
    ("/lib64/", Hint::PosixPath),
    // Linux's boot configuration and amdgpu/TTM kernel parameters; Mesa's RADV Vulkan driver
    ("GRUB_CMDLINE_LINUX", Hint::Linux),
    ("amdgpu.gttsize=", Hint::Linux),
    ("ttm.pages_limit=", Hint::Linux),
    ("(RADV ", Hint::Linux),
    ("/usr/lib/x86_64-linux-gnu", Hint::Linux),
    (".so(+0x", Hint::Linux),
    ("apt install ", Hint::Linux),
    ("apt-get install ", Hint::Linux),
    ("have unmet dependencies", Hint::Linux),
    // apt's update output (`Hit:1 http://deb.debian.org/debian trixie InRelease`, `Reading
    // package lists... Done`), as installers print it
    ("Reading package lists...", Hint::Linux),
    (" InRelease", Hint::Linux),
    // the RPM and pacman families' package managers and repository files (WSL, where it shows,
    // still wins)
    ("dnf install", Hint::Linux),
    ("dnf --", Hint::Linux),
    ("dnf list", Hint::Linux),
    ("dnf5 ", Hint::Linux),
    ("yum install", Hint::Linux),
    ("/etc/yum.repos.d", Hint::Linux),
    ("zypper in", Hint::Linux),
    ("pacman -S", Hint::Linux),
    ("dpkg: ", Hint::Linux),
    // rocminfo's header on Linux (`ROCk module version 6.16.6 is loaded`: amdgpu's KFD)
    ("ROCk module version", Hint::Linux),
    // newer rocminfo's wording of the same line
    ("ROCk module is loaded", Hint::Linux),
    // rocm-smi's banner: the tool reads Linux's sysfs (WSL and Windows have none)
    ("ROCm System Management Interface", Hint::Linux),
    // Windows' own probes and shell, as scripts print them (`Trying wmic method...`)
    ("wmic", Hint::Windows),
    ("WMIC", Hint::Windows),
    ("PowerShell", Hint::Windows),
    // Windows' OpenCL-on-D3D12 layer and its software adapter
    ("OpenCLOn12", Hint::Windows),
    // the Windows Display Driver Model a GPU's driver is written for (fastfetch's
    // `"platformApi": "WDDM 3.2"`, nvidia-smi's driver-model column)
    ("WDDM", Hint::Windows),
    ("Microsoft Basic Render Driver", Hint::Windows),
    // cmd's `pause`, `timeout` and `copy`/`xcopy` (`Waiting for 3 seconds, press CTRL+C to quit
    // ...`, `214 File(s) copied`)
    ("Press any key to continue . . .", Hint::Windows),
    ("press CTRL+C to quit", Hint::Windows),
    (" File(s) copied", Hint::Windows),
    // Python's OSError on Windows carries the Win32 error code (`[WinError 2] The system cannot
    // find the file specified`); no other platform's Python writes it
    ("[WinError ", Hint::Windows),
    // the Windows debuggers' banner (WinDbg and cdb: `Microsoft (R) Windows Debugger Version
    // 10.0.26100.1 AMD64`), printed where a crash dump of a Windows process is opened
    ("Microsoft (R) Windows Debugger", Hint::Windows),
];

fn automaton() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        // a DFA: one transition a byte, overlapping matches included
        aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(NEEDLES.iter().map(|(n, _)| *n))
            .expect("the platform needles compile")
    })
}

/// Builds the scan's automaton (on a second thread, while the lines are cut).
pub fn warm() {
    automaton();
}

/// Records the platform hints of one input.
pub fn scan(lines: &[Line], seen: &mut Seen) {
    let file = seen.file;
    let h = &mut seen.platform_hints;
    let src = |no| Src { file, line: no };
    // one search over all lines: each line's hint kinds, a bit each
    let mut kinds = vec![0u16; lines.len()];
    super::paste::matches_by_line(lines, automaton(), |i, p| kinds[i] |= 1 << NEEDLES[p].1 as u16);
    let on = |k: u16, h: Hint| k & (1 << h as u16) != 0;
    for (l, &k) in lines.iter().zip(&kinds) {
        if h.wsl.is_some() && h.windows.is_some() && h.macos.is_some() && h.linux.is_some() && h.kernel_log.is_some() {
            break;
        }
        let t = l.text.as_ref();
        let (wsl, windows, macos, linux) = (
            on(k, Hint::Wsl),
            on(k, Hint::Windows),
            on(k, Hint::Macos),
            on(k, Hint::Linux),
        );
        let (drive, file_name, so) = (
            on(k, Hint::DrivePath),
            on(k, Hint::WindowsFile),
            on(k, Hint::SharedObject),
        );
        let distro = on(k, Hint::Distro);
        // a line that says a device node is not there (Docker's `… adding custom device
        // "/dev/kfd": no such file or directory`, which Docker Desktop prints on Windows and
        // macOS too) is no sign of Linux
        let linux = (linux || (on(k, Hint::PosixPath) && posix_path(t)))
            && !(t.has("/dev/") && (t.has("o such file or directory") || t.has("cannot access")));
        if h.kernel_log.is_none() && kernel_log_line(t) {
            h.kernel_log = Some(src(l.no));
        }
        let running = running_under(t);
        if h.wsl.is_none() && (wsl || wsl_distro_line(t) || running == Some(Hint::Wsl)) && !wsl_negated(t) {
            h.wsl = Some(src(l.no));
        }
        // a code comment in a traceback (`# On Windows, this may fail if x.dll …`) is no output
        let comment = {
            let s = t.trim_start_ws();
            s.starts_with("# ") || s.starts_with("// ")
        };
        let own = own_platform(t);
        if h.windows.is_none()
            && !comment
            && (windows
                || (drive && drive_path(t))
                || (file_name && windows_file(t))
                || windows_name_line(t)
                || setx_command(t)
                || own == Some(Hint::Windows)
                || running == Some(Hint::Windows))
        {
            h.windows = Some(src(l.no));
        }
        // a tool's requirement text (`metal  unsupported  Requires macOS`) is not where it ran
        if h.macos.is_none() && macos && !t.has("Requires macOS") && !t.has("requires macOS") {
            h.macos = Some(src(l.no));
        }
        if h.linux.is_none()
            && (linux
                || (so && shared_object(t))
                || (on(k, Hint::ManyLinux) && linux_wheel_fetched(t))
                || t.trim_start_ws().starts_with("Singularity>")
                || t.trim_start_ws().starts_with("Apptainer>")
                || lspci_line(t)
                || (distro && distro_version(t))
                || os_name_line(t)
                || own == Some(Hint::Linux)
                || running == Some(Hint::Linux))
        {
            h.linux = Some(src(l.no));
        }
    }
}

/// cmd's `setx NAME value` typed as a step (`setx HIP_VISIBLE_DEVICES 1`): Windows' own command
/// that stores a variable for later sessions; no other platform has it.
fn setx_command(t: &str) -> bool {
    let t = t.trim_start_ws().trim_start_matches(['`', '>', '$']).trim_start_ws();
    t.strip_prefix("setx ")
        .and_then(|r| r.split_whitespace().next())
        .is_some_and(|name| name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') && name.len() >= 2)
}

/// A wheel file with a manylinux tag whose size follows it, as pip and uv print what they download
/// or take from their cache (`…-manylinux_2_28_x86_64.whl (225.3 MB)`, `….whl.metadata (5.2 kB)`).
fn linux_wheel_fetched(t: &str) -> bool {
    t.at("manylinux")
        .is_some_and(|p| t[p..].has(".whl (") || t[p..].has(".whl.metadata ("))
}

/// The reporter saying where they run (`I'm running under WSL on an AMD 7900 XTX.`, `I am running
/// on Windows 11`, `we're running in WSL2`): that platform, as a hint; not after a denial (`I'm not
/// running under WSL`, which has no `running` right after the subject).
fn running_under(t: &str) -> Option<Hint> {
    if t.len() > 400 || !t.has("running ") {
        return None;
    }
    let low = t.to_ascii_lowercase();
    for subject in [
        "i'm running ",
        "i am running ",
        "im running ",
        "we're running ",
        "we are running ",
    ] {
        let Some(p) = low.find(subject) else { continue };
        if p > 0 && low.as_bytes()[p - 1].is_ascii_alphanumeric() {
            continue;
        }
        let rest = &low[p + subject.len()..];
        let Some(rest) = ["under ", "in ", "on ", "inside ", "within "]
            .iter()
            .find_map(|w| rest.strip_prefix(w))
        else {
            continue;
        };
        let word = rest.split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or("");
        return match word {
            "wsl" | "wsl2" => Some(Hint::Wsl),
            "windows" => Some(Hint::Windows),
            "linux" | "ubuntu" | "fedora" | "debian" | "arch" | "cachyos" | "nixos" => Some(Hint::Linux),
            _ => None,
        };
    }
    None
}

/// The reporter's own machine named with its platform (`on my windows system`, `my Linux box`,
/// `my Windows 11 PC`): that platform, as a hint (another platform's sign elsewhere leaves none).
/// Not after words that deny or compare (`not on my Windows machine`, `faster than on my Linux
/// box`).
fn own_platform(t: &str) -> Option<Hint> {
    const NOUNS: &[&str] = &[
        "system",
        "machine",
        "pc",
        "laptop",
        "computer",
        "desktop",
        "box",
        "install",
        "installation",
        "setup",
        "host",
        "workstation",
        "rig",
    ];
    const DENY: &[&str] = &[
        "not ",
        "n't ",
        "than ",
        "unlike ",
        "except ",
        "other ",
        "instead of ",
        "no ",
    ];
    if t.len() > 600 {
        return None;
    }
    let b = t.as_bytes();
    let mut found = None;
    // `my ` in any case, found through the `y` (a searcher built per line cost a tenth of a log)
    let mut from = 0;
    while let Some(off) = t[from..].at("y ") {
        let p = from + off;
        from = p + 2;
        if p == 0 || !b[p - 1].eq_ignore_ascii_case(&b'm') || (p >= 2 && b[p - 2].is_ascii_alphanumeric()) {
            continue;
        }
        let mut words = t[p + 2..].split_whitespace().map(|w| {
            w.trim_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_ascii_lowercase()
        });
        let hint = match words.next().as_deref() {
            Some("windows" | "win10" | "win11") => Hint::Windows,
            Some("linux" | "ubuntu" | "fedora" | "debian" | "arch" | "cachyos" | "manjaro" | "nixos") => Hint::Linux,
            Some("macos") => Hint::Macos,
            _ => continue,
        };
        // a release after the name (`my Windows 11 PC`, `my Ubuntu 24.04 box`)
        let mut next = words.next();
        if next
            .as_deref()
            .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        {
            next = words.next();
        }
        if !next.as_deref().is_some_and(|w| NOUNS.contains(&w)) {
            continue;
        }
        let before = t[..p - 1].to_ascii_lowercase();
        let clause = &before[before.rfind([',', '.', ';']).map_or(0, |c| c + 1)..];
        if DENY.iter().any(|d| clause.contains(d)) {
            continue;
        }
        // two platforms' own machines in one line say which is neither
        match found {
            Some(f) if f != hint => return None,
            _ => found = Some(hint),
        }
    }
    found
}

/// A line that is only a Linux distribution's name (`Arch Linux`, `Ubuntu 24.04.3 LTS`), as in a
/// typed list of one's setup, or a comma-separated list with such an item (`Lemonade 10.4.0,
/// Ubuntu 26.04, Linux 7.0.0-15`).
fn os_name_line(t: &str) -> bool {
    let t = super::paste::trim(t);
    if t.len() > 200 {
        return false;
    }
    if t.has(", ") {
        return t.split(", ").any(os_name);
    }
    os_name(t)
}

/// A distribution's name followed by its version (`… on Ubuntu 24.04 with …`).
fn distro_version(t: &str) -> bool {
    NEEDLES.iter().filter(|(_, h)| *h == Hint::Distro).any(|(n, _)| {
        let mut from = 0;
        while let Some(p) = t[from..].at(n) {
            let after = from + p + n.len();
            if t.as_bytes().get(after).is_some_and(u8::is_ascii_digit) {
                return true;
            }
            from = after;
        }
        false
    })
}

/// A kernel log line by its time stamp: dmesg's `[  123.456789] `, `dmesg -T`'s `[Fri Apr 17
/// 19:56:16 2026] `, or a journal's `Sep 03 21:38:54 host `.
fn kernel_log_line(t: &str) -> bool {
    let b = t.trim_start_ws().as_bytes();
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let clock = |s: &[u8]| {
        s.len() == 8 && s[2] == b':' && s[5] == b':' && digits(&s[..2]) && digits(&s[3..5]) && digits(&s[6..])
    };
    const MONTHS: [&[u8]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
    ];
    if let Some(rest) = b.strip_prefix(b"[") {
        let Some(end) = rest.iter().position(|&c| c == b']') else {
            return false;
        };
        let inner = &rest[..end];
        let s = inner.iter().position(|c| *c != b' ').unwrap_or(inner.len());
        let num = &inner[s..];
        // `[  123.456789]`
        if let Some(d) = num.iter().position(|&c| c == b'.') {
            return digits(&num[..d]) && num.len() - d - 1 == 6 && digits(&num[d + 1..]);
        }
        // `[Fri Apr 17 19:56:16 2026]`
        return inner.len() == 24 && MONTHS.contains(&&inner[4..7]) && clock(&inner[11..19]) && digits(&inner[20..]);
    }
    // `Sep 03 21:38:54 host …`
    if b.len() > 16 && MONTHS.contains(&&b[..3]) && b[3] == b' ' && clock(&b[7..15]) && b[15] == b' ' {
        return true;
    }
    // the kernel driver's own message with no time stamp, as `journalctl -k -o cat` or a report
    // that cut the stamps writes it: `amdgpu 0000:03:00.0: MES failed to respond …`, or without
    // the device (`amdgpu: [gfxhub] page fault (src_id:0 …)`: a message of several words, not a
    // configuration's `amdgpu: true`)
    b.strip_prefix(b"amdgpu ").is_some_and(pci_address_colon)
        || b.strip_prefix(b"amdgpu: ")
            .is_some_and(|m| m.len() >= 16 && m.iter().filter(|&&c| c == b' ').count() >= 2 && !m.starts_with(b" "))
        // the driver's message behind any other prefix (a remote console's `node: kern: info:
        // [stamp]: `, `grep -n`'s line number): only the Linux kernel writes `amdgpu <PCI address>:`
        // (one searcher for all lines: `memmem::find_iter` builds one per call, a twentieth of
        // a log of short lines)
        || amdgpu_word().find_iter(b).any(|p| pci_address_colon(&b[p + 8..]))
}

/// The searcher for ` amdgpu ` in [`kernel_log_line`], built once.
fn amdgpu_word() -> &'static memchr::memmem::Finder<'static> {
    static FINDER: std::sync::OnceLock<memchr::memmem::Finder<'static>> = std::sync::OnceLock::new();
    FINDER.get_or_init(|| memchr::memmem::Finder::new(b" amdgpu "))
}

/// `0000:03:00.0:` (a PCI domain, bus, device and function, then a colon) at the start of `b`.
fn pci_address_colon(b: &[u8]) -> bool {
    let hex = |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_hexdigit));
    hex(0..4)
        && b.get(4) == Some(&b':')
        && hex(5..7)
        && b.get(7) == Some(&b':')
        && hex(8..10)
        && b.get(10) == Some(&b'.')
        && b.get(11).is_some_and(|c| (b'0'..=b'7').contains(c))
        && b.get(12) == Some(&b':')
}

/// An lspci line: a PCI address (`c4:00.2`, `0000:03:00.0`), then a device class and a colon.
fn lspci_line(t: &str) -> bool {
    let b = t.as_bytes();
    let hex = |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_hexdigit));
    let at = if b.get(4) == Some(&b':') && hex(0..4) { 5 } else { 0 };
    hex(at..at + 2)
        && b.get(at + 2) == Some(&b':')
        && hex(at + 3..at + 5)
        && b.get(at + 5) == Some(&b'.')
        && b.get(at + 6).is_some_and(|c| (b'0'..=b'7').contains(c))
        && b.get(at + 7) == Some(&b' ')
        && b.get(at + 8).is_some_and(u8::is_ascii_uppercase)
        && t[at + 8..].at(": ").is_some_and(|p| {
            // a device class as lspci names them (`VGA compatible controller`, `PCI bridge`,
            // `Audio device`, `Non-Essential Instrumentation`)
            let class = &t[at + 8..at + 8 + p];
            p <= 60
                && [
                    "controller",
                    "bridge",
                    "device",
                    "Instrumentation",
                    "SMBus",
                    "accelerators",
                ]
                .iter()
                .any(|w| class.ends_with(w))
        })
}

/// A line that is only Windows' name and version (`Windows 11 Pro`, `windows 10 22H2`), as in a
/// typed list of one's setup.
fn windows_name_line(t: &str) -> bool {
    // a list item's mark (`- Windows 11 Pro`), and a label of one word before the name
    // (`Windows: Windows 11 Pro, version 25H2`, `System: Windows 11 Home`)
    let t = super::paste::trim(t).trim_start_matches(['-', '*', '+', ' ']);
    let labelled = t.len() >= 12 && (t.has(": Windows ") || t.has(": windows "));
    // (split only a labelled line: a searcher built per line costs a per cent of a log)
    let t = match if labelled { t.split_on(": ") } else { None } {
        Some((label, v))
            if label.len() <= 12
                && label.bytes().all(|b| b.is_ascii_alphabetic() || b == b'*' || b == b' ')
                && label.split(' ').count() <= 2
                && v.len() >= 10
                && v.as_bytes()[..8].eq_ignore_ascii_case(b"windows ") =>
        {
            v
        }
        _ => t,
    };
    if t.len() < 10 {
        return false;
    }
    if t.as_bytes()[..8].eq_ignore_ascii_case(b"windows ") {
        // or the first part of a list item (`- Windows 10/11, AMD Radeon RX 6650 XT`)
        let first = match memchr::memchr(b',', t.as_bytes()) {
            Some(c) if t.as_bytes().get(c + 1) == Some(&b' ') => &t[..c],
            _ => t,
        };
        return windows_name(first);
    }
    // a whole part of a line that lists a setup (`Radeon 8060S (gfx1151), factory power limits —
    // Windows 11 Home, Adrenalin 26.8.1`): the part is the name and nothing else
    t.len() <= 500
        && t.has("Windows ")
        && t.split([',', ';', '\u{2014}', '\u{2013}', '|'])
            .map(str::trim)
            .any(|p| p.starts_with("Windows ") && windows_name(p))
}

/// A Windows release's name alone: `Windows 11 Home 25H2 26200.7623`, `Windows 11 Pro, version
/// 10.0.26200 (build 26200)`: an edition, a release and a build, nothing else.
pub(crate) fn windows_name(t: &str) -> bool {
    if t.len() > 64 || t.len() < 10 {
        return false;
    }
    const WORDS: &[&str] = &[
        "home",
        "pro",
        "enterprise",
        "education",
        "workstation",
        "iot",
        "ltsc",
        "n",
        "version",
        "build",
        "os",
        "insider",
        "preview",
        "x64",
        "arm64",
    ];
    let mut words = t[8..].split_whitespace();
    words
        .next()
        .is_some_and(|v| matches!(v.trim_end_matches(','), "10" | "11" | "10/11"))
        && words.clone().count() <= 7
        && words.all(|w| {
            let w = w.trim_set(b",();");
            w.is_empty() || w.bytes().any(|c| c.is_ascii_digit()) || WORDS.iter().any(|x| x.eq_ignore_ascii_case(w))
        })
}

/// A distribution's name and release written as one part of a list item (`- Ryzen AI MAX+ 395,
/// Radeon 8060S, Ubuntu 26.04`, ``1. `Ubuntu 26.04` on `Strix Halo` ``, `- Ubuntu 26.04 LTS,
/// kernel 7.0.0-28-generic`): the part, when it holds a release number.
pub fn item_os<'a>(t: &'a str) -> Option<&'a str> {
    let t = super::paste::trim(t);
    // a list item, a table row's cells, or a line of its own (`Ubuntu 24.04.4 LTS` under a form's
    // question, `Ubuntu 24.04.4, kernel 7.0.0-30-generic` in a cell)
    let rest = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| {
            let d = t.bytes().take_while(u8::is_ascii_digit).count();
            (d > 0 && d <= 2).then(|| t[d..].strip_prefix(". ")).flatten()
        })
        .unwrap_or(t);
    // a rolling distribution, which has no release to write (`- Arch Linux`, a form's answer
    // `CachyOS`): the whole item is its name
    let bare = rest.trim_ws().trim_set(b"*_`").trim_ws().trim_end_matches('.');
    if bare.len() <= 20 && ROLLING.iter().any(|n| bare.eq_ignore_ascii_case(n)) {
        return Some(bare);
    }
    // a long line only where it is a record, not sentences (a build bot's host line of 230
    // characters)
    if rest.len() > 400 || (rest.len() > 200 && rest.has(". ")) || !rest.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    // or a Windows release (`Windows 11, Firefox 152.0.1, AMD 5600X, RX9060XT 16GB`, a form's
    // `Windows 11 25H2` under its question)
    let ok = |p: &&str| {
        (os_name(p) || (p.starts_with("Windows ") && windows_name(p)))
            && p.bytes().any(|b| b.is_ascii_digit())
            && !p.has("kernel")
            && !package_revision(p)
    };
    // a sentence's full stop after the name (`…, Fedora 44 Kinoite.`) is not part of it; a host
    // before ` - ` (`node7 - Linux Debian GNU/Linux 12, x86_64, …`, a build bot's report) is not
    // either, nor the family before its distribution (`Linux SLES 15.6`, Python's system name
    // then the distribution's)
    let clean = |p: &'a str| {
        let p = p.trim_ws().trim_set(b"*_").trim_ws().trim_end_matches('.');
        let p = match p.rat(" - ") {
            Some(i) if !ok(&p) => p[i + 3..].trim_start_ws(),
            _ => p,
        };
        match p.strip_prefix("Linux ") {
            Some(r) if !r.starts_with("Mint") && os_name(r) => r,
            _ => p,
        }
    };
    let parts = rest.split([',', '`', ';', '(', ')', '|']);
    // `Ubuntu 25.04 + kernel 6.19.2`: a ` + ` joins the parts of one's stack too (split only
    // where a `+` is: this runs on every line)
    let found = if memchr::memchr(b'+', rest.as_bytes()).is_none() {
        parts.map(clean).find(ok)
    } else {
        parts.flat_map(|p| p.split(" + ")).map(clean).find(ok)
    };
    let Some(found) = found else {
        return rolling_part(rest);
    };
    // the release's codename in brackets after it, as os-release's PRETTY_NAME writes it (`Rocky
    // Linux 9.8 (Blue Onyx)`): part of the name
    let start = found.as_ptr() as usize - rest.as_ptr() as usize;
    let end = start + found.len();
    let code = rest[end..]
        .strip_prefix(" (")
        .and_then(|r| r.split_on(")"))
        .map(|(c, _)| c)
        .filter(|c| {
            !c.is_empty()
            && c.len() <= 24
            && c.bytes().all(|b| b.is_ascii_alphabetic() || b == b' ')
            // a remark in brackets is no codename (`(WSL)`, `(host)`, `(VM)`)
            && !c.split(' ').any(|w| {
                (w.len() >= 2 && w.bytes().all(|b| b.is_ascii_uppercase()))
                    || ["host", "container", "guest", "native", "docker", "latest", "stable", "vm"]
                        .iter()
                        .any(|x| w.eq_ignore_ascii_case(x))
            })
        });
    Some(match code {
        Some(c) => &rest[start..end + 3 + c.len()],
        None => found,
    })
}

/// A package's version with a Debian or Ubuntu revision (`13.2.0-23ubuntu4`, gcc's `gcc (Ubuntu
/// 13.2.0-23ubuntu4) 13.2.0`; `12.2.0-14+deb12u1`): a compiler or package, not the distribution's
/// release, which has none (`24.04.3`, `12`). A kernel's release (`6.8.0-45-generic`) is not one.
fn package_revision(p: &str) -> bool {
    p.split_whitespace().any(|w| {
        w.starts_with(|c: char| c.is_ascii_digit())
            && w.split_on("-")
                .is_some_and(|(_, r)| r.starts_with(|c: char| c.is_ascii_digit()) && (r.has("ubuntu") || r.has("+deb")))
    })
}

/// A rolling distribution's name as one comma-separated part of a setup list, a remark in
/// brackets after it (`- Python 3.12.13, Arch Linux (kernel 7.1.3-zen1)`).
fn rolling_part(rest: &str) -> Option<&str> {
    if rest.len() > 200 {
        return None;
    }
    rest.split(", ")
        .map(|p| {
            let p = p.trim_ws().trim_end_matches('.');
            match p.at(" (") {
                Some(b) if p.ends_with(')') => &p[..b],
                _ => p,
            }
        })
        .find(|p| p.len() <= 20 && ROLLING.iter().any(|n| p.eq_ignore_ascii_case(n)))
}

/// Rolling distributions' names, which an OS item writes without a release.
const ROLLING: &[&str] = &[
    "Arch Linux",
    "ArchLinux",
    "Artix Linux",
    "CachyOS",
    "EndeavourOS",
    "Garuda Linux",
    "Manjaro",
    "Manjaro Linux",
    "openSUSE Tumbleweed",
    "Gentoo",
    "Gentoo Linux",
    "Void Linux",
    "Fedora Rawhide",
    "Debian sid",
    "Debian unstable",
    "Debian testing",
    "NixOS unstable",
];

/// One item that is only a Linux distribution's name.
pub(crate) fn os_name(t: &str) -> bool {
    let t = super::paste::trim(t);
    // `Linux (Debian)`: the family with its distribution in parentheses
    // (a byte search: this runs on every line)
    let t = match memchr::memchr(b'(', t.as_bytes()) {
        Some(p)
            if p > 0
                && t.as_bytes()[p - 1] == b' '
                && t.ends_with(')')
                && memchr::memchr2(b'(', b')', &t.as_bytes()[p + 1..t.len() - 1]).is_none() =>
        {
            &t[..p - 1]
        }
        _ => t,
    };
    if t.len() > 40 {
        return false;
    }
    // the first word is a distribution's (no allocation: this runs on every line)
    let first = &t[..t.bytes().position(|b| b.is_ascii_whitespace()).unwrap_or(t.len())];
    if !(4..=11).contains(&first.len()) {
        return false;
    }
    // lower-cased on the stack, then compared as bytes (faster than a case-blind compare with
    // each name)
    let mut low = [0u8; 11];
    for (d, b) in low.iter_mut().zip(first.bytes()) {
        *d = b.to_ascii_lowercase();
    }
    if !distro_word(&low[..first.len()]) {
        return false;
    }
    // a path is no name; `Debian GNU/Linux 12` (os-release's) is
    // a possessive makes the name part of a sentence about something else (`Ubuntu 24.04's
    // rocm-smi package`)
    if t.split_whitespace().count() > 4
        || t.contains([':', '=', '(', '`', '\u{2019}'])
        || t.has("'s ")
        || (t.has("/") && !t.has("GNU/Linux"))
    {
        return false;
    }
    // `arch`, `oracle`, `amazon` and `azure` are also common words (`arch gfx1200`, `arch x86_64`
    // in a device line): only `Arch Linux`, `Oracle Linux`, … name a distribution
    if ["arch", "oracle", "amazon", "azure"]
        .iter()
        .any(|w| first.eq_ignore_ascii_case(w))
        && !t[first.len()..]
            .trim_start_ws()
            .get(..5)
            .is_some_and(|w| w.eq_ignore_ascii_case("linux"))
    {
        return false;
    }
    from_os_name(t) == Some(Platform::Linux)
}

/// Where a distribution's name starts after a WSL word in an OS value (`Windows version:
/// 10.0.19045.6466 WSL2 Ubuntu 24.04.4 LTS`): the byte offset of the distribution's first word.
/// A line whose every `WSL` follows a word that denies it (`native on Windows 11 — no WSL2, no
/// Docker`, `without WSL`, `not in WSL`, `non-WSL`): a statement that the user is not there.
fn wsl_negated(t: &str) -> bool {
    let mut any = false;
    for (p, _) in t.match_indices("WSL") {
        any = true;
        let before = t[..p].trim_end_matches([' ', '-']).to_ascii_lowercase();
        let last = before.rsplit([' ', '(', ',', ';']).next().unwrap_or("");
        let second = before.trim_end_matches(last).trim_end();
        let second = second.rsplit([' ', '(', ',', ';']).next().unwrap_or("");
        let denied = matches!(last, "no" | "not" | "without" | "non" | "nor")
            || (matches!(last, "in" | "on" | "using" | "use") && matches!(second, "not" | "no" | "without"));
        // or a question or label about WSL answered no (`WSL2: no`, `Using WSL2? No`)
        let after = t[p + 3..].trim_start_matches(['2', ' ']);
        let answer = after
            .strip_prefix([':', '?'])
            .map(|a| a.trim_start_matches(['*', '`', ' ']).to_ascii_lowercase());
        let answered_no = answer.is_some_and(|a| {
            let w = a
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '/')
                .next()
                .unwrap_or("");
            matches!(w, "no" | "false" | "not" | "none" | "nope" | "n/a")
        });
        if !denied && !answered_no {
            return false;
        }
    }
    any
}

/// A line that opens with WSL and a distribution (`wsl ubuntu26.04`, `- WSL: Ubuntu 24.04`,
/// `WSL (Debian 13)`): a reporter's typed setup line.
fn wsl_distro_line(t: &str) -> bool {
    let t = t.trim_start_matches(['-', '*', ' ', '#']);
    if t.len() < 8 || !t.as_bytes()[..3].eq_ignore_ascii_case(b"wsl") {
        return false;
    }
    let rest = t[3..].trim_start_matches(['1', '2', ':', '(', ' ', '*']);
    if rest.len() == t.len() - 3 {
        return false;
    }
    let word: Vec<u8> = rest
        .bytes()
        .take_while(u8::is_ascii_alphabetic)
        .map(|b| b.to_ascii_lowercase())
        .collect();
    word != b"linux" && distro_word(&word)
}

pub(crate) fn distro_after_wsl(v: &str) -> Option<usize> {
    let w = memchr::memmem::find(v.as_bytes(), b"WSL")?;
    let mut pos = w;
    for word in v[w..].split_whitespace() {
        let at = pos + v[pos..].find(word).unwrap_or(0);
        pos = at + word.len();
        let l = word.trim_set(b"(),;").to_ascii_lowercase();
        if l != "linux" && distro_word(l.as_bytes()) {
            return Some(at);
        }
    }
    None
}

/// One word of [`DISTROS`], lower-cased (a `match`: this runs on every line's first word).
pub(crate) fn distro_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"linux"
            | b"ubuntu"
            | b"debian"
            | b"fedora"
            | b"arch"
            | b"rhel"
            | b"centos"
            | b"rocky"
            | b"alma"
            | b"suse"
            | b"nixos"
            | b"gentoo"
            | b"mint"
            | b"pop!_os"
            | b"manjaro"
            | b"cachyos"
            | b"endeavouros"
            | b"bazzite"
            | b"nobara"
            | b"oracle"
            | b"almalinux"
            | b"opensuse"
            | b"sles"
            | b"kubuntu"
            | b"xubuntu"
            | b"lubuntu"
            | b"zorin"
            | b"garuda"
            | b"slackware"
            | b"amazon"
            | b"azure"
    )
}

/// Distributions' names as they start an OS name.
const DISTROS: &[&str] = &[
    "linux",
    "ubuntu",
    "debian",
    "fedora",
    "arch",
    "rhel",
    "red hat",
    "centos",
    "rocky",
    "alma",
    "suse",
    "nixos",
    "gentoo",
    "mint",
    "pop!_os",
    "manjaro",
    "cachyos",
    "endeavouros",
    "bazzite",
    "nobara",
    "oracle",
    "almalinux",
    "opensuse",
    "sles",
    "kubuntu",
    "xubuntu",
    "lubuntu",
    "zorin",
    "garuda",
    "slackware",
    "amazon",
    "azure",
];

/// `w` written in `l` as a word of its own, or as a word's start before digits or an underscore
/// (`Ubuntu24.04`, `rhel9`): `arch` in `arch=AMD64` or `search` is no distribution (`linux`
/// inside a word, `linuxmint`, `archlinux`, is Linux's name and is taken anywhere).
fn word_in(l: &str, w: &str) -> bool {
    let b = l.as_bytes();
    let mut from = 0;
    while let Some(p) = l[from..].find(w) {
        let at = from + p;
        let end = at + w.len();
        let before = at == 0 || !b[at - 1].is_ascii_alphanumeric();
        let after = b.get(end).is_none_or(|c| !c.is_ascii_alphabetic() && *c != b'=');
        if before && after {
            return true;
        }
        from = at + 1;
    }
    false
}

/// What an operating system's name says (`Windows 11`, `Ubuntu 24.04`, `macOS 15`).
pub fn from_os_name(os: &str) -> Option<Platform> {
    let l = os.to_ascii_lowercase();
    if l.has("wsl") {
        Some(Platform::Wsl)
    } else if l.has("windows") || win_short(&l) {
        Some(Platform::Windows)
    } else if l.has("macos") || l.has("mac os") || l.has("darwin") {
        Some(Platform::Macos)
    } else if l.has("linux")
        || DISTROS.iter().any(|d| word_in(&l, d))
        // a one-word name written as two (`Cachy OS`, `Endeavour OS`, `open SUSE`)
        || l.split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| distro_word(format!("{}{}", w[0], w[1]).as_bytes()))
    {
        Some(Platform::Linux)
    } else {
        None
    }
}

/// Windows' release written short, as issue forms get it (`Win 11 10.0.26200`, `Win10 x64`,
/// `Win-11`).
fn win_short(l: &str) -> bool {
    let words: Vec<&str> = l.split([' ', ',', '(', ')']).filter(|w| !w.is_empty()).collect();
    words
        .iter()
        .any(|w| matches!(*w, "win10" | "win11" | "win-10" | "win-11"))
        || words.windows(2).any(|w| w[0] == "win" && matches!(w[1], "10" | "11"))
}

/// The platform the inputs show, with the line that shows it.
pub fn decide(seen: &Seen) -> Option<At<Platform>> {
    let at = |v, src| Some(At { v, src });
    let h = &seen.platform_hints;
    // WSL: the runtime's own line, a microsoft kernel, WSL's devices
    if let Some(w) = seen.wsl.as_ref().filter(|w| w.v) {
        return at(Platform::Wsl, w.src);
    }
    if let Some(k) = seen
        .kernel
        .as_ref()
        .filter(|k| k.v.to_ascii_lowercase().has("microsoft"))
    {
        return at(Platform::Wsl, k.src);
    }
    if let Some(s) = h.wsl {
        return at(Platform::Wsl, s);
    }
    // a stated operating system, then a kernel release (Linux's)
    if let Some(o) = &seen.os
        && let Some(p) = from_os_name(&o.v)
    {
        return at(p, o.src);
    }
    if let Some(k) = &seen.kernel {
        return at(Platform::Linux, k.src);
    }
    if let Some(s) = h.kernel_log {
        return at(Platform::Linux, s);
    }
    let hints: Vec<(Platform, Src)> = [
        (Platform::Windows, h.windows),
        (Platform::Macos, h.macos),
        (Platform::Linux, h.linux),
    ]
    .into_iter()
    .filter_map(|(p, s)| s.map(|s| (p, s)))
    .collect();
    match hints.as_slice() {
        [(p, s)] => at(*p, *s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn platform(text: &str) -> Option<Platform> {
        let lines = crate::triage::paste::lines(text);
        let mut seen = Seen::default();
        crate::triage::readers::read_all(&lines, &mut seen);
        scan(&lines, &mut seen);
        decide(&seen).map(|p| p.v)
    }

    #[test]
    fn the_kernel_s_firmware_package_is_linux() {
        // a typed label over a one-line block (values ours)
        assert_eq!(
            platform("Firmware package:\n```\nlinux-firmware 20260110\n```\n"),
            Some(Platform::Linux)
        );
        assert_eq!(platform("## SteamOS Software\n"), Some(Platform::Linux));
        // amdkfd's ioctls and NixOS's rebuild are Linux's alone (values ours)
        assert_eq!(
            platform("The failure is `AMDKFD_IOC_CREATE_QUEUE` returning `EINVAL`.\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("$ sudo nixos-rebuild switch\nerror: …\n"),
            Some(Platform::Linux)
        );
    }

    #[test]
    fn apple_s_opencl_platform_is_macos() {
        let t = "Number of OpenCL platforms: 1\n    Platform name: Apple\n        Device name: Apple M4 Pro\n";
        assert_eq!(platform(t), Some(Platform::Macos));
        assert_eq!(platform("    Platform name: rusticl\n"), None);
    }

    #[test]
    fn the_reporter_says_where_they_run() {
        // first-person sentences (values ours)
        assert_eq!(
            platform("I'm running under WSL on an AMD 7900 XT.\n"),
            Some(Platform::Wsl)
        );
        assert_eq!(
            platform("I am running on Windows 11 with the HIP SDK\n"),
            Some(Platform::Windows)
        );
        assert_eq!(platform("we're running in Ubuntu 24.04\n"), Some(Platform::Linux));
        // denied, or not where one runs
        assert_eq!(platform("I'm not running under WSL\n"), None);
        assert_eq!(platform("I'm running out of memory on it\n"), None);
        assert_eq!(platform("I'm running windows update first\n"), None);
    }

    #[test]
    fn a_labelled_windows_release_is_windows() {
        // typed key lines (values ours)
        assert_eq!(
            platform("Windows: Windows 11 Pro, version 24H2, build 26100.4061, 64-bit.\n"),
            Some(Platform::Windows)
        );
        assert_eq!(platform("System: Windows 10 Home 22H2\n"), Some(Platform::Windows));
        // a sentence after a label is no release's name
        assert_eq!(platform("Note: Windows users should read the guide first\n"), None);
    }

    #[test]
    fn python_s_win32_error_is_windows() {
        assert_eq!(
            platform("ERROR:lib:could not detect the GPU: [WinError 2] The system cannot find the file specified\n"),
            Some(Platform::Windows)
        );
    }

    #[test]
    fn the_reporter_s_own_machine_names_its_platform() {
        // shapes of 2026 reports (values ours)
        assert_eq!(
            platform("I set up ROCm with PyTorch on my windows system and it returns True\n"),
            Some(Platform::Windows)
        );
        assert_eq!(platform("same on my Linux box\n"), Some(Platform::Linux));
        assert_eq!(platform("My Windows 11 PC has a 9070 XT\n"), Some(Platform::Windows));
        assert_eq!(platform("tested on my Ubuntu 24.04 machine\n"), Some(Platform::Linux));
        // denied or compared, or not one's machine: no platform
        assert_eq!(platform("it does not happen on my windows machine\n"), None);
        assert_eq!(platform("slower than on my linux box\n"), None);
        assert_eq!(platform("my windows friends say it works\n"), None);
        assert_eq!(platform("the army windows system\n"), None);
        // two platforms' own machines: none
        assert_eq!(
            platform("on my windows pc it works, on my linux laptop it fails\n"),
            None
        );
    }

    #[test]
    fn a_denied_wsl_is_no_wsl() {
        for t in [
            "- **Stack:** ROCm 7.15 + vLLM, native on Windows 11 — no WSL2, no Docker\n",
            "Runs without WSL 2 on the host\n",
            "It is not in WSL2 but native\n",
            // a question or label answered no
            "WSL2: no\n",
            "Using WSL2? No\n",
            "- **WSL2:** `false`\n",
            "WSL 2: not used\n",
        ] {
            assert_ne!(platform(t), Some(Platform::Wsl), "{t:?}");
        }
        // a denial elsewhere on the line does not hide a WSL that is there
        for t in [
            "Ubuntu 24.04 under WSL2, no Docker\n",
            "no GPU found in WSL2\n",
            "WSL2: yes (Ubuntu 24.04)\n",
        ] {
            assert_eq!(platform(t), Some(Platform::Wsl), "{t:?}");
        }
    }

    #[test]
    fn windows_written_short() {
        // with a hyphen, as an app's debug form gets it (values ours)
        assert_eq!(from_os_name("Win-11"), Some(Platform::Windows));
        assert_eq!(from_os_name("twin-11 setup"), None);
        // an issue form's `### Operating System` answers (the shape of ComfyUI-era 2026 forms;
        // values ours)
        for t in ["Win 11 10.0.26200", "Win10 x64", "win 11 pro"] {
            assert_eq!(from_os_name(t), Some(Platform::Windows), "{t}");
        }
        for t in ["Win 2 (beta)", "winter 11", "darwin11"] {
            assert_ne!(from_os_name(t), Some(Platform::Windows), "{t}");
        }
    }

    #[test]
    fn a_distribution_written_as_two_words() {
        for t in ["Cachy OS", "Endeavour OS 2026.01", "open SUSE Tumbleweed"] {
            assert_eq!(from_os_name(t), Some(Platform::Linux), "{t}");
        }
        // two words that join into no distribution's name
        assert_eq!(from_os_name("Haiku OS"), None);
        // a distribution's name inside another word or a field's key is none (values ours)
        assert_eq!(from_os_name("arch=AMD64 cpu=AMD64 Family 25"), None);
        assert_eq!(from_os_name("research build"), None);
        assert_eq!(from_os_name("Arch"), Some(Platform::Linux));
        assert_eq!(from_os_name("linuxmint (22.1 (Xia))"), Some(Platform::Linux));
        assert_eq!(from_os_name("Ubuntu24.04"), Some(Platform::Linux));
        assert_eq!(from_os_name("Chrome OS"), None);
    }

    #[test]
    fn the_distribution_words_are_the_list() {
        // `distro_word` is `DISTROS`' one-word names as a `match`: the two must not drift
        for d in DISTROS.iter().filter(|d| !d.has(" ")) {
            assert!(distro_word(d.as_bytes()), "{d}");
        }
        assert!(!distro_word(b"windows"));
    }

    #[test]
    fn a_distribution_in_a_list_item() {
        for (t, want) in [
            ("- Ryzen 7 8845HS, Radeon 780M, Fedora 43", Some("Fedora 43")),
            ("1. `Ubuntu 24.04` on `a mini PC`", Some("Ubuntu 24.04")),
            ("- Debian 13, kernel 6.12.48+deb13-amd64", Some("Debian 13")),
            ("* Fedora 42 + kernel 6.17.1", Some("Fedora 42")),
            // no release, not an item, prose
            ("- Arch Linux, latest", None),
            ("Ubuntu 24.04 is what I run", None),
            // a line of its own, a table row's cell
            ("**Ubuntu 24.04.4 LTS**", Some("Ubuntu 24.04.4 LTS")),
            (
                "| Host | Ubuntu 24.04.4, kernel 7.0.0-30-generic |",
                Some("Ubuntu 24.04.4"),
            ),
            ("FROM ubuntu:22.04", None),
            ("rocm/dev-ubuntu-24.04:7.2", None),
            ("- I moved from Ubuntu 22.04 to something else", None),
            // `arch` as a device line's architecture word, not Arch Linux
            (
                "HIP device 0: AMD Radeon RX 9060 XT, arch gfx1200, 32 CUs, 16304 MB",
                None,
            ),
            ("cpu: Ryzen 5 7600, arch x86_64", None),
            ("Arch Linux 2026.11.01", Some("Arch Linux 2026.11.01")),
            ("- Oracle Linux 9.6", Some("Oracle Linux 9.6")),
            ("oracle 19c", None),
            ("- AlmaLinux 9.6", Some("AlmaLinux 9.6")),
            ("- openSUSE Leap 15.6", Some("openSUSE Leap 15.6")),
            ("| OS | SLES 15.7 |", Some("SLES 15.7")),
            ("- Amazon Linux 2023", Some("Amazon Linux 2023")),
            ("- Azure region 3", None),
            (
                "Windows 11, Firefox 140.0, AMD 7600X, RX 7800 XT 16GB",
                Some("Windows 11"),
            ),
            ("Windows 10 Pro 22H2", Some("Windows 10 Pro 22H2")),
            ("Windows 11 users see the same crash", None),
            // a build bot's host line (values ours): the host and the family are not the name
            (
                "n12.example.org - Linux Debian GNU/Linux 13, x86_64, AMD EPYC 9124 (zen4), Python 3.12.3",
                Some("Debian GNU/Linux 13"),
            ),
            ("gpu7 - Linux SLES 15.7, x86_64", Some("SLES 15.7")),
            (
                "n3.example.org - Linux Rocky Linux 9.6, x86_64, AMD EPYC 7763 64-Core Processor (zen3), 4 x AMD Instinct MI210 (device id: 0x740f, gfx: gfx90a, driver: 6.12.12), Python 3.11.9",
                Some("Rocky Linux 9.6"),
            ),
            ("- Linux Mint 22.1", Some("Linux Mint 22.1")),
            ("see /usr/share/doc/GNU/Linux 2, then", None),
            // a possessive: a sentence about the distribution's package, not the name
            ("Ubuntu 24.04's rocm-smi package (5.7.0-1) reports 1.0.0", None),
            ("Fedora 44’s own rocm build", None),
            // os-release's codename stays with the release (values ours)
            (
                "n1.example.org - Linux Rocky Linux 9.6 (Blue Onyx), x86_64, AMD EPYC 7763",
                Some("Rocky Linux 9.6 (Blue Onyx)"),
            ),
            ("- Ubuntu 24.04.3 LTS (kernel 6.14)", Some("Ubuntu 24.04.3 LTS")),
            ("- Ubuntu 24.04.3 LTS (WSL)", Some("Ubuntu 24.04.3 LTS")),
            ("- Fedora 43 (host)", Some("Fedora 43")),
            // a rolling distribution alone, without a release (a typed setup list)
            ("- Arch Linux", Some("Arch Linux")),
            ("**CachyOS**", Some("CachyOS")),
            ("- Arch Linux is what I use, with an RX 7900 XTX", None),
            ("- Archive", None),
            ("- Python 3.12.13, Arch Linux (kernel 7.1.3-zen1)", Some("Arch Linux")),
            ("- works on Ubuntu, not Arch Linux, for me", None),
            ("- Ubuntu 24.04, Arch Linux", Some("Ubuntu 24.04")),
            // a compiler's version line and a package's: the distribution's revision is no
            // release (`gcc --version`, a boot log's `Linux version …` line; values ours)
            ("gcc (Ubuntu 13.2.0-23ubuntu4) 13.2.0", None),
            ("x86_64-linux-gnu-gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0", None),
            ("- Debian 12, gcc 12.2.0-14+deb12u1", Some("Debian 12")),
            ("- Linux 6.17.0-1020-oem (Ubuntu 24.04)", Some("Linux 6.17.0-1020-oem")),
        ] {
            assert_eq!(item_os(t), want, "{t:?}");
        }
    }

    #[test]
    fn a_typed_wsl_line_with_its_distribution() {
        // y/03 of the 2026 held-out sets' shape (values ours)
        for (t, want) in [
            ("wsl ubuntu24.04", true),
            ("- WSL: Ubuntu 26.04", true),
            ("WSL2 (Debian 13)", true),
            ("wsl linux", false),
            ("wslview opens a browser", false),
            ("WSL is not supported", false),
        ] {
            assert_eq!(wsl_distro_line(t), want, "{t:?}");
        }
    }

    #[test]
    fn a_wheel_tag_is_linux_only_where_a_wheel_was_fetched() {
        // uv's resolver hint names where wheels exist; the tag it could not match is the user's
        // (the shape of a 2026 pull request's quoted uv error; values ours)
        let hint = "tag (e.g., `win_amd64`) and you require torch==2.9.1+rocm6.3\n\
                    hint: Wheels are available for `torch` (v2.9.1+rocm6.3) on the following\n\
                    platform: `manylinux_2_28_x86_64`\n";
        assert_eq!(platform(hint), Some(Platform::Windows));
        assert_eq!(
            platform("  Downloading torch-2.9.1+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl (4.1 GB)\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("pip install torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl\n"),
            None
        );
    }

    #[test]
    fn moltenvk_and_ollama_paths_name_their_platform() {
        // ggml's Vulkan device line on Apple's Vulkan layer; Ollama's bundled rocBLAS on Linux
        // (shapes of 2026 threads; values ours)
        assert_eq!(
            platform("ggml_vulkan: 0 = AMD Radeon RX 6800 (MoltenVK) | uma: 0 | fp16: 1\n"),
            Some(Platform::Macos)
        );
        assert_eq!(
            platform("rocBLAS error: Cannot read /usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary.dat\n"),
            Some(Platform::Linux)
        );
    }

    #[test]
    fn python_s_banner_and_windows_build_paths() {
        // the REPL's banner names its platform; TheRock's Windows builds print their CI's
        // `C:/home/runner/…` paths, which are no Linux directory; a key's `:/root/…` is one
        // (shapes of 2026 issues; values ours)
        assert_eq!(
            platform("Python 3.12.3 (main, Mar  3 2026, 12:15:18) [GCC 13.3.0] on linux\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("Python 3.12.10 (tags/v3.12.10:0cc8128, Apr  8 2025) [MSC v.1943 64 bit (AMD64)] on win32\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform(
                "MIOpen(HIP): Error [C:/home/runner/_work/x/src/a.hpp:62] Buffered to file: C:\\Users\\me\\AppData\\Local\\Temp\\m.log\n"
            ),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("env=\"map[OLLAMA_MODELS:/root/.ollama/models]\"\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("Tested on: Windows 11, RX 9070 XT (gfx1201)\n"),
            Some(Platform::Windows)
        );
    }

    #[test]
    fn cmd_s_setx_and_the_windows_debugger_are_windows() {
        // a numbered step's typed command and a crash dump's banner (values ours)
        assert_eq!(
            platform("2. Set it first:\n\n   setx HIP_VISIBLE_DEVICES 1\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("Microsoft (R) Windows Debugger Version 10.0.26100.1 AMD64\n"),
            Some(Platform::Windows)
        );
        // the word inside prose or another name is none
        assert_eq!(platform("the setx step did nothing here\n"), None);
        assert_eq!(platform("resetx HIP_VISIBLE_DEVICES 1\n"), None);
    }

    #[test]
    fn each_platform_from_its_own_evidence() {
        // shapes of the 2026 pastes (values ours)
        assert_eq!(
            platform("HIP Library Path: C:\\Program Files\\AMD\\ROCm\\7.1\\bin\\amdhip64_7.dll\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("if i copy amdhip64_6.dll from the old build it works\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("### Operating System\n\nWindows 11\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("Linux box 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n"),
            Some(Platform::Wsl)
        );
        assert_eq!(
            platform("WSL environment detected.\nC:\\Users\\me> wsl\n"),
            Some(Platform::Wsl)
        );
        // AMD's WSL install command (values ours)
        assert_eq!(
            platform("$ sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms\n"),
            Some(Platform::Wsl)
        );
        assert_eq!(platform("### Result (macOS, Apple Silicon)\n"), Some(Platform::Macos));
        assert_eq!(
            platform("libamd_comgr.dylib is installed in /opt/homebrew/lib\n"),
            Some(Platform::Macos)
        );
        // a Linux path a program looked for and did not find, beside macOS's names: macOS (the
        // missing path is no sign of Linux)
        assert_eq!(
            platform(
                "FileNotFoundError: No such file or directory: '/dev/kfd'\nlibamd_comgr.dylib is in /opt/homebrew/lib\n"
            ),
            Some(Platform::Macos)
        );
        // one it opened: the hints disagree, nothing is said
        assert_eq!(
            platform("open /dev/kfd: ok\nlibamd_comgr.dylib is in /opt/homebrew/lib\n"),
            None
        );
        // a Windows release as a whole part of a line that lists a setup; not inside prose
        assert_eq!(
            platform("Setup: mini PC — Radeon 890M (gfx1150) — Windows 11 Pro, driver 32.0.1\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("it worked on Windows 11 before, now on this box it fails\n"),
            None
        );
        // shapes of 2026 pastes (values ours): a typed Windows line with its build, a test's
        // source comment that names a DLL inside a Linux venv's traceback, dpkg's table
        assert_eq!(platform("Windows 10 Pro 22H2 19045.6456\n"), Some(Platform::Windows));
        assert_eq!(platform("then run start-comfy.bat\n"), Some(Platform::Windows));
        assert_eq!(platform("### OS\n\nLinux (Fedora)\n"), Some(Platform::Linux));
        assert_eq!(
            platform("- Windows 10/11, AMD Radeon RX 6600 (gfx1032)\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("failed to open '/media/me/data/models/x.gguf' (No such file or directory)\n"),
            Some(Platform::Linux)
        );
        assert_eq!(platform("see batch files (.bat) in the docs\n"), None);
        assert_eq!(
            platform("- Windows 10 Enterprise, version 10.0.19045 (build 19045)\n"),
            Some(Platform::Windows)
        );
        assert_eq!(platform("- Windows 11 was fine, version 10 broke it\n"), None);
        assert_eq!(
            platform("Windows fatal exception: code 0xc0000005\n\nThread 0x00001f2c (most recent call first):\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("podman run --device /dev/kfd --device /dev/dri img\n"),
            Some(Platform::Linux)
        );
        // a node that is not there says nothing of the platform (Docker Desktop prints it too)
        assert_eq!(
            platform(
                "Error response from daemon: error gathering device information while adding custom device \"/dev/kfd\": no such file or directory\n"
            ),
            None
        );
        assert_eq!(
            platform("Only the dGPU is in the box. Archlinux.\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("  Downloading https://x.example/v2/torch-2.10.0-cp312-cp312-linux_x86_64.whl (225.3 MB)\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("pip install torch-2.10.0-cp312-cp312-linux_x86_64.whl\n"),
            None
        );
        // pip freeze's direct reference to the installed wheel (values ours)
        assert_eq!(
            platform("torch @ https://x.example/rel/torch-2.9.1-cp312-cp312-linux_x86_64.whl#sha256=00\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform(
                "        # on Windows this needs foo_2.dll\n  File \"/w/.venv/lib/python3.12/site-packages/x.py\", line 3\n"
            ),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("ii  rocm-core   7.1.0.70100-20~22.04   amd64   ROCm Runtime software stack\n"),
            Some(Platform::Linux)
        );
        assert_eq!(platform("- OS: Ubuntu 24.04.2 LTS\n"), Some(Platform::Linux));
        assert_eq!(
            platform("rocm-core/jammy,now 6.4.3.60403-128~22.04 amd64 [installed,automatic]\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("built with GNU 11.4.0 for Linux x86_64\n"),
            Some(Platform::Linux)
        );
        // a stated OS outweighs a path hint; two hints and no statement: unknown
        assert_eq!(
            platform("- OS: Fedora Linux 43\nsaved to C:\\backup\\x.txt\n"),
            Some(Platform::Linux)
        );
        assert_eq!(platform("C:\\x\\y.txt\n/usr/lib/libamdhip64.so.7\n"), None);
        // a Windows binary's build line and its CI paths with forward slashes
        assert_eq!(
            platform("built with MSVC 19.44.35228.0 for Windows AMD64\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("error:D:/a/app/ggml/src/ggml-cuda/ggml-cuda.cu:109: ROCm error\n"),
            Some(Platform::Windows)
        );
        // a line that only names a distribution; a tool's requirement text is not the platform
        assert_eq!(platform("ROCm 7.13\nArch Linux\n"), Some(Platform::Linux));
        assert_eq!(
            platform("/sys/class/kfd/kfd/topology/nodes/1/properties:gfx_target_version 110000\n"),
            Some(Platform::Linux)
        );
        assert_eq!(platform("Cannot read /home/me/.cache/x.dat\n"), Some(Platform::Linux));
        // a Windows path beside it: the hints disagree, nothing is said
        assert_eq!(platform("Cannot read /home/me/x.dat\nC:\\Users\\me\\x.dat\n"), None);
        assert_eq!(platform("| Host OS | Unraid Linux |\n"), Some(Platform::Linux));
        assert_eq!(platform("metal   unsupported   Requires macOS   -\n"), None);
        assert_eq!(platform("### Platform\n\nLinux/Fedora\n"), Some(Platform::Linux));
        // not evidence: a URL, a ratio, an ordinary sentence
        assert_eq!(platform("see https://rocm.docs.amd.com/ 4:3 ratio\n"), None);
    }

    #[test]
    fn library_files_drivers_and_build_names() {
        // a loader's message with an unversioned library, bare or behind a path
        assert_eq!(
            platform("ERROR:librocsparse.so: cannot open shared object file\n"),
            Some(Platform::Linux)
        );
        assert_eq!(
            platform("/srv/ci/libfoo.so: cannot open shared object file\n"),
            Some(Platform::Linux)
        );
        // lspci's bound driver; ROCm's install prefix
        assert_eq!(platform("\tKernel driver in use: amdgpu\n"), Some(Platform::Linux));
        assert_eq!(platform("HIP path: /opt/rocm-7.2.0\n"), Some(Platform::Linux));
        // a package or build name that carries its platform
        assert_eq!(
            platform("Runtime: llama.cpp-win-x64-hip-1.2.3\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("llama-b7000-bin-win-hip-radeon-x64.zip\n"),
            Some(Platform::Windows)
        );
        // words with `.so` that are not libraries; `also`, a domain
        assert_eq!(platform("it is al.so fine\n"), None);
        assert_eq!(platform("visit example.so for more\n"), None);
    }

    #[test]
    fn lspci_lines_probes_and_typed_lists() {
        // values ours, shapes of 2026 reports
        for (text, want) in [
            (
                "03:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Device 7551\n",
                Some(Platform::Linux),
            ),
            (
                "0000:c5:00.1 Signal processing controller: Advanced Micro Devices, Inc. [AMD] NPU\n",
                Some(Platform::Linux),
            ),
            ("Mesa 26.0, Fedora 44, Linux 7.1.2-200\n", Some(Platform::Linux)),
            (
                "WARNING: AMD GPU device(s) is/are in a low-power state.\n======= ROCm System Management Interface =======\n",
                Some(Platform::Linux),
            ),
            ("Trying wmic method...\n", Some(Platform::Windows)),
            ("Running in PowerShell 7.5\n", Some(Platform::Windows)),
            // a time, a version list, a sentence that names a distribution in passing
            ("12:00.5 Elapsed: 3 s\n", None),
            ("torch 2.9, rocm 7.1, python 3.12\n", None),
            (
                "We tried it on many systems, including some with Ubuntu installed\n",
                None,
            ),
        ] {
            assert_eq!(platform(text), want, "{text:?}");
        }
    }

    #[test]
    fn distribution_paths_backtraces_and_package_tools() {
        for text in [
            "Error: /usr/src/debug/migraphx/src/check_shapes.hpp:220: same_dims\n",
            "/usr/lib/libonnxruntime_providers_migraphx.so(+0x108bd) [0x7f05901ca8bd]\n",
            "The following packages have unmet dependencies:\n",
            "sudo apt install rocm-hip-runtime-dev\n",
            // values ours
            "$ dnf --repo=rocm list available\n",
            "sudo pacman -S rocm-hip-sdk\n",
            "ROCk module is loaded\n",
        ] {
            assert_eq!(platform(text), Some(Platform::Linux), "{text:?}");
        }
    }

    #[test]
    fn wsl_guests_boot_lines_and_console_prompts() {
        for (text, want) in [
            (
                "[    1.51] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22\n",
                Platform::Wsl,
            ),
            ("WSL version: 2.7.14.0\nKernel version: 6.18.33.2-2\n", Platform::Wsl),
            (
                "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=131072\"\n",
                Platform::Linux,
            ),
            (
                "File \"/opt/venv/lib64/python3.13/site-packages/torch/cuda/__init__.py\"\n",
                Platform::Linux,
            ),
            ("description=\"AMD Radeon Graphics (RADV RENOIR)\"\n", Platform::Linux),
            ("Press any key to continue . . .\n", Platform::Windows),
        ] {
            assert_eq!(platform(text), Some(want), "{text:?}");
        }
    }

    #[test]
    fn kernel_logs_outrank_file_names_and_distributions_need_a_version() {
        // a journal of a Proton game's ring timeout: Linux, though it names an `.exe`
        let t = "Sep 04 14:48:52 HOSTNAME  ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3\nSep 04 14:48:52 HOSTNAME   Process game.exe pid 32398\n";
        assert_eq!(platform(t), Some(Platform::Linux));
        for t in [
            "[Fri Apr 17 19:56:16 2026] Node 0 DMA32: 124*4kB (U) = 376400kB\n",
            "[  101.123456] amdgpu 0000:03:00.0: something\n",
            // the driver's message without a stamp; inxi's in-kernel driver (values ours)
            "amdgpu 0000:0c:00.0: ring gfx_0.0.0 timeout\n",
            "amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:2)\n",
            // behind a remote console's prefix and grep's line number (values ours)
            "412:10.0.0.7: kern: warning: [2026-03-02T10:11:12.123Z]: amdgpu 0000:c3:00.0: amdgpu: failed to load ucode\n",
            "Running on a Proxmox 9 LXC container\n",
            "it fails for me on gfx1100 on ubuntu 26.04:\n",
            // an installer's apt output (values ours)
            "Hit:2 http://deb.example.org/debian trixie InRelease\nReading package lists... Done\n",
            "  Device-1: AMD Navi 31 driver: amdgpu v: kernel arch: RDNA-3\n",
            "The issue occurs inside a Docker container on Ubuntu 24.04 with ROCm 7.14.\n",
            "File \"/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py\", line 1775\n",
        ] {
            assert_eq!(platform(t), Some(Platform::Linux), "{t:?}");
        }
        assert_eq!(
            platform("Platform name: OpenCLOn12\nDevice name: Microsoft Basic Render Driver\n"),
            Some(Platform::Windows)
        );
        // an app's elapsed-time stamp, a date stamp, a distribution named without a version
        for t in [
            "[  0.123] loading model\n",
            "[2026-04-03 12:18:48.558] [info] CPU: GenuineIntel\n",
            "the Ubuntu packages are older\n",
            // a driver named before something that is no PCI address (values ours)
            "amdgpu 0000:03: not an address\n",
            "amdgpu 6.16.6 loaded\n",
            "amdgpu: true\n",
            "amdgpu: v1.2\n",
            "the amdgpu 0000:03: not an address\n",
        ] {
            assert_eq!(platform(t), None, "{t:?}");
        }
    }

    #[test]
    fn typed_windows_names_and_rocminfos_linux_header() {
        assert_eq!(
            platform("LM Studio 0.4.12\nWindows 11 pro\nrx9060xt\n"),
            Some(Platform::Windows)
        );
        assert_eq!(
            platform("ROCk module version 6.16.6 is loaded\n"),
            Some(Platform::Linux)
        );
        // a sentence about Windows is no typed name
        assert_eq!(platform("it worked on Windows 11 last year but not since\n"), None);
    }
}
