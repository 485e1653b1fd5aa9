//! `rocmcheck smoke` output: for people, one compact block of figures per image (a table when
//! there are many images); for machines, one JSON document with every result and the payload's
//! whole document (`{"smoke_schema":1,"results":[…]}`), which this module does not reshape.
//!
//! Renderers only render: the figures come from [`Figures::of`].

use crate::facts::gib;
use crate::smoke::SmokeResult;
use crate::smoke::figures::{Figures, StepState};
use comfy_table::presets;
use std::io::{self, Write};

/// Up to this many images get a block each; more get one table.
pub const BLOCKS_UP_TO: usize = 3;

/// The JSON document (unchanged layout: `smoke_schema` 1).
pub fn write_json(r: &[SmokeResult], out: &mut dyn Write) -> io::Result<()> {
    let doc = serde_json::json!({"smoke_schema": 1, "results": r});
    writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)
}

/// Blocks (few images) or a table (many), then the counts per class.
pub fn write_human(r: &[SmokeResult], out: &mut dyn Write) -> io::Result<()> {
    if r.len() <= BLOCKS_UP_TO {
        for (i, res) in r.iter().enumerate() {
            if i > 0 {
                writeln!(out)?;
            }
            write_block(res, out)?;
        }
    } else {
        write_table(r, out)?;
    }
    let mut counts = std::collections::BTreeMap::new();
    for r in r {
        *counts.entry(r.classification).or_insert(0) += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(c, n)| format!("{n} {c}")).collect();
    writeln!(out, "{} image(s): {}", r.len(), parts.join(", "))
}

fn bytes(b: f64) -> String {
    if b < 1024.0 { format!("{b:.0} B") } else { gib(b, 2) }
}

fn ms(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.1} s", v / 1000.0)
    } else {
        format!("{v:.1} ms")
    }
}

fn sci(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    format!("{v:.1e}")
}

fn one_line(s: &str, max: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > max {
        s.chars().take(max).collect::<String>() + "…"
    } else {
        s
    }
}

/// `skipped: no device` for a step that did not give figures; None when it did or did not run.
fn not_ok(st: Option<&StepState>) -> Option<String> {
    let st = st?;
    if st.status == "ok" {
        return None;
    }
    Some(match &st.error {
        Some(e) => format!("{}: {}", st.status, one_line(e, 100)),
        None => st.status.clone(),
    })
}

fn header(r: &SmokeResult) -> String {
    let mut h = format!("{}: {}", r.subject, r.classification);
    if let Some(d) = &r.detail {
        h.push_str(&format!(" ({})", one_line(d, 160)));
    }
    if let Some(w) = r.wall_ms {
        h.push_str(&format!(", {:.1} s", w / 1000.0));
    }
    h
}

/// The lines of a block: (label, text).
fn block_lines(fg: &Figures) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    runtime_lines(fg, &mut v);
    blas_lines(fg, &mut v);
    memory_lines(fg, &mut v);
    gemm_lines(fg, &mut v);
    collective_lines(fg, &mut v);
    step_lines(fg, &mut v);
    v
}

/// The runtime: name, version, devices.
fn runtime_lines(fg: &Figures, v: &mut Vec<(&'static str, String)>) {
    let step = |n: &str| fg.steps.get(n);
    if let Some(rt) = &fg.runtime {
        let mut t = [rt.name.clone(), rt.version.clone()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(n) = rt.device_count {
            t.push_str(&format!(", {n} device(s)"));
        }
        let devs: Vec<String> = rt
            .devices
            .iter()
            .map(|d| {
                let mut p = vec![];
                if let Some(a) = &d.arch {
                    p.push(a.clone());
                }
                if let Some(b) = d.total_bytes {
                    p.push(gib(b, 2));
                }
                format!("{} ({})", d.name.as_deref().unwrap_or("?"), p.join(", "))
            })
            .collect();
        if !devs.is_empty() {
            t.push_str(&format!(": {}", devs.join("; ")));
        }
        if let Some(e) = not_ok(step("runtime")) {
            t.push_str(&format!(" — {e}"));
        }
        v.push(("runtime", t));
    }
}

/// The BLAS handle.
fn blas_lines(fg: &Figures, v: &mut Vec<(&'static str, String)>) {
    let step = |n: &str| fg.steps.get(n);
    if let Some(e) = not_ok(step("blas")) {
        v.push(("BLAS", e));
    } else if let Some(b) = &fg.blas {
        let mut t = format!("{} handle", b.library.as_deref().unwrap_or("BLAS"));
        if let Some(m) = b.create_ms {
            t.push_str(&format!(" created in {}", ms(m)));
        }
        if let Some(s) = &b.status_name {
            t.push_str(&format!(" ({s})"));
        }
        v.push(("BLAS", t));
    }
}

/// The largest allocation and the fragmentation check, per device.
fn memory_lines(fg: &Figures, v: &mut Vec<(&'static str, String)>) {
    let step = |n: &str| fg.steps.get(n);
    if let Some(e) = not_ok(step("memory")) {
        v.push(("largest alloc", e.clone()));
        v.push(("fragmentation", e));
    } else {
        for m in &fg.memory {
            let dev = if fg.memory.len() > 1 {
                format!("GPU {}: ", m.device)
            } else {
                String::new()
            };
            let mut t = dev.clone();
            match m.largest_bytes {
                Some(b) => t.push_str(&format!("{} in one allocation", gib(b, 2))),
                None => t.push('?'),
            }
            if let Some(p) = m.largest_pct_of_free {
                t.push_str(&format!(" = {p:.1} % of free"));
            }
            if let Some(fb) = m.free_bytes {
                t.push_str(&format!(" ({})", gib(fb, 2)));
            }
            let mut how = vec![];
            if let Some(n) = m.tries {
                how.push(format!("{n} tr{}", if n == 1 { "y" } else { "ies" }));
            }
            if let Some(x) = m.ms {
                how.push(ms(x));
            }
            if !how.is_empty() {
                t.push_str(&format!(", {}", how.join(", ")));
            }
            v.push(("largest alloc", t));
            if let Some(fr) = &m.fragmentation {
                let verdict = match fr.ok {
                    Some(true) => "ok",
                    Some(false) => "FAILED",
                    None => "?",
                };
                let mut t = format!("{dev}{verdict}");
                if let (Some(n), Some(bb)) = (fr.blocks, fr.block_bytes) {
                    t.push_str(&format!(": {n} × {}", gib(bb, 2)));
                }
                if let Some(n) = fr.freed {
                    t.push_str(&format!(", {n} freed"));
                }
                if let Some(lb) = fr.large_block_bytes {
                    t.push_str(&format!(", then one {} block", gib(lb, 2)));
                }
                if let Some(l) = fr.leaked_bytes {
                    t.push_str(&format!("; {} leaked", bytes(l)));
                }
                v.push(("fragmentation", t));
            }
        }
    }
}

/// The GEMM checks per dtype.
fn gemm_lines(fg: &Figures, v: &mut Vec<(&'static str, String)>) {
    let step = |n: &str| fg.steps.get(n);
    if !fg.gemm.is_empty() {
        let parts: Vec<String> = fg
            .gemm
            .iter()
            .map(|g| {
                let mut t = format!("{} max err", g.dtype);
                if let Some(a) = g.max_abs_err {
                    t.push_str(&format!(" {}", sci(a)));
                }
                if let (Some(r), Some(tol)) = (g.max_rel_err, g.rel_tol) {
                    t.push_str(&format!(" (rel {} ≤ {})", sci(r), sci(tol)));
                }
                t.push_str(match g.ok {
                    Some(true) => " ok",
                    Some(false) => " FAILED",
                    None => "",
                });
                t
            })
            .collect();
        let torch = fg.torch.as_deref().map(|t| format!("torch {t}: ")).unwrap_or_default();
        v.push(("GEMM", format!("{torch}{}", parts.join("; "))));
    } else if let Some(e) = not_ok(step("torch")) {
        v.push(("GEMM", e));
    }
}

/// Peer access and the all-reduce.
fn collective_lines(fg: &Figures, v: &mut Vec<(&'static str, String)>) {
    let step = |n: &str| fg.steps.get(n);
    if let Some((can, tried)) = fg.peer {
        v.push(("peer access", format!("{can} of {tried} GPU pair(s) (one way each)")));
    } else if let Some(e) = not_ok(step("peer")) {
        v.push(("peer access", e));
    }
    if let Some(a) = &fg.allreduce {
        let mut t = match a.ok {
            Some(true) => "ok".to_string(),
            Some(false) => "FAILED".to_string(),
            None => "?".to_string(),
        };
        let mut p = vec![];
        if let Some(w) = a.world_size {
            p.push(format!("{w} ranks"));
        }
        if let Some(b) = &a.backend {
            p.push(b.clone());
        }
        if let Some(e) = a.max_abs_err {
            p.push(format!("max err {}", sci(e)));
        }
        if !p.is_empty() {
            t.push_str(&format!(" ({})", p.join(", ")));
        }
        if let Some(e) = not_ok(step("allreduce")) {
            t.push_str(&format!(" — {e}"));
        }
        v.push(("all-reduce", t));
    } else if let Some(e) = not_ok(step("allreduce")) {
        v.push(("all-reduce", e));
    } else if fg.runtime.is_some() && !fg.steps.contains_key("allreduce") {
        v.push(("all-reduce", "not run (--payload-arg=--multi-gpu)".into()));
    }
}

/// The framework layers and the team checks, each with its state.
fn step_lines(fg: &Figures, v: &mut Vec<(&'static str, String)>) {
    let step = |n: &str| fg.steps.get(n);
    let state = |st: &StepState| -> String {
        let mut t = st.status.clone();
        if let Some(m) = st.ms.filter(|_| st.status != "skipped") {
            t.push_str(&format!(" {}", ms(m)));
        }
        if st.status != "ok" {
            if let Some(e) = &st.error {
                t.push_str(&format!(" ({})", one_line(e, 80)));
            }
        }
        t
    };
    let layers: Vec<String> = ["conv", "attention", "compile", "gemm_bf16"]
        .iter()
        .filter_map(|n| step(n).map(|st| format!("{n} {}", state(st))))
        .collect();
    if !layers.is_empty() {
        v.push(("framework", layers.join("; ")));
    }
    let checks: Vec<String> = fg
        .steps
        .iter()
        .filter_map(|(n, st)| n.strip_prefix("check:").map(|n| format!("{n} {}", state(st))))
        .collect();
    if !checks.is_empty() {
        v.push(("team checks", checks.join("; ")));
    }
}

fn write_block(r: &SmokeResult, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", header(r))?;
    let lines = block_lines(&Figures::of(r));
    let w = lines.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    for (label, text) in lines {
        writeln!(out, "  {label:<w$}  {text}")?;
    }
    Ok(())
}

/// Short cells for the table.
fn cells(fg: &Figures) -> [String; 6] {
    let step = |n: &str| fg.steps.get(n).map(|s| s.status.as_str());
    let short = |n: &str| match step(n) {
        Some("ok") | None => String::new(),
        Some(s) => s.to_string(),
    };
    let runtime = fg
        .runtime
        .as_ref()
        .map(|rt| {
            let mut t = [rt.name.clone(), rt.version.clone()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            if let Some(n) = rt.device_count {
                t.push_str(&format!(" ×{n}"));
            }
            t
        })
        .unwrap_or_default();
    let blas = match (step("blas"), fg.blas.as_ref().and_then(|b| b.create_ms)) {
        (Some("ok"), Some(m)) => ms(m),
        _ => short("blas"),
    };
    let (largest, frag) = match fg.memory.first() {
        Some(m) if step("memory") == Some("ok") => (
            match (m.largest_bytes, m.largest_pct_of_free) {
                (Some(b), Some(p)) => format!("{} {p:.1}%", gib(b, 2)),
                (Some(b), None) => gib(b, 2),
                _ => String::new(),
            },
            match m.fragmentation.as_ref().and_then(|f| f.ok) {
                Some(true) => "ok".into(),
                Some(false) => "FAILED".into(),
                None => String::new(),
            },
        ),
        _ => (short("memory"), short("memory")),
    };
    let gemm = if fg.gemm.is_empty() {
        short("torch")
    } else {
        fg.gemm
            .iter()
            .map(|g| {
                format!(
                    "{} {}{}",
                    g.dtype,
                    g.max_abs_err.map(sci).unwrap_or_else(|| "?".into()),
                    if g.ok == Some(false) { " FAILED" } else { "" }
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let allreduce = match &fg.allreduce {
        Some(a) => format!(
            "{}{}",
            match a.ok {
                Some(true) => "ok",
                Some(false) => "FAILED",
                None => "?",
            },
            a.world_size.map(|w| format!(" ×{w}")).unwrap_or_default()
        ),
        None => short("allreduce"),
    };
    [runtime, blas, largest, frag, gemm, allreduce]
}

fn write_table(r: &[SmokeResult], out: &mut dyn Write) -> io::Result<()> {
    let mut t = super::human_table(presets::UTF8_FULL_CONDENSED);
    t.set_header([
        "image",
        "result",
        "runtime",
        "BLAS",
        "largest alloc",
        "frag.",
        "GEMM max err",
        "all-reduce",
        "s",
    ]);
    for res in r {
        let [a, b, c, d, e, f] = cells(&Figures::of(res));
        t.add_row([
            res.subject.clone(),
            res.classification.to_string(),
            a,
            b,
            c,
            d,
            e,
            f,
            res.wall_ms.map(|w| format!("{:.1}", w / 1000.0)).unwrap_or_default(),
        ]);
    }
    crate::report::fit(&mut t);
    writeln!(out, "{t}")?;
    for res in r.iter().filter(|r| r.detail.is_some()) {
        writeln!(
            out,
            "  {}: {}",
            res.subject,
            one_line(res.detail.as_deref().unwrap_or_default(), 200)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smoke::Classification;

    /// `rocmcheck smoke --local --format json` on the H100 machine, from a recorded run
    /// (tests/fixtures/device/lead-run/README.md says exactly what ran).
    const H100: &str = include_str!("../../tests/fixtures/device/lead-run/smoke-local.json");
    const H100_MULTI: &str = include_str!("../../tests/fixtures/device/lead-run/smoke-local-multigpu.json");
    const GLOO: &str = include_str!("../../tests/fixtures/smoke/h100-allreduce-gloo-world2.json");
    const NODEVICE: &str = include_str!("../../tests/fixtures/smoke/debian-hip-trixie-nodevice.json");
    const NORUNTIME: &str = include_str!("../../tests/fixtures/smoke/debian-python-bookworm-runtime-missing.json");
    const HANG: &str = include_str!("../../tests/fixtures/smoke/h100-hang-memory.json");
    /// `smoke --local --format json --payload-arg=--multi-gpu` on two H200s, from a recorded run
    /// (tests/fixtures/device/x2-run/README.md).
    const H200_X2: &str = include_str!("../../tests/fixtures/device/x2-run/smoke-multigpu.json");

    fn recorded(text: &str) -> Vec<SmokeResult> {
        let doc: serde_json::Value = serde_json::from_str(text).unwrap();
        serde_json::from_value(doc["results"].clone()).unwrap()
    }

    fn human(r: &[SmokeResult]) -> String {
        let mut out = Vec::new();
        write_human(r, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn with_wall(mut r: SmokeResult, ms: f64) -> SmokeResult {
        r.wall_ms = Some(ms);
        r
    }

    fn many() -> Vec<SmokeResult> {
        let mut v = recorded(H100);
        v[0].subject = "h100-local".into();
        v.push(with_wall(
            SmokeResult::from_output("h100-gloo-world2", GLOO, "", Some(0), None),
            6900.0,
        ));
        v.push(with_wall(
            SmokeResult::from_output("rocmcheck-test/debian-hip:trixie", NODEVICE, "", Some(0), None),
            1900.0,
        ));
        v.push(with_wall(
            SmokeResult::from_output("rocmcheck-test/debian-python:bookworm", NORUNTIME, "", Some(0), None),
            900.0,
        ));
        v.push(with_wall(
            SmokeResult::from_output("h100-hang", HANG, "", Some(0), None),
            5600.0,
        ));
        v.push(SmokeResult::outcome(
            "torch2.9.1-rocm6.4-dev-ubuntu-24.04",
            Classification::BuildFailed,
            Some("The command '/bin/sh -c pip install torch==2.9.1' returned a non-zero code: 1".into()),
        ));
        v.push(SmokeResult::outcome(
            "torch2.8.0-rocm6.4-dev-ubuntu-24.04",
            Classification::EngineLost,
            Some("not attempted: the Docker engine went away earlier in this run".into()),
        ));
        v
    }

    /// The framework steps as the payload ran them on the H100 (CUDA path), one of them broken
    /// on purpose (tests/fixtures/device/2026-11-27-smoke-steps/README.md).
    const STEPS_BROKEN_CONV: &str = include_str!("../../tests/fixtures/device/2026-11-27-smoke-steps/break-conv.json");

    #[test]
    fn framework_steps_and_team_checks_are_lines_of_the_block() {
        let mut r = SmokeResult::from_output("h100", STEPS_BROKEN_CONV, "", Some(0), None);
        assert_eq!(r.classification, Classification::ConvFailed);
        let text = human(std::slice::from_ref(&r));
        let line = text.lines().find(|l| l.trim_start().starts_with("framework")).unwrap();
        assert!(
            line.contains("conv failed 463.2 ms (forward: result has non-finite values)"),
            "{text}"
        );
        assert!(
            line.contains("; attention ok 11.5 ms; compile ok 9.9 s; gemm_bf16 ok 343.9 ms"),
            "{text}"
        );
        assert!(!text.contains("team checks"), "{text}");
        // team checks as the payload records them (`check:NAME` steps)
        let doc = r.payload.as_mut().unwrap();
        doc["steps"]["check:lint"] = serde_json::json!({"status": "ok", "ms": 12.0, "error": null});
        doc["steps"]["check:kernels"] =
            serde_json::json!({"status": "timeout", "ms": 5000.0, "error": "did not finish within 5 s"});
        let text = human(std::slice::from_ref(&r));
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("team checks"))
            .unwrap();
        assert!(
            line.ends_with("kernels timeout 5.0 s (did not finish within 5 s); lint ok 12.0 ms"),
            "{text}"
        );
    }

    #[test]
    fn one_image_is_a_block_with_the_measured_numbers() {
        let text = human(&recorded(H100));
        // The figures the payload measured on the H100 are all there.
        for want in [
            "cuda 13.0, 1 device(s): NVIDIA H100 80GB HBM3 (sm_90, 79.18 GiB)",
            "cublas handle created in 21.4 ms (CUBLAS_STATUS_SUCCESS)",
            "78.27 GiB in one allocation = 99.5 % of free",
            "ok: 64 × 0.79 GiB, 32 freed, then one 26.77 GiB block; 0 B leaked",
            "fp32 max err 1.5e-5",
        ] {
            assert!(text.contains(want), "{want:?} missing in:\n{text}");
        }
        insta::assert_snapshot!("smoke_block_h100", text);
    }

    #[test]
    fn few_images_are_blocks_with_steps_that_did_not_run_said() {
        let mut v = recorded(H100_MULTI);
        v.push(with_wall(
            SmokeResult::from_output("rocmcheck-test/debian-hip:trixie", NODEVICE, "", Some(0), None),
            1900.0,
        ));
        let text = human(&v);
        assert!(
            text.contains("all-reduce     skipped: needs at least 2 devices (have 1)"),
            "{text}"
        );
        assert!(text.contains("BLAS           skipped: no device"), "{text}");
        insta::assert_snapshot!("smoke_blocks_multigpu_nodevice", text);
    }

    #[test]
    fn two_gpus_show_peer_access_and_the_all_reduce() {
        let text = human(&recorded(H200_X2));
        assert!(text.contains("2 device(s): NVIDIA H200"), "{text}");
        assert!(text.contains("peer access    2 of 2 GPU pair(s)"), "{text}");
        assert!(text.contains("all-reduce     ok (2 ranks, nccl, max err 0)"), "{text}");
        assert!(text.contains("GPU 1: "), "{text}");
        insta::assert_snapshot!("smoke_block_h200_x2", text);
    }

    #[test]
    fn many_images_are_a_table() {
        let text = human(&many());
        assert!(text.contains("┆ ok ×2"), "{text}");
        assert!(
            text.contains("7 image(s): 2 pass, 1 no-device, 1 runtime-missing, 1 hang, 1 build-failed, 1 engine-lost"),
            "{text}"
        );
        insta::assert_snapshot!("smoke_table", text);
    }

    #[test]
    fn json_is_byte_identical_to_the_recorded_run() {
        // The recorded file was written by `smoke --format json` before the human output changed.
        for text in [H100, H100_MULTI, H200_X2] {
            let mut out = Vec::new();
            write_json(&recorded(text), &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
    }
}
