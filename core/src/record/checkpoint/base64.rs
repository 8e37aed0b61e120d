//! Standard, padded base64 (RFC 4648 §4), as signed notes and their keys write it: one spelling
//! per value. The decoder refuses what the `base64` crate's `STANDARD` engine refuses: a length
//! that is not a multiple of 4, padding anywhere but at the end or more than two `=`, any byte
//! outside the alphabet (whitespace included), and stray bits in the last symbol. Its own code
//! rather than that crate's: a few hundred bytes of the viewer's WebAssembly instead of 1.5 KB
//! gzipped (`docs/viewer-size.md`).

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in standard base64 with padding.
pub(super) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes `text` spells in standard, padded base64, or `None` if it is not such a spelling.
pub(super) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let chunks = text.len() / 4;
    let mut out = Vec::with_capacity(chunks * 3);
    for (i, chunk) in text.chunks_exact(4).enumerate() {
        let pads = if i + 1 == chunks {
            chunk.iter().rev().take_while(|&&c| c == b'=').count()
        } else {
            0
        };
        if pads > 2 {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pads] {
            n = n << 6 | value(c)?;
        }
        let bytes = (n << (6 * pads)).to_be_bytes();
        // What the padding stands for must be zero bits: otherwise two texts spell one value.
        if bytes[4 - pads..].iter().any(|&b| b != 0) {
            return None;
        }
        out.extend_from_slice(&bytes[1..4 - pads]);
    }
    Some(out)
}

/// The 6 bits a symbol of the alphabet stands for.
fn value(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_4648_test_vectors_read_and_write() {
        for (bytes, text) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(bytes.as_bytes()), text);
            assert_eq!(decode(text).as_deref(), Some(bytes.as_bytes()), "{text}");
        }
        assert_eq!(encode(&[0xfb, 0xff, 0xbf]), "+/+/");
        assert_eq!(decode("+/+/"), Some(vec![0xfb, 0xff, 0xbf]));
    }

    #[test]
    fn only_the_one_spelling_of_a_value_is_read() {
        for bad in [
            "Zg", "Zg=", "Zm8", "Z===", "====", "Zh==", "Zm9=", "Zg==Zg==", "Z=g=", "Zm 9v",
            "Zm9v\n", "Zm-v", "Zm_v", "Zm9vé",
        ] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }

    /// The same verdicts as the `base64` crate's `STANDARD` engine, which this replaces: every
    /// text of up to two chunks over symbols that matter (each bit position, both padding
    /// counts, bytes outside the alphabet).
    #[test]
    fn reads_what_the_base64_crate_reads_and_refuses_what_it_refuses() {
        use base64::Engine;
        use base64::engine::general_purpose::STANDARD;
        let symbols = b"ABDHQgw/+=-\n";
        let mut texts = vec![String::new()];
        for len in 1..=4 {
            let longer: Vec<String> = texts
                .iter()
                .filter(|t| t.len() == len - 1)
                .flat_map(|t| {
                    symbols
                        .iter()
                        .map(move |&c| format!("{t}{}", char::from(c)))
                })
                .collect();
            texts.extend(longer);
        }
        let second: Vec<String> = texts.iter().map(|t| format!("AAAA{t}")).collect();
        texts.extend(second);
        for text in &texts {
            assert_eq!(decode(text), STANDARD.decode(text).ok(), "{text:?}");
        }
        for len in 0..=9 {
            let bytes: Vec<u8> = (0..len)
                .map(|i| (i as u8).wrapping_mul(97) ^ 0xa5)
                .collect();
            assert_eq!(encode(&bytes), STANDARD.encode(&bytes));
        }
    }
}
