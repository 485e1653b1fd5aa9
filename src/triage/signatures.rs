//! Run-time error lines recognised by the matrix's signatures (`matrix/signatures.yaml`): what a
//! wording of HIP, HSA, torch or ggml means is data, so a new wording reaches installed binaries
//! with `rocmcheck matrix update`. Readers keep the format parsing (which target a log names, which
//! lines belong to a report); this pass only says which lines report which class of failure.
//!
//! One Aho-Corasick automaton over every signature's needles (ASCII case-insensitive) scans the
//! lines once ([`super::paste::matches_by_line`]); a signature fires on a line holding all of its needles and matching its regex,
//! where it has one. Lines typed at a prompt are commands, not reports, and are skipped.

use super::Seen;
use super::paste::{Has, Line};
use super::readers::gfx_in;
use crate::facts::EventKind;
use crate::matrix::Signature;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// The signatures compiled for scanning.
pub struct Router<'m> {
    sigs: &'m [Signature],
    /// For each signature, the ids of its needles in `ac`.
    needles: Vec<Vec<usize>>,
    /// Each signature's regex, compiled the first time a line holds its needles (compiling them
    /// all was a third of an empty paste's triage).
    regexes: Vec<std::sync::OnceLock<Option<regex::Regex>>>,
    ac: Option<AhoCorasick>,
    patterns: usize,
}

impl<'m> Router<'m> {
    /// Compiles `sigs`. A signature whose regex does not compile (the matrix validator rejects
    /// those) is left out.
    pub fn new(sigs: &'m [Signature]) -> Self {
        let mut pats: Vec<String> = Vec::new();
        let mut needles = Vec::with_capacity(sigs.len());
        for s in sigs {
            let mut ids = Vec::with_capacity(s.needles.len());
            for n in &s.needles {
                let lower = n.to_ascii_lowercase();
                let id = match pats.iter().position(|p| *p == lower) {
                    Some(i) => i,
                    None => {
                        pats.push(lower);
                        pats.len() - 1
                    }
                };
                ids.push(id);
            }
            needles.push(ids);
        }
        let regexes = sigs.iter().map(|_| std::sync::OnceLock::new()).collect();
        let ac = if pats.is_empty() {
            None
        } else {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(&pats)
                .ok()
        };
        Router {
            sigs,
            needles,
            regexes,
            ac,
            patterns: pats.len(),
        }
    }

    /// Records an event for every line a signature recognises.
    pub fn scan(&self, lines: &[Line], seen: &mut Seen) {
        let Some(ac) = &self.ac else { return };
        let mut hit = vec![false; self.patterns];
        // the last judged line and its needles, where a signature had some of them but not all
        // (a wording wrapped onto an indented next line)
        let mut part: Option<(usize, Vec<bool>)> = None;
        let mut cur: Option<usize> = None;
        super::paste::matches_by_line(lines, ac, |i, p| {
            if lines[i].command {
                return;
            }
            if cur != Some(i) {
                if let Some(c) = cur {
                    self.step(lines, c, &mut hit, &mut part, seen);
                }
                cur = Some(i);
            }
            hit[p] = true;
        });
        if let Some(c) = cur {
            self.step(lines, c, &mut hit, &mut part, seen);
        }
    }

    /// Judges line `c`; first, where the line before held part of a signature's needles and `c`
    /// is indented, the two lines as one (``rocBLAS error: Cannot read …/TensileLibrary.dat:`` then
    /// ``   No such file or directory for GPU arch : gfx1103``, tjdnjsrmsdidgkrdlfma/Scanlation
    /// tools/recognize-decode-bound.md, licat2023/faster-whisper-GUI docs/runtime/ROCM_BUILD.md).
    fn step(&self, lines: &[Line], c: usize, hit: &mut [bool], part: &mut Option<(usize, Vec<bool>)>, seen: &mut Seen) {
        // continued: the next line indented, or the line cut after a blank (a soft wrap kept
        // its blank: `…/TensileLibrary.dat: ` then `Illegal seek for GPU arch : gfx1103`)
        if let Some((pc, ph)) = part.take()
            && pc + 1 == c
            && (lines[c].text.starts_with([' ', '\t']) || lines[pc].text.ends_with([' ', '\t']))
        {
            let both: Vec<bool> = ph.iter().zip(hit.iter()).map(|(a, b)| *a || *b).collect();
            let whole = |h: &[bool], i: usize| self.needles[i].iter().all(|&n| h[n]);
            if (0..self.sigs.len()).any(|i| whole(&both, i) && !whole(&ph, i) && !whole(hit, i)) {
                let joined = Line {
                    no: lines[pc].no,
                    text: format!("{} {}", lines[pc].text.trim_end(), lines[c].text.trim_start()).into(),
                    command: false,
                };
                let mut h = both;
                self.judge(&joined, &mut h, seen);
            }
        }
        let partial = (0..self.sigs.len()).any(|i| {
            let n = self.needles[i].iter().filter(|&&n| hit[n]).count();
            n > 0 && n < self.needles[i].len()
        });
        if partial && lines[c].text.len() <= 400 {
            *part = Some((c, hit.to_vec()));
        }
        self.judge(&lines[c], hit, seen);
    }

    /// Records the events of the signatures whose needles `hit` holds on line `l`, then clears
    /// `hit`.
    fn judge(&self, l: &Line, hit: &mut [bool], seen: &mut Seen) {
        let t = l.text.as_ref();
        if another_issues_error(t) {
            hit.iter_mut().for_each(|h| *h = false);
            return;
        }
        for (i, s) in self.sigs.iter().enumerate() {
            if !self.needles[i].iter().all(|&n| hit[n]) {
                continue;
            }
            let re = self.regexes[i]
                .get_or_init(|| s.regex.as_deref().and_then(|r| regex::Regex::new(r).ok()))
                .as_ref();
            if s.regex.is_some() && !re.is_some_and(|r| r.is_match(t)) {
                continue;
            }
            let gfx = s.gfx_after.as_deref().and_then(|marker| {
                let p = t.to_ascii_lowercase().find(&marker.to_ascii_lowercase())?;
                gfx_in(&t[p + marker.len()..])
            });
            let library = re
                .and_then(|r| r.captures(t))
                .and_then(|c| c.name("library"))
                .map(|m| m.as_str().to_string())
                .or_else(|| s.library.clone());
            // the HIP runtime's and its libraries' own messages are the README's `hip_log` format
            // (a reader no longer lists their wordings: the signatures do)
            if matches!(
                s.event,
                EventKind::NoBinaryForGpu
                    | EventKind::TensileLibraryMissing
                    | EventKind::InvalidDeviceFunction
                    | EventKind::MemoryAccessFault
            ) {
                seen.formats.insert("hip_log");
            }
            // and amdgpu's kernel-log reports (a reset, a ring timeout, a page fault), the
            // README's `kernel_fault`, where a signature read them
            // (a line of the kernel's: its driver's prefix, not Mesa's `radv/amdgpu:`)
            if matches!(
                s.event,
                EventKind::GpuReset | EventKind::RingTimeout | EventKind::PageFault
            ) && (t.has("amdgpu ") || t.has("amdgpu: ") || t.has("[drm"))
                && !t.has("radv/amdgpu")
            {
                seen.formats.insert("kernel_fault");
            }
            seen.event_from(l.no, s.event, gfx, t, Some(&s.id), library);
        }
        hit.iter_mut().for_each(|h| *h = false);
    }
}

/// A sentence that names a wording as another issue's (`This is a different bug from #22874
/// (`hipErrorInvalidDeviceFunction`), which was fixed in v2.6.0`): the paste's report is not
/// that error. It cites an issue by number and sets the error apart from this one.
fn another_issues_error(t: &str) -> bool {
    let b = t.as_bytes();
    let cites = b.windows(2).any(|w| w[0] == b'#' && w[1].is_ascii_digit());
    if !cites {
        return false;
    }
    let l = t.to_ascii_lowercase();
    [
        "different bug",
        "different issue",
        "was fixed",
        "been fixed",
        "unlike #",
        "not the same as",
        "not a duplicate",
    ]
    .iter()
    .any(|w| l.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::EventKind;

    fn sig(id: &str, needles: &[&str], regex: Option<&str>, event: EventKind) -> Signature {
        Signature {
            id: id.into(),
            needles: needles.iter().map(|s| s.to_string()).collect(),
            regex: regex.map(str::to_string),
            event,
            gfx_after: None,
            library: None,
            diagnosis: "d".into(),
            fix: None,
            issue: None,
            sources: vec!["s".into()],
        }
    }

    fn scan(sigs: &[Signature], text: &str) -> Seen {
        let lines = super::super::paste::lines(text);
        let mut seen = Seen::default();
        Router::new(sigs).scan(&lines, &mut seen);
        seen
    }

    #[test]
    fn another_issues_error_named_in_a_sentence_is_no_report() {
        let sigs = vec![sig("nbf", &["hipErrorNoBinaryForGpu"], None, EventKind::NoBinaryForGpu)];
        // u/04 of the 2026 build sets (an issue form's note; wording ours)
        let s = scan(
            &sigs,
            "> Note: unlike #1234 (`hipErrorNoBinaryForGpu`, fixed in 1.2) this one segfaults\n",
        );
        assert!(s.events.is_empty(), "{:?}", s.events);
        let s = scan(&sigs, "Same as #1234: hipErrorNoBinaryForGpu again on 1.3\n");
        assert_eq!(s.events.len(), 1);
    }

    #[test]
    fn all_needles_case_insensitive_and_regex() {
        let sigs = [
            sig(
                "a",
                &["ggml_cuda_init:", "failed to initialize"],
                None,
                EventKind::NoDevice,
            ),
            sig("b", &["HIP error"], Some(r"launch failure$"), EventKind::GpuException),
        ];
        // one needle of two: nothing
        assert!(scan(&sigs, "ggml_cuda_init: found 1 ROCm devices\n").events.is_empty());
        let s = scan(&sigs, "x\nGGML_CUDA_INIT: Failed to initialize ROCm\n");
        assert_eq!(s.events.len(), 1);
        assert_eq!((s.events[0].v.kind, s.events[0].src.line), (EventKind::NoDevice, 2));
        assert_eq!(s.events[0].v.signature.as_deref(), Some("a"));
        // the regex must match too
        assert!(scan(&sigs, "HIP error: launch failure, retrying\n").events.is_empty());
        assert_eq!(scan(&sigs, "HIP error: unspecified launch failure\n").events.len(), 1);
    }

    #[test]
    fn a_wording_wrapped_onto_an_indented_line() {
        let mut t = sig(
            "t",
            &["TensileLibrary", "GPU arch"],
            None,
            EventKind::TensileLibraryMissing,
        );
        t.gfx_after = Some("GPU arch".into());
        let sigs = [t];
        // values ours: the message broken after the file name, the rest indented
        let s = scan(
            &sigs,
            "rocBLAS error: Cannot read /x/TensileLibrary.dat:\n      No such file or directory for GPU arch : gfx1031\n",
        );
        assert_eq!(s.events.len(), 1);
        assert_eq!(
            (s.events[0].src.line, s.events[0].v.gfx.as_deref()),
            (1, Some("gfx1031"))
        );
        // a soft wrap that kept its blank at the end of the first line
        let s = scan(
            &sigs,
            "rocBLAS error: Cannot read /x/TensileLibrary.dat: \nInput/output error for GPU arch : gfx1035\n",
        );
        assert_eq!(s.events.len(), 1);
        // a next line not indented after a line that ends its text, or a line further on, is
        // another message
        for text in [
            "Cannot read /x/TensileLibrary.dat:\nNo such file or directory for GPU arch : gfx1031\n",
            "Cannot read /x/TensileLibrary.dat:\n  retrying\n  for GPU arch : gfx1031\n",
        ] {
            assert!(scan(&sigs, text).events.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn typed_commands_are_not_reports_and_gfx_is_taken_after_the_marker() {
        let mut t = sig(
            "t",
            &["TensileLibrary", "GPU arch"],
            None,
            EventKind::TensileLibraryMissing,
        );
        t.gfx_after = Some("GPU arch".into());
        let sigs = [t, sig("n", &["No HIP GPUs are available"], None, EventKind::NoDevice)];
        let s = scan(
            &sigs,
            "$ grep 'No HIP GPUs are available' log.txt\nrocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1031\n",
        );
        assert_eq!(s.events.len(), 1, "{:?}", s.events);
        assert_eq!(s.events[0].v.gfx.as_deref(), Some("gfx1031"));
    }

    /// The embedded matrix's load-failure signatures: which lines report a ROCm library that did
    /// not load (and which library), and which loader lines a program goes on after are not.
    #[test]
    fn embedded_load_failures_capture_the_library_and_skip_warnings() {
        let m = crate::matrix::Matrix::embedded();
        let lib = |text: &str| -> Vec<Option<String>> {
            let s = scan(&m.signatures, text);
            s.events
                .iter()
                .filter(|e| e.v.kind == EventKind::LibraryLoadFailed)
                .map(|e| e.v.library.clone())
                .collect()
        };
        // shapes of the sources: an import, ctypes with a path, ld.so, MIOpen's wording
        assert_eq!(
            lib("ImportError: libamdhip64.so.5: cannot open shared object file: No such file or directory\n"),
            [Some("libamdhip64.so.5".to_string())]
        );
        assert_eq!(
            lib(
                "    raise e\nOSError: /opt/rocm/core-10.0/lib/libhipblas.so.3: cannot open shared object file: No such file or directory\n"
            ),
            [Some("libhipblas.so.3".to_string())]
        );
        assert_eq!(
            lib(
                "./bin/tool: error while loading shared libraries: librocm_smi64.so.1: cannot open shared object file: No such file or directory\n"
            ),
            [Some("librocm_smi64.so.1".to_string())]
        );
        assert_eq!(
            lib("MIOpen(HIP): Warning [BuildHip] hip runtime failed to load.\n"),
            [Some("libamdhip64".to_string())]
        );
        // Implib.so's stub, also where the paste ends inside its quote
        assert_eq!(
            lib("implib-gen: libhipblas.so.3: failed to load library 'libhipblas.so.3' via dlopen: x\n"),
            [Some("libhipblas.so.3".to_string())]
        );
        assert_eq!(
            lib("implib-gen: librocblas.so.5: failed to load library 'librocb\n"),
            [Some("librocblas.so.5".to_string())]
        );
        // a plug-in's load failure that names the ROCm library it needed (onnxruntime)
        assert_eq!(
            lib(
                "[E:onnxruntime:Default] Failed to load library libonnxruntime_providers_rocm.so with error: librocm_smi64.so.7: cannot open shared object file: No such file or directory\n"
            ),
            [Some("librocm_smi64.so.7".to_string())]
        );
        // a stub of another library, or its symbol message: nothing
        assert_eq!(
            lib("implib-gen: libvulkan.so.1: failed to load library 'libvulkan.so.1' via dlopen: x\n"),
            Vec::<Option<String>>::new()
        );
        // the same library twice is one event; two libraries are two
        assert_eq!(
            lib("ImportError: librccl.so.1: cannot open shared object file\nImportError: librccl.so.1: cannot open shared object file\nOSError: libMIOpen.so.1: cannot open shared object file\n").len(),
            2
        );
        // not ROCm libraries, or warnings a program goes on after: nothing
        for text in [
            "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
            "libibverbs: Warning: couldn't load driver 'libmlx5-rdmav34.so': libmlx5-rdmav34.so: cannot open shared object file: No such file or directory",
            "pid:1 tid:0x1 [hsakmt_hsa_loader_init] dlopen libhsa-runtime64.so failed - libhsa-runtime64.so: cannot open shared object file: No such file or directory",
            "link_cuda_dso: warning: libamdhip64.so.6: cannot open shared object file: No such file or directory: failed to load library",
            "Fail to open libdrm_amdgpu.so: libdrm_amdgpu.so: cannot open shared object file: No such file or directory",
            "ImportError: librocksdb.so.8: cannot open shared object file",
        ] {
            assert_eq!(lib(text), Vec::<Option<String>>::new(), "{text}");
        }
    }
}
