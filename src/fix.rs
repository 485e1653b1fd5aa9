//! Applying fixes: the one place where [`Fix`] edits turn into new file text, and where the new
//! text is written back (atomically, never over a file that changed since it was read).
//!
//! Rules compute fixes as data ([`crate::finding::Fix`]); renderers only print them; this module
//! applies them. Fixes whose edits overlap an already accepted one wait for the next pass (the
//! file is linted again between passes, like ruff), so every applied edit was computed on the
//! text it applies to.

use crate::finding::{Applicability, Edit, Finding, Fix};
use std::io::Write;
use std::path::Path;

/// How many lint → fix passes a file gets at most.
pub const MAX_PASSES: usize = 10;

/// Which fixes to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Safe fixes only (`--fix`).
    Safe,
    /// Safe and unsafe (`--unsafe-fixes`).
    Unsafe,
}

impl Mode {
    /// Does a fix of this applicability apply?
    pub fn allows(self, a: Applicability) -> bool {
        self == Mode::Unsafe || a == Applicability::Safe
    }
}

fn overlaps(a: &Edit, b: &Edit) -> bool {
    // two insertions at one point, or an insertion at a replacement's start, are ambiguous too
    a.start == b.start || (a.start < b.end && b.start < a.end)
}

/// Applies the fixes that do not overlap each other (in order of position; a fix is taken
/// whole or not at all) to `text`, the content of `path`. Returns the new text and the indexes
/// of the fixes applied. Edits for another path, or outside the text or off a character
/// boundary, make their fix be skipped.
pub fn apply(text: &str, path: &str, fixes: &[&Fix]) -> (String, Vec<usize>) {
    let mut order: Vec<usize> = (0..fixes.len()).collect();
    order.sort_by_key(|&i| fixes[i].edits.first().map(|e| (e.start, e.end)));
    let mut taken: Vec<&Edit> = Vec::new();
    let mut applied = Vec::new();
    for i in order {
        let f = fixes[i];
        let ok = f.edits.iter().all(|e| {
            e.path == path
                && e.start <= e.end
                && e.end <= text.len()
                && text.is_char_boundary(e.start)
                && text.is_char_boundary(e.end)
                && !taken.iter().any(|t| overlaps(t, e))
        });
        if ok {
            taken.extend(f.edits.iter());
            applied.push(i);
        }
    }
    taken.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for e in taken {
        out.push_str(&text[at..e.start]);
        out.push_str(&e.content);
        at = e.end;
    }
    out.push_str(&text[at..]);
    applied.sort_unstable();
    (out, applied)
}

/// A file's line endings, so that fixes computed on its LF text (see
/// [`crate::dockerfile::parse::decode`]) are written back with the endings it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// LF (or no line break at all).
    Lf,
    /// CR LF on most lines (a file with mixed endings is written back with its majority).
    CrLf,
}

impl LineEnding {
    /// The LF text of `text` and the endings to write it back with.
    pub fn split(text: &str) -> (std::borrow::Cow<'_, str>, LineEnding) {
        let crlf = text.matches("\r\n").count();
        if crlf == 0 {
            return (std::borrow::Cow::Borrowed(text), LineEnding::Lf);
        }
        let lf = text.matches('\n').count() - crlf;
        let e = if crlf >= lf { LineEnding::CrLf } else { LineEnding::Lf };
        (std::borrow::Cow::Owned(text.replace("\r\n", "\n")), e)
    }

    /// `lf_text` with these endings.
    pub fn restore(self, lf_text: &str) -> String {
        match self {
            LineEnding::Lf => lf_text.to_string(),
            LineEnding::CrLf => lf_text.replace('\n', "\r\n"),
        }
    }
}

/// What fixing one file did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The text after all passes.
    pub text: String,
    /// The findings fixed, in the order applied (code, fix title).
    pub fixed: Vec<(&'static str, String)>,
    /// The findings of the final text.
    pub findings: Vec<Finding>,
}

/// Fix → lint again, up to [`MAX_PASSES`] times, on one file's text whose findings are
/// `findings`. `lint` returns the findings for a text, or None when the text no longer parses
/// (then the passes stop and the last text that parsed is kept: a fix never makes a file
/// unreadable). Each text is linted once.
pub fn fix_text(
    text: &str,
    path: &str,
    mode: Mode,
    findings: Vec<Finding>,
    mut lint: impl FnMut(&str) -> Option<Vec<Finding>>,
) -> Outcome {
    let mut out = Outcome {
        text: text.to_string(),
        fixed: Vec::new(),
        findings,
    };
    for _ in 0..MAX_PASSES {
        let fixable: Vec<(&Finding, &Fix)> = out
            .findings
            .iter()
            .filter_map(|f| f.autofix.as_ref().map(|x| (f, x)))
            .filter(|(_, x)| mode.allows(x.applicability))
            .collect();
        if fixable.is_empty() {
            break;
        }
        let fixes: Vec<&Fix> = fixable.iter().map(|(_, x)| *x).collect();
        let (new, applied) = apply(&out.text, path, &fixes);
        if applied.is_empty() || new == out.text {
            break;
        }
        let Some(next) = lint(&new) else { break };
        let fixed: Vec<(&'static str, String)> = applied
            .iter()
            .map(|&i| (fixable[i].0.code, fixable[i].1.title.clone()))
            .collect();
        out.fixed.extend(fixed);
        out.text = new;
        out.findings = next;
    }
    out
}

/// Why a fixed file was not written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The file is not what was read any more.
    #[error("changed on disk since it was read; not overwritten (run rocmcheck again)")]
    Changed,
    /// The file has no write permission: its mode is kept and it is left as it is.
    #[error("read-only (mode {0:04o}); not overwritten (make it writable to apply the fixes)")]
    ReadOnly(u32),
    /// The path (or the file a link points to) is not a regular file.
    #[error("not a regular file; not overwritten")]
    NotRegular,
    /// An I/O error.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Writes `new` over the file at `path`, only if the file still holds `old`, keeping its
/// permissions and owner:
/// - through a symbolic link, the file the link points to is written and the link stays a link;
/// - a file without write permission (for this user, or for anyone: mode 0444 even when
///   running as root) is refused, not replaced;
/// - a file with several hard links is rewritten in place (the same inode, so every link sees
///   the fix);
/// - otherwise atomically: a temporary file in the same directory, then a rename.
pub fn write_atomic(path: &Path, old: &[u8], new: &[u8]) -> Result<(), WriteError> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let real = std::fs::canonicalize(path)?;
    let meta = std::fs::metadata(&real)?;
    if !meta.is_file() {
        return Err(WriteError::NotRegular);
    }
    if meta.permissions().readonly() || !writable(&real) {
        return Err(WriteError::ReadOnly(meta.permissions().mode() & 0o7777));
    }
    if meta.nlink() > 1 {
        return write_in_place(&real, old, new);
    }
    let dir = match real.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".rocmcheck-fix").tempfile_in(dir)?;
    tmp.write_all(new)?;
    tmp.as_file().sync_all()?;
    // the owner may differ when run by another user who may write the file (root): kept where
    // the system lets us, else the file is owned by whoever fixed it, as an editor does
    let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(meta.uid()), Some(meta.gid()));
    std::fs::set_permissions(tmp.path(), meta.permissions())?;
    // the last moment before the rename: is the file still what was read?
    if crate::input::read_regular(&real, old.len().saturating_add(1))
        .map_err(|e| std::io::Error::other(e.to_string()))?
        != old
    {
        return Err(WriteError::Changed);
    }
    tmp.persist(&real).map_err(|e| WriteError::Io(e.error))?;
    Ok(())
}

/// Whether this process may write `path`: it can be opened for writing (nothing is written,
/// nothing truncated).
fn writable(path: &Path) -> bool {
    std::fs::OpenOptions::new().write(true).open(path).is_ok()
}

/// Rewrites a hard-linked file through the same inode: compared with `old` through the open
/// descriptor, then overwritten and cut to the new length.
fn write_in_place(path: &Path, old: &[u8], new: &[u8]) -> Result<(), WriteError> {
    use std::io::{Read, Seek};
    let mut f = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
    let mut now = Vec::with_capacity(old.len());
    (&mut f).take(old.len() as u64 + 1).read_to_end(&mut now)?;
    if now != old {
        return Err(WriteError::Changed);
    }
    f.rewind()?;
    f.write_all(new)?;
    f.set_len(new.len() as u64)?;
    f.sync_all()?;
    Ok(())
}

/// A unified diff of one file (`a/PATH`, `b/PATH` headers, for `patch -p1`); empty when equal.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(edits: &[(usize, usize, &str)]) -> Fix {
        Fix::new(
            "t",
            Applicability::Safe,
            edits
                .iter()
                .map(|&(s, e, c)| Edit {
                    path: "f".into(),
                    start: s,
                    end: e,
                    content: c.into(),
                })
                .collect(),
        )
        .expect("fix")
    }

    #[test]
    fn applies_non_overlapping_fixes_and_skips_the_rest() {
        let text = "abcdefghij";
        let a = fix(&[(0, 2, "XY")]);
        let b = fix(&[(1, 3, "--")]); // overlaps a
        let c = fix(&[(5, 5, "+"), (9, 10, "J")]);
        let (out, applied) = apply(text, "f", &[&a, &b, &c]);
        assert_eq!(out, "XYcde+fghiJ");
        assert_eq!(applied, vec![0, 2]);
        // two insertions at one point are ambiguous: only the first is taken
        let d = fix(&[(5, 5, "1")]);
        let e = fix(&[(5, 5, "2")]);
        assert_eq!(apply(text, "f", &[&d, &e]).1, vec![0]);
        // another file's edits, or edits past the end, are never applied
        let mut g = fix(&[(0, 1, "z")]);
        g.edits[0].path = "other".into();
        let h = fix(&[(9, 20, "z")]);
        assert_eq!(apply(text, "f", &[&g, &h]), (text.to_string(), vec![]));
    }

    #[test]
    fn overlapping_edits_in_one_fix_make_no_fix() {
        let e = |s, t| Edit {
            path: "f".into(),
            start: s,
            end: t,
            content: String::new(),
        };
        assert!(Fix::new("t", Applicability::Safe, vec![e(0, 3), e(2, 4)]).is_none());
        assert!(Fix::new("t", Applicability::Safe, vec![]).is_none());
    }

    #[test]
    fn write_refuses_a_changed_file_and_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("Dockerfile");
        std::fs::write(&p, "FROM a\n").expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        assert!(matches!(
            write_atomic(&p, b"FROM b\n", b"FROM c\n"),
            Err(WriteError::Changed)
        ));
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "FROM a\n");
        write_atomic(&p, b"FROM a\n", b"FROM c\n").expect("write");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "FROM c\n");
        let mode = std::fs::metadata(&p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        // no temporary file left behind
        assert_eq!(std::fs::read_dir(d.path()).expect("dir").count(), 1);
    }
}
