//! The share link: a scenario held in the URL's fragment (`#scenario=…`), which a browser never
//! sends to a server. The text is deflated (raw DEFLATE) and written in base64url without
//! padding; reading it back refuses anything that is not such a text, and stops inflating past
//! [`MAX_SCENARIO_BYTES`], so a small fragment cannot fill memory.

use std::io::{Read, Write};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use lane_records::scenario::MAX_SCENARIO_BYTES;

/// Why a fragment holds no scenario text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareError {
    /// `LINK_INVALID` (not base64url, or not deflated data), `SCENARIO_TOO_LARGE` or
    /// `SCENARIO_NOT_UTF8`.
    pub code: &'static str,
    /// What is wrong, for a person.
    pub message: String,
}

/// The fragment value that holds `text`.
pub fn encode(text: &str) -> String {
    let mut deflate = DeflateEncoder::new(Vec::new(), Compression::best());
    // Writing to a Vec cannot fail.
    let _ = deflate.write_all(text.as_bytes());
    URL_SAFE_NO_PAD.encode(deflate.finish().unwrap_or_default())
}

/// The text a fragment value holds.
pub fn decode(value: &str) -> Result<String, ShareError> {
    let invalid = |what: &str| ShareError {
        code: "LINK_INVALID",
        message: format!("no scenario in it ({what})"),
    };
    // At most 4 MiB of text, which deflates to less; a longer value is not one we wrote.
    if value.len() as u64 > 2 * MAX_SCENARIO_BYTES {
        return Err(invalid("it is too long"));
    }
    if value.trim().is_empty() {
        return Err(invalid("it is empty"));
    }
    let deflated = URL_SAFE_NO_PAD
        .decode(value.trim())
        .map_err(|_| invalid("it is not base64url text"))?;
    let mut bytes = Vec::new();
    let mut inflate = DeflateDecoder::new(deflated.as_slice());
    inflate
        .by_ref()
        .take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| invalid("it is not deflated data"))?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(ShareError {
            code: "SCENARIO_TOO_LARGE",
            message: format!(
                "the link holds more than {MAX_SCENARIO_BYTES} bytes (4 MiB), the most a scenario may be"
            ),
        });
    }
    if inflate.total_in() != deflated.len() as u64 {
        return Err(invalid("more follows the deflated data"));
    }
    String::from_utf8(bytes).map_err(|_| ShareError {
        code: "SCENARIO_NOT_UTF8",
        message: "the link holds bytes that are not UTF-8 text".into(),
    })
}
