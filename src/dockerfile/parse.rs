//! Reading a Dockerfile: input checks (size cap, binary, UTF-8), the parser, and byte offset →
//! 1-based line:column conversion.
//!
//! Parser choice: `parse-dockerfile` (taiki-e) over `dockerfile-parser`. Compared on what we
//! need: it parses heredocs (`RUN <<EOF`), honours the `# escape=` parser directive, joins line
//! continuations, skips comments inside continued instructions, gives a byte span for every
//! keyword, flag and argument, reports errors with line and column, and is maintained (regular
//! releases, fuzzed upstream). `dockerfile-parser` (pest-based) has not had a release since 2021,
//! does not support heredocs and loses spans on continuations.

use std::borrow::Cow;

/// Files larger than this are refused (a Dockerfile this big is almost certainly not one).
pub const MAX_BYTES: usize = 1 << 20;

/// A located problem with an input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputProblem {
    /// Line (1-based).
    pub line: u32,
    /// Column (1-based, characters).
    pub col: u32,
    /// What is wrong and what was expected.
    pub message: String,
}

impl InputProblem {
    /// A problem at a position.
    pub fn new(line: u32, col: u32, message: impl Into<String>) -> Self {
        InputProblem {
            line,
            col,
            message: message.into(),
        }
    }
}

/// Checks the raw bytes and returns the text (a leading UTF-8 BOM removed, CR LF line endings
/// read as LF: Docker drops the CR of a CR LF, so `RUN pip install \` + CR LF continues the
/// line as it does with LF). Line and column numbers are unchanged by this (the CR
/// ends its line); byte offsets are those of the LF text.
pub fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, InputProblem> {
    if bytes.len() > MAX_BYTES {
        return Err(InputProblem::new(
            1,
            1,
            format!(
                "file is {} bytes, over the {} byte limit for a Dockerfile",
                bytes.len(),
                MAX_BYTES
            ),
        ));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Some(pos) = bytes.iter().position(|&b| b == 0) {
        let (line, col) = byte_pos(bytes, pos);
        return Err(InputProblem::new(
            line,
            col,
            "binary file (NUL byte): expected a text Dockerfile",
        ));
    }
    match std::str::from_utf8(bytes) {
        Ok(s) if s.contains("\r\n") => Ok(Cow::Owned(s.replace("\r\n", "\n"))),
        Ok(s) => Ok(Cow::Borrowed(s)),
        Err(e) => {
            let (line, col) = byte_pos(bytes, e.valid_up_to());
            Err(InputProblem::new(
                line,
                col,
                "invalid UTF-8: expected a UTF-8 text file",
            ))
        }
    }
}

fn byte_pos(bytes: &[u8], pos: usize) -> (u32, u32) {
    let before = &bytes[..pos.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line as u32, col as u32)
}

/// Parses a Dockerfile, turning parser errors into located problems.
pub fn parse(text: &str) -> Result<parse_dockerfile::Dockerfile<'_>, InputProblem> {
    if let Some(pos) = text.find('\r') {
        // a CR without LF (classic Mac OS line ending): Docker reads it as part of the line
        let (line, col) = byte_pos(text.as_bytes(), pos);
        return Err(InputProblem::new(
            line,
            col,
            "carriage return without a line feed (old Mac OS line ending): Docker does not read it as a line break; expected LF or CR LF line endings",
        ));
    }
    parse_dockerfile::parse(text).map_err(|e| {
        let msg = format!("{e:#}");
        let msg = if msg.starts_with("unknown instruction") {
            format!(
                "{msg}: expected one of ADD ARG CMD COPY ENTRYPOINT ENV EXPOSE FROM HEALTHCHECK LABEL MAINTAINER ONBUILD RUN SHELL STOPSIGNAL USER VOLUME WORKDIR"
            )
        } else {
            msg
        };
        InputProblem::new(e.line().max(1) as u32, e.column().max(1) as u32, msg)
    })
}

/// Byte offset → 1-based line and column (columns count characters).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes a text.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The 1-based line and column of a byte offset in `text`.
    pub fn pos(&self, text: &str, byte: usize) -> (u32, u32) {
        let byte = byte.min(text.len());
        let line = self.starts.partition_point(|&s| s <= byte) - 1;
        let start = self.starts[line];
        let mut end = byte;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let col = text[start..end].chars().count() + 1;
        (line as u32 + 1, col as u32)
    }

    /// Number of lines.
    pub fn lines(&self) -> usize {
        self.starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let t = "FROM a\nENV É=1 X=2\n";
        let ix = LineIndex::new(t);
        assert_eq!(ix.pos(t, 0), (1, 1));
        assert_eq!(ix.pos(t, 7), (2, 1));
        let x = t.find("X=").unwrap();
        assert_eq!(ix.pos(t, x), (2, 9));
    }

    #[test]
    fn rejects_binary_invalid_utf8_and_huge_files() {
        assert!(decode(b"FROM a\n\0\x01").unwrap_err().message.contains("binary"));
        let e = decode(b"FROM a\nRUN \xff\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 5));
        assert!(e.message.contains("UTF-8"));
        let big = vec![b'#'; MAX_BYTES + 1];
        assert!(decode(&big).unwrap_err().message.contains("limit"));
        assert_eq!(decode(b"\xEF\xBB\xBFFROM a").unwrap(), "FROM a");
    }

    #[test]
    fn crlf_is_read_as_lf_and_a_lone_cr_is_a_located_error() {
        assert_eq!(
            decode(b"FROM a\r\nRUN x \\\r\n y\r\n").unwrap(),
            "FROM a\nRUN x \\\n y\n"
        );
        assert_eq!(decode(b"\xEF\xBB\xBFFROM a\r\nRUN b\n").unwrap(), "FROM a\nRUN b\n");
        let e = parse("FROM a\nRUN b\rRUN c\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 6));
        assert!(
            e.message.contains("carriage return without a line feed"),
            "{}",
            e.message
        );
    }

    #[test]
    fn parser_errors_are_located() {
        let e = parse("FROM a\nFROBNICATE x\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unknown instruction"), "{}", e.message);
        let e = parse("FROM a\nRUN <<EOF\necho hi\n").unwrap_err();
        assert!(e.line >= 2, "{e:?}");
        assert!(parse("# escape=`\nFROM a\nRUN echo `\n  hi\n").is_ok());
    }
}
