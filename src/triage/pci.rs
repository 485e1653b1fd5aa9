//! AMD PCI device ids printed anywhere in a paste — `lspci -nn`'s `[1002:7551]`, a `1002:744c`
//! pair, Windows' hardware id `PCI\VEN_1002&DEV_7551&SUBSYS_…` — as the last evidence of which
//! GPU a paste is about. They name a target only where no reader found a GPU with a target or a
//! chip id, and only ids the matrix's GPU table knows (an AMD audio function or a chipset device
//! names nothing).

use super::paste::{Has, Line};
use super::{At, Seen, Src};
use crate::triage::paste::TrimSet;

/// Distinct ids kept per paste (a listing of every PCI function of a server is not a GPU list).
const MAX_IDS: usize = 16;

fn hex4(b: &[u8]) -> Option<u32> {
    let h = b.get(..4)?;
    if !h.iter().all(u8::is_ascii_hexdigit) || b.get(4).is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
}

/// The AMD device ids of one line.
fn ids(t: &str, out: &mut Vec<u32>) {
    let b = t.as_bytes();
    let mut from = 0;
    while let Some(p) = t[from..].at("1002") {
        let i = from + p;
        from = i + 4;
        let before = if i == 0 { None } else { Some(b[i - 1]) };
        let id = match (before, b.get(i + 4)) {
            // `1002:7551`, `[1002:7551]`, `(1002:7551)`: not inside a longer word or number
            (None | Some(b'[' | b'(' | b' ' | b'=' | b'\t'), Some(b':')) => hex4(&b[i + 5..]),
            // amdgpu's `initializing kernel modesetting (NAVI31 0x1002:0x744C 0x1002:0x0E3B 0xC8)`,
            // `(IP DISCOVERY 0x1002:0x7550 …)`: the first pair is the GPU's vendor and device
            (Some(b'x' | b'X'), Some(b':'))
                if i >= 2 && b[i - 2] == b'0' && matches!(b.get(i + 5..i + 7), Some(b"0x" | b"0X")) =>
            {
                hex4(&b[i + 7..])
            }
            // `VEN_1002&DEV_7551`
            (Some(b'_'), Some(b'&')) if i >= 4 && b[i - 4..i].eq_ignore_ascii_case(b"VEN_") => {
                let rest = &b[i + 5..];
                (rest.len() >= 4 && rest[..4].eq_ignore_ascii_case(b"DEV_"))
                    .then(|| hex4(&rest[4..]))
                    .flatten()
            }
            _ => None,
        };
        if let Some(id) = id
            && !out.contains(&id)
            && out.len() < MAX_IDS
        {
            out.push(id);
        }
    }
}

/// A device id written after its name on a line that names an AMD product (`AMD Instinct MI355X
/// OAM (…, PCI device-id `75a3`)`, `Radeon RX 7900 XTX, device id 0x744c`): without the vendor
/// part, only where the line says the device is AMD's (NVIDIA's ids overlap AMD's APU ids).
fn phrase_ids(t: &str, out: &mut Vec<u32>) {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let ac = AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["device-id", "device id", "device_id", "pci id", "pci-id", "chip id"])
            .expect("the id phrases compile")
    });
    // every phrase ends in `id` after a blank, `-` or `_`: a line without one has none of them (a
    // byte loop; the automaton's search was 1,200 instructions a line, callgrind, 1 MB llama.cpp
    // log: 16.5 M of pci::scan's 24 M)
    let b = t.as_bytes();
    let id = |w: &[u8]| matches!(w[0], b' ' | b'-' | b'_') && w[1] | 0x20 == b'i' && w[2] | 0x20 == b'd';
    if !b.windows(3).any(id) {
        return;
    }
    let mut hits = ac.find_iter(t).peekable();
    if hits.peek().is_none() || !["AMD ", "Radeon", "Instinct", "RADEON"].iter().any(|w| t.has(w)) {
        return;
    }
    for m in hits {
        let mut i = m.end();
        let mut skipped = 0;
        while i < b.len() && skipped < 4 && matches!(b[i], b' ' | b':' | b'=' | b'`' | b'\'' | b'"') {
            i += 1;
            skipped += 1;
        }
        if b.get(i..i + 2).is_some_and(|x| x.eq_ignore_ascii_case(b"0x")) {
            i += 2;
        }
        // a `vendor:device` pair after the phrase (`PCI ID: 1002:744c`) is `ids`'s to read
        if b.get(i + 4) == Some(&b':') {
            continue;
        }
        if let Some(id) = hex4(&b[i.min(b.len())..])
            && !out.contains(&id)
            && out.len() < MAX_IDS
        {
            out.push(id);
        }
    }
}

/// The ids a `cat` of sysfs' `vendor` and `device` files prints (`$ cat
/// /sys/class/drm/renderD128/device/vendor /sys/class/drm/renderD128/device/device`, then `0x1002`
/// and `0x1586`): the output lines after the command, one per file in the command's order. A
/// device id counts only where the same device's `vendor` file said AMD's `0x1002` (NVIDIA's ids
/// overlap AMD's APU ids). Gives the device id and the line it was printed on.
fn sysfs_ids(lines: &[Line], i: usize) -> Option<(u32, u32)> {
    let cmd = lines[i].text.strip_prefix("cat ")?;
    let files: Vec<&str> = cmd.split_whitespace().take(8).collect();
    if !files.iter().all(|f| f.starts_with("/sys/")) {
        return None;
    }
    // the output: the next non-blank lines up to the next command, one per file
    let out: Vec<&Line> = lines[i + 1..]
        .iter()
        .take_while(|l| !l.command)
        .filter(|l| !l.text.trim_ws().is_empty())
        .take(files.len())
        .collect();
    if out.len() != files.len() {
        return None;
    }
    let value = |k: usize| -> Option<u32> {
        let w = out[k].text.split_whitespace().next()?;
        let h = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X"))?;
        (h.len() == 4).then(|| u32::from_str_radix(h, 16).ok())?
    };
    let dir = |f: &str| f.rsplit_once('/').map(|(d, _)| d.to_string());
    let vendor = files.iter().position(|f| f.ends_with("/vendor"))?;
    let device = files.iter().position(|f| f.ends_with("/device"))?;
    (dir(files[vendor]) == dir(files[device]) && value(vendor) == Some(0x1002))
        .then(|| value(device).map(|d| (d, out[device].no)))?
}

/// Records the first line of each distinct AMD device id of one input.
pub fn scan(lines: &[Line], seen: &mut Seen) {
    let mut found = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.command {
            if let Some((id, no)) = sysfs_ids(lines, i) {
                record(seen, id, no);
            }
            continue;
        }
        found.clear();
        // one searcher for every line: `has` looked for `1` byte by byte on lines full of digits
        static VENDOR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new("1002"));
        if VENDOR.find(l.text.as_bytes()).is_some() {
            ids(&l.text, &mut found);
        }
        phrase_ids(&l.text, &mut found);
        for &id in &found {
            record(seen, id, l.no);
        }
    }
}

/// Keeps the first line of a distinct id, up to [`MAX_IDS`].
pub(crate) fn record(seen: &mut Seen, id: u32, line: u32) {
    if seen.pci_ids.len() < MAX_IDS && !seen.pci_ids.iter().any(|p| p.v == id) {
        let src = Src { file: seen.file, line };
        seen.pci_ids.push(At { v: id, src });
    }
}

/// Where no reader found a GPU with a target or a chip id, one GPU per id the matrix knows.
pub fn fallback(seen: &mut Seen, matrix: &crate::matrix::Matrix) {
    if seen.agents.iter().any(|a| a.gfx.is_some() || a.device_id.is_some()) {
        return;
    }
    let known: Vec<At<u32>> = seen
        .pci_ids
        .iter()
        .filter(|p| matrix.gpu_by_pci(p.v).is_some())
        .cloned()
        .collect();
    if known.is_empty() {
        return;
    }
    // a GPU a reader named without a target is the same GPU when there is one of each
    let named: Vec<usize> = (0..seen.agents.len())
        .filter(|&i| seen.agents[i].marketing.is_some())
        .collect();
    if let ([i], [p]) = (named.as_slice(), known.as_slice()) {
        seen.agents[*i].device_id = Some(p.clone());
        return;
    }
    // several GPUs named (a system-info list beside the kernel log's id): an id goes to the one
    // GPU whose product name gives the id's target (CachyOS/linux-cachyos#1007: fastfetch's RX
    // 9070 XT and a generic `Radeon Graphics`, dmesg's `IP DISCOVERY 0x1002:0x7550`)
    if named.len() > 1 {
        let target = |n: &str| {
            let n = match matrix.gpu_by_name(n) {
                Some(_) => n,
                None => crate::triage::readers::key_value::product_in(n).unwrap_or(n),
            };
            matrix.gpu_by_name(n).map(|(g, _)| g.gfx.clone())
        };
        let mut placed = false;
        for p in &known {
            let Some(g) = matrix.gpu_by_pci(p.v).map(|(g, _)| g.gfx.clone()) else {
                continue;
            };
            let same: Vec<usize> = named
                .iter()
                .copied()
                .filter(|&i| {
                    seen.agents[i].device_id.is_none()
                        && seen.agents[i].marketing.as_deref().and_then(target).as_ref() == Some(&g)
                })
                .collect();
            if let [i] = same.as_slice() {
                seen.agents[*i].device_id = Some(p.clone());
                placed = true;
            }
        }
        if placed {
            return;
        }
    }
    for p in known {
        seen.agents.push(super::Agent {
            reader: "pci-id",
            src: p.src,
            device_id: Some(p),
            ..super::Agent::default()
        });
    }
    seen.formats.insert("pci-id");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(t: &str) -> Vec<u32> {
        let mut v = Vec::new();
        ids(t, &mut v);
        v
    }

    #[test]
    fn sysfs_vendor_and_device_files_read_by_cat() {
        let scan_ids = |t: &str| {
            let lines = crate::triage::paste::lines(t);
            let mut seen = Seen::default();
            scan(&lines, &mut seen);
            seen.pci_ids.iter().map(|p| (p.v, p.src.line)).collect::<Vec<_>>()
        };
        // values ours: the two files in one command, a comment after each value
        let d = "/sys/class/drm/renderD128/device";
        assert_eq!(
            scan_ids(&format!("$ cat {d}/vendor {d}/device\n0x1002   # AMD\n0x744c\n")),
            [(0x744c, 3)]
        );
        // a PCI device's own directory
        let b = "/sys/bus/pci/devices/0000:03:00.0";
        assert_eq!(
            scan_ids(&format!("$ cat {b}/vendor {b}/device\n0x1002\n0x7551\n")),
            [(0x7551, 3)]
        );
        // in the other order, inside a fence
        assert_eq!(
            scan_ids(&format!("```\n$ cat {d}/device {d}/vendor\n0x15bf\n0x1002\n```\n")),
            [(0x15bf, 3)]
        );
        // NVIDIA's vendor; a device file alone; two cards' files; a short output
        for t in [
            format!("$ cat {d}/vendor {d}/device\n0x10de\n0x13c0\n"),
            format!("$ cat {d}/device\n0x13c0\n"),
            "$ cat /sys/class/drm/card0/device/vendor /sys/class/drm/card1/device/device\n0x1002\n0x744c\n".to_string(),
            format!("$ cat {d}/vendor {d}/device\n0x1002\n$ ls\n"),
        ] {
            assert!(scan_ids(&t).is_empty(), "{t:?}");
        }
    }

    #[test]
    fn a_device_id_phrase_on_an_amd_products_line() {
        let phrase = |t: &str| {
            let mut v = Vec::new();
            phrase_ids(t, &mut v);
            v
        };
        // values ours
        assert_eq!(phrase("| GPU | AMD Instinct MI300X (PCI device-id `74a1`) |"), [0x74a1]);
        assert_eq!(phrase("Radeon RX 7900 XTX, device id 0x744C"), [0x744c]);
        // no AMD product on the line (NVIDIA's ids overlap AMD's APU ids), or no id after it
        assert!(phrase("NVIDIA GeForce GTX 980, device id 13c0").is_empty());
        assert!(phrase("AMD Radeon RX 7600: device id unknown").is_empty());
        // the vendor of a `vendor:device` pair is no device id
        assert!(phrase("AMD Radeon RX 7900 XTX, PCI ID: 1002:744c").is_empty());
    }

    #[test]
    fn amd_ids_in_each_printed_shape() {
        assert_eq!(
            all(
                "0a:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [1002:744c] (rev c8)"
            ),
            [0x744c]
        );
        assert_eq!(all(r"HWID: PCI\VEN_1002&DEV_7480&SUBSYS_12345678&REV_C0"), [0x7480]);
        assert_eq!(all(r"pci\ven_1002&dev_73bf"), [0x73bf]);
        assert_eq!(all("kfd kfd: amdgpu: added device 1002:1586"), [0x1586]);
        // amdgpu's modesetting line (values ours), with the board's subsystem pair after it
        assert_eq!(
            all(
                "amdgpu 0000:07:00.0: amdgpu: initializing kernel modesetting (IP DISCOVERY 0x1002:0x7551 0x1EAE:0x7901 0xC0)."
            ),
            [0x7551]
        );
        assert_eq!(
            all("initializing kernel modesetting (NAVI31 0x1002:0x744C 0x1002:0x0E3B 0xC8)"),
            [0x744c, 0x0e3b]
        );
        // inside longer numbers or words, other vendors, a port: nothing
        for t in [
            "size 110020:7551",
            "addr 0x1002:abcd",
            "[10de:2684]",
            "listening on :1002",
            "build 1002:7551x",
            "21002:7551",
        ] {
            assert!(all(t).is_empty(), "{t}");
        }
    }

    #[test]
    fn a_target_only_where_no_reader_found_one() {
        let m = crate::matrix::Matrix::embedded();
        let run = |text: &str| {
            let lines = super::super::paste::lines(text);
            let mut seen = Seen::default();
            scan(&lines, &mut seen);
            fallback(&mut seen, m);
            seen
        };
        let s = run("HWID: PCI\\VEN_1002&DEV_744C&SUBSYS_0E3A1002&REV_C8\n");
        assert_eq!(s.agents.len(), 1);
        assert_eq!(s.agents[0].device_id.as_ref().map(|d| d.v), Some(0x744c));
        // an id the matrix does not know as a GPU (an HDMI audio function): no GPU
        let s = run("Audio device [0403]: Advanced Micro Devices, Inc. [AMD/ATI] [1002:ab30]\n");
        assert!(s.agents.is_empty());
        // the same id twice is one GPU
        let s = run("[1002:744c]\n[1002:744c]\n");
        assert_eq!(s.agents.len(), 1);
    }

    #[test]
    fn an_id_goes_to_the_named_gpu_of_its_target() {
        let m = crate::matrix::Matrix::embedded();
        let named = |n: &str| super::super::Agent {
            reader: "key_value",
            marketing: Some(n.to_string()),
            ..super::super::Agent::default()
        };
        let lines = super::super::paste::lines(
            "amdgpu: initializing kernel modesetting (NAVI31 0x1002:0x744C 0x1002:0x0E3B 0xC8)\n",
        );
        let mut seen = Seen {
            agents: vec![named("AMD Radeon Graphics"), named("AMD Radeon RX 7900 XTX")],
            ..Seen::default()
        };
        scan(&lines, &mut seen);
        fallback(&mut seen, m);
        assert_eq!(seen.agents.len(), 2);
        assert!(seen.agents[0].device_id.is_none());
        assert_eq!(seen.agents[1].device_id.as_ref().map(|d| d.v), Some(0x744c));
    }
}
