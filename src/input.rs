//! Reading the files a user names (Dockerfiles, requirements, configs, recorded facts, result
//! files, candidates files, matrix files): metadata first, so a FIFO, socket, device or
//! directory is named and never opened (opening a FIFO blocks until a writer appears), and a
//! size cap, so a huge file is refused before it is read. Nothing here judges content.

use std::io::Read;
use std::path::Path;

/// Why a named file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// It exists but is not a regular file: what it is.
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    /// Larger than the cap.
    #[error("{size} bytes, more than the {max} bytes accepted")]
    TooLarge {
        /// Its size.
        size: u64,
        /// The cap.
        max: usize,
    },
    /// It grew past the cap while it was read.
    #[error("more than the {max} bytes accepted (it grew while it was read)")]
    Grew {
        /// The cap.
        max: usize,
    },
    /// The system's error (not found, permission denied, invalid UTF-8, …).
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// What a path that exists but is not a regular file is: `None` for a regular file or a path
/// that does not exist. Reads metadata only (following links), so it never blocks.
pub fn non_regular(path: &Path) -> Option<&'static str> {
    let t = std::fs::metadata(path).ok()?.file_type();
    (!t.is_file()).then(|| kind(&t))
}

/// Opens a regular file for reading. A FIFO, socket, device or directory is refused without
/// being opened; the file is opened non-blocking and checked again through its descriptor, so a
/// path swapped for a FIFO or device between the two checks is refused too, never read.
pub fn open_regular(path: &Path) -> Result<std::fs::File, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(what) = non_regular(path) {
        return Err(ReadError::NotRegular(what));
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    if !f.metadata()?.file_type().is_file() {
        return Err(ReadError::NotRegular(kind(&f.metadata()?.file_type())));
    }
    Ok(f)
}

fn kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a file"
    }
}

/// Reads a regular file of at most `max` bytes. A FIFO, socket, device or directory is refused
/// without being read ([`open_regular`]); a larger file is refused without being read (and one
/// that grows while it is read is cut at `max + 1` bytes and refused).
pub fn read_regular(path: &Path, max: usize) -> Result<Vec<u8>, ReadError> {
    let f = open_regular(path)?;
    let len = f.metadata()?.len();
    if len > max as u64 {
        return Err(ReadError::TooLarge { size: len, max });
    }
    let mut buf = Vec::with_capacity(len as usize);
    f.take(max as u64 + 1).read_to_end(&mut buf)?;
    if buf.len() > max {
        return Err(ReadError::Grew { max });
    }
    Ok(buf)
}

/// [`read_regular`] for UTF-8 text.
pub fn read_text(path: &Path, max: usize) -> Result<String, ReadError> {
    String::from_utf8(read_regular(path, max)?).map_err(|e| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "invalid UTF-8 at byte {}: expected a UTF-8 text file",
                e.utf8_error().valid_up_to()
            ),
        ))
    })
}

/// How deep YAML flow collections (`[` / `{`) may nest in a file rocmcheck reads. Real files
/// nest a handful of levels; the YAML parser's token fetch is quadratic in the nesting depth, so
/// a file nested thousands deep would take minutes.
pub const MAX_YAML_NESTING: usize = 64;

/// Where YAML text nests its flow collections deeper than `max`: `(line, column, message)`,
/// 1-based, at the bracket that goes past it. A linear pre-scan run before the text is handed to
/// the YAML parser: brackets inside quoted scalars and comments do not count; one that starts a
/// token (after a blank, `:`, `,`, `-`, `?`, an opening bracket that counted, or at a line's
/// start) does. It
/// judges nothing else: the parser still reports every other error.
pub fn yaml_nesting(text: &str, max: usize) -> Result<(), (u32, u32, String)> {
    let (mut line, mut col) = (1u32, 0u32);
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut comment = false;
    // the previous character was a bracket counted as opening a collection
    let mut opened = false;
    // the previous character, for "does a token start here"
    let mut prev = '\n';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        col += 1;
        if c == '\n' {
            line += 1;
            col = 0;
            comment = false;
            prev = c;
            continue;
        }
        if comment {
            continue;
        }
        match quote {
            Some('\'') => {
                if c == '\'' {
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                        col += 1;
                    } else {
                        quote = None;
                    }
                }
            }
            Some(_) => {
                if c == '\\' {
                    if chars.next().is_some_and(|n| n != '\n') {
                        col += 1;
                    } else {
                        line += 1;
                        col = 0;
                    }
                } else if c == '"' {
                    quote = None;
                }
            }
            None => {
                // a bracket right after an opening bracket starts a token only when that one did
                // (`x[[` is a plain scalar in block context)
                let starts = prev.is_whitespace()
                    || matches!(prev, ':' | ',' | '-' | '?')
                    || (matches!(prev, '[' | '{') && opened);
                opened = false;
                match c {
                    '#' if prev.is_whitespace() => comment = true,
                    '\'' | '"' if starts => quote = Some(c),
                    '[' | '{' if starts => {
                        depth += 1;
                        opened = true;
                        if depth > max {
                            return Err((
                                line,
                                col,
                                format!(
                                    "flow collections (`[` / `{{`) nest more than {max} deep: expected a file nested at most {max} levels"
                                ),
                            ));
                        }
                    }
                    ']' | '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        prev = c;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_nesting_counts_flow_brackets_outside_quotes_and_comments() {
        assert!(yaml_nesting("a: [1, {b: [2]}]\n", 2).is_err());
        assert!(yaml_nesting("a: [1, {b: [2]}]\n", 3).is_ok());
        // quoted, commented, inside a plain scalar, or closed again: not nesting
        let quiet = "a: '[[[[' # [[[[\nb: \"[[\\\"[[\"\nc: x[[[[\nd: [[]]\ne: [[]]\n";
        assert!(yaml_nesting(quiet, 2).is_ok(), "{quiet}");
        let deep = format!("services:\n  a:\n    image: {}{}\n", "[".repeat(65), "]".repeat(65));
        let (line, col, msg) = yaml_nesting(&deep, MAX_YAML_NESTING).unwrap_err();
        assert_eq!((line, col), (3, 12 + 64), "{msg}");
        assert!(msg.contains("more than 64 deep"), "{msg}");
    }

    #[test]
    fn refuses_what_is_not_a_small_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_regular(dir.path(), 10),
            Err(ReadError::NotRegular("a directory"))
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/null"), 10),
            Err(ReadError::NotRegular("a character device"))
        ));
        let f = dir.path().join("f");
        std::fs::write(&f, "0123456789a").unwrap();
        assert!(matches!(
            read_regular(&f, 10),
            Err(ReadError::TooLarge { size: 11, max: 10 })
        ));
        assert_eq!(read_regular(&f, 11).unwrap(), b"0123456789a");
        std::fs::write(&f, b"ok\xff").unwrap();
        let e = read_text(&f, 10).unwrap_err().to_string();
        assert!(e.contains("invalid UTF-8 at byte 2"), "{e}");
        let e = read_regular(&dir.path().join("missing"), 10).unwrap_err();
        assert!(
            matches!(&e, ReadError::Io(io) if io.kind() == std::io::ErrorKind::NotFound),
            "{e}"
        );
    }
}
