//! The label rule shared by projects and runs, and [`Label`], a checked label stored inline.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::LaneError;

/// The longest label the lanes accept, in bytes (labels are ASCII, so also in characters).
pub const MAX_LABEL_LEN: usize = 80;

/// Checks a project or run label against the rule `[A-Za-z0-9][A-Za-z0-9._-]{0,79}`.
///
/// Labels are ASCII, 1 to 80 characters, start with a letter or digit and continue with letters,
/// digits, `.`, `_` or `-`. Labels describe runs and projects for people; they never carry ownership.
///
/// ```
/// use project_lanes::{validate_label, LaneError};
///
/// assert!(validate_label("site-42").is_ok());
/// assert_eq!(validate_label("-leading-dash"), Err(LaneError::InvalidLabel));
/// assert_eq!(validate_label("ünïcode"), Err(LaneError::InvalidLabel));
/// assert_eq!(validate_label(&"a".repeat(81)), Err(LaneError::InvalidLabel));
/// ```
#[inline]
pub fn validate_label(label: &str) -> Result<(), LaneError> {
    if is_valid_label(label) {
        Ok(())
    } else {
        Err(LaneError::InvalidLabel)
    }
}

/// `true` when `label` satisfies the label rule; see [`validate_label`].
#[inline]
pub fn is_valid_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match bytes.split_first() {
        // A table and `&`, not a test per byte: no branch depends on the label's bytes, so a
        // `-` or a `.` costs no misprediction, and a byte costs a load (labels are 80 at most).
        Some((first, rest)) if bytes.len() <= MAX_LABEL_LEN => {
            first.is_ascii_alphanumeric()
                & rest.iter().fold(true, |ok, &b| ok & FOLLOWING[b as usize])
        }
        _ => false,
    }
}

/// Which bytes may follow a label's first: ASCII letters and digits, `.`, `_` and `-`.
static FOLLOWING: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-');
        b += 1;
    }
    table
};

/// A project or run label that satisfies the label rule.
///
/// Leases, lanes and receipts keep their labels as `Label`s. Labels up to 30 bytes (most of
/// them; 22 on wasm32) are stored inline, so claiming and releasing such a lane allocates
/// nothing; longer labels share one heap allocation between the lease, the lane and the receipt. A `Label` dereferences
/// to `&str`, compares with strings, and serializes as a plain string; deserializing checks the
/// rule.
///
/// ```
/// use project_lanes::{Label, LaneError};
///
/// let label = Label::new("docs-2")?;
/// assert_eq!(label, "docs-2");
/// assert_eq!(label.len(), 6);
/// assert_eq!(Label::new("docs 2"), Err(LaneError::InvalidLabel));
/// assert!(serde_json::from_str::<Label>(r#""no/slash""#).is_err());
/// # Ok::<(), LaneError>(())
/// ```
#[derive(Clone)]
pub struct Label(Repr);

/// Labels up to this many bytes are stored inline; longer ones share one heap allocation. A
/// label is then 32 bytes. On wasm32, where a shared label's pointer is 8 bytes, 22: a label is
/// 24 bytes, and a viewer that holds a million steps (each with up to four labels in its
/// result) holds less.
#[cfg(not(target_arch = "wasm32"))]
const INLINE: usize = 30;
#[cfg(target_arch = "wasm32")]
const INLINE: usize = 22;

enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Shared(Arc<str>),
}

impl Clone for Repr {
    /// An inline label is copied whole (one 31-byte copy, not field by field); a shared one
    /// shares its allocation.
    #[inline]
    fn clone(&self) -> Repr {
        match self {
            Repr::Inline { len, bytes } => Repr::Inline {
                len: *len,
                bytes: *bytes,
            },
            Repr::Shared(text) => Repr::Shared(Arc::clone(text)),
        }
    }
}

impl Label {
    /// Checks `label` and stores it; [`LaneError::InvalidLabel`] when it breaks the rule.
    // Always inlined: returning a label through memory and copying it again costs more than the
    // validation itself.
    #[inline(always)]
    pub fn new(label: &str) -> Result<Label, LaneError> {
        validate_label(label)?;
        Ok(Label::stored(label, || label.into()))
    }

    /// `label`, already checked, sharing its allocation when it is too long to store inline.
    pub(crate) fn from_valid(label: Arc<str>) -> Label {
        debug_assert!(is_valid_label(&label));
        Label::stored(&label, || label.clone())
    }

    /// A checked `label`, inline when it fits, else in the allocation `shared` gives.
    #[inline(always)]
    fn stored(label: &str, shared: impl FnOnce() -> Arc<str>) -> Label {
        Label(if label.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..label.len()].copy_from_slice(label.as_bytes());
            Repr::Inline {
                len: label.len() as u8,
                bytes,
            }
        } else {
            Repr::Shared(shared())
        })
    }

    /// The label as a string slice.
    #[inline]
    #[allow(unsafe_code)]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                let bytes = &bytes[..*len as usize];
                // SAFETY: `Label::new` is the only constructor; it copies a `&str` that passed
                // `validate_label`, which admits ASCII only, and labels are never mutated.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
            Repr::Shared(text) => text,
        }
    }
}

impl Deref for Label {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Label {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Label {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl TryFrom<&str> for Label {
    type Error = LaneError;
    fn try_from(value: &str) -> Result<Self, Self::Error> {
        Label::new(value)
    }
}

impl PartialEq for Label {
    fn eq(&self, other: &Label) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Label {}

impl PartialOrd for Label {
    fn partial_cmp(&self, other: &Label) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Label {
    fn cmp(&self, other: &Label) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Label {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialEq<str> for Label {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Label {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Label {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Label> for str {
    fn eq(&self, other: &Label) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Label> for String {
    fn eq(&self, other: &Label) -> bool {
        self.as_str() == other.as_str()
    }
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Label {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Label;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a label matching [A-Za-z0-9][A-Za-z0-9._-]{0,79}")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Label, E> {
                Label::new(v).map_err(|_| {
                    E::custom(format_args!(
                        "label {} breaks the label rule [A-Za-z0-9][A-Za-z0-9._-]{{0,79}}",
                        Quoted(v)
                    ))
                })
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

/// Quotes at most the first 100 characters of a string in error messages. Plain quotes, no
/// escaping: messages are shown as text, and `Debug` escaping costs the viewer's wasm kilobytes.
pub(crate) struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `get` rather than indexing: a slicing panic would link its formatting code into wasm.
        match self
            .0
            .char_indices()
            .nth(100)
            .and_then(|(cut, _)| self.0.get(..cut))
        {
            Some(head) => write!(f, "\"{head}…\""),
            None => write!(f, "\"{}\"", self.0),
        }
    }
}
