//! Ed25519 keys in the text forms of Go's `golang.org/x/mod/sumdb/note` (and C2SP signed-note):
//! a signer key `PRIVATE+KEY+<name>+<id>+<base64(0x01 ‖ seed)>`, a verifier key
//! `<name>+<id>+<base64(0x01 ‖ public key)>`, where the id is the first 4 bytes of
//! SHA-256(name ‖ `\n` ‖ 0x01 ‖ public key), as 8 hex digits.

use std::fmt;

use ed25519_dalek::{Signature, Signer};
use sha2::{Digest, Sha256};

use super::{CheckpointError, base64};

/// The algorithm byte of Ed25519 in a key file and in a key id.
const ED25519: u8 = 1;
/// What a signer key file starts with.
const PRIVATE: &str = "PRIVATE+KEY+";
/// The longest key name, in characters.
const MAX_NAME_CHARS: usize = 100;

/// Whether `name` can name a key: 1 to 100 characters, without `+`, whitespace or control
/// characters (so it stays one word of a signature line and one field of a key file).
pub(super) fn is_key_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && !name
            .chars()
            .any(|c| c == '+' || c.is_whitespace() || c.is_control())
}

fn check_name(name: &str) -> Result<(), CheckpointError> {
    if is_key_name(name) {
        Ok(())
    } else {
        Err(CheckpointError::KeyName {
            name: name.to_owned(),
        })
    }
}

/// The key id of an Ed25519 key: the first 4 bytes of SHA-256(name ‖ `\n` ‖ 0x01 ‖ key).
fn key_id(name: &str, public: &[u8; 32]) -> u32 {
    let mut hash = Sha256::new();
    hash.update(name.as_bytes());
    hash.update(b"\n");
    hash.update([ED25519]);
    hash.update(public);
    let digest = hash.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// `<name>+<8 hex key id>`: how a key is named to a person.
pub(super) fn fingerprint(name: &str, id: u32) -> String {
    format!("{name}+{id:08x}")
}

/// The name, the key id and the 32 bytes of key of a key file's last three fields, checked but
/// for the id (which needs the public key).
fn fields(name: &str, id: &str, key: &str) -> Result<(u32, [u8; 32]), CheckpointError> {
    check_name(name)?;
    let id = if id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        u32::from_str_radix(id, 16).map_err(|_| malformed(ID))?
    } else {
        return Err(malformed(ID));
    };
    let bytes =
        base64::decode(key).ok_or_else(|| malformed("its key should be standard base64"))?;
    match bytes.split_first() {
        None => Err(CheckpointError::KeyLength { bytes: 0 }),
        Some((&algorithm, _)) if algorithm != ED25519 => {
            Err(CheckpointError::KeyAlgorithm { byte: algorithm })
        }
        Some((_, key)) => match <[u8; 32]>::try_from(key) {
            Ok(key) => Ok((id, key)),
            Err(_) => Err(CheckpointError::KeyLength { bytes: bytes.len() }),
        },
    }
}

const ID: &str = "its key id should be 8 hex digits";

fn malformed(reason: &'static str) -> CheckpointError {
    CheckpointError::KeyMalformed { reason }
}

/// A key file's one line: its trailing newline is optional.
fn one_line(text: &str) -> &str {
    text.strip_suffix('\n').unwrap_or(text)
}

fn check_id(written: u32, computed: u32) -> Result<(), CheckpointError> {
    if written == computed {
        Ok(())
    } else {
        Err(CheckpointError::KeyIdMismatch { written, computed })
    }
}

/// A named Ed25519 key that signs checkpoints; keep it where the journal's database cannot
/// reach.
///
/// Its text is a signer key of Go's `sumdb/note`, one line:
/// `PRIVATE+KEY+<name>+<8 hex key id>+<base64(0x01 ‖ 32-byte seed)>`. This crate generates no
/// randomness: make a key from 32 random bytes of your own ([`SigningKey::from_seed`]). `Debug`
/// shows the name and key id only.
///
/// ```
/// use project_lanes::record::checkpoint::SigningKey;
///
/// let key = SigningKey::from_seed("ops.example", [7; 32])?;
/// let text = key.to_text();
/// assert!(text.starts_with("PRIVATE+KEY+ops.example+"));
/// assert_eq!(SigningKey::parse(&text)?.verifier(), key.verifier());
/// # Ok::<(), project_lanes::record::checkpoint::CheckpointError>(())
/// ```
pub struct SigningKey {
    name: String,
    id: u32,
    key: ed25519_dalek::SigningKey,
}

impl SigningKey {
    /// The key named `name` made from 32 bytes that only its owner knows (from the operating
    /// system's random source, say). Refused if `name` is not a key name: 1 to 100 characters,
    /// without `+`, whitespace or control characters.
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Result<SigningKey, CheckpointError> {
        check_name(name)?;
        let key = ed25519_dalek::SigningKey::from_bytes(&seed);
        let id = key_id(name, key.verifying_key().as_bytes());
        Ok(SigningKey {
            name: name.to_owned(),
            id,
            key,
        })
    }

    /// Reads a signer key file's text (one line; a trailing newline is allowed).
    pub fn parse(text: &str) -> Result<SigningKey, CheckpointError> {
        let Some(rest) = one_line(text).strip_prefix(PRIVATE) else {
            return Err(malformed(
                "a signer key file should read PRIVATE+KEY+<name>+<key id>+<key> \
                 (is this a verifier key?)",
            ));
        };
        // Base64 has `+` too: the key is all after the second `+`.
        let mut parts = rest.splitn(3, '+');
        let (Some(name), Some(id), Some(seed)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(malformed(
                "a signer key file should read PRIVATE+KEY+<name>+<key id>+<key>",
            ));
        };
        let (written, seed) = fields(name, id, seed)?;
        let key = SigningKey::from_seed(name, seed)?;
        check_id(written, key.id)?;
        Ok(key)
    }

    /// The key file's text, one line without a newline: keep it secret.
    pub fn to_text(&self) -> String {
        let mut key = Vec::with_capacity(33);
        key.push(ED25519);
        key.extend_from_slice(self.key.as_bytes());
        format!(
            "{PRIVATE}{}+{:08x}+{}",
            self.name,
            self.id,
            base64::encode(&key)
        )
    }

    /// The key that verifies this key's signatures, to give to whoever checks them.
    pub fn verifier(&self) -> VerifierKey {
        VerifierKey {
            name: self.name.clone(),
            id: self.id,
            key: self.key.verifying_key(),
        }
    }

    /// The key's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The signature line of `body`: `— <name> <base64(key id ‖ signature)>` and a newline.
    pub(super) fn signature_line(&self, body: &[u8]) -> String {
        let signature: Signature = self.key.sign(body);
        let mut bytes = Vec::with_capacity(68);
        bytes.extend_from_slice(&self.id.to_be_bytes());
        bytes.extend_from_slice(&signature.to_bytes());
        format!("\u{2014} {} {}\n", self.name, base64::encode(&bytes))
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("name", &self.name)
            .field("id", &format_args!("{:08x}", self.id))
            .finish_non_exhaustive()
    }
}

/// The public half of a [`SigningKey`]: verifies its checkpoints ([`Note::verify`]).
///
/// Its text is a verifier key of Go's `sumdb/note`, one line:
/// `<name>+<8 hex key id>+<base64(0x01 ‖ 32-byte public key)>`.
///
/// ```
/// use project_lanes::record::checkpoint::VerifierKey;
///
/// let key = VerifierKey::parse("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW\n")?;
/// assert_eq!(key.name(), "PeterNeumann");
/// assert_eq!(key.fingerprint(), "PeterNeumann+c74f20a3");
/// # Ok::<(), project_lanes::record::checkpoint::CheckpointError>(())
/// ```
///
/// [`Note::verify`]: super::Note::verify
#[derive(Clone, PartialEq, Eq)]
pub struct VerifierKey {
    name: String,
    id: u32,
    key: ed25519_dalek::VerifyingKey,
}

impl VerifierKey {
    /// Reads a verifier key file's text (one line; a trailing newline is allowed).
    pub fn parse(text: &str) -> Result<VerifierKey, CheckpointError> {
        let line = one_line(text);
        if line.starts_with(PRIVATE) {
            return Err(malformed(
                "this is a signer key (PRIVATE+KEY+…), which stays secret; \
                 a verifier key reads <name>+<key id>+<key>",
            ));
        }
        // Base64 has `+` too: the key is all after the second `+`.
        let mut parts = line.splitn(3, '+');
        let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(malformed(
                "a verifier key file should read <name>+<key id>+<key>",
            ));
        };
        let (written, bytes) = fields(name, id, key)?;
        let key = ed25519_dalek::VerifyingKey::from_bytes(&bytes)
            .map_err(|_| malformed("its 32 bytes are not an Ed25519 public key"))?;
        check_id(written, key_id(name, &bytes))?;
        Ok(VerifierKey {
            name: name.to_owned(),
            id: written,
            key,
        })
    }

    /// The key file's text, one line without a newline.
    pub fn to_text(&self) -> String {
        let mut key = Vec::with_capacity(33);
        key.push(ED25519);
        key.extend_from_slice(self.key.as_bytes());
        format!("{}+{}", self.fingerprint(), base64::encode(&key))
    }

    /// `<name>+<8 hex key id>`: how the key is named to a person (and the start of its text).
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.name, self.id)
    }

    /// The key's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id: the first 4 bytes of SHA-256(name ‖ `\n` ‖ 0x01 ‖ public key).
    pub fn key_id(&self) -> u32 {
        self.id
    }

    /// Whether `signature` (64 bytes) is this key's over `body`. Strict: a weak key or a
    /// signature in a non-canonical form is refused.
    pub(super) fn verifies(&self, body: &[u8], signature: &[u8]) -> bool {
        match Signature::from_slice(signature) {
            Ok(signature) => self.key.verify_strict(body, &signature).is_ok(),
            Err(_) => false,
        }
    }
}

impl fmt::Debug for VerifierKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VerifierKey({})", self.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The example of Go's `golang.org/x/mod/sumdb/note` documentation: another implementation's
    // key, text and signature line.
    const SIGNER: &str =
        "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
    const TEXT: &str = "If you think cryptography is the answer to your problem,\n\
                        then you don't know what your problem is.\n";
    const LINE: &str = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2\
                        pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

    #[test]
    fn signs_go_sumdb_notes_example_as_go_does() {
        let key = SigningKey::parse(SIGNER).unwrap();
        assert_eq!(key.signature_line(TEXT.as_bytes()), LINE);
        let encoded = LINE.trim_end().rsplit(' ').next().unwrap();
        let bytes = base64::decode(encoded).unwrap();
        let (id, signature) = bytes.split_at(4);
        assert_eq!(id, 0xc74f_20a3_u32.to_be_bytes());
        assert!(key.verifier().verifies(TEXT.as_bytes(), signature));
        assert!(!key.verifier().verifies(b"then you know", signature));
        assert!(!key.verifier().verifies(TEXT.as_bytes(), &signature[1..]));
    }
}
