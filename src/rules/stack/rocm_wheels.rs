//! RC109, RC110, RC111, RC112: ROCm as pip wheels (the Core SDK era) — AMD's per-family indexes,
//! per-target device packages, and a second ROCm user space beside the system one.
//!
//! What the matrix knows of the wheels, families and indexes is in `matrix/distribution.yaml`;
//! these rules only compare the stack's facts (`Facts::pip`, the torch install, `Facts::rocm`)
//! with it.

use crate::declare_rule;
use crate::facts::{Origin, PipRequirement, RocmFrom, Subject};
use crate::finding::{Finding, Severity};
use crate::matrix::{IndexLayout, PackageRole};
use crate::rules::{Context, Rule, RuleMeta};

/// The ROCm Python packages of the stack (explicit requirements or installed distributions).
fn rocm_packages<'a>(
    cx: &'a Context,
) -> impl Iterator<Item = (&'a PipRequirement, &'a Origin, PackageRole, Option<String>)> {
    cx.facts.pip.iter().filter_map(|p| {
        let m = cx.matrix.distribution.package(&p.value.name)?;
        Some((&p.value, &p.origin, m.role, m.suffix))
    })
}

/// The torch wheel of the stack is a pytorch.org variant that takes ROCm from pip wheels.
pub(crate) fn torch_pulls_rocm_wheels(cx: &Context) -> Option<String> {
    let tv = cx.torch_version()?;
    let rocm = cx.torch_rocm()?;
    let (_, v) = cx.matrix.wheel(&tv.public, &rocm)?;
    v.rocm_from_wheels
        .then(|| format!("torch {}+rocm{}", tv.public, v.rocm))
}

/// The targets a set of `device-…` extras and device packages covers; None when unbounded
/// (`device-all`) or empty (nothing says which targets).
struct DeviceSet {
    gfx: Vec<String>,
    /// Names that are not one target (`gfx11`, `gfx12-0`: generic packages whose coverage the
    /// matrix does not record).
    generic: Vec<String>,
    all: bool,
    origins: Vec<Origin>,
}

fn device_set<'a>(items: impl Iterator<Item = (&'a str, &'a Origin)>) -> DeviceSet {
    let mut d = DeviceSet {
        gfx: Vec::new(),
        generic: Vec::new(),
        all: false,
        origins: Vec::new(),
    };
    for (name, o) in items {
        let name = name.to_ascii_lowercase();
        if name == "all" {
            d.all = true;
        } else if crate::version::Gfx::parse(&name).is_ok_and(|g| g.as_str() == name) {
            if !d.gfx.contains(&name) {
                d.gfx.push(name);
            }
        } else if !d.generic.contains(&name) {
            d.generic.push(name);
        }
        if !d.origins.contains(o) {
            d.origins.push(o.clone());
        }
    }
    d
}

declare_rule! {
    /// ## What it checks
    /// ROCm or torch installed from one of AMD's *per-family* package indexes
    /// (`https://repo.amd.com/rocm/whl/<family>/`, `https://rocm.nightlies.amd.com/v2/<family>/`)
    /// whose family does not include a target in scope (`--gfx`, `targets:` in `.rocmcheck.yaml`,
    /// `PYTORCH_ROCM_ARCH`, or the GPUs `env` detects); a family the matrix does not know is said
    /// as info. Without a target in scope there is nothing to mismatch, and a family that serves
    /// every target in scope is no error either: RC112 says which targets the index serves and
    /// that it is legacy. On a machine, an integrated
    /// GPU beside a discrete one is not a target the index must serve: RC308 says to hide it.
    ///
    /// ## Why it matters
    /// A per-family index carries device code for its family only (`gfx120X-all` is gfx1200 and
    /// gfx1201): installing from the gfx120X index for an RX 7900 (gfx1100) installs fine and
    /// fails at the first kernel with "invalid device function" / `hipErrorNoBinaryForGpu`. It is
    /// the Core SDK era's "wrong wheel".
    ///
    /// ## Example
    /// `pip install --index-url https://repo.amd.com/rocm/whl/gfx120X-all/ torch` with
    /// `--gfx gfx1100`.
    ///
    /// ## Fix
    /// AMD's multi-arch index with the target's device extra (`"torch[device-gfx1100]"`,
    /// `"rocm[libraries,device-gfx1100]"`); a family index that covers the target works until AMD
    /// deletes it.
    ///
    /// ## References
    /// - ROCm/TheRock cmake/therock_amdgpu_targets.cmake (the families)
    /// - ROCm/TheRock docs/packaging/legacy_per_family_releases.md
    pub struct FamilyIndexMismatch {
        code: "RC109",
        name: "family-index-mismatch",
        severity: Error,
        scope: Both,
        summary: "A per-family ROCm/torch index does not serve a target in scope",
    }
}

impl Rule for FamilyIndexMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let d = &cx.matrix.distribution;
        let targets: Vec<String> = cx.wheel_targets().map(|(t, _)| t.runtime_gfx().to_string()).collect();
        for (url, origin, m) in per_family_indexes(cx) {
            let mut refs: Vec<String> = m.index.sources.iter().take(1).cloned().collect();
            refs.extend(d.family_sources.iter().take(1).cloned());
            if let Some(name) = &m.unknown_family {
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("the index {url} names a GPU family `{name}` the matrix does not know"),
                        origin.clone(),
                    )
                    .severity(Severity::Info)
                    .evidence(format!("per-family index root {}", m.index.url))
                    .why("Per-family indexes serve only their family's targets; which ones this family covers is not recorded, so the targets cannot be checked.")
                    .fix("check the family against the GPU (TheRock's therock_amdgpu_targets.cmake), or use the multi-arch index with a device extra")
                    .refs(refs),
                );
                continue;
            }
            let Some(fam) = &m.family else { continue };
            let serves = fam.gfx.join(", ");
            // no target in scope: nothing to mismatch (RC112 says the index is legacy and which
            // targets it serves)
            for gfx in targets.iter().filter(|g| !fam.gfx.contains(g)) {
                let better: Vec<String> = d
                    .families_for(gfx)
                    .iter()
                    .map(|f| format!("{}{}/", m.index.url, f.name))
                    .take(2)
                    .collect();
                let multi = d.stable_multi_arch().map(|ix| {
                    format!(
                        "{} with \"torch[device-{gfx}]\" / \"rocm[libraries,device-{gfx}]\"",
                        ix.url
                    )
                });
                let fix = match (better.first(), multi) {
                    (Some(b), Some(mu)) => {
                        format!("install from {mu} (per-family indexes are legacy), or from {b} (the family of {gfx})")
                    }
                    (Some(b), None) => format!("install from {b} (the family of {gfx})"),
                    (None, Some(mu)) => format!("no per-family index covers {gfx}; use {mu}"),
                    (None, None) => format!("use an index that serves {gfx}"),
                };
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("the {} index does not serve {gfx}", fam.name),
                        origin.clone(),
                    )
                    .evidence(format!("{url}: family {} = {serves}; target {gfx}", fam.name))
                    .why("A per-family index carries device code for its family only: the install succeeds and the first kernel on this GPU fails (invalid device function / hipErrorNoBinaryForGpu).")
                    .fix(fix)
                    .refs(refs.clone()),
                );
            }
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// ROCm or torch installed from one of AMD's *per-family* package indexes
    /// (`https://repo.amd.com/rocm/whl/<family>/`, `https://rocm.nightlies.amd.com/v2/<family>/`)
    /// whose family serves the targets in scope (a family that does not is RC109's), or with no
    /// target in scope (then it also says which targets the index serves).
    ///
    /// ## Why it matters
    /// AMD replaced per-family releases with multi-arch releases: no new per-family releases are
    /// generated, and previous ones may be deleted as file retention policies take effect. The
    /// install works today, gets no new release, and may stop resolving.
    ///
    /// ## Example
    /// `pip install --index-url https://repo.amd.com/rocm/whl/gfx1151/ torch` for a gfx1151 build.
    ///
    /// ## Fix
    /// AMD's multi-arch index with the target's device extra (`"torch[device-gfx1151]"`,
    /// `"rocm[libraries,device-gfx1151]"`).
    ///
    /// ## References
    /// - ROCm/TheRock docs/packaging/legacy_per_family_releases.md
    /// - ROCm/TheRock RELEASES.md
    pub struct FamilyIndexLegacy {
        code: "RC112",
        name: "family-index-legacy",
        severity: Info,
        scope: Both,
        summary: "A per-family ROCm/torch index: AMD publishes no new releases there",
    }
}

impl Rule for FamilyIndexLegacy {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let d = &cx.matrix.distribution;
        let targets: Vec<String> = cx.wheel_targets().map(|(t, _)| t.runtime_gfx().to_string()).collect();
        for (url, origin, m) in per_family_indexes(cx) {
            let Some(fam) = &m.family else { continue };
            // a family that misses a target in scope is RC109's error
            if !targets.iter().all(|g| fam.gfx.contains(g)) {
                continue;
            }
            let serves = fam.gfx.join(", ");
            if targets.is_empty() {
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("the {} index is a legacy per-family index: it serves only {serves}, and AMD publishes no new releases there", fam.name),
                        origin,
                    )
                    .evidence(format!("{url}: per-family index of {} ({serves})", fam.name))
                    .why("AMD replaced per-family releases with multi-arch releases: no new per-family releases are generated and previous ones may be deleted. A per-family index carries device code for its family only; no target is declared, so the GPU cannot be checked against it.")
                    .fix(match d.stable_multi_arch() {
                        Some(mu) => format!(
                            "install from {} with the GPU's device extra (\"torch[device-gfxNNNN]\"), and declare the target (`--gfx`, or `targets:` in .rocmcheck.yaml) to have it checked",
                            mu.url
                        ),
                        None => "declare the target (`--gfx`, or `targets:` in .rocmcheck.yaml) to have it checked".into(),
                    })
                    .refs(m.index.sources.clone()),
                );
                continue;
            }
            out.push(
                Finding::new(
                    &Self::META,
                    format!("the {} index is a legacy per-family index: AMD publishes no new releases there", fam.name),
                    origin,
                )
                .evidence(format!("{url}: per-family index of {} ({})", fam.name, fam.gfx.join(", ")))
                .why("AMD replaced per-family releases with multi-arch releases: no new per-family releases are generated and previous ones may be deleted as file retention policies take effect, so this install gets no new release and may stop resolving.")
                .fix(match d.stable_multi_arch() {
                    Some(mu) => format!(
                        "install from {} with the target's device extra (\"torch[device-{}]\" / \"rocm[libraries,device-{}]\")",
                        mu.url, targets[0], targets[0]
                    ),
                    None => "install from AMD's multi-arch index with the target's device extra".into(),
                })
                .refs(m.index.sources.clone()),
            );
        }
    }
}

/// Every per-family index in the stack: (url, origin, how the matrix reads it).
fn per_family_indexes<'c>(cx: &'c Context) -> Vec<(&'c str, Origin, crate::matrix::IndexMatch<'c>)> {
    let d = &cx.matrix.distribution;
    stack_index_urls(cx)
        .into_iter()
        .filter_map(|(url, origin)| {
            let m = d.classify_index(url)?;
            (m.index.layout == IndexLayout::PerFamily).then_some((url, origin, m))
        })
        .collect()
}

/// (url, origin) of every package index in the stack (torch's and pip's), once each.
fn stack_index_urls<'c>(cx: &'c Context) -> Vec<(&'c str, Origin)> {
    let mut urls: Vec<(&str, Origin)> = Vec::new();
    if let Some(t) = &cx.facts.torch {
        for u in &t.value.index_urls {
            urls.push((u, cx.torch_origin()));
        }
    }
    for p in &cx.facts.pip {
        for u in &p.value.index_urls {
            urls.push((u, p.origin.clone()));
        }
    }
    let mut seen = std::collections::HashSet::new();
    urls.retain(|(u, _)| seen.insert(u.trim_end_matches('/').to_ascii_lowercase()));
    urls
}

declare_rule! {
    /// ## What it checks
    /// The per-target device code the stack selects — `device-gfxNNNN` extras of `torch` or
    /// `rocm` on AMD's multi-arch indexes, `rocm-sdk-device-<gfx>` packages, and AMD's split
    /// torch builds' `amd-torch-device-<gfx>` packages (installed, or in a pasted `pip list`) —
    /// against the targets in scope. `device-all` covers every target.
    ///
    /// ## Why it matters
    /// In the Core SDK's wheels, device code is one package per target. A stack with the
    /// packages of another GPU imports fine (`torch.cuda.is_available()` is true) and fails at
    /// the first kernel with `hipErrorInvalidImage` / "invalid device function".
    ///
    /// ## Example
    /// `pip install --index-url https://repo.amd.com/rocm/whl-multi-arch/ "torch[device-gfx942]"`
    /// for a gfx1100 GPU.
    ///
    /// ## Fix
    /// Select the target's device code: `"torch[device-gfx1100]"`, `"rocm[libraries,device-gfx1100]"`,
    /// or `pip install amd-torch-device-gfx1100` (same version as torch).
    ///
    /// ## References
    /// - ROCm/TheRock RELEASES.md (device extras, amd-torch-device packages)
    /// - https://github.com/astral-sh/uv/pull/21683
    pub struct DevicePackageMissing {
        code: "RC110",
        name: "device-package-missing",
        severity: Error,
        scope: Both,
        summary: "The stack's per-target device packages do not cover a target in scope",
    }
}

impl Rule for DevicePackageMissing {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let pulls_all = torch_pulls_rocm_wheels(cx);
        let torch_origin = cx.torch_origin();
        // ROCm device code: rocm[device-…] extras and rocm-sdk-device-<gfx> packages
        let mut rocm_items: Vec<(String, Origin)> = Vec::new();
        // torch kernels: torch[device-…] extras and amd-torch-device-<gfx> packages
        let mut torch_items: Vec<(String, Origin)> = Vec::new();
        if let Some(t) = &cx.facts.torch {
            for e in &t.value.extras {
                if let Some(g) = e.strip_prefix("device-") {
                    torch_items.push((g.to_string(), torch_origin.clone()));
                }
            }
        }
        for (p, o, role, suffix) in rocm_packages(cx) {
            match (role, suffix) {
                (PackageRole::Selector, _) => {
                    for e in &p.extras {
                        if let Some(g) = e.strip_prefix("device-") {
                            rocm_items.push((g.to_string(), o.clone()));
                        }
                    }
                }
                (PackageRole::Device, Some(g)) => rocm_items.push((g, o.clone())),
                (PackageRole::TorchDevice, Some(g)) => torch_items.push((g, o.clone())),
                _ => {}
            }
        }
        let targets: Vec<String> = cx.wheel_targets().map(|(t, _)| t.runtime_gfx().to_string()).collect();
        if targets.is_empty() {
            return;
        }
        let env = matches!(cx.facts.subject, Subject::Host { .. });
        let refs: Vec<String> = cx.matrix.distribution.package_sources.iter().take(2).cloned().collect();
        for (what, items, skip) in [
            ("ROCm device code", &rocm_items, pulls_all.is_some()),
            ("torch device kernels", &torch_items, false),
        ] {
            if items.is_empty() || skip {
                continue;
            }
            let set = device_set(items.iter().map(|(n, o)| (n.as_str(), o)));
            if set.all {
                continue;
            }
            for gfx in targets.iter().filter(|g| !set.gfx.contains(g)) {
                let generic = !set.generic.is_empty();
                let origin = set.origins.first().cloned().unwrap_or_else(|| torch_origin.clone());
                let fix = if what == "torch device kernels" {
                    format!("add \"torch[device-{gfx}]\" (or `pip install amd-torch-device-{gfx}` at torch's version)")
                } else {
                    format!("add the extra: \"rocm[libraries,device-{gfx}]\" (or rocm-sdk-device-{gfx})")
                };
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("no {what} for {gfx}: the stack selects {}", {
                            let mut all = set.gfx.clone();
                            all.extend(set.generic.iter().cloned());
                            all.join(", ")
                        }),
                        origin,
                    )
                    .severity(if generic { Severity::Info } else { Severity::Error })
                    .evidence(if generic {
                        format!(
                            "device packages {} are generic names whose targets the matrix does not record; {gfx} may be among them",
                            set.generic.join(", ")
                        )
                    } else if env {
                        format!("installed device packages: {}; GPU: {gfx}", set.gfx.join(", "))
                    } else {
                        format!("device selections: {}; target: {gfx}", set.gfx.join(", "))
                    })
                    .why("Core SDK wheels carry device code in one package per target: without the target's package the GPU is visible but every kernel fails (hipErrorInvalidImage / invalid device function).")
                    .fix(fix)
                    .refs(refs.clone())
                    .unconfirmed(generic),
                );
            }
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// The stack has two ROCm user spaces: one from the system (a ROCm base image, AMD's apt
    /// repository, the distribution's packages, `/opt/rocm…` on the machine) and one from pip
    /// (the `rocm` / `rocm-sdk-*` wheels, explicitly or pulled by a torch wheel that takes ROCm
    /// from pip, such as pytorch.org's `rocm7.14` variant). In a Dockerfile this is a warning; on a
    /// running machine, information (a venv with pip's ROCm beside `/opt/rocm` is the upstream
    /// way to run torch there: the finding says which one torch loads).
    ///
    /// ## Why it matters
    /// A wheel-based torch loads the pip ROCm (its RPATH points at the sibling `_rocm_sdk_*`
    /// packages), while `hipcc`, `rocminfo`, extensions built against `/opt/rocm` and anything
    /// that follows `ROCM_PATH` load the system one. Two versions in one process, or a build and a
    /// run against different ROCm, are the mismatches rocmcheck exists to find; the image also
    /// carries several GB twice.
    ///
    /// ## Example
    /// `FROM rocm/dev-ubuntu-24.04:7.2.4` + `pip install torch==2.14.0 --index-url
    /// https://download.pytorch.org/whl/rocm7.14`.
    ///
    /// ## Fix
    /// Keep one: start from a plain OS image and let pip bring ROCm, or install torch from a
    /// variant that bundles ROCm for the system's ROCm (`rocmcheck matrix query`).
    ///
    /// ## References
    /// - https://github.com/pytorch/pytorch/issues/191688
    pub struct RocmInstalledTwice {
        code: "RC111",
        name: "rocm-installed-twice",
        severity: Warning,
        scope: Both,
        summary: "ROCm comes both from the system and from pip wheels",
    }
}

impl Rule for RocmInstalledTwice {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let system = cx.facts.rocm.iter().find(|r| {
            matches!(
                r.value.from,
                RocmFrom::BaseImage | RocmFrom::AmdRepo | RocmFrom::DistroPackages | RocmFrom::Installed
            )
        });
        let Some(system) = system else { return };
        let pip_fact = cx.facts.rocm.iter().find(|r| r.value.from == RocmFrom::PipWheels);
        let explicit = rocm_packages(cx).find(|(_, _, role, _)| {
            matches!(
                role,
                PackageRole::Selector
                    | PackageRole::Core
                    | PackageRole::Libraries
                    | PackageRole::FamilyLibraries
                    | PackageRole::Device
            )
        });
        let pulled = torch_pulls_rocm_wheels(cx);
        let (pip_what, origin) = if let Some(p) = pip_fact {
            (
                format!(
                    "ROCm {} from pip{}",
                    if p.value.version.is_empty() {
                        "?"
                    } else {
                        &p.value.version
                    },
                    p.value.path.as_deref().map(|x| format!(" ({x})")).unwrap_or_default()
                ),
                p.origin.clone(),
            )
        } else if let Some((p, o, _, _)) = explicit {
            (
                format!(
                    "{}{} from pip",
                    p.name,
                    p.version.as_deref().map(|v| format!("=={v}")).unwrap_or_default()
                ),
                o.clone(),
            )
        } else if let Some(t) = &pulled {
            (format!("{t} (requires the `rocm` pip packages)"), cx.torch_origin())
        } else {
            return;
        };
        // one line read both ways (`rocm 7.2.1` as a form's answer and as a package row) is one
        // ROCm, not two
        if let (
            crate::facts::Origin::File { path: a, line: la, .. },
            crate::facts::Origin::File { path: b, line: lb, .. },
        ) = (&origin, &system.origin)
            && a == b
            && la == lb
        {
            return;
        }
        let sys_what = match system.value.from {
            RocmFrom::BaseImage => format!("the base image's ROCm {}", system.value.version),
            RocmFrom::AmdRepo => format!("ROCm {} from AMD's package repository", system.value.version),
            RocmFrom::DistroPackages => "the distribution's ROCm packages".to_string(),
            _ => format!(
                "ROCm {} at {}",
                if system.value.version.is_empty() {
                    "?"
                } else {
                    &system.value.version
                },
                system.value.path.as_deref().unwrap_or("/opt/rocm")
            ),
        };
        let loaded = cx.facts.rocm.iter().find(|r| r.value.torch_loads);
        let loaded_text = loaded.map(|r| {
            format!(
                "torch loads the HIP runtime of {} (seen in the process after `import torch`); hipcc, rocminfo and extensions built against /opt/rocm use the system one",
                r.value.path.as_deref().unwrap_or("?")
            )
        });
        let loads = if let Some(t) = &loaded_text {
            t.as_str()
        } else if pulled.is_some()
            || cx
                .facts
                .torch
                .as_ref()
                .is_some_and(|t| t.value.bundled_libs.is_empty() && pip_fact.is_some())
        {
            "torch loads the pip ROCm; hipcc, rocminfo and extensions built against /opt/rocm use the system one"
        } else {
            "which one a process loads depends on its RPATH and library path"
        };
        // In an image it is a warning (GBs twice, build and run against different ROCm); on a
        // machine, pip's ROCm in a venv beside /opt/rocm is the upstream way to run torch, so
        // it is said as information (which one torch loads).
        let image = matches!(cx.facts.subject, Subject::Dockerfile { .. });
        out.push(
            Finding::new(&Self::META, format!("two ROCm user spaces: {sys_what} and {pip_what}"), origin)
                .severity(if image { Severity::Warning } else { Severity::Info })
                .evidence(format!("system: {sys_what}; pip: {pip_what}; {loads}"))
                .why("A wheel-based torch loads the ROCm of its pip packages while tools and extensions built against /opt/rocm use the system one: two versions in one stack, and several GB twice.")
                .fix(match &cx.matrix.distribution.wheel_base {
                    Some(b) if pulled.is_some() => format!(
                        "start from a plain OS image ({}) and let pip bring ROCm, or install torch from a variant that bundles ROCm for the system's ROCm",
                        b.image
                    ),
                    _ => "keep one ROCm: drop the pip ROCm packages, or start from a plain OS image".into(),
                })
                .refs(["https://github.com/pytorch/pytorch/issues/191688"]),
        );
    }
}
