//! Facts written in free text or printed inside other output: a torch wheel's file name or URL
//! (`torch-2.3.0.dev20240126%2Brocm6.0-cp310-cp310-linux_x86_64.whl`, the `+` written as `%2B`
//! in URLs) and a versioned ROCm install path (`/opt/rocm-6.2.1/lib/librocblas.so`, Windows'
//! `C:\Program Files\AMD\ROCm\6.2\bin`). They go to [`Seen::prose`], which fills a fact only
//! where no command output gave it, marked as inferred (see `triage::build`). The Core SDK's
//! `/opt/rocm/core-X.Y` prefix is `rocm_sdk`'s. Wheel names follow PEP 427
//! (`{name}-{version}-{python}-{abi}-{platform}.whl`); install prefixes follow AMD's packages
//! (`/opt/rocm-<version>`, the `/opt/rocm` link pointing at one).

use super::{Line, Seen};
use crate::triage::paste::Has;
use crate::triage::paste::TrimSet;

/// The ROCm version of the first `/opt/rocm-X.Y[.Z]` in `t`.
fn opt_rocm(t: &str) -> Option<String> {
    let mut from = 0;
    while let Some(i) = t[from..].at("/opt/rocm-") {
        let start = from + i + "/opt/rocm-".len();
        let v: String = t[start..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let v = v.trim_end_matches('.');
        let parts = v.split('.').filter(|p| !p.is_empty()).count();
        let after = t[start + v.len()..].chars().next();
        if (2..=3).contains(&parts)
            && after.is_none_or(|c| matches!(c, '/' | ' ' | '"' | '\'' | ')' | ':' | ',' | '`' | ';'))
        {
            return Some(v.to_string());
        }
        from = start;
    }
    None
}

/// A line that says an install prefix itself is not there (`WARNING: skipping mount of
/// /opt/rocm-6.0.3/`, a container runtime's bind list; `ls: cannot access '/opt/rocm-6.2'`): the
/// ROCm it names is not installed. A file missing under a prefix that is there (`Cannot read
/// /opt/rocm-6.2.1/lib/…/TensileLibrary.dat: No such file or directory`) says nothing of the kind.
fn missing_prefix(t: &str) -> bool {
    let l = t.to_ascii_lowercase();
    const ABSENT: &[&str] = &[
        "skipping mount",
        "no such file",
        "does not exist",
        "not found",
        "cannot access",
        "could not find",
        "couldn't find",
    ];
    if !ABSENT.iter().any(|w| l.contains(w)) {
        return false;
    }
    let mut from = 0;
    while let Some(i) = t[from..].at("/opt/rocm-") {
        let start = from + i + "/opt/rocm-".len();
        let v = t[start..]
            .bytes()
            .take_while(|c| c.is_ascii_digit() || *c == b'.')
            .count();
        let rest = t[start + v..].strip_prefix('/').unwrap_or(&t[start + v..]);
        if v > 0
            && rest
                .chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-')))
        {
            return true;
        }
        from = start;
    }
    false
}

/// The ROCm of an AMD image named by its tag (`FROM rocm/pytorch:rocm6.4.2_ubuntu24.04_py3.12_…`,
/// `image: rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006`): the container's ROCm. AMD's base images
/// (`rocm/dev-ubuntu-24.04`, `rocm/dev-almalinux-8`, `rocm/rocm-terminal`, images.yaml) are
/// tagged by the release alone (`:6.4.1`, `:7.2-complete`).
fn image_rocm(t: &str) -> Option<String> {
    let p = t.at("rocm/")?;
    let rest = &t[p + 5..];
    let colon = rest.at(":")?;
    // the repository's name, then its tag
    let repo = &rest[..colon];
    if colon == 0 || repo.contains([' ', '/']) {
        return None;
    }
    let base = repo.starts_with("dev-") || repo == "rocm-terminal";
    let tag = &rest[colon + 1..];
    let tag = if base { tag } else { tag.strip_prefix("rocm")? };
    let v: String = tag.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let v = v.trim_end_matches('.');
    let after = tag[v.len()..].chars().next();
    ((2..=3).contains(&v.split('.').count())
        && v.split('.').all(|x| !x.is_empty())
        && after.is_none_or(|c| matches!(c, '_' | '-' | ' ' | '"' | '\'' | '`')))
    .then(|| v.to_string())
}

/// The release of AMD's package repository a line names (`deb [arch=amd64] https://repo.radeon.com
/// /rocm/apt/7.1.1 noble main`, `…/rocm/rhel9/6.4.1/main`, `…/rocm/zyp/7.0/main`): what the
/// machine installs ROCm from. `latest` names none.
fn apt_rocm(t: &str) -> Option<String> {
    let p = t.at("repo.radeon.com/rocm/")?;
    let rest = &t[p + 21..];
    // the distribution's folder (`apt`, `rhel9`, `zyp`, `el8`), then the release
    let (_, rest) = rest.split_on("/")?;
    let v: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let after = rest[v.len()..].chars().next();
    ((2..=3).contains(&v.split('.').count())
        && v.split('.').all(|x| !x.is_empty())
        && after.is_none_or(|c| matches!(c, '/' | ' ' | '`' | '"' | '\'' | ')' | ',')))
    .then_some(v)
}

/// The URL after `--index-url` / `--extra-index-url`, or uv's `--index` / `--default-index`
/// (`=` or a blank between).
fn index_url(t: &str) -> Option<String> {
    let rest = if let Some(p) = t.at("index-url") {
        &t[p + 9..]
    } else {
        let p = t.at("--index").or_else(|| t.at("--default-index"))?;
        let after = &t[p..];
        let name_end = after.find([' ', '=']).unwrap_or(after.len());
        &after[name_end..]
    };
    // a Markdown link around the URL (`[https://…](https://…)`, an editor's autolink `<…>`)
    let rest = rest.trim_start_matches(['=', ' ', '[', '<']);
    let u: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '"' | '\'' | '`' | ']' | '>' | '('))
        .take(300)
        .collect();
    u.starts_with("http").then_some(u)
}

/// The first URL written anywhere that `is_index` (the matrix's index table) knows as a package
/// index (an installer's step, a list item, pip's `Looking in indexes:`): a scan of its own, not a
/// reader, that names no format and counts only where torch's facts take it. Links before it (a
/// thread, the docs) are passed over.
pub fn named_index(lines: &[Line], seen: &mut Seen, is_index: &dyn Fn(&str) -> bool) {
    if seen.prose.named_index.is_some() {
        return;
    }
    for l in lines {
        let t = l.text.as_ref();
        let mut from = 0;
        while let Some(p) = t[from..].at("https://") {
            let u = url_at(&t[from + p..]);
            from += p + 8;
            if is_index(u) {
                seen.prose.named_index = Some(seen.at(u.to_string(), l.no));
                return;
            }
        }
    }
}

/// The URL `t` starts with, without the Markdown, quotes or punctuation after it.
fn url_at(t: &str) -> &str {
    let end = t
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ']' | '>' | '(' | ')' | ','))
        .unwrap_or(t.len());
    // an index's URL is short; a longer run is no index (and is not cut inside a character)
    if end > 300 {
        return "";
    }
    t[..end].trim_end_matches(['.', ':', ';'])
}

/// A `pip install` / `uv pip install` line that names torch among its requirements (`torch`,
/// `torch==2.9.1`, `"torch[device-gfx1151]"`), not only torchvision or another package.
fn installs_torch(t: &str) -> bool {
    t.has("install")
        && t.split_whitespace().any(|w| {
            let w = w.trim_set(b"\"'`");
            w.strip_prefix("torch")
                .is_some_and(|r| r.is_empty() || r.starts_with(['=', '>', '<', '~', '!', '[']))
        })
}

/// The HIP SDK version of `…\AMD\ROCm\6.2\…` (Windows).
fn windows_rocm(t: &str) -> Option<String> {
    let i = t.at("\\AMD\\ROCm\\")?;
    let rest = &t[i + 10..];
    let v: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    // the version folder, inside a path or at its end (`` `C:\Program Files\AMD\ROCm\7.1` ``)
    let after = &rest[v.len()..];
    let ends = after.is_empty() || after.starts_with(['\\', '`', '"', '\'', ' ', ')', ';', ',', '）']);
    (v.split('.').filter(|p| !p.is_empty()).count() == 2 && ends).then_some(v)
}

/// The ROCm of a Spack install prefix (`…/linux-zen4/hip-7.2.3-<32-character hash>/lib/…`): Spack's
/// ROCm packages (`hip`, `rocm-core`, `hsa-rocr-dev`) take ROCm's release numbers (its `hip`
/// package builds `ROCm/HIP`'s `rocm-X.Y.Z` tags), and a prefix ends in the spec's hash.
fn spack_rocm(t: &str) -> Option<String> {
    for pkg in ["/hip-", "/rocm-core-", "/hsa-rocr-dev-"] {
        let mut from = 0;
        while let Some(i) = t[from..].at(pkg) {
            let start = from + i + pkg.len();
            from = start;
            let seg = t[start..].split('/').next().unwrap_or("");
            let Some((v, hash)) = seg.split_on("-") else { continue };
            let parts: Vec<&str> = v.split('.').collect();
            if parts.len() == 3
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                && hash.len() == 32
                && hash.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            {
                return Some(v.to_string());
            }
        }
    }
    None
}

/// The version of a ROCm an application bundles, named by its directory (`store\\rocm\\10.0.0\\gfx1035`,
/// `…/runtimes/rocm/7.1.1/lib`): a `rocm` directory whose child is a release of two or three
/// numbers.
fn bundled_rocm(t: &str) -> Option<String> {
    let b = t.as_bytes();
    // each separator after a `rocm` directory name (one pass over the separators, no search
    // per spelling: this runs on lines that name ROCm in any way)
    for p in memchr::memchr2_iter(b'/', b'\\', b) {
        if p < 5 || b[p - 5] != b[p] || !b[p - 4..p].eq_ignore_ascii_case(b"rocm") {
            continue;
        }
        let rest = &t[p + 1..];
        let v: &str = &rest[..rest.bytes().take_while(|c| c.is_ascii_digit() || *c == b'.').count()];
        let parts: Vec<&str> = v.split('.').collect();
        // a release's numbers (`10.0.0`), not a date's (`2026.01.02`)
        if (2..=3).contains(&parts.len())
            && parts.iter().all(|p| !p.is_empty() && p.len() <= 3)
            && parts[0].len() <= 2
            && rest.as_bytes().get(v.len()) == Some(&b[p])
        {
            return Some(v.to_string());
        }
    }
    None
}

/// torch's version from a wheel file name in `t`: `torch-2.3.0+rocm6.2.3-cp310-…whl`,
/// `torch-2.3.0.dev20240126%2Brocm6.0-cp310-…`, `torch-2.13.0.dev20260424%2Bcu132-cp314-…`.
/// Only wheels whose local tag names the build (`+rocm…`, `+cu…`, `+cpu`): a wheel without one
/// says nothing of the build.
fn wheel_torch(t: &str) -> Option<String> {
    let mut from = 0;
    while let Some(i) = t[from..].at("torch-") {
        let start = from + i;
        from = start + 6;
        // `/torch-…` or a word start; not `pytorch-…`, `libtorch-…`
        if start > 0 && t.as_bytes()[start - 1].is_ascii_alphanumeric() {
            continue;
        }
        // the file name: up to a blank or quote, at most 200 bytes (one pass per line)
        let rest = &t[start + 6..];
        let len = rest
            .bytes()
            .take(200)
            .position(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`' | b')' | b'<' | b'>'))
            .unwrap_or(rest.len().min(200));
        let name = rest.get(..len).unwrap_or("");
        let Some(end) = name.at("-cp").or_else(|| name.at("-py3")) else {
            continue;
        };
        let v = name[..end].replace("%2B", "+").replace("%2b", "+");
        let ok = v.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && (v.has("+rocm") || v.has("+cu") || v.has("+cpu"))
            && v.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+'));
        if ok && name[end..].has(".whl") {
            return Some(v);
        }
    }
    None
}

/// A kernel release in a sentence: `5.15.153.1-microsoft-standard-WSL2`, `6.8.0-45-generic`.
/// The ROCm version of a TheRock build named by its targets (`gfx110X-all-7.14.0`,
/// `therock-dist-linux-gfx1151-7.10.0a20251022.tar.gz`; the caller looks only at lines with a
/// family's `X-` or `-dist-`): the version after the last `-` of a
/// name that holds a target family.
fn therock_build(t: &str) -> Option<String> {
    for tok in t.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | ')' | ',')) {
        // a file name, not the folder of a URL (`…/gfx103X-all/rocm-7.13.0a….tar.gz` names an
        // index folder and a `rocm` sdist, not a TheRock build)
        let tok = tok.rsplit(['/', '\\']).next().unwrap_or(tok);
        let Some(g) = tok.at("gfx") else { continue };
        let Some((_, v)) = tok[g..].rsplit_once('-') else {
            continue;
        };
        let v = v
            .trim_end_matches(".tar.gz")
            .trim_end_matches(".tar.xz")
            .trim_end_matches(".zip");
        let mut parts = v.splitn(3, '.');
        let (a, b, c) = (parts.next()?, parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|x| x.is_ascii_digit());
        let patch = c.bytes().take_while(u8::is_ascii_digit).count();
        let rest = &c[patch..];
        let suffix_ok = rest.is_empty()
            || ((rest.starts_with('a') || rest.starts_with("rc"))
                && rest
                    .trim_start_matches(['a', 'r', 'c'])
                    .bytes()
                    .all(|x| x.is_ascii_digit()));
        if digits(a) && digits(b) && patch > 0 && suffix_ok && (6..=20).contains(&a.parse::<u32>().unwrap_or(0)) {
            return Some(v.to_string());
        }
    }
    None
}

/// The ROCm version a sentence says the user runs (`… on Ubuntu 24.04 with ROCm 7.14 and …`,
/// `- running ROCm 7.2.1`, `- System ROCm 7.1 (Ubuntu packaged)`): `ROCm X.Y[.Z]` after `with`,
/// `on`, `using`, `running`, `installed`, `system`, `host` or `TheRock`, or opening a line or list
/// item.
/// Where `ROCm ` is written, or `ROCM ` (as reporters type it: `with System ROCM 10.2.0`), in
/// order: one pass over the text per spelling.
pub(crate) fn rocm_words(t: &str) -> impl Iterator<Item = usize> + '_ {
    let mut a = memchr::memmem::find_iter(t.as_bytes(), b"ROCm ").peekable();
    let mut b = memchr::memmem::find_iter(t.as_bytes(), b"ROCM ").peekable();
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(&x), Some(&y)) if y < x => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// Where `rocm ` is written in lower case as a word of its own (`a gfx1030 card and rocm 7.1.1
/// on arch linux`, typed in a sentence); not a path's or a package's (`/opt/rocm 6`, `-rocm `).
fn lower_rocm_words(t: &str) -> impl Iterator<Item = usize> + '_ {
    let b = t.as_bytes();
    // inside a sentence: a line that starts with it is a list's row (`rocm 6.3.4`, pip's)
    memchr::memmem::find_iter(b, b"rocm ").filter(move |&p| p > 0 && b[p - 1] == b' ')
}

/// Where `ROCm` or `ROCM` is written glued to its release (`with ROCM10.0.0 for gfx1103`), as a
/// word of its own: capitalised (an index's or image's folder is lower-case: `whl/rocm6.3`,
/// `-rocm7.2.1-`).
fn glued_rocm_words(t: &str) -> impl Iterator<Item = usize> + '_ {
    let b = t.as_bytes();
    memchr::memmem::find_iter(b, b"ROC").filter(move |&p| {
        matches!(b.get(p + 3), Some(b'm' | b'M'))
            && b.get(p + 4).is_some_and(u8::is_ascii_digit)
            && (p == 0 || b[p - 1] == b' ')
    })
}

fn sentence_rocm(t: &str) -> Option<&str> {
    // `ROCm 7.2.1`, then `ROCm7.2.1` (a full release only: glued, `ROCm7.2` is as often a name)
    let spaced = rocm_words(t).chain(lower_rocm_words(t)).map(|p| (p, p + 5, false));
    let glued = glued_rocm_words(t).map(|p| (p, p + 4, true));
    for (start, from, glued) in spaced.chain(glued) {
        let before = t[..start].trim_end_matches(['-', '*', ' ']);
        // `on latest rocm 7.14.0`, `with the latest ROCm 7.2.1`: the lead word before `latest`
        let before = ["the latest", "latest"]
            .iter()
            .find_map(|w| {
                let b = before.as_bytes();
                (b.len() > w.len()
                    && b[b.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
                    && b[b.len() - w.len() - 1] == b' ')
                    .then(|| before[..before.len() - w.len()].trim_end())
            })
            .filter(|b| !b.is_empty())
            .unwrap_or(before);
        // an item of a list written on one line or a table cell (`WSL2 Ubuntu 24.04, ROCm 7.2.1 +
        // librocdxg`, `| ROCm 7.1 |`)
        // a numbered list's item (`2. ROCm 7.1.1 (…)`, `3) ROCm 6.4`)
        let numbered = before.len() <= 4
            && before.ends_with(['.', ')'])
            && before.len() >= 2
            && before[..before.len() - 1].bytes().all(|b| b.is_ascii_digit());
        // `X + ROCm 7.1` joins a stack's items, but after a version (`PyTorch: 2.11.0.dev + ROCm
        // 7.1`) it is that build's ROCm, not the machine's
        let after_version = before.strip_suffix('+').is_some_and(|b| {
            b.trim_end()
                .rsplit(' ')
                .next()
                .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()) && w.has("."))
        });
        // a target before it (`RX 7900 XTX (gfx1100 ROCm 7.14, MIOpen 3.5.2`): the GPU's stack
        let after_target = before
            .rsplit([' ', '('])
            .next()
            .and_then(|w| w.strip_prefix("gfx"))
            .is_some_and(|r| (3..=4).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_hexdigit()));
        let lead = before.is_empty()
            || numbered
            || after_target
            || (before.ends_with([',', '|', ';', '(', '+', ':']) && !after_version)
            || [
                "with",
                "on",
                "using",
                "running",
                "installed",
                "system",
                "host",
                "version of",
                // a setup sentence's second item (`a gfx1030 card and rocm 7.1.1 on Arch`)
                "and",
                // TheRock's builds of a release (`against TheRock ROCm **7.14.0** tarball`)
                "therock",
            ]
            .iter()
            .any(|w| {
                // bytes, not chars: the text before may end inside a multi-byte character
                let b = before.as_bytes();
                b.len() >= w.len()
                    && b[b.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
                    && (b.len() == w.len() || !b[b.len() - w.len() - 1].is_ascii_alphanumeric())
            });
        if !lead {
            continue;
        }
        if backend_list(t, start) {
            continue;
        }
        // `ROCm version 6.3.1` (a typed answer without its colon), `ROCm nightly 7.13` (a
        // nightly of that line), `ROCm release 7.2.1`
        let from = ["version ", "nightly ", "release "]
            .iter()
            .find(|w| !glued && t.get(from..from + w.len()).is_some_and(|x| x.eq_ignore_ascii_case(w)))
            .map_or(from, |w| from + w.len());
        if let Some(v) = release_at(t, from).filter(|v| !glued || v.split('.').count() == 3) {
            return Some(v);
        }
    }
    None
}

/// The `ROCm` at `start` is an item of a list of an app's backends beside another backend's
/// (`regardless of backend (Vulkan 2.15.0, ROCm 2.14.0, CPU)`): the versions are the app's
/// runtime packages, not a ROCm release.
fn backend_list(t: &str, start: usize) -> bool {
    // the list around it: from the opening bracket or the start, to the closing one or the end
    let open = t[..start].rfind(['(', '[']).map_or(0, |p| p + 1);
    let close = t[start..].find([')', ']']).map_or(t.len(), |p| start + p);
    // the comma items next to the ROCm's own: an earlier item of a long sentence (`CPU Ryzen 9,
    // then ROCm 7.2.1 …`, no bracket) is no backend beside it
    let before = t[open..start].rat(",").map(|p| open + p);
    let after = t[start..close].at(",").map(|p| start + p);
    let prev = before.map(|b| &t[t[open..b].rat(",").map_or(open, |p| open + p + 1)..b]);
    let next = after.map(|a| &t[a + 1..t[a + 1..close].at(",").map_or(close, |p| a + 1 + p)]);
    [prev, next].into_iter().flatten().any(|item| {
        // an item after the list's label (`runtimes: CUDA 12.8`)
        let item = item.trim_ws();
        let item = item.rsplit(": ").next().unwrap_or(item);
        let w = item.split_whitespace().next().unwrap_or("");
        matches!(w, "Vulkan" | "CUDA" | "Metal" | "SYCL" | "CPU" | "OpenCL")
    })
}

/// The release written at `from` (just after `ROCm `): `7.2.1`, with emphasis around it
/// (`ROCm **7.2.3**`, ``ROCm `7.1.1` ``), as a word of its own: `ROCm 7.0.11-arch1-1` (a kernel a
/// tool mislabels) or `ROCm 7.10a` is no release.
pub(crate) fn release_at(t: &str, from: usize) -> Option<&str> {
    let marks = t[from..].len() - t[from..].trim_start_matches(['*', '`']).len();
    let from = from + marks;
    let v = t[from..]
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .unwrap_or("")
        .trim_end_matches('.');
    let parts = v.split('.').count();
    // a pre-release's tail after a full release (TheRock's nightly `7.13.0a20260314`, `7.12.0rc1`)
    let tail = &t[from + v.len()..];
    let mark = if tail.starts_with("rc") {
        2
    } else {
        usize::from(tail.starts_with('a'))
    };
    let digits = tail[mark..].len() - tail[mark..].trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let pre = if mark > 0 && digits > 0 && parts == 3 {
        mark + digits
    } else {
        0
    };
    let v = &t[from..from + v.len() + pre];
    let next = t[from + v.len()..].chars().next();
    ((2..=3).contains(&parts)
        && v.split('.').all(|x| !x.is_empty())
        && next.is_none_or(|c| {
            c.is_whitespace() || matches!(c, ',' | ';' | ')' | '|' | '.' | ':' | '*' | '`' | '"' | '\'')
        }))
    .then_some(v)
}

/// torch's version written after the word in a sentence or a tool's message (`existing install
/// has torch 2.11.0+rocm7.15.0a20260728 -- keeping it`, `PyTorch 2.9.1+rocm6.4`). Only ROCm
/// builds, as for wheel names.
fn word_torch(t: &str) -> Option<String> {
    // an extension's load warning names the torch it was built for and, after `you have`, the
    // user's (xFormers: `PyTorch 2.10.0+cu128 with CUDA 1208 (you have 2.11.0+rocm7.13.0)`): only
    // the second is the installed torch
    if let Some(i) = t.at("(you have ") {
        let v = t[i + 10..]
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '+'))
            .next()?;
        return (v.as_bytes().first().is_some_and(u8::is_ascii_digit) && build_tagged(v)).then(|| v.to_string());
    }
    let mut from = 0;
    while let Some(i) = t[from..].at("orch") {
        let start = from + i;
        from = start + 4;
        // `torch 2.9.1+rocm…`, `torch == …`, or a pin in inline code (`` `torch==2.9.1+rocm7.2.1` ``,
        // versions a reporter copied from pip freeze)
        let pin = t.as_bytes().get(from) == Some(&b'=');
        if !pin && t.as_bytes().get(from) != Some(&b' ') {
            continue;
        }
        let pytorch = start >= 3 && t.as_bytes()[start - 3..start].eq_ignore_ascii_case(b"pyt");
        // where the word starts (`pytorch`, `torch`)
        let head = if pytorch { start - 3 } else { start.saturating_sub(1) };
        let word = if pytorch {
            start == 3 || !t.as_bytes()[start - 4].is_ascii_alphanumeric()
        } else {
            start >= 1
                && t.as_bytes()[start - 1] == b't'
                && (start == 1 || !t.as_bytes()[start - 2].is_ascii_alphanumeric())
        };
        if !word {
            continue;
        }
        // `PyTorch version (2.10.0+rocm7.2.0…)`, `torch version: …`, `torch == …`
        // one blank (a column's run of blanks after `torch` is pip's list, not a sentence), or
        // the pin's `==`; after the product's name (`PyTorch   2.12.0a0+rocm…`, an aligned
        // summary) any run of blanks
        let rest = t[from..]
            .strip_prefix(if pin { "==" } else { " " })
            .map(|r| if pytorch && !pin { r.trim_start_matches(' ') } else { r })
            .unwrap_or("")
            .trim_start_matches(['`', '"', '\'', '*']);
        let rest = match rest.strip_prefix("version") {
            Some(r) => r.trim_start_matches([' ', '(', ':', '`']),
            None => rest,
        };
        let v = rest
            .trim_start_matches(['`', '"', '\'', '*'])
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '+'))
            .next()
            .unwrap_or("")
            .trim_end_matches('.');
        // a build tag says which build: ROCm's, CPU's (`torch 2.10.0+cpu detected`), CUDA's
        let tagged = build_tagged(v);
        // the torch a binary was built for or needs (`built for PyTorch 2.4.0+cu121`) is not the
        // installed one
        let before = t[..head].trim_end().to_ascii_lowercase();
        if [
            "built for",
            "compiled for",
            "compiled against",
            "built against",
            "requires",
        ]
        .iter()
        .any(|w| before.ends_with(w))
        {
            continue;
        }
        // a pin only as an inline code span of its own: a resolver's candidates, a command's
        // requirement and its comments name versions that are not installed
        let span = |end: usize| head > 0 && t.as_bytes()[head - 1] == b'`' && t.as_bytes().get(end) == Some(&b'`');
        if pin && !span(t.len() - rest.len() + v.len()) {
            continue;
        }
        if v.as_bytes().first().is_some_and(u8::is_ascii_digit) && v.has(".") && tagged {
            return Some(v.to_string());
        }
    }
    None
}

/// A build tag names the build: ROCm's, CPU's (`2.10.0+cpu`), CUDA's (`+cu128`).
fn build_tagged(v: &str) -> bool {
    v.has("+rocm")
        || v.ends_with("+cpu")
        || v.split_on("+cu")
            .is_some_and(|(_, r)| r.len() >= 2 && r.bytes().all(|b| b.is_ascii_digit()))
}

fn kernel(t: &str) -> Option<String> {
    for w in t.split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '`' | '"' | '\'')) {
        let w = w.trim_end_matches(['.', ':', ';']);
        // Python's `platform.platform()` (`Linux-6.8.0-87-generic-x86_64-with-glibc2.35`, in
        // pytest-metadata's dict): the release before the machine
        let w = match w.strip_prefix("Linux-") {
            Some(r) => ["-x86_64", "-aarch64"]
                .iter()
                .filter_map(|m| r.find(m))
                .min()
                .map_or(w, |e| &r[..e]),
            None => w,
        };
        let l = w.to_ascii_lowercase();
        if (l.ends_with("-microsoft-standard-wsl2") || l.ends_with("-microsoft-standard") || l.ends_with("-generic"))
            && super::free_form::kernel_release(w)
        {
            return Some(w.to_string());
        }
    }
    None
}

/// Reads wheel names and install paths anywhere in the text.
pub fn read(lines: &[Line], seen: &mut Seen) -> bool {
    let mut fired = false;
    let mut sentence: Option<Option<(String, u32)>> = None;
    for l in lines {
        let t = l.text.as_ref();
        if seen.prose.rocm.is_none() {
            let v = if t.has("/opt/rocm-") {
                opt_rocm(t).filter(|_| !missing_prefix(t))
            } else if t.has("\\AMD\\ROCm\\") {
                windows_rocm(t)
            } else if t.has("gfx") && (t.has("X-") || t.has("-dist-")) {
                therock_build(t)
            } else if t.has(":rocm") || t.has("rocm/dev-") || t.has("rocm/rocm-terminal:") {
                image_rocm(t)
            } else if t.has("repo.radeon.com/rocm/") {
                apt_rocm(t)
            } else if t.has("/hip-") || t.has("/rocm-core-") || t.has("/hsa-rocr-dev-") {
                spack_rocm(t)
            } else {
                // an application's bundled ROCm directory (a pass over the path separators)
                bundled_rocm(t)
            };
            if let Some(v) = v {
                fired = true;
                seen.prose.rocm = Some(seen.at(v, l.no));
            }
        }
        // a sentence's ROCm after words that say the user runs it, or any in a setup sentence
        // (`The system is … and the ROCm 7.2.0`)
        if (t.has("ROCm") || t.has("ROCM") || t.has("rocm "))
            && let Some(v) = sentence_rocm(t).or_else(|| super::setup::sentence_rocm(t))
        {
            // one version said: two (`from ROCm 6.4 to ROCm 7.1`) say nothing of which runs
            match &sentence {
                None => sentence = Some(Some((v.to_string(), l.no))),
                Some(Some((w, _))) if w != v => sentence = Some(None),
                _ => {}
            }
        }
        if seen.prose.torch.is_none()
            && t.has("torch-")
            && let Some(v) = wheel_torch(t)
        {
            fired = true;
            seen.prose.torch = Some(seen.at(v, l.no));
        }
        if seen.prose.torch.is_none()
            // a build tag's `+` (`+rocm…`, `+cpu`, `+cu…`): one byte search
            && memchr::memchr(b'+', t.as_bytes()).is_some()
            && let Some(v) = word_torch(t)
        {
            fired = true;
            seen.prose.torch = Some(seen.at(v, l.no));
        }
        if seen.prose.kernel.is_none()
            && (t.has("-generic") || t.has("microsoft-standard"))
            && let Some(k) = kernel(t)
        {
            fired = true;
            seen.prose.kernel = Some(seen.at(k, l.no));
        }
        if seen.prose.index_url.is_none()
            && (t.has("index-url") || t.has("--index") || t.has("--default-index"))
            && let Some(u) = index_url(t)
        {
            fired = true;
            seen.prose.index_for_torch = installs_torch(t);
            seen.prose.index_url = Some(seen.at(u, l.no));
        }
    }
    if seen.prose.rocm.is_none()
        && let Some(Some((v, no))) = sentence
    {
        fired = true;
        seen.prose.rocm = Some(seen.at(v, no));
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::super::run;
    use super::*;

    #[test]
    fn wheels_and_paths_in_sentences() {
        // A nightly wheel URL written in a sentence and an install path.
        let t = "I installed https://download.pytorch.org/whl/nightly/rocm6.0/torch-2.3.0.dev20240126%2Brocm6.0-cp310-cp310-linux_x86_64.whl and\nthe libraries are in /opt/rocm-6.0.1/lib/ as usual.\n";
        let (fired, s) = run(read, t);
        assert!(fired);
        let torch = s.prose.torch.unwrap();
        assert_eq!((torch.v.as_str(), torch.src.line), ("2.3.0.dev20240126+rocm6.0", 1));
        let r = s.prose.rocm.unwrap();
        assert_eq!((r.v.as_str(), r.src.line), ("6.0.1", 2));
        assert!(
            s.rocm.is_none() && s.torch.is_none(),
            "prose never sets the facts itself"
        );
        assert_eq!(
            wheel_torch("torch-2.3.0+rocm6.2.3-cp310-cp310-linux_x86_64.whl").as_deref(),
            Some("2.3.0+rocm6.2.3")
        );
        assert_eq!(wheel_torch("torch-2.3.0-cp310-cp310-linux_x86_64.whl"), None);
        assert_eq!(wheel_torch("pytorch-2.3.0+rocm6.0-cp310-x.whl"), None);
        assert_eq!(
            opt_rocm("ldd: /opt/rocm-6.2.1/lib/libamdhip64.so.6").as_deref(),
            Some("6.2.1")
        );
        assert_eq!(opt_rocm("/opt/rocm-6.2"), Some("6.2".into()));
        // Spack's prefixes (values ours): the release, with the spec's hash after it
        let h = "a".repeat(32);
        assert_eq!(
            spack_rocm(&format!("/sw/linux-zen3/hip-6.4.1-{h}/lib/libamdhip64.so.6")).as_deref(),
            Some("6.4.1")
        );
        assert_eq!(spack_rocm("/src/hip-6.4.1-rc/include"), None);
        assert_eq!(spack_rocm(&format!("/sw/hip-tests-6.4.1-{h}/bin")), None);
        // a prefix said to be absent; a file absent under a prefix that is there (values ours)
        assert!(missing_prefix("WARNING: skipping mount of /opt/rocm-5.7.1/"));
        assert!(missing_prefix(
            "ls: cannot access '/opt/rocm-6.1': No such file or directory"
        ));
        assert!(!missing_prefix(
            "Cannot read /opt/rocm-6.1.2/lib/rocblas/library/x.dat: No such file or directory"
        ));
        assert!(!missing_prefix("HIP_PATH=/opt/rocm-6.1.2/"));
        // an application's bundled ROCm directory (values ours)
        assert_eq!(
            bundled_rocm("Backend: bundled (`store\\rocm\\10.0.0\\gfx1035`)").as_deref(),
            Some("10.0.0")
        );
        assert_eq!(
            bundled_rocm("/srv/app/runtimes/rocm/7.1.1/lib/libamdhip64.so").as_deref(),
            Some("7.1.1")
        );
        assert_eq!(bundled_rocm("/opt/rocm/lib/x.so, /docs/rocm/7/"), None);
        assert_eq!(bundled_rocm("/usr/share/rocm/2026.01.02/"), None);
        assert_eq!(opt_rocm("/opt/rocm-x/lib /opt/rocm-7/"), None);
        assert_eq!(
            windows_rocm("Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary.dat")
                .as_deref(),
            Some("6.1")
        );
        // the folder closing the path; a longer name is another folder (values ours)
        assert_eq!(
            windows_rocm("`C:\\Program Files\\AMD\\ROCm\\6.4`").as_deref(),
            Some("6.4")
        );
        assert_eq!(
            windows_rocm("C:\\Program Files\\AMD\\ROCm\\6.4").as_deref(),
            Some("6.4")
        );
        assert_eq!(windows_rocm("C:\\Program Files\\AMD\\ROCm\\6.4x\\bin"), None);
    }

    #[test]
    fn many_near_misses_are_one_pass() {
        let line = "/opt/rocm-x torch-y ".repeat(50_000);
        let (fired, _) = run(read, &line);
        assert!(!fired);
    }

    #[test]
    fn an_amd_images_rocm_from_its_tag() {
        for (t, want) in [
            (
                "ARG BASE_IMAGE=rocm/pytorch:rocm6.3.4_ubuntu22.04_py3.10_pytorch_release_2.4.0",
                Some("6.3.4"),
            ),
            ("    image: rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006", Some("7.0.0")),
            ("docker pull rocm/pytorch:latest", None),
            ("see github.com/rocm/foo:rocmish", None),
            ("BASE=docker.io/rocm/dev-ubuntu-24.04:7.3.1-full", Some("7.3.1")),
            ("FROM rocm/dev-almalinux-8:6.5.2-complete AS base", Some("6.5.2")),
            ("docker run -it rocm/rocm-terminal:5.9.3", Some("5.9.3")),
            ("FROM rocm/dev-ubuntu-22.04:latest", None),
            ("FROM rocm/dev-ubuntu-22.04", None),
        ] {
            assert_eq!(image_rocm(t).as_deref(), want, "{t:?}");
        }
        for (t, want) in [
            (
                "deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.4.1 noble main",
                Some("6.4.1"),
            ),
            ("  `https://repo.radeon.com/rocm/apt/7.0.2`.", Some("7.0.2")),
            ("baseurl=https://repo.radeon.com/rocm/rhel9/6.3.3/main", Some("6.3.3")),
            ("deb https://repo.radeon.com/rocm/apt/latest jammy main", None),
            ("https://repo.radeon.com/rocm/apt/6.4.1-beta/", None),
        ] {
            assert_eq!(super::apt_rocm(t).as_deref(), want, "{t:?}");
        }
    }

    #[test]
    fn pythons_platform_string_names_the_kernel() {
        // pytest-metadata's dict (values ours)
        let t = "metadata: {'Python': '3.12.3', 'Platform': 'Linux-6.8.0-90-generic-x86_64-with-glibc2.39'}";
        assert_eq!(kernel(t).as_deref(), Some("6.8.0-90-generic"));
        assert_eq!(kernel("Linux-x86_64 wheel").as_deref(), None);
    }

    #[test]
    fn torch_named_in_a_message() {
        for (text, want) in [
            (
                "existing install has torch 2.11.0+rocm7.15.0a20260728 -- keeping it",
                Some("2.11.0+rocm7.15.0a20260728"),
            ),
            ("Using PyTorch 2.9.1+rocm6.4.", Some("2.9.1+rocm6.4")),
            // another build's tag says which build too
            ("  deps   ... torch 2.9.0+cpu detected", Some("2.9.0+cpu")),
            ("found torch 2.8.0+cu128 in the venv", Some("2.8.0+cu128")),
            ("torch 2.8.0+cuda", None),
            (
                "  2. The PyTorch version (2.9.1+rocm7.1.1.gitabc123) is not compatible with",
                Some("2.9.1+rocm7.1.1.gitabc123"),
            ),
            ("torch version: 2.10.0+rocm7.1 found", Some("2.10.0+rocm7.1")),
            (
                "Environment: `torch==2.9.1+rocm7.2.1` with `rocm-sdk-core==7.2.1`",
                Some("2.9.1+rocm7.2.1"),
            ),
            ("torchvision==0.24.1+rocm7.2.1", None),
            (
                "PyTorch  2.12.0a0+rocm7.13.0a20260411      ok",
                Some("2.12.0a0+rocm7.13.0a20260411"),
            ),
            ("torch        2.9.1+rocm7.2.1", None),
            ("pytorch  2.12.0+rocm7.2.1 here", Some("2.12.0+rocm7.2.1")),
            ("uses `pytorch==2.9.1+rocm7.2.1` now", Some("2.9.1+rocm7.2.1")),
            ("pip install torch==2.9.1+rocm7.2.1", None),
            ("# resolves to torch==2.9.1+rocm7.2.1", None),
            ("`torch==2.9.1+rocm7.2.1 torchvision`", None),
            // no ROCm local tag, not the word
            ("torch 2.9.1 installed", None),
            ("pytorch-triton 3.2.0+rocm6.3", None),
            ("mytorch 1.0+rocm6.0", None),
            // an extension's build against the user's torch: the user's is after `you have`
            (
                "    PyTorch 2.10.0+cu128 with CUDA 1208 (you have 2.11.0+rocm7.13.0)",
                Some("2.11.0+rocm7.13.0"),
            ),
            ("    PyTorch 2.4.0+cu121 with CUDA 1201 (you have 2.4.0)", None),
            ("this wheel was built for PyTorch 2.4.0+cu121", None),
            ("compiled against torch 2.5.1+rocm6.2 but", None),
        ] {
            assert_eq!(word_torch(text).as_deref(), want, "{text:?}");
        }
        let (_, s) = run(
            read,
            "  venv  existing install has torch 2.10.0+rocm7.2.0 -- keeping it\n",
        );
        assert_eq!(s.prose.torch.as_ref().unwrap().v, "2.10.0+rocm7.2.0");
        assert!(s.torch.is_none(), "prose never sets the fact itself");
    }

    #[test]
    fn therock_builds_named_by_their_targets() {
        for (text, want) in [
            ("TheRock gfx110X-all-7.14.0", Some("7.14.0")),
            (
                "tar xf therock-dist-linux-gfx1151-7.10.0a20251022.tar.gz",
                Some("7.10.0a20251022"),
            ),
            ("gfx120X-dgpu-7.13.0rc2", Some("7.13.0rc2")),
            // a family alone, a target list, a wheel's device package
            ("the gfx120X-all wheels", None),
            ("gfx1100-gfx1101", None),
            ("amd-torch-device-gfx1151-2.10.0", None),
        ] {
            assert_eq!(therock_build(text).as_deref(), want, "{text:?}");
        }
    }

    #[test]
    fn the_rocm_a_sentence_says_it_runs() {
        for (t, want) in [
            (
                "inside a container on Ubuntu 24.04 with ROCm 7.14 and an RX 9060 XT",
                Some("7.14"),
            ),
            ("- running ROCm 7.2.1", Some("7.2.1")),
            ("- System ROCm 6.4 (distribution packages)", Some("6.4")),
            ("host ROCm 7.0.2, container ROCm 7.0.2", Some("7.0.2")),
            ("the filesystem ROCm 7.0 uses", None),
            (
                "at least for my version of ROCm 6.4 on Arch installed through",
                Some("6.4"),
            ),
            ("| Ubuntu 24.04, ROCm 7.0.2 + driver 25.20 | pass |", Some("7.0.2")),
            ("ROCm 6.4.3 on Fedora", Some("6.4.3")),
            // not after its verb, a preview's name, a multi-byte character before it
            ("the ROCm 7.0 docs say otherwise", None),
            ("with ROCm 7.10a", None),
            // a typed answer without its colon
            ("ROCm version 6.3.1", Some("6.3.1")),
            ("the ROCm version 6.3 docs", None),
            ("on my RX 7900 XTX (gfx1100 ROCm 7.14, MIOpen 3.5.2.", Some("7.14")),
            ("Board: Strix Halo gfx1151, 40 CUs, ROCm nightly 7.13.", Some("7.13")),
            // a nightly's pre-release tail belongs to the release (a typed software list)
            ("ROCM 7.13.0a20260314 [nightly]", Some("7.13.0a20260314")),
            ("running ROCm 7.12.0rc2 now", Some("7.12.0rc2")),
            ("running ROCm 7.2.1and more", None),
            ("- ROCm **7.1.1** (`libamdhip64.so.7.1.70101`)", Some("7.1.1")),
            ("GPU 0: R9700 (ROCm 6.18.2-arch1-1, shared memory)", None),
            ("- **Mechanism** — ROCm 7.1", None),
            (
                "built against AMD's TheRock ROCm **7.12.0** Linux tarball",
                Some("7.12.0"),
            ),
            ("2. ROCm 6.4.3 (the app's own default differs)", Some("6.4.3")),
            ("12) ROCm 7.0", Some("7.0")),
            ("v2. ROCm 7.0", None),
            ("2) **RDNA3 + ROCm 6.4.1 + llama.cpp HIP** is the stack", Some("6.4.1")),
            (
                "RAM : 64GB. Driver Environment : ROCm 6.4.3 (RADV/Mesa).",
                Some("6.4.3"),
            ),
            ("PyTorch: 2.10.0.dev + ROCm 6.4", None),
            // the name in capitals, as typed (tt/05 of the 2026 build sets; values ours)
            (
                "On Debian 13, with System ROCM 7.2.1 (from AMD's repository), the build fails",
                Some("7.2.1"),
            ),
            ("ROCM_PATH 7.2.1", None),
            // glued to its release, a full one only, as a word of its own (values ours)
            (
                "random GPU resets when I run llama.cpp with ROCM7.13.0 for gfx1103",
                Some("7.13.0"),
            ),
            ("built with ROCm7.2 on Arch", None),
            ("pip install from whl/rocm7.2.1 on Arch", None),
            ("the image rocm/pytorch:latest-ROCm7.2.1 with torch", None),
            // typed in lower case, a setup sentence's second item (values ours)
            ("it is a gfx1100 card and rocm 7.2.1 on fedora", Some("7.2.1")),
            ("installed with apt install rocm 7.2.1", None),
            ("see /opt/rocm 7.2.1 docs", None),
            // the lead word before `latest` (values ours)
            ("the test still fails on latest rocm 7.2.1 here", Some("7.2.1")),
            ("built with the latest ROCm 7.1.1 from AMD", Some("7.1.1")),
            ("the latest ROCm 7.2.1 fixed it", None),
            // an app's backend list: its runtime packages' versions (values ours)
            ("it crashes with any backend (Vulkan 1.60.0, ROCm 1.58.2, CPU)", None),
            ("tried runtimes: CUDA 12.8, ROCm 1.9.0", None),
            ("Setup: Ubuntu 24.04, ROCm 7.2.1, gfx1100", Some("7.2.1")),
            // a backend word in an item not next to the ROCm's (values ours)
            ("Setup: CPU Ryzen 9, Ubuntu 24.04, ROCm 7.2.1, gfx1100", Some("7.2.1")),
            ("tried Vulkan 1.60.0, CPU, ROCm 1.58.2 and all fail", None),
        ] {
            assert_eq!(sentence_rocm(t), want, "{t:?}");
        }
        let (_, s) = run(
            read,
            "Resets happen when I serve a model with ROCM7.13.0 for gfx1103.  Often.\n",
        );
        assert_eq!(s.prose.rocm.as_ref().map(|r| r.v.as_str()), Some("7.13.0"));
        // two versions said: none
        let (_, s) = run(read, "upgraded on ROCm 6.4\nnow with ROCm 7.1 it fails\n");
        assert!(s.prose.rocm.is_none());
        let (_, s) = run(read, "fails with ROCm 7.1 and torch\n");
        assert_eq!(s.prose.rocm.as_ref().unwrap().v, "7.1");
    }

    #[test]
    fn a_cuda_or_cpu_wheel_names_its_build_too() {
        assert_eq!(
            wheel_torch(
                "installed https://download.pytorch.org/whl/cu128/torch-2.9.1%2Bcu128-cp312-cp312-win_amd64.whl"
            )
            .as_deref(),
            Some("2.9.1+cu128")
        );
        assert_eq!(
            wheel_torch("torch-2.9.1+cpu-cp312-cp312-linux_x86_64.whl").as_deref(),
            Some("2.9.1+cpu")
        );
        assert_eq!(wheel_torch("torch-2.9.1+git1234-cp312-cp312-linux_x86_64.whl"), None);
    }

    #[test]
    fn an_index_named_outside_a_command() {
        // values ours: a thread's link, then an installer's step with the URL on its own line in
        // a text block; the matrix's index table decides what an index is
        fn named(text: &str) -> Option<String> {
            let m = crate::matrix::Matrix::embedded();
            let lines = crate::triage::paste::lines(text);
            let mut s = Seen::default();
            named_index(&lines, &mut s, &|u| m.distribution.classify_index(u).is_some());
            s.prose.named_index.map(|u| u.v)
        }
        let step = "See https://github.com/ROCm/TheRock/issues/1.\n2. The installer installs the ROCm packages from:\n   ```text\n   https://repo.amd.com/rocm/whl/gfx110X-all/\n   ```\n";
        assert_eq!(
            named(step).as_deref(),
            Some("https://repo.amd.com/rocm/whl/gfx110X-all/")
        );
        // the second URL of a line
        assert_eq!(
            named("docs: https://rocm.docs.amd.com/ wheels: `https://repo.amd.com/rocm/whl/gfx1151/`\n").as_deref(),
            Some("https://repo.amd.com/rocm/whl/gfx1151/")
        );
        assert_eq!(
            named("see https://pytorch.org/get-started/ and https://github.com/ROCm/ROCm\n"),
            None
        );
    }

    #[test]
    fn uvs_index_flags_name_the_index() {
        assert_eq!(
            index_url("uv pip install --index https://repo.amd.com/rocm/whl/gfx1151/ jax").as_deref(),
            Some("https://repo.amd.com/rocm/whl/gfx1151/")
        );
        assert_eq!(
            index_url("uv pip install --default-index=https://rocm.nightlies.amd.com/v2/gfx120X-all/ torch").as_deref(),
            Some("https://rocm.nightlies.amd.com/v2/gfx120X-all/")
        );
        assert_eq!(index_url("--index-strategy unsafe-best-match"), None);
        assert!(installs_torch(
            "pip install --index-url https://rocm.nightlies.amd.com/v2/gfx1151/ torch torchvision --force-reinstall"
        ));
        assert!(installs_torch(
            "uv pip install --index-url https://x/ \"torch[device-gfx1100]==2.10.0\""
        ));
        assert!(!installs_torch(
            "pip install --index-url https://x/ torchvision torchaudio"
        ));
        assert!(!installs_torch(
            "pip install --index-url https://x/ rocm[libraries,devel]"
        ));
        assert!(!installs_torch("pip download --index-url https://x/ torch"));
        // a Markdown link or an autolink around the URL
        assert_eq!(
            index_url("pip install --index-url [https://rocm.nightlies.amd.com/v2/gfx1151/](https://rocm.nightlies.amd.com/v2/gfx1151/) torch").as_deref(),
            Some("https://rocm.nightlies.amd.com/v2/gfx1151/")
        );
        assert_eq!(
            index_url("pip install --index-url <https://repo.amd.com/rocm/whl/gfx1100/> torch").as_deref(),
            Some("https://repo.amd.com/rocm/whl/gfx1100/")
        );
    }
}
