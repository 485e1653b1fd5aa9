//! The numbers a person wants from one smoke run, read out of the payload's document: runtime and
//! devices, BLAS handle time, the largest single allocation, the fragmentation pattern, GEMM
//! errors, the all-reduce. Pure data for the human renderer (`report::smoke`); the JSON output
//! keeps the whole document and is not built from this.
//!
//! Reading is tolerant, like [`super::result`]: a missing or oddly typed field leaves its figure
//! out, never panics.

use super::result::SmokeResult;
use serde_json::Value;

/// How one payload step ended, with its error text (for `skipped: no device` and the like).
#[derive(Debug, Clone, PartialEq)]
pub struct StepState {
    /// `ok`, `failed`, `skipped`, `timeout`, `crash`, `running`.
    pub status: String,
    /// The step's error, if it gave one.
    pub error: Option<String>,
    /// Milliseconds the step took.
    pub ms: Option<f64>,
}

/// One device as the runtime saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    /// Marketing name.
    pub name: Option<String>,
    /// `gfx1100`, `sm_90`.
    pub arch: Option<String>,
    /// Total memory in bytes.
    pub total_bytes: Option<f64>,
}

/// The runtime step.
#[derive(Debug, Clone, PartialEq)]
pub struct Runtime {
    /// `hip` or `cuda`.
    pub name: Option<String>,
    /// The runtime's version string.
    pub version: Option<String>,
    /// Devices counted.
    pub device_count: Option<u64>,
    /// Devices read.
    pub devices: Vec<Device>,
}

/// The BLAS handle step (first device).
#[derive(Debug, Clone, PartialEq)]
pub struct Blas {
    /// `hipblas` or `cublas`.
    pub library: Option<String>,
    /// Milliseconds `…Create` took.
    pub create_ms: Option<f64>,
    /// The create call's status name.
    pub status_name: Option<String>,
}

/// The memory probe of one device.
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    /// Device index.
    pub device: u64,
    /// The largest single allocation that succeeded.
    pub largest_bytes: Option<f64>,
    /// …as a percentage of the free memory before the probe.
    pub largest_pct_of_free: Option<f64>,
    /// Free memory before the probe.
    pub free_bytes: Option<f64>,
    /// Allocation attempts of the search.
    pub tries: Option<u64>,
    /// Milliseconds of the search.
    pub ms: Option<f64>,
    /// The fragmentation pattern, if it ran.
    pub fragmentation: Option<Fragmentation>,
}

/// Many blocks, every other freed, then one large block.
#[derive(Debug, Clone, PartialEq)]
pub struct Fragmentation {
    /// The large block after freeing every other small one succeeded.
    pub ok: Option<bool>,
    /// Small blocks allocated.
    pub blocks: Option<u64>,
    /// Size of a small block.
    pub block_bytes: Option<f64>,
    /// Small blocks freed.
    pub freed: Option<u64>,
    /// Size of the large block.
    pub large_block_bytes: Option<f64>,
    /// Bytes not given back at the end.
    pub leaked_bytes: Option<f64>,
}

/// One GEMM check against the CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Gemm {
    /// `fp32`, `fp16`.
    pub dtype: String,
    /// Largest absolute error.
    pub max_abs_err: Option<f64>,
    /// Largest relative error.
    pub max_rel_err: Option<f64>,
    /// The relative tolerance it was held to.
    pub rel_tol: Option<f64>,
    /// Within tolerance and finite.
    pub ok: Option<bool>,
}

/// The all-reduce across GPUs.
#[derive(Debug, Clone, PartialEq)]
pub struct AllReduce {
    /// `nccl`, `gloo`.
    pub backend: Option<String>,
    /// Ranks.
    pub world_size: Option<u64>,
    /// Every rank got the right sum.
    pub ok: Option<bool>,
    /// Largest error over the ranks.
    pub max_abs_err: Option<f64>,
}

/// Everything the human output shows for one result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figures {
    /// Each step's state, by name (`runtime`, `blas`, `memory`, `torch`, `peer`, `allreduce`).
    pub steps: std::collections::BTreeMap<String, StepState>,
    /// The runtime and its devices.
    pub runtime: Option<Runtime>,
    /// The BLAS handle.
    pub blas: Option<Blas>,
    /// Memory, per device.
    pub memory: Vec<Memory>,
    /// torch's version, if it imported.
    pub torch: Option<String>,
    /// GEMM checks.
    pub gemm: Vec<Gemm>,
    /// Peer access between GPUs: (pairs that can, pairs tried), if the matrix was read.
    pub peer: Option<(usize, usize)>,
    /// The all-reduce, if it ran.
    pub allreduce: Option<AllReduce>,
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}
fn f(v: &Value, k: &str) -> Option<f64> {
    v.get(k).and_then(Value::as_f64)
}
fn u(v: &Value, k: &str) -> Option<u64> {
    v.get(k).and_then(Value::as_u64)
}
fn b(v: &Value, k: &str) -> Option<bool> {
    v.get(k).and_then(Value::as_bool)
}
fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

impl Figures {
    /// Reads the figures of a result (empty when it has no payload document).
    pub fn of(r: &SmokeResult) -> Figures {
        let mut out = Figures::default();
        let Some(steps) = r.payload.as_ref().and_then(|p| p.get("steps")) else {
            return out;
        };
        if let Some(map) = steps.as_object() {
            for (name, st) in map {
                if let Some(status) = s(st, "status") {
                    out.steps.insert(
                        name.clone(),
                        StepState {
                            status,
                            error: s(st, "error"),
                            ms: f(st, "ms"),
                        },
                    );
                }
            }
        }
        let null = Value::Null;
        let rt = steps.get("runtime").unwrap_or(&null);
        if rt.is_object() {
            out.runtime = Some(Runtime {
                name: s(rt, "runtime").or_else(|| r.runtime.clone()),
                version: s(rt, "runtime_version_str"),
                device_count: u(rt, "device_count"),
                devices: arr(rt, "devices")
                    .iter()
                    .map(|d| Device {
                        name: s(d, "name"),
                        arch: s(d, "arch"),
                        total_bytes: f(d, "total_bytes"),
                    })
                    .collect(),
            });
        }
        let bl = steps.get("blas").unwrap_or(&null);
        if bl.is_object() {
            let first = arr(bl, "devices").first().unwrap_or(&null);
            out.blas = Some(Blas {
                library: s(bl, "library_name"),
                create_ms: f(first, "create_ms"),
                status_name: s(first, "create_status_name"),
            });
        }
        for (i, d) in arr(steps.get("memory").unwrap_or(&null), "devices").iter().enumerate() {
            let la = d.get("largest").unwrap_or(&null);
            let fr = d.get("fragmentation").filter(|x| x.is_object());
            out.memory.push(Memory {
                device: u(d, "device").unwrap_or(i as u64),
                largest_bytes: f(d, "largest_bytes"),
                largest_pct_of_free: f(d, "largest_pct_of_free"),
                free_bytes: f(d, "free_bytes_before"),
                tries: u(la, "iterations").or_else(|| u(d, "iterations")),
                ms: f(d, "ms"),
                fragmentation: fr.map(|fr| Fragmentation {
                    ok: b(fr, "large_block_ok"),
                    blocks: u(fr, "blocks_allocated"),
                    block_bytes: f(fr, "block_bytes"),
                    freed: u(fr, "blocks_freed"),
                    large_block_bytes: f(fr, "large_block_bytes"),
                    leaked_bytes: f(fr, "leaked_bytes"),
                }),
            });
        }
        let t = steps.get("torch").unwrap_or(&null);
        out.torch = t.get("info").and_then(|i| s(i, "version"));
        out.gemm = arr(t.get("gemm").unwrap_or(&null), "results")
            .iter()
            .map(|g| Gemm {
                dtype: s(g, "dtype").unwrap_or_else(|| "?".into()),
                max_abs_err: f(g, "max_abs_err"),
                max_rel_err: f(g, "max_rel_err"),
                rel_tol: f(g, "rel_tol"),
                ok: b(g, "ok"),
            })
            .collect();
        if let Some(rows) = steps
            .get("peer")
            .and_then(|p| p.get("matrix"))
            .and_then(Value::as_array)
        {
            let cells: Vec<bool> = rows
                .iter()
                .filter_map(Value::as_array)
                .flatten()
                .filter_map(Value::as_bool)
                .collect();
            if !cells.is_empty() {
                out.peer = Some((cells.iter().filter(|c| **c).count(), cells.len()));
            }
        }
        let ar = steps.get("allreduce").unwrap_or(&null);
        if ar.get("ranks").is_some() {
            out.allreduce = Some(AllReduce {
                backend: s(ar, "backend"),
                world_size: u(ar, "world_size"),
                ok: b(ar, "ok"),
                max_abs_err: arr(ar, "ranks")
                    .iter()
                    .filter_map(|x| f(x, "max_abs_err"))
                    .reduce(f64::max),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded run on the H100 machine (tests/fixtures/device/lead-run/README.md).
    const H100: &str = include_str!("../../tests/fixtures/device/lead-run/smoke-local.json");
    const GLOO: &str = include_str!("../../tests/fixtures/smoke/h100-allreduce-gloo-world2.json");

    #[test]
    fn reads_the_h100_run() {
        let doc: Value = serde_json::from_str(H100).unwrap();
        let r: SmokeResult = serde_json::from_value(doc["results"][0].clone()).unwrap();
        let fg = Figures::of(&r);
        let rt = fg.runtime.unwrap();
        assert_eq!(rt.name.as_deref(), Some("cuda"));
        assert_eq!(rt.device_count, Some(1));
        assert_eq!(rt.devices[0].arch.as_deref(), Some("sm_90"));
        assert_eq!(fg.blas.unwrap().create_ms, Some(21.36));
        assert_eq!(fg.memory[0].largest_bytes, Some(84039172096.0));
        assert_eq!(fg.memory[0].largest_pct_of_free, Some(99.498));
        assert_eq!(fg.memory[0].fragmentation.as_ref().unwrap().ok, Some(true));
        assert_eq!(fg.gemm.len(), 2);
        assert_eq!(fg.torch.as_deref(), Some("2.11.0+cu130"));
        assert!(fg.allreduce.is_none());
    }

    #[test]
    fn reads_an_all_reduce_and_tolerates_junk() {
        let r = SmokeResult::from_output("gloo", GLOO, "", Some(0), None);
        let a = Figures::of(&r).allreduce.unwrap();
        assert_eq!((a.world_size, a.ok, a.max_abs_err), (Some(2), Some(true), Some(0.0)));
        let junk = r#"{"payload_schema":1,"classification":"pass","steps":{"runtime":{"status":"ok","devices":"x"},"memory":{"devices":[7]}}}"#;
        let fg = Figures::of(&SmokeResult::from_output("j", junk, "", Some(0), None));
        assert!(fg.runtime.unwrap().devices.is_empty());
        assert_eq!(fg.memory[0].largest_bytes, None);
    }
}
