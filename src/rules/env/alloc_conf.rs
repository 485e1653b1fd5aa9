//! Reading PyTorch's caching-allocator settings (`PYTORCH_ALLOC_CONF`, `PYTORCH_CUDA_ALLOC_CONF`,
//! `PYTORCH_HIP_ALLOC_CONF`): `key:value` pairs separated by commas, with a bracketed list for
//! `roundup_power2_divisions` (`[256:1,512:2,>:4]`).
//!
//! The key list and value rules follow c10/core/AllocatorConfig.cpp and
//! c10/cuda/CUDAAllocatorConfig.h (pytorch/pytorch@065861fb); unknown keys make PyTorch raise
//! "Unrecognized CachingAllocator option". Older releases know fewer keys (per-version lists are
//! unconfirmed), so a key this list knows may still be rejected by an old torch.

use crate::facts::{Facts, Origin};

/// The allocator variables PyTorch reads (only the first one found is parsed; which one comes
/// first depends on the version).
pub const VARS: &[&str] = &[
    "PYTORCH_ALLOC_CONF",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_HIP_ALLOC_CONF",
];

/// One `key:value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocOption {
    /// Key.
    pub key: String,
    /// Value text.
    pub value: String,
}

/// One allocator variable as set.
#[derive(Debug, Clone)]
pub struct AllocSetting {
    /// Variable name.
    pub var: &'static str,
    /// Raw value.
    pub raw: String,
    /// Where it is set.
    pub origin: Origin,
    /// Parsed options (those that parsed).
    pub options: Vec<AllocOption>,
    /// Problems: (key, what is wrong).
    pub problems: Vec<(String, String)>,
}

/// How a key's value is checked.
enum Kind {
    Bool,
    PositiveInt,
    Fraction,
    PowerOfTwo,
    Divisions,
    Backend,
}

/// The keys PyTorch's allocator config accepts (c10/core/AllocatorConfig.cpp, current).
const KEYS: &[(&str, Kind)] = &[
    ("max_split_size_mb", Kind::PositiveInt),
    ("max_non_split_rounding_mb", Kind::PositiveInt),
    ("garbage_collection_threshold", Kind::Fraction),
    ("roundup_power2_divisions", Kind::Divisions),
    ("backend", Kind::Backend),
    ("expandable_segments", Kind::Bool),
    ("release_lock_on_cudamalloc", Kind::Bool),
    ("release_lock_on_hipmalloc", Kind::Bool),
    ("pinned_use_cuda_host_register", Kind::Bool),
    ("pinned_use_hip_host_register", Kind::Bool),
    ("pinned_num_register_threads", Kind::PowerOfTwo),
    ("pinned_use_background_threads", Kind::Bool),
];

/// The known key names (for suggestions).
pub fn known_keys() -> impl Iterator<Item = &'static str> {
    KEYS.iter().map(|(k, _)| *k)
}

/// Parses one variable's value.
pub fn parse(var: &'static str, raw: &str, origin: Origin) -> AllocSetting {
    let mut options = Vec::new();
    let mut problems = Vec::new();
    // split on commas outside brackets
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in raw.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&raw[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&raw[start..]);
    if depth != 0 {
        problems.push((String::new(), "unbalanced `[` `]`".to_string()));
    }
    for p in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
        let Some((k, v)) = p.split_once(':') else {
            problems.push((p.to_string(), format!("`{p}` is not key:value")));
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match KEYS.iter().find(|(name, _)| *name == k) {
            None => {
                let hint = crate::version::nearest(k, known_keys())
                    .map(|n| format!(" (did you mean `{n}`?)"))
                    .unwrap_or_default();
                problems.push((
                    k.to_string(),
                    format!("unknown key `{k}`{hint}: PyTorch raises \"Unrecognized CachingAllocator option\""),
                ));
            }
            Some((_, kind)) => {
                if let Err(e) = check_value(kind, v) {
                    problems.push((k.to_string(), format!("`{k}:{v}`: {e}")));
                }
                options.push(AllocOption {
                    key: k.to_string(),
                    value: v.to_string(),
                });
            }
        }
    }
    AllocSetting {
        var,
        raw: raw.to_string(),
        origin,
        options,
        problems,
    }
}

fn check_value(kind: &Kind, v: &str) -> Result<(), String> {
    match kind {
        Kind::Bool => match v {
            "True" | "False" | "true" | "false" | "1" | "0" => Ok(()),
            _ => Err("expected True or False".into()),
        },
        Kind::PositiveInt => v
            .parse::<u64>()
            .map(|_| ())
            .map_err(|_| "expected a whole number of MiB".into()),
        Kind::Fraction => match v.parse::<f64>() {
            Ok(x) if x > 0.0 && x < 1.0 => Ok(()),
            _ => Err("expected a number strictly between 0 and 1".into()),
        },
        Kind::PowerOfTwo => match v.parse::<u64>() {
            Ok(n) if n.is_power_of_two() => Ok(()),
            _ => Err("expected a power of two".into()),
        },
        Kind::Divisions => {
            if let Some(inner) = v.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
                for item in inner.split(',') {
                    let Some((size, div)) = item.split_once(':') else {
                        return Err(format!("`{item}`: expected size:divisions"));
                    };
                    if size.trim() != ">" && size.trim().parse::<u64>().is_err() {
                        return Err(format!("`{size}`: expected a size in MiB or `>`"));
                    }
                    if !div.trim().parse::<u64>().is_ok_and(|d| d.is_power_of_two() || d == 0) {
                        return Err(format!("`{div}`: divisions must be a power of two"));
                    }
                }
                Ok(())
            } else {
                match v.parse::<u64>() {
                    Ok(d) if d.is_power_of_two() => Ok(()),
                    _ => Err("expected a power of two or a list like [256:1,512:2,>:4]".into()),
                }
            }
        }
        Kind::Backend => match v {
            "native" | "cudaMallocAsync" | "hipMallocAsync" => Ok(()),
            _ => Err("expected native, or cudaMallocAsync (hipMallocAsync on ROCm)".into()),
        },
    }
}

/// Every allocator variable set in the facts, parsed.
pub fn settings(facts: &Facts) -> Vec<AllocSetting> {
    VARS.iter()
        .filter_map(|v| {
            facts
                .env_var(v)
                .filter(|e| !e.value.value.trim().is_empty())
                .map(|e| parse(v, &e.value.value, e.origin.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> AllocSetting {
        parse("PYTORCH_HIP_ALLOC_CONF", s, Origin::General)
    }

    #[test]
    fn valid_settings_parse_clean() {
        for ok in [
            "expandable_segments:True",
            "max_split_size_mb:512,garbage_collection_threshold:0.8",
            "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
            "backend:hipMallocAsync",
            "pinned_num_register_threads:8",
        ] {
            let s = p(ok);
            assert!(s.problems.is_empty(), "{ok}: {:?}", s.problems);
        }
        assert_eq!(p("expandable_segments:True,max_split_size_mb:128").options.len(), 2);
    }

    #[test]
    fn problems_are_named() {
        let s = p("expandable_segment:True");
        assert!(
            s.problems[0].1.contains("did you mean `expandable_segments`"),
            "{:?}",
            s.problems
        );
        assert_eq!(p("garbage_collection_threshold:1.5").problems.len(), 1);
        assert_eq!(p("expandable_segments:yes").problems.len(), 1);
        assert_eq!(p("max_split_size_mb:-1").problems.len(), 1);
        assert_eq!(p("pinned_num_register_threads:3").problems.len(), 1);
        assert_eq!(p("roundup_power2_divisions:[256:3]").problems.len(), 1);
        assert_eq!(p("backend:cudaMallocAsnc").problems.len(), 1);
        assert_eq!(p("garbage").problems.len(), 1);
        assert_eq!(p("roundup_power2_divisions:[256:1").problems.len(), 2);
    }
}
