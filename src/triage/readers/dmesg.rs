//! `dmesg` / `journalctl -k` amdgpu lines: `NNNNM of VRAM memory ready`, `NNNNM of GTT memory
//! ready`, `unknown parameter 'x' ignored`, the gttsize deprecation notice, KFD's `added device
//! 1002:744c`, and `Linux version …`. Messages as printed by `drivers/gpu/drm/amd/amdgpu`
//! (<https://github.com/torvalds/linux/blob/master/drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c>).

use super::{Line, Seen, pci_id};
use crate::triage::paste::Has;
use crate::triage::{Agent, At, Src};
/// `\s` of the regexes these scans replaced (regex-lite's ASCII class: tab, LF, VT, FF, CR,
/// space; `u8::is_ascii_whitespace` leaves VT out).
fn space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' ')
}

/// Where each occurrence of `needle` (ASCII, so one byte past a start is a character boundary)
/// in `t` starts, in order.
fn each<'a>(t: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    debug_assert!(needle.is_ascii());
    let mut i = 0;
    std::iter::from_fn(move || {
        let p = i + t.get(i..)?.at(needle)?;
        i = p + 1;
        Some(p)
    })
}

/// The size and kind of `amdgpu …: 512M of VRAM memory ready`: what
/// `amdgpu\b.*:\s+([0-9]+)M of (VRAM|GTT) memory ready` captures (the regex this scan replaced;
/// a differential test holds them equal). The leftmost match starts at the first `amdgpu`
/// followed by a word boundary (a later one only has fewer colons after it), and the greedy
/// `.*` takes the last colon after it that the rest matches.
fn ready(t: &str) -> Option<(&str, &str)> {
    let b = t.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let from = each(t, "amdgpu")
        .map(|p| p + 6)
        .find(|&e| !b.get(e).is_some_and(|&c| word(c)))?;
    let mut found = None;
    for c in memchr::memchr_iter(b':', &b[from..]) {
        let c = from + c;
        let ws = b[c + 1..].iter().take_while(|&&x| space(x)).count();
        if ws == 0 {
            continue;
        }
        let d = c + 1 + ws;
        let nd = b[d..].iter().take_while(|x| x.is_ascii_digit()).count();
        if nd == 0 {
            continue;
        }
        let Some(r) = t[d + nd..].strip_prefix("M of ") else {
            continue;
        };
        let kind = if r.starts_with("VRAM memory ready") {
            "VRAM"
        } else if r.starts_with("GTT memory ready") {
            "GTT"
        } else {
            continue;
        };
        found = Some((&t[d..d + nd], kind));
    }
    found
}

/// The module and parameter of `amdgpu: unknown parameter 'x' ignored`: what
/// `(amdgpu|ttm|amdttm): unknown parameter '([^']+)' ignored` captures (the regex this scan
/// replaced; a differential test holds them equal). Occurrences of the needle cannot overlap,
/// so the first one with a module before it and `x' ignored` after it is the leftmost match;
/// `amdttm` starts before the `ttm` inside it.
fn unknown(t: &str) -> Option<(&str, &str)> {
    const N: &str = ": unknown parameter '";
    for p in each(t, N) {
        let head = &t[..p];
        let module = if head.ends_with("amdgpu") {
            "amdgpu"
        } else if head.ends_with("amdttm") {
            "amdttm"
        } else if head.ends_with("ttm") {
            "ttm"
        } else {
            continue;
        };
        let v = p + N.len();
        let Some(q) = memchr::memchr(b'\'', &t.as_bytes()[v..]) else {
            continue;
        };
        if q > 0 && t[v + q..].starts_with("' ignored") {
            return Some((module, &t[v..v + q]));
        }
    }
    None
}

/// The vendor and device of `kfd kfd: amdgpu: added device 1002:1586`: what
/// `kfd kfd: amdgpu: added device ([0-9a-f]{4}):([0-9a-f]{4})` captures (the regex this scan
/// replaced; a differential test holds them equal).
fn added(t: &str) -> Option<(&str, &str)> {
    const N: &str = "kfd kfd: amdgpu: added device ";
    let hex4 = |s: &[u8]| s.len() >= 4 && s[..4].iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'));
    each(t, N).map(|p| p + N.len()).find_map(|v| {
        let b = &t.as_bytes()[v..];
        (hex4(b) && b.get(4) == Some(&b':') && hex4(&b[5..])).then(|| (&t[v..v + 4], &t[v + 5..v + 9]))
    })
}

/// The release of `Linux version 6.14.0-1007-oem (buildd@…)`: what `Linux version (\S+) \(`
/// captures (the regex this scan replaced; a differential test holds them equal). `\S` is any
/// character but ASCII white space, so the run ends at an ASCII byte.
fn linux(t: &str) -> Option<&str> {
    const N: &str = "Linux version ";
    each(t, N).map(|p| p + N.len()).find_map(|v| {
        let n = t.as_bytes()[v..].iter().take_while(|&&x| !space(x)).count();
        (n > 0 && t[v + n..].starts_with(" (")).then(|| &t[v..v + n])
    })
}

/// The release of `/proc/version` written without its blanks (`Linuxversion7.0.12-101.fc43.x86_64(
/// mockbuild@…)`): the word between `Linuxversion` and the bracket, when it is a release.
fn squashed_linux(t: &str) -> Option<&str> {
    let p = t.at("Linuxversion")? + "Linuxversion".len();
    let rest = &t[p..];
    let release = &rest[..rest.find('(')?];
    super::free_form::kernel_release(release).then_some(release)
}

/// The running kernel's release in a warning's or oops' header (`CPU: 4 UID: 0 PID: 30969 Comm:
/// kworker/u128:0 Tainted: G  E  6.18.19-mesfix1 #1 PREEMPT(lazy)`, `… Not tainted
/// 6.8.0-45-generic #45-Ubuntu`): the word before ` #` after the taint mark.
fn oops_release(t: &str) -> Option<&str> {
    // (`Comm: ` by its rare first byte: a search led by a blank costs a log of many words)
    if !t.has("Comm: ") {
        return None;
    }
    let p = t
        .at("Tainted: ")
        .map(|p| p + 9)
        .or_else(|| t.at("Not tainted ").map(|p| p + 12))?;
    let rest = &t[p..];
    let h = rest.at(" #")?;
    let release = rest[..h].rsplit(' ').next()?;
    super::free_form::kernel_release(release).then_some(release)
}

/// A kernel log line of NVIDIA's driver: `nvidia 0000:01:00.0: …` at the start of the message
/// (after the log's time stamp or `kernel:`), or `NVRM: …` (its own prefix). A line that only
/// names the module (`nvidia: module license …`, `nouveau`) says nothing of a GPU.
fn nvidia_driver_line(t: &str) -> Option<&str> {
    let msg = match t.find("kernel: ") {
        Some(p) => &t[p + 8..],
        None => t.rsplit_once("] ").map_or(t, |(_, m)| m),
    };
    let msg = msg.trim_start();
    (msg.starts_with("NVRM: ") || msg.starts_with("nvidia 0000:")).then_some(msg.trim_end())
}

/// The PCI address of a line of amdgpu's own (`amdgpu 0000:03:00.0: amdgpu: VRAM: …`):
/// `DDDD:BB:DD.F` after `amdgpu `.
fn address(t: &str) -> Option<&str> {
    each(t, "amdgpu ").map(|p| p + 7).find_map(|v| {
        let a = t.get(v..v + 12)?;
        let b = a.as_bytes();
        let hex = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_hexdigit);
        (hex(0..4)
            && b[4] == b':'
            && hex(5..7)
            && b[7] == b':'
            && hex(8..10)
            && b[10] == b'.'
            && b[11].is_ascii_digit())
        .then_some(a)
    })
}

/// Most GPUs one kernel log keeps apart.
const MAX_DEVICES: usize = 16;

/// The GPUs of one kernel log, by PCI address. amdgpu probes one device at a time, so a line
/// without an address (`[drm] amdgpu: 46064M of VRAM memory ready`, KFD's `added device …`)
/// belongs to the device the last addressed line named; a log that names no address is one GPU.
/// The same address printed again (a second boot in one paste) is the same GPU.
#[derive(Default)]
struct Devices {
    list: Vec<(Option<String>, Agent)>,
    current: Option<String>,
}

impl Devices {
    fn saw(&mut self, t: &str) {
        if let Some(a) = address(t)
            && self.current.as_deref() != Some(a)
        {
            self.current = Some(a.to_string());
        }
    }

    /// The device the current line belongs to, made when first needed.
    fn agent(&mut self, src: Src) -> Option<&mut Agent> {
        let key = self.current.clone();
        let i = match self.list.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            // lines read before the first address are that device's
            None => match self.list.iter().position(|(k, _)| k.is_none()) {
                Some(i) if key.is_some() => {
                    self.list[i].0 = key;
                    i
                }
                _ if self.list.len() >= MAX_DEVICES => return None,
                _ => {
                    let agent = Agent {
                        reader: "dmesg",
                        src,
                        ..Agent::default()
                    };
                    self.list.push((key, agent));
                    self.list.len() - 1
                }
            },
        };
        Some(&mut self.list[i].1)
    }
}

/// Reads kernel log lines.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut devs = Devices::default();
    for l in lines {
        let t = l.text.as_ref();
        // NVIDIA's kernel driver at a PCI address (`kernel: nvidia 0000:01:00.0: Enabling HDA
        // controller`) or its `NVRM:` messages: an NVIDIA GPU is on the machine
        if seen.nvidia.is_none()
            && (t.has("NVRM: ") || t.has("nvidia 0000:"))
            && let Some(v) = nvidia_driver_line(t)
        {
            fired = true;
            let at = seen.at(v.to_string(), l.no);
            seen.nvidia = Some(at);
            continue;
        }
        // a DRM line without its time stamp (`[drm] RAM width 128bits DDR5`): a kernel log line
        if t.starts_with("[drm] ") {
            fired = true;
        }
        if !(t.has("amdgpu") || t.has("ttm") || t.has("Linux version")) {
            // a warning's or oops' header gives the running kernel, as does `/proc/version`
            // with its blanks taken out (EasyBuild's test report writes it as the in-kernel
            // driver's version: `driver: Linuxversion7.0.11-arch1-1(linux@archlinux)(gcc…`)
            if seen.kernel.is_none()
                && let Some(release) = oops_release(t).or_else(|| squashed_linux(t))
            {
                fired = true;
                seen.kernel = Some(seen.at(release.to_string(), l.no));
            }
            continue;
        }
        // a line of amdgpu's own, with its prefix, also without the log's time stamps (a grep of
        // dmesg, `amdgpu: MES failed to respond …`): a kernel log line
        let msg = t.trim_start();
        let stamp = msg.strip_prefix('[').and_then(|m| m.split_once("] "));
        // dmesg's own time stamp (`[86592.369756] Loading firmware: amdgpu/psp_14_0_4_toc.bin`):
        // a kernel log line that speaks of amdgpu, whatever its message
        if stamp.is_some_and(|(s, _)| {
            let s = s.trim_start();
            s.split_once('.').is_some_and(|(a, b)| {
                !a.is_empty() && !b.is_empty() && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())
            })
        }) {
            fired = true;
        }
        let msg = stamp.map_or(msg, |(_, m)| m);
        if msg.starts_with("amdgpu: ") || msg.starts_with("amdgpu 0000:") {
            fired = true;
        }
        devs.saw(msg);
        if let Some(release) = linux(t) {
            fired = true;
            let at = seen.at(release.to_string(), l.no);
            Seen::first(&mut seen.kernel, at);
            continue;
        }
        let src = Src {
            file: seen.file,
            line: l.no,
        };
        if t.has("memory ready")
            && let Some((mib, kind)) = ready(t)
        {
            fired = true;
            seen.amdgpu_loaded = true;
            let bytes = mib.parse::<u64>().unwrap_or(0) << 20;
            if let Some(a) = devs.agent(src) {
                if kind == "VRAM" {
                    a.vram.get_or_insert(At { v: bytes, src });
                } else {
                    a.gtt.get_or_insert(At { v: bytes, src });
                }
            }
        } else if let Some((module, param)) = unknown(t) {
            fired = true;
            seen.note(
                l.no,
                format!("the kernel ignored the unknown parameter {module}.{param} (it has no effect)"),
            );
        } else if t.has("gttsize") && t.has("deprecated") {
            fired = true;
            // The kernel says a gttsize is configured; its value may not be in the paste.
            if !seen.params.iter().any(|p| p.v.0 == "amdgpu.gttsize") {
                let at = seen.at(
                    ("amdgpu.gttsize".to_string(), "(set; value not shown)".to_string()),
                    l.no,
                );
                seen.params.set(at);
            }
        } else if let Some((_, device)) = added(t) {
            fired = true;
            seen.amdgpu_loaded = true;
            if let Some(a) = devs.agent(src)
                && a.device_id.is_none()
            {
                a.device_id = pci_id(device).map(|v| At { v, src });
            }
        } else if t.has("amdgpu") && (t.has("[drm]") || t.has("amdgpu 0000:")) {
            fired = true;
            seen.amdgpu_loaded = true;
        }
    }
    seen.agents.extend(devs.list.into_iter().map(|(_, a)| a));
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::{address, read};
    use regex_lite::Regex;

    /// A random entry of `from`.
    fn pick<'a>(next: &mut impl FnMut() -> u64, from: &[&'a str]) -> &'a str {
        from[(next() % from.len() as u64) as usize]
    }

    /// Every line of the corpus and of the worst-shape inputs.
    fn corpus_lines() -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        for dir in ["tests/triage/corpus", "tests/triage/worst"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "txt") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    lines.extend(text.lines().map(str::to_string));
                }
            }
        }
        lines
    }

    /// Lines built from the pieces that matter: each message's parts, near misses (upper-case
    /// hex, `amdgpu` glued to a word, a colon without a blank), every `\s` byte and Unicode
    /// blanks, several candidates on one line.
    fn piece_lines(next: &mut impl FnMut() -> u64) -> Vec<String> {
        let pieces = [
            "amdgpu",
            "amdgpu_",
            "amdttm",
            "ttm",
            "xamdgpu",
            "[drm] ",
            ": ",
            ":",
            " ",
            "\t",
            "\x0B",
            "\x0C",
            "\r",
            "\u{a0}",
            "\u{3000}",
            "é",
            "512",
            "0",
            "M of ",
            "M",
            "VRAM",
            "GTT",
            " memory ready",
            ".",
            ": unknown parameter '",
            "gtt_size",
            "'",
            "' ignored",
            " ignored",
            "kfd kfd: amdgpu: added device ",
            "kfd ",
            "1002",
            "1586",
            "744C",
            "abc",
            "Linux version ",
            "6.14.0-oem",
            " (",
            "(",
        ];
        (0..20_000)
            .map(|_| {
                let n = 1 + pick(next, &["1", "2", "4", "6", "9"]).parse::<usize>().unwrap();
                (0..n).map(|_| pick(next, &pieces)).collect()
            })
            .collect()
    }

    /// Each message slot by slot, most slots right, some near misses, noise between.
    fn template_lines(next: &mut impl FnMut() -> u64) -> Vec<String> {
        let noise: &[&str] = &["", "", "", "[    5.2] ", "amdgpu ", ": ", "é", "'", " (", "\u{a0}"];
        let templates: [&[&[&str]]; 4] = [
            &[
                noise,
                &["amdgpu", "amdgpu", "amdgpu_", "xamdgpu", "amdgpux"],
                noise,
                &[":", ":", ": 12:", "", "::"],
                &[" ", " ", "  ", "\t", "\x0B", "\x0C", "\r", "", "\u{a0}"],
                &["512", "65536", "0", "", "x"],
                &["M of ", "M of ", "m of ", "M  of "],
                &["VRAM", "GTT", "VRAM", "GTT", "vram", "GTTT"],
                &[" memory ready", " memory ready", " memory ready.", " memory", ""],
                noise,
                &["", "", ": 64M of GTT memory ready", " amdgpu: 1M of VRAM memory ready"],
            ],
            &[
                noise,
                &["amdgpu", "ttm", "amdttm", "amdttm", "Xttm", "tm", "amdgp"],
                &[
                    ": unknown parameter '",
                    ": unknown parameter '",
                    ": unknown parameter ",
                    ":unknown parameter '",
                ],
                &["gtt_size", "x", "", "a'b", "é"],
                &["' ignored", "' ignored", "' ignored", "'ignored", " ignored", "'"],
                noise,
                &["", "", " ttm: unknown parameter 'y' ignored"],
            ],
            &[
                noise,
                &[
                    "kfd kfd: amdgpu: added device ",
                    "kfd kfd: amdgpu: added device ",
                    "kfd: amdgpu: added device ",
                ],
                &[
                    "1002",
                    "1002",
                    "1002:1586 kfd kfd: amdgpu: added device ",
                    "100",
                    "100G",
                    "ABCD",
                ],
                &[":", ":", ":", " ", ""],
                &["1586", "744c", "744C", "158", "15861", ""],
                noise,
            ],
            &[
                noise,
                &["Linux version ", "Linux version ", "Linux version", "linux version "],
                &["6.14.0-1007-oem", "6.8", "6.é", "", " ", "\t"],
                &[" (", " (", " (", "(", "  (", "\t("],
                &["buildd@lcy02) (gcc 13)", ""],
                noise,
                &["", "", " Linux version 5.15 (x)"],
            ],
        ];
        let mut lines = Vec::new();
        for t in templates {
            for _ in 0..10_000 {
                let line: String = t.iter().map(|slot| pick(next, slot)).collect();
                lines.push(line);
            }
        }
        lines
    }

    #[test]
    fn proc_version_without_its_blanks() {
        // an EasyBuild test report's host line (the shape of easybuilders' 2026 reports; values
        // ours)
        let (fired, s) = run(
            read,
            "h1 - Linux Fedora Linux 43, x86_64, 1 x AMD Krackan (device id: 0x1114, gfx: gfx1152, driver: Linuxversion6.19.3-200.fc43.x86_64(mockbuild@x)(gcc(GCC)15.2.1)#1SMP), Python 3.14.5\n",
        );
        assert!(fired);
        assert_eq!(s.kernel.map(|k| k.v).as_deref(), Some("6.19.3-200.fc43.x86_64"));
        let (_, s) = run(read, "driver: Linuxversion(none)\n");
        assert!(s.kernel.is_none());
    }

    #[test]
    fn the_kernel_release_in_an_oops_header() {
        // journal and dmesg shapes of a warning's header (values ours)
        for (t, want) in [
            (
                "Apr 24 02:26:23 host kernel: CPU: 3 UID: 0 PID: 123 Comm: kworker/u64:1 Tainted: G        W   6.18.9-custom1 #2 PREEMPT(lazy)\n",
                Some("6.18.9-custom1"),
            ),
            (
                "[  88.1] CPU: 0 PID: 7 Comm: python3 Not tainted 6.8.0-45-generic #45-Ubuntu\n",
                Some("6.8.0-45-generic"),
            ),
            // no task header: no release
            ("Tainted: G 6.18.9-custom1 #2\n", None),
        ] {
            let (_, s) = run(read, t);
            assert_eq!(s.kernel.as_ref().map(|k| k.v.as_str()), want, "{t}");
        }
    }

    #[test]
    fn amdgpus_lines_without_time_stamps() {
        let (fired, _) = run(read, "amdgpu: GPU reset succeeded, trying to resume\n");
        assert!(fired);
        let (fired, _) = run(
            read,
            "[  12.5] amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!\n",
        );
        assert!(fired);
        let (fired, _) = run(read, "I think amdgpu: is the module\n");
        assert!(!fired);
        // any message with dmesg's stamp that speaks of amdgpu (firmware loaded on suspend)
        let (fired, _) = run(read, "[86592.369756] Loading firmware: amdgpu/psp_14_0_4_toc.bin\n");
        assert!(fired);
        let (fired, _) = run(read, "[note] see amdgpu/README\n[v1.2] amdgpu docs\n");
        assert!(!fired);
    }

    #[test]
    fn nvidias_driver_lines() {
        for t in [
            "2026-03-01T10:00:00+01:00 host kernel: nvidia 0000:01:00.0: enabling device (0000 -> 0003)\n",
            "[    5.10] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.16\n",
        ] {
            let (fired, s) = run(read, t);
            assert!(fired && s.nvidia.is_some(), "{t:?}");
        }
        for t in [
            "[    5.00] nvidia: module license 'NVIDIA' taints kernel.\n",
            "[    5.00] nouveau 0000:01:00.0: DRM: VRAM: 4096 MiB\n",
        ] {
            let (_, s) = run(read, t);
            assert!(s.nvidia.is_none(), "{t:?}");
        }
    }

    #[test]
    fn scans_equal_the_regexes_on_the_corpus_and_generated_lines() {
        // The regexes the scans stand for (the definitions the reader's scans replace for speed).
        let ready = Regex::new(r"amdgpu\b.*:\s+([0-9]+)M of (VRAM|GTT) memory ready").unwrap();
        let unknown = Regex::new(r"(amdgpu|ttm|amdttm): unknown parameter '([^']+)' ignored").unwrap();
        let added = Regex::new(r"kfd kfd: amdgpu: added device ([0-9a-f]{4}):([0-9a-f]{4})").unwrap();
        let linux = Regex::new(r"Linux version (\S+) \(").unwrap();
        let mut lines = corpus_lines();
        assert!(lines.len() > 500, "the corpus is there");
        let mut next = super::super::xorshift(0x2545_f491_4f6c_dd1d);
        lines.extend(piece_lines(&mut next));
        lines.extend(template_lines(&mut next));
        let mut hits = [0; 4];
        for l in &lines {
            let two = |re: &Regex| {
                re.captures(l)
                    .map(|c| (c.get(1).unwrap().as_str(), c.get(2).unwrap().as_str()))
            };
            let want = [
                two(&ready),
                two(&unknown),
                two(&added),
                linux.captures(l).map(|c| (c.get(1).unwrap().as_str(), "")),
            ];
            let got = [
                super::ready(l),
                super::unknown(l),
                super::added(l),
                super::linux(l).map(|r| (r, "")),
            ];
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "pattern {i}, line {l:?}");
                hits[i] += usize::from(w.is_some());
            }
        }
        assert!(
            hits.iter().all(|&h| h > 1000),
            "the generated lines hold matches of each ({hits:?})"
        );
    }

    #[test]
    fn memory_ready_unknown_params_and_device() {
        // Message shapes from amdgpu (Linux 6.x), e.g. in ROCm/ROCm issues about Strix Halo.
        let t = "[    0.000000] Linux version 6.14.0-1007-oem (buildd@lcy02) (gcc 13)\n\
[    4.1] amdgpu: unknown parameter 'gtt_size' ignored\n\
[    5.2] [drm] amdgpu: 512M of VRAM memory ready\n\
[    5.3] [drm] amdgpu: 65536M of GTT memory ready.\n\
[    5.9] kfd kfd: amdgpu: added device 1002:1586\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.kernel.unwrap().v, "6.14.0-1007-oem");
        let a = &s.agents[0];
        assert_eq!(a.vram.as_ref().unwrap().v, 512 << 20);
        assert_eq!(a.gtt.as_ref().unwrap().v, 65536 << 20);
        assert_eq!(a.gtt.as_ref().unwrap().src.line, 4);
        assert_eq!(a.device_id.as_ref().unwrap().v, 0x1586);
        assert!(a.gfx.is_none());
        assert!(s.notes[0].v.contains("amdgpu.gtt_size"));
    }

    #[test]
    fn devices_kept_apart_by_pci_address() {
        // Shape of a workstation's boot log with a discrete card probed before the CPU's iGPU
        // (ROCm/ROCm#6137, 2026-04: a W7900 and a Raphael iGPU); our own values.
        let t = "[ 9.08] amdgpu 0000:03:00.0: enabling device (0006 -> 0007)\n\
[ 9.12] [drm] amdgpu: 32752M of VRAM memory ready\n\
[ 9.12] [drm] amdgpu: 15000M of GTT memory ready.\n\
[ 9.88] kfd kfd: amdgpu: added device 1002:744c\n\
[ 9.92] amdgpu 0000:7b:00.0: enabling device (0006 -> 0007)\n\
[ 9.93] amdgpu 0000:7b:00.0: amdgpu: VRAM: 512M 0x000000F400000000\n\
[ 9.93] [drm] amdgpu: 512M of VRAM memory ready\n\
[10.03] kfd kfd: amdgpu: added device 1002:164e\n";
        let (_, s) = run(read, t);
        let got: Vec<(u64, u32)> = s
            .agents
            .iter()
            .map(|a| (a.vram.as_ref().unwrap().v >> 20, a.device_id.as_ref().unwrap().v))
            .collect();
        assert_eq!(got, [(32752, 0x744c), (512, 0x164e)]);
        assert_eq!(s.agents[1].vram.as_ref().unwrap().src.line, 7);
        assert!(s.agents[1].gtt.is_none());
        // the same address in a second boot is the same GPU; its first values stay
        let again = format!(
            "{t}[ 0.00] Linux version 6.8.0 (b@h) (gcc)\n[ 9.08] amdgpu 0000:03:00.0: enabling device\n[ 9.12] [drm] amdgpu: 16000M of VRAM memory ready\n"
        );
        let (_, s) = run(read, &again);
        assert_eq!(s.agents.len(), 2);
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v >> 20, 32752);
        // no address anywhere: one GPU, as before
        let (_, s) = run(
            read,
            "[drm] amdgpu: 512M of VRAM memory ready\n[drm] amdgpu: 1024M of VRAM memory ready\n",
        );
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].vram.as_ref().unwrap().v >> 20, 512);
        assert_eq!(address("x amdgpu 0001:c3:00.1: y"), Some("0001:c3:00.1"));
        assert_eq!(address("amdgpu 0000:03:00: y"), None);
    }
}
