//! RC103, RC105–RC108: the ROCm release(s) in the stack against AMD's lists.

use super::torch_wheel::within_window;
use crate::declare_rule;
use crate::facts::{Origin, Subject};
use crate::finding::{Confidence, Finding, Severity};
use crate::matrix::{GfxListing, GfxSupport, RocmRelease, Status, Stream};
use crate::rules::{Context, Rule, RuleMeta};
use crate::version::{RocmVersion, Version};

/// The ROCm versions in the stack: user space installs, and the torch wheel's ROCm.
fn rocm_versions(cx: &Context) -> Vec<(Version, Origin, &'static str)> {
    let mut v: Vec<(Version, Origin, &'static str)> = cx
        .facts
        .rocm
        .iter()
        .filter_map(|r| {
            // a dev build's local part (`7.13.0.dev0+6039b7c0…`) names no other release
            RocmVersion::parse(r.value.version.split('+').next().unwrap_or(&r.value.version))
                .ok()
                .map(|x| (x.version, r.origin.clone(), "ROCm user space"))
        })
        .collect();
    if let Some(t) = cx.torch_rocm().filter(|_| !super::wheel_missing_from_index(cx)) {
        if !v.iter().any(|(x, _, _)| x.line() == t.line()) {
            v.push((t, cx.torch_origin(), "the torch wheel's ROCm"));
        }
    }
    v
}

/// A pre-release version as TheRock's pip wheels carry it (`7.0.0rc20250731`,
/// `7.15.0a20260630`, `7.10.0.dev0`): the numbers, then `rc`/`a`/`b`/`dev` and digits, or the
/// tag alone at the end (`7.14.0a`, PEP 440's implicit `a0`, as a reporter writes a nightly).
fn prerelease(raw: &str) -> bool {
    let rest = raw.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let tag = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let word = &rest[..rest.len() - tag.len()];
    matches!(word, "rc" | "a" | "b" | "dev" | "alpha" | "beta")
        && raw.starts_with(|c: char| c.is_ascii_digit())
        && (tag.is_empty() || tag.bytes().next().is_some_and(|b| b.is_ascii_digit()))
}

fn source(r: &RocmRelease) -> Vec<String> {
    r.sources.iter().take(2).cloned().collect()
}

declare_rule! {
    /// ## What it checks
    /// AMD's Linux support list of the ROCm release in the stack (user space, and the torch
    /// wheel's ROCm) names each target in scope. Unsupported is a warning; deprecated and "not
    /// listed" are information.
    ///
    /// ## Why it matters
    /// A target outside the list may work (consumer RDNA2 cards share gfx1030 with the listed Pro
    /// W6800) but is not tested by AMD: library kernels can be missing and bugs are not fixed.
    ///
    /// ## Example
    /// gfx906 (MI50, Radeon VII) on ROCm 6.3, whose support matrix no longer lists it.
    ///
    /// ## Fix
    /// A ROCm release that lists the target (`rocmcheck matrix show rocm --gfx …`).
    ///
    /// ## References
    /// - AMD ROCm compatibility matrix / system requirements (per release)
    pub struct RocmGfxUnsupported {
        code: "RC103",
        name: "rocm-gfx-unsupported",
        severity: Warning,
        scope: Both,
        summary: "The ROCm release does not list the target as supported",
    }
}

impl Rule for RocmGfxUnsupported {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for (v, origin, what) in rocm_versions(cx) {
            let Some(rel) = cx.matrix.rocm_release(&v) else {
                continue;
            };
            if rel.gfx.is_empty() {
                continue; // no list known for this release: nothing to say
            }
            for (t, _) in cx.targets() {
                // A partial list says nothing of the targets it does not name.
                let (sev, state) = match rel.listing(&t.gfx) {
                    GfxListing::Supported | GfxListing::Unknown => continue,
                    GfxListing::Unsupported => (Severity::Warning, "unsupported"),
                    GfxListing::Deprecated => (Severity::Info, "deprecated"),
                    GfxListing::NotListed => (Severity::Info, "not listed"),
                };
                let supported: Vec<&str> = rel
                    .gfx
                    .iter()
                    .filter(|(_, s)| **s == GfxSupport::Supported)
                    .map(|(g, _)| g.as_str())
                    .collect();
                out.push(
                    Finding::new(&Self::META, format!("{} is {state} in ROCm {} ({what})", t.gfx, rel.version), origin.clone())
                        .severity(sev)
                        .evidence(format!("ROCm {} lists as supported: {}", rel.version, supported.join(" ")))
                        .why("AMD does not test this release on this target: library kernels may be missing and bugs are not fixed for it.")
                        .fix(format!("a ROCm release that lists {} (`rocmcheck matrix show rocm --gfx {}`)", t.gfx, t.gfx))
                        .refs(source(rel))
                        .unconfirmed(rel.confidence == Confidence::Unconfirmed),
                );
            }
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// The host's kernel driver (amdgpu, in AMD's numbering: `6.3`, `30.10`) against the ROCm user
    /// space and the torch wheel's ROCm: AMD's tested table first, then the general promise (±2
    /// minor releases before ROCm 6.4, releases up to a year apart from 6.4).
    ///
    /// ## Why it matters
    /// Outside the window the runtime may not initialise (`rocminfo` prints "HSA Error") or fail
    /// later in ways that look like application bugs.
    ///
    /// ## Example
    /// ROCm 7.2 user space on a 6.1 kernel driver.
    ///
    /// ## Fix
    /// Upgrade the host driver (amdgpu-install / the matching amdgpu DKMS) or use an image whose
    /// ROCm is within the window.
    ///
    /// ## References
    /// - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/user-kernel-space-compat-matrix.html
    pub struct DriverWindow {
        code: "RC105",
        name: "driver-userspace-window",
        severity: Warning,
        scope: Both,
        summary: "The kernel driver and the ROCm user space are outside AMD's compatibility window",
    }
}

impl Rule for DriverWindow {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let Some(driver) = cx
            .facts
            .kernel
            .as_ref()
            .and_then(|k| k.driver.as_deref())
            .and_then(|d| Version::parse(d).ok())
        else {
            return;
        };
        for (u, origin, what) in rocm_versions(cx) {
            let row = cx
                .matrix
                .drivers
                .iter()
                .find(|d| driver.is_within(&d.driver.line()) || d.driver == driver);
            let (ok, basis, refs) = match row {
                Some(d) => (
                    d.userspace.iter().any(|x| u.is_within(&x.line())),
                    format!(
                        "AMD's table for driver {} lists user space {}",
                        d.driver,
                        d.userspace.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
                    ),
                    d.sources.clone(),
                ),
                None => match within_window(cx, &u, &driver) {
                    Some(ok) => (
                        ok,
                        "AMD's general window".to_string(),
                        cx.matrix
                            .driver_policies
                            .iter()
                            .flat_map(|p| p.sources.clone())
                            .collect(),
                    ),
                    None => continue,
                },
            };
            if ok {
                continue;
            }
            out.push(
                Finding::new(&Self::META, format!("{what} {u} is outside the window of the host driver {driver}"), origin.clone())
                    .evidence(basis)
                    .why("Outside AMD's tested window the runtime may fail to initialise (\"HSA Error\" from rocminfo) or fail later in ways that look like application bugs.")
                    .fix(format!("upgrade the host's amdgpu driver to one whose table lists ROCm {}, or use an image of a ROCm within the driver's window", u.line()))
                    .refs(refs),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// A ROCm release that the matrix marks as a TheRock technology preview (`stream: preview`,
    /// the previews that came before the first Core SDK production release) in the stack, and a
    /// pre-release build of any release: a nightly or release candidate as TheRock's pip wheels
    /// version it (`rocm==10.1.0a20260812`, `7.0.0rc20250731`, `7.10.0.dev0`). In a Dockerfile
    /// this is a warning; on a running machine, information. Production releases of either
    /// stream (legacy ≤ 7.2.x, Core SDK) never fire it; their nightlies do. A bare `.dev0` on
    /// a release the matrix lists as production (`7.2.0.dev0`) is how AMD's Windows release
    /// wheels are versioned, and does not fire it.
    ///
    /// ## Why it matters
    /// Preview versions are not production releases: there is no upgrade path from them, their
    /// wheels come from other indexes, and fixes land differently. A production image built on a
    /// preview is a surprise for whoever maintains it.
    ///
    /// ## Example
    /// `FROM rocm/dev-ubuntu-24.04:7.11.0-complete` in a production image.
    ///
    /// ## Fix
    /// Use the current production release (`rocmcheck matrix show rocm`) unless the preview is
    /// deliberate; then silence the rule for that file.
    ///
    /// ## References
    /// - https://github.com/ROCm/legacy-rocm-build/releases/tag/therock-7.9.0
    pub struct RocmPreviewStream {
        code: "RC106",
        name: "rocm-preview-stream",
        severity: Warning,
        scope: Both,
        summary: "A technology-preview ROCm release is used",
    }
}

impl Rule for RocmPreviewStream {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        let image = matches!(cx.facts.subject, Subject::Dockerfile { .. });
        // a release candidate or nightly of TheRock's wheels (`rocm==7.0.0rc20250731`) is a
        // preview build whatever the matrix says of the release it leads to
        for r in &cx.facts.rocm {
            if !prerelease(&r.value.version) {
                continue;
            }
            // a dev build's local part (`7.13.0.dev0+6039b7c0…`, TheRock's devreleases) is no
            // part of the release it leads to
            let public = r.value.version.split('+').next().unwrap_or(&r.value.version);
            let Ok(v) = RocmVersion::parse(public) else {
                continue;
            };
            let rel = cx.matrix.rocm_release(&v.version);
            if rel.is_some_and(|rel| rel.stream == Stream::Preview) {
                continue;
            }
            // AMD's Windows release wheels of a production release carry a bare `.dev0`
            // (`rocm_sdk_core-7.2.0.dev0` under repo.radeon.com/rocm/windows/rocm-rel-7.2/, the
            // pins of Comfy-Org/desktop#1564): no nightly's date, so no pre-release
            if r.value.version.ends_with(".dev0") && rel.is_some() {
                continue;
            }
            out.push(
                Finding::new(
                    &Self::META,
                    format!("ROCm {} is a pre-release build", r.value.version),
                    r.origin.clone(),
                )
                .severity(if image { Severity::Warning } else { Severity::Info })
                .evidence(format!("version {}: a release candidate / nightly tag", r.value.version))
                .why("A pre-release build is not a production release: there is no upgrade path from it, its wheels come from other indexes, and fixes land differently.")
                .fix(match cx.matrix.production_advice() {
                    Some(adv) => format!("use {adv}, unless the pre-release is deliberate"),
                    None => "use a production release unless the pre-release is deliberate".into(),
                }),
            );
        }
        // a torch wheel built on a nightly (`torch==2.14.0+rocm10.1.0a20260827`, TheRock's
        // nightly index): a pre-release build in the stack, where no installed ROCm said so
        let pre_shown = out.iter().any(|f| f.code == Self::META.code);
        if !pre_shown
            && let Some(t) = cx.facts.torch.as_ref()
            && let Some(tag) = t
                .value
                .version
                .as_deref()
                .and_then(|v| v.split_once("+rocm"))
                .map(|(_, r)| r)
            && prerelease(tag)
            && let Ok(v) = RocmVersion::parse(tag)
            && cx
                .matrix
                .rocm_release(&v.version)
                .is_none_or(|rel| rel.stream != Stream::Preview)
        {
            out.push(
                Finding::new(
                    &Self::META,
                    format!("the torch wheel's ROCm {tag} is a pre-release build"),
                    t.origin.clone(),
                )
                .severity(if image { Severity::Warning } else { Severity::Info })
                .evidence(format!("torch {}: a nightly / release candidate tag", t.value.version.as_deref().unwrap_or("")))
                .why("A wheel built on a pre-release ROCm is not a production release: there is no upgrade path from it, its wheels come from other indexes, and fixes land differently.")
                .fix(match cx.matrix.production_advice() {
                    Some(adv) => format!("use {adv}, unless the pre-release is deliberate"),
                    None => "use a production release unless the pre-release is deliberate".into(),
                }),
            );
        }
        for (v, origin, what) in rocm_versions(cx) {
            let Some(rel) = cx.matrix.rocm_release(&v) else {
                continue;
            };
            if rel.stream != Stream::Preview {
                continue;
            }
            let stream = rel.stream.label();
            out.push(
                Finding::new(&Self::META, format!("{what} {v} is a {stream} release"), origin.clone())
                    .severity(if image { Severity::Warning } else { Severity::Info })
                    .evidence(format!("ROCm {} stream: {stream}", rel.version))
                    .why("A technology preview is not a production release: there is no upgrade path from it, its wheels come from other indexes, and fixes land differently.")
                    .fix(match cx.matrix.production_advice() {
                        Some(adv) => format!("use {adv}, unless the preview is deliberate (then ignore this rule for the file)"),
                        None => "use a production release unless the preview is deliberate (then ignore this rule for the file)".into(),
                    })
                    .refs(source(rel))
                    .unconfirmed(rel.confidence == Confidence::Unconfirmed),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// The ROCm user space is a release the matrix marks end-of-life.
    ///
    /// ## Why it matters
    /// No fixes arrive for it; newer torch wheels are not built for it.
    ///
    /// ## Example
    /// `FROM rocm/dev-ubuntu-22.04:5.7`
    ///
    /// ## Fix
    /// Move to a supported release (`rocmcheck matrix show rocm`).
    ///
    /// ## References
    /// - AMD ROCm release notes
    pub struct RocmEol {
        code: "RC107",
        name: "rocm-eol",
        severity: Warning,
        scope: Both,
        summary: "The ROCm release is end-of-life",
    }
}

impl Rule for RocmEol {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for r in &cx.facts.rocm {
            let Ok(v) = RocmVersion::parse(&r.value.version) else {
                continue;
            };
            // a pre-release build is RC106's, not an end-of-life release
            if prerelease(&r.value.version) {
                continue;
            }
            let Some(rel) = cx.matrix.rocm_release(&v.version) else {
                continue;
            };
            if rel.status != Status::Eol {
                continue;
            }
            let current = cx.matrix.production_advice();
            out.push(
                Finding::new(
                    &Self::META,
                    format!("ROCm {} is end-of-life", v.version),
                    r.origin.clone(),
                )
                // one version per finding: the release seen; the matrix's entry may be another
                // patch release of its line (6.4.1 for a 6.4.4 image)
                .evidence(format!(
                    "matrix: the ROCm {}.x releases are end-of-life{}",
                    rel.version.line(),
                    if rel.status_confidence == Confidence::Unconfirmed {
                        " (a reading of AMD's support policy, not a dated notice)"
                    } else {
                        ""
                    }
                ))
                .why("No fixes arrive for an end-of-life release, and new torch wheels are not built for it.")
                .fix(match current {
                    Some(adv) => format!("move to {adv}"),
                    None => "move to a supported release".into(),
                })
                .refs(source(rel))
                .unconfirmed(rel.status_confidence == Confidence::Unconfirmed),
            );
        }
    }
}

declare_rule! {
    /// ## What it checks
    /// A ROCm version in the stack that the matrix does not know.
    ///
    /// ## Why it matters
    /// rocmcheck cannot check what it does not know; a typo (`6.22`) also lands here.
    ///
    /// ## Example
    /// `FROM rocm/dev-ubuntu-22.04:6.22`
    ///
    /// ## Fix
    /// Check the version; run `rocmcheck matrix update` for newer matrix data, or upgrade rocmcheck.
    ///
    /// ## References
    /// - `matrix/rocm.yaml`
    pub struct RocmUnknown {
        code: "RC108",
        name: "rocm-unknown",
        severity: Info,
        scope: Both,
        summary: "A ROCm version the matrix does not know",
    }
}

impl Rule for RocmUnknown {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
    fn check(&self, cx: &Context, out: &mut Vec<Finding>) {
        for (v, origin, what) in rocm_versions(cx) {
            if cx.matrix.rocm_release(&v).is_some() {
                continue;
            }
            // the known releases on either side by number (a version is not a word: 7.15 lies
            // between 7.14 and 10.0, however close `7.1` is to it as text)
            let below = cx.matrix.rocm.iter().map(|r| &r.version).filter(|k| **k < v).max();
            let above = cx.matrix.rocm.iter().map(|r| &r.version).filter(|k| **k > v).min();
            let hint = match (below, above) {
                (Some(b), Some(a)) => format!(" (known releases around it: {b} and {a})"),
                (Some(b), None) => format!(" (newest known: {b})"),
                (None, Some(a)) => format!(" (oldest known: {a})"),
                (None, None) => String::new(),
            };
            out.push(
                Finding::new(&Self::META, format!("{what} {v} is not in the matrix{hint}"), origin)
                    .evidence(format!("matrix data {}", cx.matrix.data))
                    .why("rocmcheck cannot check a release it does not know.")
                    .fix(
                        "check the version; run `rocmcheck matrix update` for newer matrix data, or upgrade rocmcheck",
                    ),
            );
        }
    }
}
