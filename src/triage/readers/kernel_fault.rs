//! amdgpu's GPU fault and hang lines in a kernel log (dmesg, `journalctl -k`): page faults
//! (`amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:3 pasid:32770)`,
//! `[mmhub0] retry page fault`, `GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031`), hangs
//! (`ring gfx_0.0.0 timeout`, `ring comp_1.0.0 timeout`, `MES failed to respond to msg=…`) and
//! resets (`GPU reset begin!`, `VRAM is lost due to GPU reset!`, `device wedged`). Message texts
//! of drivers/gpu/drm/amd/amdgpu (gmc_v10_0.c / gmc_v11_0.c page-fault handlers,
//! amdgpu_job.c timeouts, amdgpu_device.c resets). One report per class, at its first line.

use super::{Line, Seen};
use crate::facts::EventKind;
use crate::triage::paste::{Has, trim};

/// The fault class of a kernel log line, if it is one.
fn class(t: &str) -> Option<EventKind> {
    // `[gfxhub] page fault (src_id:…)`, and the same fault as newer kernels and reporters write
    // it (`[gfxhub] page fault at address 0x… from client 0x1b (UTCL2)`)
    if t.has("page fault (src_id")
        || t.has("retry page fault")
        || t.has("PROTECTION_FAULT_STATUS")
        || ((t.has("[gfxhub") || t.has("[mmhub")) && t.has("] page fault"))
    {
        return Some(EventKind::PageFault);
    }
    // the timeout handler's name (`[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring …`), also
    // where a reporter lists the messages they saw
    if (t.has("ring ") && t.has(" timeout"))
        || t.has("amdgpu_job_timedout")
        || t.has("MES failed to respond")
        || t.has("MES ring buffer is full")
        // the driver's test submission that timed out (ETIMEDOUT) at init or resume
        // (amdgpu_device.c's `ib ring test failed (%d).`, amdgpu_ib.c's `IB test failed on %s
        // (%d).`): the GPU did not run it
        || (t.has("amdgpu") && (t.has("ib ring test failed") || t.has("ib test failed")) && t.has("(-110)"))
    {
        return Some(EventKind::RingTimeout);
    }
    if t.has("GPU reset begin")
        || t.has("VRAM is lost due to GPU reset")
        || t.has("device wedged")
        || t.has("GPU reset(")
    {
        return Some(EventKind::GpuReset);
    }
    None
}

/// Reads amdgpu fault lines.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    for l in lines {
        // a typed command naming a fault (`dmesg | grep -i GCVM_L2_PROTECTION_FAULT_STATUS`) is a
        // search for it, not the fault
        if l.command {
            continue;
        }
        let t = l.text.as_ref();
        // amdgpu's own wordings, also where a journal was scrubbed of the driver's prefix or a
        // reporter condensed it (`ring gfx_0.0.0 timeout, signaled seq=…`, `[gfxhub] page
        // fault`, `MES failed to respond to msg=REMOVE_QUEUE`: only amdgpu's MES code says so)
        if !(t.has("amdgpu")
            || t.has("drm")
            || t.has("FAULT_STATUS")
            || t.has("timeout, signaled seq")
            || t.has("hub] page fault")
            || t.has("VRAM is lost due to GPU reset")
            || t.has("MES failed to respond")
            || t.has("MES ring buffer is full"))
        {
            continue;
        }
        let Some(kind) = class(t) else { continue };
        fired = true;
        seen.amdgpu_loaded = true;
        seen.event(l.no, kind, None, trim(t));
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::read;
    use crate::facts::EventKind;

    #[test]
    fn a_test_submission_that_timed_out_is_a_hang() {
        // values ours: a resume's failed IB test, with and without the timeout's errno
        let (fired, s) = run(read, "amdgpu 0000:03:00.0: amdgpu: ib ring test failed (-110).\n");
        assert!(fired);
        assert_eq!(s.events[0].v.kind, EventKind::RingTimeout);
        let (fired, _) = run(read, "amdgpu 0000:03:00.0: amdgpu: ib ring test failed (-22).\n");
        assert!(!fired);
    }

    #[test]
    fn page_faults_hangs_and_resets() {
        // amdgpu's messages (Linux 6.x); the page-fault pair as in the dmesg of corpus case 14
        // (https://github.com/ROCm/legacy-rocm-build/issues/5670); the rest values ours.
        let t = "[ 101.1] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:3 pasid:32770)\n\
[ 101.1] amdgpu 0000:03:00.0: amdgpu:  Process python3 pid 4242 thread python3 pid 4242\n\
[ 101.1] amdgpu 0000:03:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031\n\
[ 111.0] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3\n\
[ 111.2] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n\
[ 112.0] [drm] VRAM is lost due to GPU reset!\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        let got: Vec<(EventKind, u32)> = s.events.iter().map(|e| (e.v.kind, e.src.line)).collect();
        assert_eq!(
            got,
            [
                (EventKind::PageFault, 1),
                (EventKind::RingTimeout, 4),
                (EventKind::GpuReset, 5)
            ]
        );
        let (fired, _) = run(read, "[ 5.2] [drm] amdgpu: 512M of VRAM memory ready\n");
        assert!(!fired);
        // a reporter's list of the messages, without the log's prefixes (values ours)
        let (_, s) = run(
            read,
            "- amdgpu_job_timedout on ring comp_1.0.0\n- VRAM loss (VRAM is lost due to GPU reset!)\n",
        );
        let got: Vec<EventKind> = s.events.iter().map(|e| e.v.kind).collect();
        assert_eq!(got, [EventKind::RingTimeout, EventKind::GpuReset]);
        // a reporter's condensed excerpt of MES's message, no prefix (values ours)
        let (fired, s) = run(read, "(repeated)\nMES failed to respond to msg=SUSPEND\n");
        assert!(fired);
        let got: Vec<(EventKind, u32)> = s.events.iter().map(|e| (e.v.kind, e.src.line)).collect();
        assert_eq!(got, [(EventKind::RingTimeout, 2)]);
        // an MES word elsewhere is no hang
        let (fired, _) = run(read, "MES firmware version: 0x80\n");
        assert!(!fired);
        // a typed search for a fault, also inside inline code, is no fault (values ours)
        for t in [
            "$ dmesg | grep -i GCVM_L2_PROTECTION_FAULT_STATUS | wc -l\n98\n",
            "`# dmesg | grep -i GCVM_L2_PROTECTION_FAULT_STATUS |wc -l\n98\n`\n",
        ] {
            let (fired, s) = run(read, t);
            assert!(!fired && s.events.is_empty(), "{t:?}");
        }
    }
}
