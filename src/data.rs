//! Matrix data apart from the binary: signed data bundles, the user cache that
//! `rocmcheck matrix update` installs them into, and which data a command uses.
//!
//! A *data bundle* is an uncompressed tar (`rocmcheck-data.tar`) holding `manifest.json`
//! ([`Manifest`]: bundle format, matrix schema, `data:` date, serial) and `matrix/*.yaml`, the
//! same files `matrix validate` checks. Its minisign signature is `rocmcheck-data.tar.minisig`.
//! The YAML, not the packed form the binary embeds, travels: the schema number governs the YAML
//! layout, so a bundle made by a newer rocmcheck is judged by *this* binary's validator (the one
//! `matrix validate` runs) rather than decoded into types that may have changed.
//!
//! The cache (`$ROCMCHECK_CACHE_DIR`, else `$XDG_CACHE_HOME/rocmcheck`, else
//! `~/.cache/rocmcheck`) is one file, `matrix.cache`: a magic line, a header line (the manifest,
//! where the bundle came from, the key that verified it, the layout of this build's matrix
//! types), a line of section sizes, then the validated matrix packed as the embedded one is (so
//! start-up only decodes it), the verified bundle and its signature. An update writes it to a
//! temporary file in the same directory and renames it into place: one rename switches header
//! and data together, so a stopped update leaves the previous data whole or the new data whole,
//! never one under the other's header. `update.lock` serialises concurrent updates; an update
//! removes the temporary files a killed one left. A cache in the earlier layout (`matrix.cache`
//! holding header and packed matrix, the bundle beside it in `rocmcheck-data.tar`) is still
//! read, its bundle used only when its manifest is the header's, and is replaced by the next
//! update.

use crate::matrix::{DataKind, Matrix, Provenance, validate};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The data bundle layout this binary reads and writes.
pub const BUNDLE_FORMAT: u32 = 1;

/// The GitHub repository page the data releases are published in: `repository` in Cargo.toml,
/// the one place the owner is written (`<owner>` until the repository exists; see
/// scripts/set-owner.sh).
pub const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// The release tag the matrix-data workflow job publishes the bundle under (a fixed prerelease,
/// so binary releases never move it; see the README, "Keeping the data current").
pub const DATA_RELEASE_TAG: &str = "matrix-data";

/// The bundle's asset name (its signature is this name + `.minisig`).
pub const BUNDLE_ASSET: &str = "rocmcheck-data.tar";

/// The public keys whose signatures `matrix update` accepts, in minisign's base64 form. Key
/// rotation: a new key is added here one release before bundles are signed with it, and the old
/// one is dropped a release after (README, "Keeping the data current").
/// Key 2 (id 59EF034CD8B0F10C), generated 2026-11-23 with `minisign -G -W` (the tool the
/// data-release job signs with). It replaces key 1 (225C64543460C58B), whose private half was
/// never stored anywhere and is gone: no bundle signed by key 1 was ever published. The private
/// half of key 2 is not in the repository; the maintainer generates their own pair when the
/// repository is created, puts the public half here and the private half in the
/// MATRIX_DATA_SIGNING_KEY secret (README, "Keeping the data current").
pub const TRUSTED_KEYS: &[&str] = &["RWQM8bDYTAPvWS30ffLpeqOJHfY36768i1uQlKzuw7O6Sc379BI/5i2R"];

/// The largest bundle accepted (the YAML of today's matrix is well under 1 MiB).
pub const MAX_BUNDLE_BYTES: usize = 32 << 20;

/// The largest `.minisig` read (a minisign signature is a few hundred bytes).
pub const MAX_SIGNATURE_BYTES: usize = 64 << 10;

/// The layout fingerprint of this build's `Matrix` types (build.rs): a cache written by a build
/// with another one is re-derived from the bundle.
pub const LAYOUT: &str = env!("ROCMCHECK_MATRIX_LAYOUT");

/// The first line of a cache file: header and packed matrix, the bundle apart.
const CACHE_MAGIC_V1: &str = "rocmcheck matrix cache 1";
/// The first line of a cache file holding header, packed matrix, bundle and signature.
const CACHE_MAGIC: &str = "rocmcheck matrix cache 2";
const CACHE_FILE: &str = "matrix.cache";
const LOCK_FILE: &str = "update.lock";

/// The default bundle URL (`--from` overrides it).
pub fn default_url() -> String {
    format!(
        "{}/releases/download/{DATA_RELEASE_TAG}/{BUNDLE_ASSET}",
        REPOSITORY.trim_end_matches('/')
    )
}

/// The release tag of one data serial: every data release is also published, never moved,
/// under `matrix-data-<serial>` (the `matrix-data` tag always holds the newest).
pub fn serial_tag(serial: u64) -> String {
    format!("{DATA_RELEASE_TAG}-{serial}")
}

/// The bundle URL of one data serial (`matrix update --serial N`, for reproducible CI).
pub fn serial_url(serial: u64) -> String {
    format!(
        "{}/releases/download/{}/{BUNDLE_ASSET}",
        REPOSITORY.trim_end_matches('/'),
        serial_tag(serial)
    )
}

/// What a bundle says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`BUNDLE_FORMAT`] of the writer.
    pub format: u32,
    /// The matrix schema of the YAML.
    pub schema: u32,
    /// The matrix `data:` date.
    pub data: String,
    /// Monotonically increasing across data releases (the publishing workflow uses the UTC
    /// time of the build in seconds).
    pub serial: u64,
}

/// What the cache header records besides the manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct CacheHeader {
    layout: String,
    manifest: Manifest,
    /// URL or file the bundle came from.
    from: String,
    /// `built-in <id>` or `--trusted-key <id>`.
    key: String,
}

/// Why a bundle was not installed. Nothing in the cache changed.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    /// Reading or downloading failed.
    #[error("{0}")]
    Fetch(String),
    /// The signature does not verify.
    #[error("{0}")]
    Signature(String),
    /// Not a bundle, or a broken one.
    #[error("{0}")]
    Bundle(String),
    /// Made for a newer rocmcheck.
    #[error(
        "the data bundle uses matrix schema {got} (bundle format {format}); this rocmcheck understands schema {have} (format {BUNDLE_FORMAT}): upgrade rocmcheck to use this data. Nothing was changed."
    )]
    NewerSchema {
        /// Bundle's schema.
        got: u32,
        /// Bundle's format.
        format: u32,
        /// This binary's schema.
        have: u32,
    },
    /// Older than what is installed.
    #[error(
        "the data bundle has serial {got}, older than the installed serial {have}: refusing to go back (nothing was changed)"
    )]
    OlderSerial {
        /// Bundle's serial.
        got: u64,
        /// Installed serial.
        have: u64,
    },
    /// Not the serial asked for (`matrix update --serial N`).
    #[error(
        "the data bundle from {from} has serial {got}, not the pinned serial {want}: refusing it (nothing was changed)"
    )]
    WrongSerial {
        /// Where it came from.
        from: String,
        /// Bundle's serial.
        got: u64,
        /// The pinned serial.
        want: u64,
    },
    /// The matrix does not validate.
    #[error("the data bundle's matrix does not validate ({} problem(s)):\n{}", .0.len(), .0.join("\n"))]
    Invalid(Vec<String>),
    /// Writing the cache failed.
    #[error("cannot write the cache in {dir}: {message}")]
    Cache {
        /// The cache directory.
        dir: String,
        /// What failed.
        message: String,
    },
}

/// A bundle whose signature verified and whose matrix validated.
#[derive(Debug)]
pub struct Verified {
    /// Its manifest.
    pub manifest: Manifest,
    /// Its matrix.
    pub matrix: Matrix,
    /// Which key verified it.
    pub key: String,
}

/// A public key `matrix update` trusts, with how it came to be trusted.
pub struct TrustedKey {
    key: minisign_verify::PublicKey,
    label: String,
}

impl TrustedKey {
    /// A key in minisign's base64 form (the second line of a `minisign.pub` file).
    fn parse(b64: &str) -> Option<(minisign_verify::PublicKey, String)> {
        let key = minisign_verify::PublicKey::from_base64(b64.trim()).ok()?;
        Some((key, key_id(b64.trim())))
    }

    /// The keys built into this binary.
    pub fn builtin() -> Vec<TrustedKey> {
        TRUSTED_KEYS
            .iter()
            .filter_map(|k| TrustedKey::parse(k))
            .map(|(key, id)| TrustedKey {
                label: format!("built-in key {id}"),
                key,
            })
            .collect()
    }

    /// A minisign public key file given as `--trusted-key FILE`.
    pub fn from_file(path: &Path) -> Result<TrustedKey, String> {
        let text = crate::input::read_text(path, 4096).map_err(|e| format!("--trusted-key {}: {e}", path.display()))?;
        let line = text
            .lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))
            .unwrap_or("");
        let (key, id) = TrustedKey::parse(line).ok_or_else(|| {
            format!(
                "--trusted-key {}: expected a minisign public key (the `minisign.pub` file, or its base64 line)",
                path.display()
            )
        })?;
        Ok(TrustedKey {
            label: format!("--trusted-key key {id} ({})", path.display()),
            key,
        })
    }
}

/// A minisign key id as `minisign` prints it (hex, most significant byte first): the base64 form
/// is `Ed` + id (8 bytes, little endian) + key (32 bytes).
fn key_id(b64: &str) -> String {
    base64_decode(b64)
        .and_then(|b| {
            b.get(2..10)
                .map(|id| id.iter().rev().map(|b| format!("{b:02X}")).collect())
        })
        .unwrap_or_else(|| "?".into())
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter(|&c| c != b'=') {
        acc = (acc << 6) | val(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

// ------------------------------------------------------------------------------- bundles

/// Writes a bundle of the matrix `files` (name → text) with `serial`; validates them first with
/// the `matrix validate` validator. The tar is deterministic (fixed mode, owner and time).
pub fn build_bundle(files: &BTreeMap<String, String>, serial: u64) -> Result<Vec<u8>, UpdateError> {
    let m = validate::load("<bundle>", files)
        .map_err(|d| UpdateError::Invalid(d.iter().map(|d| d.to_string()).collect()))?;
    let manifest = Manifest {
        format: BUNDLE_FORMAT,
        schema: m.schema,
        data: m.data.clone(),
        serial,
    };
    let mut tar = tar::Builder::new(Vec::new());
    let mut add = |name: &str, body: &[u8]| -> std::io::Result<()> {
        let mut h = tar::Header::new_ustar();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut h, name, body)
    };
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| UpdateError::Bundle(e.to_string()))?;
    let io = |e: std::io::Error| UpdateError::Bundle(format!("cannot write the tar: {e}"));
    add("manifest.json", &json).map_err(io)?;
    for name in validate::FILES {
        if let Some(text) = files.get(*name) {
            add(&format!("matrix/{name}"), text.as_bytes()).map_err(io)?;
        }
    }
    tar.into_inner().map_err(io)
}

/// Checks `sig` (a `.minisig` file's text) over `bundle` against `keys`; the label of the key
/// that verified it.
pub fn verify_signature(bundle: &[u8], sig: &str, keys: &[TrustedKey]) -> Result<String, UpdateError> {
    let sig = minisign_verify::Signature::decode(sig)
        .map_err(|e| UpdateError::Signature(format!("the signature file is not a minisign signature: {e}")))?;
    let mut mismatch = false;
    for k in keys {
        match k.key.verify(bundle, &sig, false) {
            Ok(()) => return Ok(k.label.clone()),
            Err(minisign_verify::Error::UnexpectedKeyId) => {}
            Err(_) => mismatch = true,
        }
    }
    Err(UpdateError::Signature(if mismatch {
        "the bundle does not match its signature (tampered with, or truncated): refusing it; nothing was changed".into()
    } else {
        let ids: Vec<String> = keys.iter().map(|k| k.label.clone()).collect();
        format!(
            "the bundle is signed by a key this rocmcheck does not trust (trusted: {}); nothing was changed",
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        )
    }))
}

/// Reads a bundle's manifest and matrix files (no signature check: [`verify_signature`] first).
pub fn read_bundle(bundle: &[u8]) -> Result<(Manifest, BTreeMap<String, String>), UpdateError> {
    let bad = |m: String| UpdateError::Bundle(format!("not a rocmcheck data bundle: {m}"));
    let mut manifest = None;
    let mut files = BTreeMap::new();
    let mut ar = tar::Archive::new(bundle);
    for entry in ar.entries().map_err(|e| bad(e.to_string()))? {
        let mut entry = entry.map_err(|e| bad(e.to_string()))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .map_err(|e| bad(e.to_string()))?
            .to_string_lossy()
            .into_owned();
        let mut body = String::new();
        entry
            .by_ref()
            .take(MAX_BUNDLE_BYTES as u64)
            .read_to_string(&mut body)
            .map_err(|e| bad(format!("{name}: {e}")))?;
        if name == "manifest.json" {
            manifest = Some(serde_json::from_str::<Manifest>(&body).map_err(|e| bad(format!("manifest.json: {e}")))?);
        } else if let Some(f) = name.strip_prefix("matrix/") {
            if validate::FILES.contains(&f) {
                if files.insert(f.to_string(), body).is_some() {
                    return Err(bad(format!("{name} appears twice")));
                }
            }
        }
    }
    let manifest = manifest.ok_or_else(|| bad("no manifest.json".into()))?;
    Ok((manifest, files))
}

/// Checks the manifest against this binary and validates the matrix (the `matrix validate`
/// validator): what `matrix update` installs.
pub fn check(manifest: &Manifest, files: &BTreeMap<String, String>, origin: &str) -> Result<Matrix, UpdateError> {
    if manifest.format > BUNDLE_FORMAT || manifest.schema > crate::matrix::SCHEMA {
        return Err(UpdateError::NewerSchema {
            got: manifest.schema,
            format: manifest.format,
            have: crate::matrix::SCHEMA,
        });
    }
    let m =
        validate::load(origin, files).map_err(|d| UpdateError::Invalid(d.iter().map(|d| d.to_string()).collect()))?;
    if m.schema != manifest.schema || m.data != manifest.data {
        return Err(UpdateError::Bundle(format!(
            "the manifest says schema {} data {}, the matrix says schema {} data {}",
            manifest.schema, manifest.data, m.schema, m.data
        )));
    }
    Ok(m)
}

/// Verifies and checks a downloaded bundle.
pub fn open(bundle: &[u8], sig: &str, keys: &[TrustedKey], origin: &str) -> Result<Verified, UpdateError> {
    let key = verify_signature(bundle, sig, keys)?;
    let (manifest, files) = read_bundle(bundle)?;
    let matrix = check(&manifest, &files, origin)?;
    Ok(Verified { manifest, matrix, key })
}

// --------------------------------------------------------------------------------- cache

/// The cache directory: `$ROCMCHECK_CACHE_DIR`, else `$XDG_CACHE_HOME/rocmcheck`, else
/// `$HOME/.cache/rocmcheck`.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(d) = var("ROCMCHECK_CACHE_DIR") {
        return Some(d);
    }
    if let Some(d) = var("XDG_CACHE_HOME").filter(|d| d.is_absolute()) {
        return Some(d.join("rocmcheck"));
    }
    var("HOME").map(|h| h.join(".cache").join("rocmcheck"))
}

/// What [`install`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Installed {
    /// Installed; the serial it replaced.
    New {
        /// The serial installed before, if any.
        previous: Option<u64>,
    },
    /// The cache already holds this serial.
    AlreadyCurrent,
}

/// In debug builds, `ROCMCHECK_TEST_FAULT=<point>` aborts the process at that point of an
/// update (as a kill would stop it there), for the tests that check what a stopped update
/// leaves. Points: `locked`, `written` (the new cache file complete under its temporary name),
/// `renamed` (in place, stale files not yet removed).
fn fault_point(point: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("ROCMCHECK_TEST_FAULT").is_ok_and(|v| v == point) {
        let _ = writeln!(std::io::stderr(), "ROCMCHECK_TEST_FAULT: stopping at `{point}`");
        std::process::abort();
    }
    #[cfg(not(debug_assertions))]
    let _ = point;
}

/// Writes `dir/name` through a temporary file in `dir` (`.name.XXXXXX`) renamed into place.
fn write_atomic(dir: &Path, name: &str, body: &[&[u8]]) -> std::io::Result<()> {
    let mut tmp = tempfile::Builder::new().prefix(&format!(".{name}.")).tempfile_in(dir)?;
    for part in body {
        tmp.write_all(part)?;
    }
    tmp.as_file().sync_all()?;
    fault_point("written");
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    fault_point("renamed");
    Ok(())
}

/// Removes what an update stopped by a kill left in `dir`: temporary files of the cache (and of
/// the bundle and signature the earlier layout kept beside it). Called under the update lock.
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let prefixes = [
        format!(".{CACHE_FILE}."),
        format!(".{BUNDLE_ASSET}."),
        format!(".{BUNDLE_ASSET}.minisig."),
    ];
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let temporary = prefixes.iter().any(|p| {
            name.strip_prefix(p.as_str())
                .is_some_and(|rest| !rest.is_empty() && !rest.contains('.'))
        });
        if temporary && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Takes the update lock of `dir` (created if need be); `wait`: block until it is free, else
/// `None` when another process holds it.
fn lock_cache(dir: &Path, wait: bool) -> std::io::Result<Option<std::fs::File>> {
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK_FILE))?;
    if wait {
        lock.lock()?;
    } else if lock.try_lock().is_err() {
        return Ok(None);
    }
    Ok(Some(lock))
}

/// Installs a verified bundle into `dir` under the update lock: refuses an older serial than the
/// installed one unless `pinned` (`matrix update --serial N`: exactly that serial was asked for,
/// older or not; the caller has checked the bundle is that serial); removes the temporary files
/// a stopped update left; writes the cache file (header, packed matrix, bundle, signature) to a
/// temporary file renamed into place, so until the rename the previous data stays in use, whole.
pub fn install(
    dir: &Path,
    v: &Verified,
    bundle: &[u8],
    sig: &str,
    from: &str,
    pinned: bool,
) -> Result<Installed, UpdateError> {
    let cache_err = |e: std::io::Error| UpdateError::Cache {
        dir: dir.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(cache_err)?;
    let lock = lock_cache(dir, true).map_err(cache_err)?;
    fault_point("locked");
    remove_stale_temporaries(dir);
    let current = read_header(dir).ok().map(|c| c.header);
    if let Some(h) = &current {
        if v.manifest.serial < h.manifest.serial && !pinned {
            return Err(UpdateError::OlderSerial {
                got: v.manifest.serial,
                have: h.manifest.serial,
            });
        }
        if v.manifest.serial == h.manifest.serial && h.layout == LAYOUT {
            return Ok(Installed::AlreadyCurrent);
        }
    }
    let header = CacheHeader {
        layout: LAYOUT.into(),
        manifest: v.manifest.clone(),
        from: from.into(),
        key: v.key.clone(),
    };
    write_cache(dir, &header, &v.matrix, bundle, sig.as_bytes()).map_err(cache_err)?;
    remove_earlier_layout(dir);
    drop(lock);
    Ok(Installed::New {
        previous: current.map(|h| h.manifest.serial),
    })
}

/// Removes the bundle and signature the earlier layout kept beside the cache file (the cache
/// file now holds them).
fn remove_earlier_layout(dir: &Path) {
    for name in [BUNDLE_ASSET.to_string(), format!("{BUNDLE_ASSET}.minisig")] {
        let p = dir.join(name);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The sizes of the cache file's sections after its header, in order.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Sections {
    packed: u64,
    bundle: u64,
    signature: u64,
}

fn write_cache(dir: &Path, header: &CacheHeader, m: &Matrix, bundle: &[u8], sig: &[u8]) -> std::io::Result<()> {
    let packed = validate::pack_matrix(m).map_err(std::io::Error::other)?;
    let mut head = format!("{CACHE_MAGIC}\n").into_bytes();
    serde_json::to_writer(&mut head, header)?;
    head.push(b'\n');
    let sections = Sections {
        packed: packed.len() as u64,
        bundle: bundle.len() as u64,
        signature: sig.len() as u64,
    };
    serde_json::to_writer(&mut head, &sections)?;
    head.push(b'\n');
    write_atomic(dir, CACHE_FILE, &[&head, &packed, bundle, sig])
}

/// A cache file read up to its data.
struct Cached {
    header: CacheHeader,
    /// Positioned at the packed matrix.
    rest: std::io::BufReader<std::fs::File>,
    /// `None`: the earlier layout (the packed matrix to the end, the bundle in its own file).
    sections: Option<Sections>,
}

/// The cache file's header, and a reader positioned at the packed matrix: a start-up whose
/// embedded data is as new reads only the header lines.
fn read_header(dir: &Path) -> Result<Cached, String> {
    use std::io::BufRead;
    let path = dir.join(CACHE_FILE);
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut r = std::io::BufReader::new(crate::input::open_regular(&path).map_err(|e| at(&e))?);
    let mut line = Vec::new();
    let mut next_line = |r: &mut std::io::BufReader<std::fs::File>, max: u64| -> Result<Vec<u8>, String> {
        line.clear();
        r.by_ref().take(max).read_until(b'\n', &mut line).map_err(|e| at(&e))?;
        Ok(line.strip_suffix(b"\n").unwrap_or(&line).to_vec())
    };
    let magic = next_line(&mut r, 4096)?;
    let current = if magic == CACHE_MAGIC.as_bytes() {
        true
    } else if magic == CACHE_MAGIC_V1.as_bytes() {
        false
    } else {
        return Err(at(&"not a rocmcheck matrix cache"));
    };
    let header: CacheHeader = serde_json::from_slice(&next_line(&mut r, 64 << 10)?).map_err(|e| at(&e))?;
    let sections = if current {
        Some(serde_json::from_slice(&next_line(&mut r, 4096)?).map_err(|e| at(&e))?)
    } else {
        None
    };
    Ok(Cached {
        header,
        rest: r,
        sections,
    })
}

/// The cached matrix, if there is one newer than `than` (a `data:` date; ties go to the
/// embedded data, which needs no decoding). A cache written by a build with other matrix types
/// is re-derived from its bundle (validated again) and rewritten. `Err`: a cache that is there
/// but unusable (the caller says so in one notice line and uses the embedded data).
pub fn cached_newer_than(dir: &Path, than: &str) -> Result<Option<Matrix>, String> {
    if !dir.join(CACHE_FILE).exists() {
        return Ok(None);
    }
    let cached = read_header(dir)?;
    if cached.header.manifest.data.as_str() <= than {
        return Ok(None);
    }
    decode_cached(dir, cached).map(Some)
}

/// The cached matrix of exactly data serial `serial` (`--data-serial` / `ROCMCHECK_DATA_SERIAL`),
/// whatever its date: a pinned serial is used even where the embedded data is newer, so a run
/// pinned to it answers the same on every rocmcheck that understands its schema. `Err`: the
/// cache holds no bundle or another serial (the message says which and what to run).
pub fn cached_with_serial(dir: &Path, serial: u64) -> Result<Matrix, String> {
    let fix = format!("run `rocmcheck matrix update --serial {serial}` first");
    if !dir.join(CACHE_FILE).exists() {
        return Err(format!("the cache {} holds no data bundle; {fix}", dir.display()));
    }
    let cached = read_header(dir)?;
    let h = &cached.header.manifest;
    if h.serial != serial {
        return Err(format!(
            "the cache {} holds data serial {} ({}), not {serial}; {fix}",
            dir.display(),
            h.serial,
            h.data
        ));
    }
    decode_cached(dir, cached)
}

/// A cached bundle read back: its manifest, its files, the bundle and its signature.
type CachedBundle = (Manifest, BTreeMap<String, String>, Vec<u8>, Vec<u8>);

/// The cached bundle and signature, for a cache written by a build with other matrix types.
/// The bundle's manifest must be the header's: in the earlier layout the bundle is a file of its
/// own, and one from another update is refused, never read under this header.
fn cached_bundle(dir: &Path, cached: &mut Cached) -> Result<CachedBundle, String> {
    let path = dir.join(CACHE_FILE);
    let (bundle, sig, origin) = match cached.sections {
        Some(s) => {
            let mut read = |n: u64| -> Result<Vec<u8>, String> {
                let mut v = Vec::new();
                cached
                    .rest
                    .by_ref()
                    .take(n)
                    .read_to_end(&mut v)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                if v.len() as u64 == n {
                    Ok(v)
                } else {
                    Err(format!(
                        "{}: truncated (a section is shorter than its size)",
                        path.display()
                    ))
                }
            };
            if s.bundle as usize > MAX_BUNDLE_BYTES || s.signature as usize > MAX_SIGNATURE_BYTES {
                return Err(format!("{}: a section is larger than a bundle may be", path.display()));
            }
            read(s.packed)?;
            (read(s.bundle)?, read(s.signature)?, path.display().to_string())
        }
        None => {
            let b = dir.join(BUNDLE_ASSET);
            let bundle =
                crate::input::read_regular(&b, MAX_BUNDLE_BYTES).map_err(|e| format!("{}: {e}", b.display()))?;
            let mut sig_path = b.as_os_str().to_owned();
            sig_path.push(".minisig");
            let sig = crate::input::read_regular(Path::new(&sig_path), MAX_SIGNATURE_BYTES).unwrap_or_default();
            (bundle, sig, b.display().to_string())
        }
    };
    let (manifest, files) = read_bundle(&bundle).map_err(|e| e.to_string())?;
    if manifest != cached.header.manifest {
        return Err(format!(
            "{origin}: the bundle is data serial {} ({}) but the cache header says serial {} ({}): an interrupted update; run `rocmcheck matrix update`",
            manifest.serial, manifest.data, cached.header.manifest.serial, cached.header.manifest.data
        ));
    }
    Ok((manifest, files, bundle, sig))
}

fn decode_cached(dir: &Path, mut cached: Cached) -> Result<Matrix, String> {
    let path = dir.join(CACHE_FILE);
    let mut m = if cached.header.layout == LAYOUT {
        let mut packed = Vec::new();
        let limit = cached.sections.map_or(u64::MAX, |s| s.packed);
        cached
            .rest
            .by_ref()
            .take(limit)
            .read_to_end(&mut packed)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        validate::load_packed(&path.display().to_string(), &packed)
            .map_err(|d| d.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("; "))?
    } else {
        let (manifest, files, bundle, sig) = cached_bundle(dir, &mut cached)?;
        let m = check(&manifest, &files, &path.display().to_string()).map_err(|e| e.to_string())?;
        let header = CacheHeader {
            layout: LAYOUT.into(),
            manifest,
            ..cached.header.clone()
        };
        // Best effort, when no update is under way: the next start decodes instead of
        // validating again. Only over the file read: an update may have replaced it since.
        if let Ok(Some(lock)) = lock_cache(dir, false) {
            let unchanged = read_header(dir)
                .is_ok_and(|now| now.header.manifest == header.manifest && now.header.layout == cached.header.layout);
            if unchanged && write_cache(dir, &header, &m, &bundle, &sig).is_ok() {
                remove_earlier_layout(dir);
            }
            drop(lock);
        }
        m
    };
    let header = cached.header;
    m.provenance = Provenance {
        kind: DataKind::Cache,
        path: Some(path.display().to_string()),
        serial: Some(header.manifest.serial),
        fetched_from: Some(header.from),
        key: Some(header.key),
    };
    Ok(m)
}

/// The serial installed in `dir`, if any.
pub fn installed_serial(dir: &Path) -> Option<u64> {
    read_header(dir).ok().map(|c| c.header.manifest.serial)
}

// ------------------------------------------------------------------------------- fetching

/// Reads `from` (a URL or a file) and its `.minisig`. `offline`: a URL is refused without any
/// connection.
pub fn fetch(from: &str, offline: bool, timeout: std::time::Duration) -> Result<(Vec<u8>, String), UpdateError> {
    let is_url = from.starts_with("http://") || from.starts_with("https://");
    if !is_url {
        let path = Path::new(from.strip_prefix("file://").unwrap_or(from));
        let read = |p: &Path, max: usize| -> Result<Vec<u8>, UpdateError> {
            crate::input::read_regular(p, max).map_err(|e| UpdateError::Fetch(format!("{}: {e}", p.display())))
        };
        let bundle = read(path, MAX_BUNDLE_BYTES)?;
        let mut sig_path = path.as_os_str().to_owned();
        sig_path.push(".minisig");
        let sig = String::from_utf8(read(Path::new(&sig_path), MAX_SIGNATURE_BYTES)?)
            .map_err(|_| UpdateError::Signature(format!("{}: not text", Path::new(&sig_path).display())))?;
        return Ok((bundle, sig));
    }
    if offline {
        return Err(UpdateError::Fetch(format!(
            "offline (--offline or ROCMCHECK_OFFLINE): not downloading {from}; give a bundle on disk with --from FILE"
        )));
    }
    if from.contains("/<owner>/") {
        return Err(UpdateError::Fetch(format!(
            "this build has no data release URL ({from} names the placeholder owner; `repository` in Cargo.toml sets it): use --from URL|FILE"
        )));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| UpdateError::Fetch(format!("cannot start the runtime: {e}")))?;
    rt.block_on(async {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .user_agent(concat!("rocmcheck/", env!("CARGO_PKG_VERSION"), " (matrix update)"))
            .redirect(reqwest::redirect::Policy::limited(10))
            .build()
            .map_err(|e| UpdateError::Fetch(format!("cannot create the HTTP client: {e}")))?;
        let bundle = get(&client, from).await?;
        let sig = get(&client, &format!("{from}.minisig")).await?;
        let sig = String::from_utf8(sig).map_err(|_| UpdateError::Signature(format!("{from}.minisig: not text")))?;
        Ok((bundle, sig))
    })
}

async fn get(client: &reqwest::Client, url: &str) -> Result<Vec<u8>, UpdateError> {
    let fail = |m: String| UpdateError::Fetch(format!("downloading {url}: {m}; nothing was changed"));
    let mut resp = client.get(url).send().await.map_err(|e| fail(chain(&e)))?;
    if !resp.status().is_success() {
        return Err(fail(format!("HTTP {}", resp.status())));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| fail(chain(&e)))? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BUNDLE_BYTES {
            return Err(fail(format!("larger than {MAX_BUNDLE_BYTES} bytes")));
        }
    }
    Ok(body)
}

/// An error with its causes (`error sending request …: tcp connect error: Connection refused`).
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_keys_parse_and_have_ids() {
        let keys = TrustedKey::builtin();
        assert_eq!(keys.len(), TRUSTED_KEYS.len(), "every built-in key must parse");
        for k in &keys {
            assert!(k.label.starts_with("built-in key "), "{}", k.label);
            assert_eq!(k.label.len(), "built-in key ".len() + 16, "{}", k.label);
        }
        assert_eq!(
            keys[0].label, "built-in key 59EF034CD8B0F10C",
            "the id minisign printed"
        );
    }

    #[test]
    fn the_embedded_date_known_without_decoding_is_the_decoded_one() {
        assert_eq!(crate::matrix::embedded::data(), Matrix::embedded().data);
    }

    #[test]
    fn a_bundle_of_the_embedded_matrix_reads_back_and_checks() {
        let files = crate::matrix::embedded::files();
        let tar = build_bundle(&files, 7).unwrap();
        assert_eq!(build_bundle(&files, 7).unwrap(), tar, "deterministic");
        let (man, back) = read_bundle(&tar).unwrap();
        assert_eq!(man.serial, 7);
        assert_eq!(back, files);
        let m = check(&man, &back, "t").unwrap();
        assert_eq!(m.data, Matrix::embedded().data);
        let newer = Manifest {
            schema: crate::matrix::SCHEMA + 1,
            ..man.clone()
        };
        let e = check(&newer, &back, "t").unwrap_err().to_string();
        assert!(e.contains("upgrade rocmcheck"), "{e}");
        assert!(read_bundle(b"not a tar at all, just text").is_err());
    }
}
