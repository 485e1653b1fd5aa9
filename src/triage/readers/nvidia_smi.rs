//! `nvidia-smi`: its banner (`NVIDIA-SMI 550.54.14  Driver Version: …  CUDA Version: 12.4`)
//! says the machine is an NVIDIA one.

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::TrimSet;

/// Reads nvidia-smi output.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    for l in lines {
        let t = l.text.as_ref();
        // NVIDIA's management library started (`NVML initialized — NVIDIA GPU sensors
        // available`, a monitoring app's log): only NVIDIA's driver gives it a GPU to manage
        if let Some(p) = t.at("NVML initialized")
            && !negated(t)
        {
            let at = seen.at(t[p..].trim().to_string(), l.no);
            Seen::first(&mut seen.nvidia, at);
            return true;
        }
        // one search a line: the other shapes hold the vendor's name
        if !t.has("NVIDIA") {
            // nvidia-smi's header fields typed without its banner (`Driver Version: 580.126.09
            // CUDA Version: 13.0`): the CUDA version the installed NVIDIA driver supports, a
            // pair no other tool prints
            if let Some(p) = t.at("Driver Version:")
                && t[p..].has("CUDA Version:")
            {
                let at = seen.at(t[p..].trim().trim_matches('|').trim().to_string(), l.no);
                Seen::first(&mut seen.nvidia, at);
                return true;
            }
            continue;
        }
        if t.has("NVIDIA-SMI ") && t.has("Driver Version") {
            let at = seen.at(t.trim().trim_matches('|').trim().to_string(), l.no);
            Seen::first(&mut seen.nvidia, at);
            return true;
        }
        // lspci's name of an NVIDIA device (`NVIDIA Corporation GA102 [GeForce RTX 3090 Ti]`),
        // in its own listing or copied into a report's GPU field
        if let Some(p) = t.at("NVIDIA Corporation ")
            && t[p..]
                .split(',')
                .next()
                .is_some_and(|d| d.contains(" [") && d.contains(']'))
        {
            let at = seen.at(t.trim().to_string(), l.no);
            Seen::first(&mut seen.nvidia, at);
            return true;
        }
        if let Some(name) = labelled_device(t) {
            let at = seen.at(name.to_string(), l.no);
            Seen::first(&mut seen.nvidia, at);
            return true;
        }
    }
    false
}

/// A line that says something did not happen (`NVML initialized: False`, `not initialized`).
fn negated(t: &str) -> bool {
    let l = t.to_ascii_lowercase();
    ["not ", "fail", "false", "error", "unable", "n't", "no "]
        .iter()
        .any(|w| l.has(w))
}

/// An NVIDIA product's name as a device's value (`Device name: NVIDIA GeForce RTX 5070 Ti` in an
/// OpenCL listing, `GPU 1: NVIDIA RTX A6000 (UUID: …)` from `nvidia-smi -L`, a print alone on
/// its line): the machine has that GPU. A sentence that names one (`works on an NVIDIA GeForce
/// RTX 4090`) is not a device listing.
/// The product's name is what it gives: from the vendor's word, without a quote's marks, an
/// OpenGL renderer's tail (`/PCIe/SSE2`) or nvidia-smi's ` (UUID: …)`.
fn labelled_device(t: &str) -> Option<&str> {
    let t = t.trim();
    let p = ["NVIDIA GeForce ", "NVIDIA RTX ", "NVIDIA Tesla ", "NVIDIA Quadro "]
        .iter()
        .filter_map(|n| t.find(n))
        .min()?;
    // a list item's mark before its label (`- dGPU: `NVIDIA GeForce …``)
    let label = t[..p].trim_end().trim_set(b"'\"`").trim_end();
    let label = label.strip_prefix(['-', '*']).map_or(label, str::trim_start);
    let labelled = label.is_empty()
        || (label.len() <= 40 && label.ends_with([':', '=']) && !label[..label.len() - 1].contains([':', '=']));
    if !labelled {
        return None;
    }
    let name = &t[p..];
    let end = [" (UUID", "/PCIe", "`", "\"", "'"]
        .iter()
        .filter_map(|m| name.find(m))
        .min()
        .unwrap_or(name.len());
    Some(name[..end].trim_end())
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;

    #[test]
    fn banner() {
        let t = "+-----+\n| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4 |\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.nvidia.unwrap().src.line, 2);
        assert!(!run(read, "no nvidia here\n").0);
        // the header's fields typed alone, under an environment heading (values ours)
        let (fired, s) = run(
            read,
            "### Environment\nDriver Version: 580.00.01     CUDA Version: 13.0\n",
        );
        assert!(fired);
        assert_eq!(s.nvidia.unwrap().v, "Driver Version: 580.00.01     CUDA Version: 13.0");
        // either field alone says nothing of NVIDIA (AMD's driver has a version too)
        assert!(!run(read, "Driver Version: 6.16.6\n").0);
        assert!(!run(read, "CUDA Version: 12.4 (toolkit)\n").0);
        // lspci's device name, alone or beside an AMD one (values ours)
        let (fired, s) = run(
            read,
            "Radeon 8060S Graphics (rev c1), NVIDIA Corporation AD104 [GeForce RTX 4070] (rev a1)\n",
        );
        assert!(fired && s.nvidia.is_some());
        assert!(!run(read, "NVIDIA Corporation makes GPUs\n").0);
        // NVIDIA's management library started; it did not (values ours)
        let t = "2026-01-01T00:00:00 INFO    app.sensors.nvml:_init:73: NVML initialized — GPU sensors available\n";
        assert!(run(read, t).1.nvidia.is_some());
        for t in [
            "NVML initialized: False\n",
            "WARNING: NVML initialized failed, no NVIDIA driver\n",
            "NVML not initialized\n",
        ] {
            assert!(run(read, t).1.nvidia.is_none(), "{t:?}");
        }
        // a device listing's name (OpenCL enumerators, `nvidia-smi -L`, a print; values ours)
        for (t, name) in [
            (
                "        Device name: NVIDIA GeForce RTX 4060\n",
                "NVIDIA GeForce RTX 4060",
            ),
            ("GPU 0: NVIDIA RTX A5000 (UUID: GPU-0000)\n", "NVIDIA RTX A5000"),
            ("'NVIDIA GeForce GTX 1080'\n", "NVIDIA GeForce GTX 1080"),
            // a Markdown list item with an OpenGL renderer string
            (
                "- dGPU: `NVIDIA GeForce RTX 4070 Laptop GPU/PCIe/SSE2`\n",
                "NVIDIA GeForce RTX 4070 Laptop GPU",
            ),
        ] {
            assert_eq!(run(read, t).1.nvidia.map(|n| n.v).as_deref(), Some(name), "{t:?}");
        }
        for t in [
            "it works on an NVIDIA GeForce RTX 4090 but not here\n",
            "[note: see https://x/y: NVIDIA GeForce tips]\n",
        ] {
            assert!(run(read, t).1.nvidia.is_none(), "{t:?}");
        }
    }
}
