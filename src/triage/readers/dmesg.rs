//! `dmesg` / `journalctl -k` amdgpu lines: `NNNNM of VRAM memory ready`, `NNNNM of GTT memory
//! ready`, `unknown parameter 'x' ignored`, the gttsize deprecation notice, KFD's `added device
//! 1002:744c`, and `Linux version …`. Messages as printed by `drivers/gpu/drm/amd/amdgpu`
//! (<https://github.com/torvalds/linux/blob/master/drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c>).

use super::{Line, Seen, pci_id};
use crate::triage::paste::Has;
use crate::triage::{Agent, At, Src};
use regex_lite::Regex;
use std::sync::LazyLock;

static READY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"amdgpu\b.*:\s+([0-9]+)M of (VRAM|GTT) memory ready").unwrap());
static UNKNOWN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(amdgpu|ttm|amdttm): unknown parameter '([^']+)' ignored").unwrap());
static ADDED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"kfd kfd: amdgpu: added device ([0-9a-f]{4}):([0-9a-f]{4})").unwrap());
static LINUX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"Linux version (\S+) \(").unwrap());

/// Reads kernel log lines.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut dev: Option<Agent> = None;
    for l in lines {
        let t = l.text.as_ref();
        if !(t.has("amdgpu") || t.has("ttm") || t.has("Linux version")) {
            continue;
        }
        if t.has("Linux version")
            && let Some(c) = LINUX.captures(t)
        {
            fired = true;
            let at = seen.at(c[1].to_string(), l.no);
            Seen::first(&mut seen.kernel, at);
            continue;
        }
        let src = Src {
            file: seen.file,
            line: l.no,
        };
        if t.has("memory ready")
            && let Some(c) = READY.captures(t)
        {
            fired = true;
            seen.amdgpu_loaded = true;
            let bytes = c[1].parse::<u64>().unwrap_or(0) << 20;
            let a = dev.get_or_insert_with(|| Agent {
                reader: "dmesg",
                src,
                ..Agent::default()
            });
            if &c[2] == "VRAM" {
                a.vram.get_or_insert(At { v: bytes, src });
            } else {
                a.gtt.get_or_insert(At { v: bytes, src });
            }
        } else if t.has("unknown parameter")
            && let Some(c) = UNKNOWN.captures(t)
        {
            fired = true;
            seen.note(
                l.no,
                format!(
                    "the kernel ignored the unknown parameter {}.{} (it has no effect)",
                    &c[1], &c[2]
                ),
            );
        } else if t.has("gttsize") && t.has("deprecated") {
            fired = true;
            // The kernel says a gttsize is configured; its value may not be in the paste.
            if !seen.params.iter().any(|p| p.v.0 == "amdgpu.gttsize") {
                let at = seen.at(
                    ("amdgpu.gttsize".to_string(), "(set; value not shown)".to_string()),
                    l.no,
                );
                seen.params.push(at);
            }
        } else if t.has("added device")
            && let Some(c) = ADDED.captures(t)
        {
            fired = true;
            seen.amdgpu_loaded = true;
            let a = dev.get_or_insert_with(|| Agent {
                reader: "dmesg",
                src,
                ..Agent::default()
            });
            a.device_id = pci_id(&c[2]).map(|v| At { v, src });
        } else if t.has("amdgpu") && (t.has("[drm]") || t.has("amdgpu 0000:")) {
            fired = true;
            seen.amdgpu_loaded = true;
        }
    }
    if let Some(a) = dev {
        seen.agents.push(a);
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

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
}
