//! HIP, ROCr and rocBLAS run-time output, as programs print it and as `AMD_LOG_LEVEL=1…4`
//! logs it (`:3:hip_device_runtime.cpp :649 : 123 us: …`).
//!
//! Facts: the GPU's target from an ISA string (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`) in
//! the `Devices:` part of HIP's code-object report (ISA strings under `Bundled Code Objects:`
//! are what the binary carries, not the GPU) or anywhere else outside it, and from rocBLAS's
//! `… for GPU arch : gfx1031`; HIP's code-object report (which ISA the binary carries, which the
//! GPU is). What the error lines mean (`hipErrorNoBinaryForGpu`, `invalid device function`, …)
//! is the matrix's signatures' (`triage::signatures`). Message texts as
//! printed by ROCm/clr `hipamd/src/hip_code_object.cpp` and rocBLAS `tensile_host.cpp`; pastes
//! of them e.g. in <https://github.com/pytorch/pytorch/issues/73534> (AMD_LOG_LEVEL, the ISA
//! looked for), <https://github.com/ROCm/legacy-rocm-build/issues/2061> (hipErrorNoBinaryForGpu
//! on an RX 6600), <https://github.com/ROCm/AMDMIGraphX/pull/3517> and
//! <https://github.com/brknsoul/ROCmLibs/issues/4> (rocBLAS's `for GPU arch`).

use super::{Line, Seen, gfx_in};
use crate::triage::paste::{Has, trim};
use crate::triage::{Agent, At, Src};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Other,
    Devices,
    Bundled,
}

/// `:3:hip_device_runtime.cpp :649 : …`: an AMD_LOG_LEVEL line.
fn log_level_line(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() > 4
        && b[0] == b':'
        && b[1].is_ascii_digit()
        && b[2] == b':'
        && t[3..]
            .split(':')
            .next()
            .is_some_and(|f| f.trim_end().ends_with(".cpp") || f.trim_end().ends_with(".hpp"))
}

/// The gfx of an ISA string in `t` (`amdgcn-amd-amdhsa--gfx1031`), if any.
fn isa(t: &str) -> Option<String> {
    let p = t.at("amdgcn-amd-amdhsa--")?;
    gfx_in(&t[p + 19..])
}

/// Reads HIP/ROCr/rocBLAS run-time output.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let file = seen.file;
    let mut fired = false;
    let mut part = Part::Other;
    let mut devices: Vec<String> = Vec::new();
    let mut bundled: Vec<(String, u32)> = Vec::new();
    for l in lines {
        let t = trim(&l.text);
        if t.is_empty() {
            continue;
        }
        let logged = log_level_line(t);
        if logged {
            fired = true;
        }
        // HIP's code-object report: `Devices:` then `Bundled Code Objects:`
        if t.ends_with("Devices:") && (logged || t == "Devices:") {
            part = Part::Devices;
            continue;
        }
        if t.ends_with("Bundled Code Objects:") {
            part = Part::Bundled;
            fired = true;
            continue;
        }
        if t.has("amdgcn-amd-amdhsa--") && !t.starts_with("Name:") {
            // a bundler's entry ids or a compiler's target flags (`clang-offload-bundler
            // --targets=hipv4-amdgcn-amd-amdhsa--gfx1100,…`): what a binary is built for, no device
            if !logged && (t.has("hipv4-") || t.has("--targets=") || t.has("--offload-arch")) {
                continue;
            }
            let Some(g) = isa(t) else { continue };
            fired = true;
            let device = match part {
                Part::Bundled => t.has("[Not Found]"),
                _ => !t.has("[code object"),
            };
            if device {
                add_gpu(seen, &mut devices, g, l.no, file);
            } else if !bundled.iter().any(|(x, _)| *x == g) {
                bundled.push((g, l.no));
            }
            continue;
        }
        // the runtime's numbers for the device's target (`Gfx Major/Minor/Stepping: 9/0/10`, clr's
        // rocdevice.cpp at AMD_LOG_LEVEL=3): the target written in decimals
        if logged
            && let Some(p) = t.at("Gfx Major/Minor/Stepping:")
            && let Some(g) = stepping_target(&t[p + 25..])
        {
            fired = true;
            add_gpu(seen, &mut devices, g, l.no, file);
            continue;
        }
        if !(t.has("rror") || t.has("fault") || t.has("device")) {
            if !logged {
                part = Part::Other;
            }
            continue;
        }
        // the runtime names each HSA agent it sets up (`populateOCLDeviceConstants failed for
        // HSA device gfx90a (PCI ID 740f)`, clr's rocdevice.cpp): a GPU of the machine
        if logged
            && let Some(p) = t.at("HSA device gfx")
            && let Some(g) = gfx_in(&t[p + 11..])
        {
            let n = devices.len();
            add_gpu(seen, &mut devices, g, l.no, file);
            // the device's own PCI id after its target: the hardware, where an override changed
            // the target the runtime shows (`gfx1030 (PCI ID 73df)` on a gfx1031 card)
            if devices.len() > n
                && let Some(q) = t[p..].at("(PCI ID ")
                && let Some(id) = t[p + q + 8..].split(')').next().and_then(super::pci_id)
                && let Some(a) = seen.agents.last_mut()
            {
                a.device_id = Some(At {
                    v: id,
                    src: Src { file, line: l.no },
                });
            }
        }
        // what an error line means is the matrix's signatures' (triage::signatures); here only
        // whether the line is this format's and the target rocBLAS names
        if t.has("TensileLibrary") && t.has("GPU arch") {
            fired = true;
            let p = t.at("GPU arch").unwrap_or(0);
            if let Some(g) = gfx_in(&t[p..]) {
                add_gpu(seen, &mut devices, g, l.no, file);
            }
        } else if t.has("HIP error")
            || t.has("hipError")
            || t.has("rocBLAS error")
            || t.has("Memory access fault by GPU")
            || t.has("no ROCm-capable device")
            || t.has("invalid device function")
            || t.has("Unable to find code object")
        {
            fired = true;
        }
    }
    if !bundled.is_empty() && !devices.is_empty() {
        let list: Vec<&str> = bundled.iter().map(|(g, _)| g.as_str()).collect();
        seen.note(
            bundled[0].1,
            format!(
                "the binary's code objects are for {} (HIP's `Bundled Code Objects`), the GPU is {}",
                list.join(", "),
                devices.join(", ")
            ),
        );
    }
    fired
}

/// `9/0/10` → gfx90a: the major in decimal, minor and stepping one hex digit each.
fn stepping_target(v: &str) -> Option<String> {
    let mut n = v.trim().split('/').map(|x| x.trim().parse::<u32>().ok());
    let (major, minor, step) = (n.next()??, n.next()??, n.next()??);
    if n.next().is_some() || !(6..=19).contains(&major) || minor > 15 || step > 15 {
        return None;
    }
    Some(format!("gfx{major}{minor:x}{step:x}"))
}

fn add_gpu(seen: &mut Seen, devices: &mut Vec<String>, g: String, line: u32, file: usize) {
    if devices.contains(&g) {
        return;
    }
    devices.push(g.clone());
    let src = Src { file, line };
    seen.agents.push(Agent {
        reader: "hip_log",
        src,
        gfx: Some(At { v: g, src }),
        ..Agent::default()
    });
}

#[cfg(test)]
mod tests {
    use super::read;
    use crate::facts::EventKind;
    use crate::triage::Seen;

    /// The reader, then the embedded matrix's signatures, as `triage` runs them.
    fn run(read: fn(&[super::Line], &mut Seen) -> bool, t: &str) -> (bool, Seen) {
        let (fired, mut s) = super::super::run(read, t);
        let lines = crate::triage::paste::lines(t);
        crate::triage::signatures::Router::new(&crate::matrix::Matrix::embedded().signatures).scan(&lines, &mut s);
        (fired, s)
    }

    #[test]
    fn the_runtime_s_hsa_devices_in_a_log() {
        // clr's device set-up lines at AMD_LOG_LEVEL=1 and above (values ours)
        let t = ":1:rocdevice.cpp :655 : 1 us: [pid:1 tid: 0x1] populateOCLDeviceConstants failed for HSA device gfx90a (PCI ID 740f)\n\
:1:rocdevice.cpp :655 : 2 us: [pid:1 tid: 0x1] populateOCLDeviceConstants failed for HSA device gfx1100 (PCI ID 744c)\n\
the HSA device gfx942 is what we target\n";
        let (_, s) = run(read, t);
        let g: Vec<&str> = s
            .agents
            .iter()
            .filter_map(|a| a.gfx.as_ref().map(|g| g.v.as_str()))
            .collect();
        assert_eq!(g, ["gfx90a", "gfx1100"], "a sentence outside the log is no device");
        let ids: Vec<Option<u32>> = s.agents.iter().map(|a| a.device_id.as_ref().map(|d| d.v)).collect();
        assert_eq!(ids, [Some(0x740f), Some(0x744c)]);
    }

    #[test]
    fn code_object_report_separates_the_gpu_from_the_binary() {
        // AMD_LOG_LEVEL=1 output when a binary lacks the GPU's ISA (the report of HIP's
        // hip_code_object.cpp, the ISA looked for as in
        // https://github.com/pytorch/pytorch/issues/73534; timestamps and targets ours: an
        // RX 6600-class gfx1031 card and a gfx1030 binary, the case of
        // https://github.com/ROCm/legacy-rocm-build/issues/2061).
        let t = ":1:hip_code_object.cpp      :624 : 0123456789 us: 1234 : [tid:0x7f00] Devices:\n\
:1:hip_code_object.cpp      :626 : 0123456789 us: 1234 : [tid:0x7f00]   amdgcn-amd-amdhsa--gfx1031 - [Not Found]\n\
:1:hip_code_object.cpp      :630 : 0123456789 us: 1234 : [tid:0x7f00] Bundled Code Objects:\n\
:1:hip_code_object.cpp      :646 : 0123456789 us: 1234 : [tid:0x7f00]   host-x86_64-unknown-linux - [Unsupported]\n\
:1:hip_code_object.cpp      :644 : 0123456789 us: 1234 : [tid:0x7f00]   amdgcn-amd-amdhsa--gfx1030 - [code object v4 is amdgcn-amd-amdhsa--gfx1030]\n\
:1:hip_code_object.cpp      :650 : 0123456789 us: 1234 : [tid:0x7f00] hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.agents.len(), 1);
        let g = s.agents[0].gfx.as_ref().unwrap();
        assert_eq!((g.v.as_str(), g.src.line), ("gfx1031", 2));
        assert_eq!(s.events.len(), 1);
        assert_eq!(s.events[0].v.kind, EventKind::NoBinaryForGpu);
        assert_eq!(s.events[0].v.signature.as_deref(), Some("hip-no-binary-for-gpu"));
        assert_eq!(s.events[0].src.line, 6);
        assert!(s.notes[0].v.contains("gfx1030"), "{:?}", s.notes);
    }

    #[test]
    fn rocblas_tensile_invalid_function_and_faults() {
        // rocBLAS's message when its library has no kernels for the GPU, and its file list
        // (shape as in https://github.com/ROCm/AMDMIGraphX/pull/3517; target and path ours).
        let t = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1031\n\
 List of available TensileLibrary Files : \n\
\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\"\n\
RuntimeError: HIP error: invalid device function\n\
Memory access fault by GPU node-1 (Agent handle: 0x55d0c0d0e0f0) on address 0x7f0000000000. Reason: Page not present or supervisor privilege.\n\
RuntimeError: HIP error: invalid device function\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1031");
        let kinds: Vec<EventKind> = s.events.iter().map(|e| e.v.kind).collect();
        assert_eq!(
            kinds,
            [
                EventKind::TensileLibraryMissing,
                EventKind::InvalidDeviceFunction,
                EventKind::MemoryAccessFault
            ],
            "one event per kind, at its first line"
        );
        assert_eq!(s.events[0].v.gfx.as_deref(), Some("gfx1031"));
        assert_eq!(s.events[1].src.line, 4);
    }

    #[test]
    fn the_target_in_decimals() {
        // a start-up line at log level 3 (values ours)
        let t = ":3:rocdevice.cpp            :1610: 1234 us:  Gfx Major/Minor/Stepping: 10/3/1\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx1031");
        assert_eq!(super::stepping_target(" 9/0/10").as_deref(), Some("gfx90a"));
        assert_eq!(super::stepping_target("9/0/16"), None);
        assert_eq!(super::stepping_target("9/0"), None);
    }

    #[test]
    fn isa_string_alone_and_unrelated_text() {
        let (fired, s) = run(
            read,
            ":3:rocvirtual.cpp :3000 : 1 us: 2 : [tid:0x1] ISA amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\n",
        );
        assert!(fired);
        assert_eq!(s.agents[0].gfx.as_ref().unwrap().v, "gfx90a");
        let (_, s) = run(read, "no ROCm-capable device is detected\n");
        assert_eq!(s.events[0].v.kind, EventKind::NoDevice);
        let (fired, s) = run(
            read,
            "the device works fine, no error\n  Name:  amdgcn-amd-amdhsa--gfx1100\n",
        );
        assert!(!fired && s.agents.is_empty() && s.events.is_empty());
        // a bundler's target list on its command line names no device (values ours)
        let (_, s) = run(
            read,
            "clang-offload-bundler --type=o --targets=hipv4-amdgcn-amd-amdhsa--gfx1030,hipv4-amdgcn-amd-amdhsa--gfx1200 --input=k.o\n",
        );
        assert!(s.agents.is_empty());
    }
}
