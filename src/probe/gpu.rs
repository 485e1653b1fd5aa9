//! GPUs: KFD topology nodes (`/sys/class/kfd/kfd/topology/nodes/*/properties`) joined with their
//! DRM devices (`/sys/class/drm/renderD<minor>/device`, else `card*/device` by PCI location) for
//! memory sizes and the PCI address; names and APU-ness from the matrix.

use super::{Cx, parse_num};
use crate::facts::{Gpu, Origin, Sourced, Target, TargetReason};
use crate::matrix::GpuKind;
use crate::version::Gfx;
use std::collections::BTreeMap;

const NODES: &str = "/sys/class/kfd/kfd/topology/nodes";
/// AMD's PCI vendor id.
pub const AMD_VENDOR: u32 = 0x1002;

/// Reads every GPU node (CPU nodes, `gfx_target_version 0`, are skipped).
pub fn probe(cx: &mut Cx) -> Vec<Gpu> {
    let mut nodes: Vec<(u32, String)> = cx
        .list(NODES)
        .into_iter()
        .filter_map(|n| n.parse::<u32>().ok().map(|i| (i, n)))
        .collect();
    nodes.sort();
    let mut gpus = Vec::new();
    for (node, name) in nodes {
        let path = format!("{NODES}/{name}/properties");
        let Some(text) = cx.read(&path) else { continue };
        if text.trim().is_empty() {
            cx.problem(&path, "empty file (expected KFD node properties)");
            continue;
        }
        let props = parse_properties(cx, &path, &text);
        let Some(&gtv) = props.get("gfx_target_version") else {
            if !props.is_empty() && !props.contains_key("cpu_cores_count") {
                cx.problem(&path, "no gfx_target_version");
            }
            continue;
        };
        if gtv == 0 {
            continue; // a CPU node
        }
        let get = |k: &str| props.get(k).copied();
        let mut g = Gpu {
            node,
            gfx: Gfx::from_target_version(gtv as u32).map(|g| g.to_string()),
            gfx_target_version: gtv as u32,
            vendor_id: get("vendor_id").unwrap_or(0) as u32,
            device_id: get("device_id").unwrap_or(0) as u32,
            simd_count: get("simd_count").unwrap_or(0) as u32,
            render_minor: get("drm_render_minor").filter(|m| *m > 0).map(|m| m as u32),
            location_id: get("location_id").map(|l| l as u32),
            ..Gpu::default()
        };
        if g.gfx.is_none() {
            cx.problem(
                &path,
                format!("gfx_target_version {gtv} does not decode to a gfx target"),
            );
        }
        if let Some((_, product)) = cx.matrix.gpu_by_pci(g.device_id).filter(|_| g.vendor_id == AMD_VENDOR) {
            g.name = Some(product.name.clone());
        }
        join_drm(cx, &mut g);
        let matrix_apu = g
            .gfx
            .as_deref()
            .and_then(|x| cx.matrix.gpu(x))
            .map(|t| t.kind == GpuKind::Apu);
        // Unknown to the matrix: an APU has (almost) no VRAM of its own and GTT above it.
        g.apu =
            matrix_apu.unwrap_or(matches!((g.vram_total, g.gtt_total), (Some(v), Some(t)) if v <= (1 << 30) && t > v));
        gpus.push(g);
    }
    gpus
}

fn parse_properties(cx: &mut Cx, path: &str, text: &str) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match line.split_once(char::is_whitespace) {
            Some((k, v)) => match parse_num(v.trim()) {
                Some(n) => {
                    m.insert(k.to_string(), n);
                }
                None => cx.problem(path, format!("line {}: `{}` is not a number", i + 1, super::clip(line))),
            },
            None => cx.problem(
                path,
                format!("line {}: expected `name value`, found `{}`", i + 1, super::clip(line)),
            ),
        }
    }
    m
}

/// PCI location as KFD encodes it: bus << 8 | device << 3 | function.
fn location_of(addr: &str) -> Option<u32> {
    // 0000:03:00.0
    let (rest, devfn) = addr.rsplit_once(':')?;
    let bus = u32::from_str_radix(rest.rsplit(':').next()?, 16).ok()?;
    let (dev, func) = devfn.split_once('.')?;
    let dev = u32::from_str_radix(dev, 16).ok()?;
    let func = u32::from_str_radix(func, 16).ok()?;
    Some((bus << 8) | (dev << 3) | func)
}

/// The PCI address of a DRM device directory: the symlink's target name, else `uevent`.
fn pci_address(cx: &mut Cx, dev: &str) -> Option<String> {
    if let Ok(t) = std::fs::read_link(cx.root.link_path(dev))
        && let Some(n) = t.file_name().and_then(|n| n.to_str())
        && location_of(n).is_some()
    {
        return Some(n.to_string());
    }
    let ev = cx.read(&format!("{dev}/uevent"))?;
    ev.lines()
        .find_map(|l| l.strip_prefix("PCI_SLOT_NAME="))
        .map(|s| s.trim().to_string())
}

fn join_drm(cx: &mut Cx, g: &mut Gpu) {
    let mut dev = g
        .render_minor
        .map(|m| format!("/sys/class/drm/renderD{m}/device"))
        .filter(|d| cx.root.exists(d));
    if dev.is_none() {
        // No render minor (or its node is missing): find the card with the same PCI location.
        let cards: Vec<String> = cx
            .list("/sys/class/drm")
            .into_iter()
            .filter(|n| (n.starts_with("card") || n.starts_with("renderD")) && !n.contains('-'))
            .collect();
        for c in cards {
            let d = format!("/sys/class/drm/{c}/device");
            if let (Some(loc), Some(addr)) = (g.location_id, pci_address(cx, &d))
                && location_of(&addr) == Some(loc)
            {
                dev = Some(d);
                break;
            }
        }
    }
    let Some(dev) = dev else { return };
    if let Some(v) = cx.read(&format!("{dev}/vendor"))
        && parse_num(v.trim()) != Some(AMD_VENDOR as u64)
    {
        return;
    }
    g.pci_address = pci_address(cx, &dev);
    g.vram_total = cx.read_u64(&format!("{dev}/mem_info_vram_total"));
    g.gtt_total = cx.read_u64(&format!("{dev}/mem_info_gtt_total"));
    g.vis_vram_total = cx.read_u64(&format!("{dev}/mem_info_vis_vram_total"));
}

/// One detected target per GPU, with `HSA_OVERRIDE_GFX_VERSION_<node>` (which wins) or
/// `HSA_OVERRIDE_GFX_VERSION` applied as libhsakmt does. An unparsable override leaves
/// `effective` empty (the env rules report the value).
pub fn targets(gpus: &[Gpu], env: &BTreeMap<String, String>) -> Vec<Sourced<Target>> {
    gpus.iter()
        .enumerate()
        .filter_map(|(i, g)| {
            let gfx = g.gfx.clone()?;
            let per_node = format!("HSA_OVERRIDE_GFX_VERSION_{}", g.node);
            let ov = env.get(&per_node).map(|v| (per_node.clone(), v)).or_else(|| {
                env.get("HSA_OVERRIDE_GFX_VERSION")
                    .map(|v| ("HSA_OVERRIDE_GFX_VERSION".to_string(), v))
            });
            let effective = ov.and_then(|(_, v)| Gfx::from_override(v).ok()).map(|g| g.to_string());
            Some(Sourced::new(
                Target {
                    gfx,
                    effective,
                    reason: TargetReason::Detected,
                    gpu: Some(i),
                },
                Origin::Path {
                    path: format!("{NODES}/{}/properties", g.node),
                },
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_location_matches_kfd_encoding() {
        // 0000:03:00.0 → bus 3 → 0x300 = 768 (KFD location_id of a card on bus 3)
        assert_eq!(location_of("0000:03:00.0"), Some(768));
        assert_eq!(location_of("0000:c3:00.1"), Some((0xc3 << 8) | 1));
        assert_eq!(location_of("garbage"), None);
    }

    #[test]
    fn per_node_override_wins() {
        let gpus = vec![
            Gpu {
                node: 1,
                gfx: Some("gfx1102".into()),
                ..Gpu::default()
            },
            Gpu {
                node: 2,
                gfx: Some("gfx1036".into()),
                ..Gpu::default()
            },
        ];
        let mut env = BTreeMap::new();
        env.insert("HSA_OVERRIDE_GFX_VERSION".into(), "11.0.0".into());
        env.insert("HSA_OVERRIDE_GFX_VERSION_2".into(), "10.3.0".into());
        let t = targets(&gpus, &env);
        assert_eq!(t[0].value.effective.as_deref(), Some("gfx1100"));
        assert_eq!(t[1].value.effective.as_deref(), Some("gfx1030"));
        env.insert("HSA_OVERRIDE_GFX_VERSION".into(), "eleven".into());
        assert_eq!(targets(&gpus, &env)[0].value.effective, None);
    }
}
