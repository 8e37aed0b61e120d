//! Reading record files: one verdict for the same bytes in every reader.
//!
//! `lane-records replay`, the viewer in the browser and anything else that reads a record call
//! [`parse_record`], so a file refused by one is refused by all, for the same reason, at the same
//! line and column: the size limit, then JSON syntax (`serde_json`, whose nesting limit keeps
//! deeply nested input from exhausting the stack), then the header (`format`, `version`), then
//! the shape (unknown and duplicate fields refused), then [`Record::check`]. A UTF-8 byte order
//! mark at the very start is skipped, as editors on some systems write one.
//!
//! ```
//! use project_lanes::record::json::{parse_record, ReadError};
//!
//! let e = parse_record(br#"{"format": "project-lanes/record", "version": 1, "x": 1"#).unwrap_err();
//! assert_eq!(e.code(), "INVALID_JSON");
//! assert!(matches!(e, ReadError::Json { line: 1, .. }));
//! ```

use std::fmt;

use super::error::RecordError;
use super::format::{Header, MAX_RECORD_BYTES, Record};

/// Why a record file could not be read, in the order the checks run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The file is larger than [`MAX_RECORD_BYTES`].
    TooLarge {
        /// The file's size in bytes.
        bytes: u64,
    },
    /// The bytes are not JSON ([`JsonKind::Syntax`]), or JSON of the wrong shape
    /// ([`JsonKind::Shape`]: a missing, unknown or duplicate field, a wrong type).
    Json {
        /// Syntax or shape.
        kind: JsonKind,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's description, without its position.
        message: String,
    },
    /// The JSON is a record that breaks the format's rules, or not a record of this version.
    Record(RecordError),
    /// Version 3: a line breaks a rule of the format (or is no record's line).
    Line {
        /// 1-based line.
        line: u64,
        /// 1-based column, in bytes: where the field the rule is about starts.
        column: u64,
        /// The rule.
        error: RecordError,
    },
    /// The file is larger than the reader's limit (a viewer's memory budget, an option).
    OverLimit {
        /// The limit, in bytes.
        limit: u64,
    },
}

/// What kind of JSON problem a [`ReadError::Json`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    /// Not JSON at all: a syntax error, the end of the file too early, nesting too deep.
    Syntax,
    /// JSON, but not of a record's shape.
    Shape,
}

impl ReadError {
    /// The stable error code readers show: `RECORD_TOO_LARGE`, `INVALID_JSON`,
    /// `UNKNOWN_FORMAT`, `UNSUPPORTED_VERSION` or `INVALID_RECORD`.
    pub fn code(&self) -> &'static str {
        match self {
            ReadError::TooLarge { .. } | ReadError::OverLimit { .. } => "RECORD_TOO_LARGE",
            ReadError::Line { error, .. } => ReadError::Record(error.clone()).code(),
            ReadError::Json {
                kind: JsonKind::Syntax,
                ..
            } => "INVALID_JSON",
            ReadError::Json {
                kind: JsonKind::Shape,
                ..
            } => "INVALID_RECORD",
            ReadError::Record(RecordError::UnknownFormat { .. }) => "UNKNOWN_FORMAT",
            ReadError::Record(
                RecordError::UnsupportedVersion(_) | RecordError::UnsupportedIndexVersion(_),
            ) => "UNSUPPORTED_VERSION",
            ReadError::Record(RecordError::Invalid { .. }) => "INVALID_RECORD",
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::TooLarge { bytes } => write!(
                f,
                "the file is {bytes} bytes; records may be at most {MAX_RECORD_BYTES} bytes"
            ),
            ReadError::Json {
                line,
                column,
                message,
                ..
            } => write!(f, "line {line}, column {column}: {message}"),
            ReadError::Record(e) => write!(f, "{e}"),
            ReadError::Line {
                line,
                column,
                error,
            } => write!(f, "line {line}, column {column}: {error}"),
            ReadError::OverLimit { limit } => write!(
                f,
                "the record is larger than {limit} bytes, the most this reader takes"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<serde_json::Error> for ReadError {
    fn from(e: serde_json::Error) -> Self {
        let kind = if e.is_data() {
            JsonKind::Shape
        } else {
            JsonKind::Syntax
        };
        let message = e.to_string();
        // serde_json appends " at line L column C"; the position is reported separately. (A
        // suffix compared, not searched for: no substring search is linked into the viewer.)
        let position = format!(" at line {} column {}", e.line(), e.column());
        let message = match message.strip_suffix(position.as_str()) {
            Some(kept) => kept.to_string(),
            None => message,
        };
        ReadError::Json {
            kind,
            line: e.line(),
            column: e.column(),
            message,
        }
    }
}

/// The bytes without a leading UTF-8 byte order mark.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Deserializes `T`; a shape error in a document that is not JSON at all is reported as the
/// syntax error (checked only then, so well-formed files are parsed once).
fn from_json<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, ReadError> {
    serde_json::from_slice(bytes).map_err(|e| {
        if e.is_data()
            && let Err(syntax) = serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
        {
            return syntax.into();
        }
        e.into()
    })
}

/// Whether a record file whose first line is `first_line` (without its line break) is lines:
/// that line alone is a JSON object naming version 3. A file is either one JSON document
/// (versions 1 and 2, read with [`parse_record`]) or lines (version 3, read with
/// [`Reader`](super::stream::Reader)); every reader tells them apart by this rule.
///
/// ```
/// use project_lanes::record::json::is_lines;
///
/// assert!(is_lines(br#"{"format":"project-lanes/record","version":3,"id":"x"}"#));
/// assert!(!is_lines(b"{")); // a version 1 or 2 record, pretty-printed
/// assert!(!is_lines(br#"{"format":"project-lanes/record","version":2}"#));
/// ```
pub fn is_lines(first_line: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Version {
        version: u32,
    }
    serde_json::from_slice::<Version>(without_bom(first_line))
        .is_ok_and(|v| v.version == super::VERSION_3)
}

/// Reads the header only: the format and version, so that a file of another kind or version is
/// named as such before its fields are judged. The whole file must still be JSON.
pub fn parse_header(bytes: &[u8]) -> Result<Header, ReadError> {
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(ReadError::TooLarge {
            bytes: bytes.len() as u64,
        });
    }
    from_json(without_bom(bytes))
}

/// Parses and checks one record of version 1 or 2 (one JSON document): size, JSON, header,
/// shape, then the format's rules. A version 3 record is lines: see [`super::stream`].
pub fn parse_record(bytes: &[u8]) -> Result<Record, ReadError> {
    let header = parse_header(bytes)?;
    header.check().map_err(ReadError::Record)?;
    if header.version == super::VERSION_3 {
        return Err(ReadError::Line {
            line: 1,
            column: 1,
            error: RecordError::invalid(
                "version",
                "a version 3 record is lines, its head alone on the first: this file is one \
                 JSON document over several lines",
            ),
        });
    }
    let record: Record = from_json(without_bom(bytes))?;
    record.check().map_err(ReadError::Record)?;
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_of_any_depth_is_a_located_syntax_error_not_a_crash() {
        for opening in ["[", "{\"a\":"] {
            let e = parse_record(opening.repeat(100_000).as_bytes()).unwrap_err();
            assert_eq!(e.code(), "INVALID_JSON", "{e}");
            assert!(matches!(e, ReadError::Json { line: 1, .. }), "{e:?}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let e = parse_record(b"\xEF\xBB\xBF{\"format\": \"x\", \"version\": 1}").unwrap_err();
        assert_eq!(e.code(), "UNKNOWN_FORMAT");
    }

    #[test]
    fn a_shape_error_is_an_invalid_record_with_its_position() {
        let e = parse_record(
            br#"{"format": "project-lanes/record", "version": 1, "unexpected": true}"#,
        )
        .unwrap_err();
        assert_eq!(e.code(), "INVALID_RECORD");
        assert!(e.to_string().contains("unexpected"), "{e}");
    }
}
