//! Checkpoints (feature `checkpoint`): signed and read back; one precise error for each bad
//! checkpoint or key; a signature by another key refused; any changed body byte breaks the
//! signature; a fixed seed pins the format; no input makes parsing panic.

use project_lanes::record::Timestamp;
use project_lanes::record::chain::Hash;
use project_lanes::record::checkpoint::{Checkpoint, CheckpointError, SigningKey, VerifierKey};
use std::sync::LazyLock;

use proptest::prelude::*;

fn checkpoint() -> Checkpoint {
    Checkpoint {
        journal: "prod-eu".to_owned(),
        links: 1_234_567,
        root: Hash(std::array::from_fn(|i| i as u8 * 7)),
        time: "2026-05-01T03:12:45.123Z".parse().unwrap(),
    }
}

fn seed(first: u8) -> [u8; 32] {
    std::array::from_fn(|i| first.wrapping_add(i as u8))
}

// Made once: a debug build takes milliseconds for each key and signature.
static KEY: LazyLock<SigningKey> =
    LazyLock::new(|| SigningKey::from_seed("ops.example", seed(0)).unwrap());
static VERIFIER: LazyLock<VerifierKey> = LazyLock::new(|| KEY.verifier());

fn key() -> &'static SigningKey {
    &KEY
}

fn verifier() -> &'static VerifierKey {
    &VERIFIER
}

fn other_key() -> SigningKey {
    SigningKey::from_seed("auditor.example", seed(100)).unwrap()
}

fn parse_err(text: &str) -> CheckpointError {
    Checkpoint::parse(text).unwrap_err()
}

/// The body of `checkpoint()` with line `n` (from 1) replaced by `line`.
fn body_with_line(n: usize, line: &str) -> String {
    let body = checkpoint().body();
    let mut lines: Vec<&str> = body.lines().collect();
    lines[n - 1] = line;
    lines.iter().map(|l| format!("{l}\n")).collect()
}

// ---- round trips ----------------------------------------------------------------------------

#[test]
fn a_signed_checkpoint_reads_back_as_written_and_verifies() {
    let text = checkpoint().sign(key());
    let note = Checkpoint::parse(&text).unwrap();
    assert_eq!(note.checkpoint(), &checkpoint());
    assert_eq!(note.text(), text);
    assert_eq!(note.body(), checkpoint().body());
    assert!(note.is_signed());
    assert_eq!(note.signatures().len(), 1);
    assert_eq!(note.signatures()[0].name(), "ops.example");
    assert_eq!(note.signatures()[0].fingerprint(), verifier().fingerprint());
    assert_eq!(note.signatures()[0].key_id(), verifier().key_id());
    note.verify(verifier()).unwrap();
    assert_eq!(Checkpoint::parse_bytes(text.as_bytes()).unwrap(), note);
}

#[test]
fn an_unsigned_checkpoint_reads_back_and_proves_nothing_by_itself() {
    let body = checkpoint().body();
    let note = Checkpoint::parse(&body).unwrap();
    assert_eq!(note.checkpoint(), &checkpoint());
    assert!(!note.is_signed());
    assert!(note.signatures().is_empty());
    assert_eq!(
        note.verify(verifier()),
        Err(CheckpointError::Unsigned {
            wanted: verifier().fingerprint()
        })
    );
    assert_eq!(
        note.verify(verifier()).unwrap_err().to_string(),
        format!(
            "the checkpoint is unsigned, and a signature by {} is required",
            verifier().fingerprint()
        )
    );
}

#[test]
fn keys_read_back_from_their_text_with_or_without_a_newline() {
    let key = key();
    for text in [key.to_text(), format!("{}\n", key.to_text())] {
        let read = SigningKey::parse(&text).unwrap();
        assert_eq!(read.name(), "ops.example");
        assert_eq!(read.to_text(), key.to_text());
        assert_eq!(read.verifier(), key.verifier());
    }
    let verifier = key.verifier();
    for text in [verifier.to_text(), format!("{}\n", verifier.to_text())] {
        assert_eq!(VerifierKey::parse(&text).unwrap(), verifier);
    }
    assert!(verifier.to_text().starts_with(&verifier.fingerprint()));
    assert_eq!(verifier.name(), "ops.example");
}

#[test]
fn the_edges_of_links_and_time_read_back() {
    for (links, time) in [
        (0, "1970-01-01T00:00:00.000Z"),
        (u64::MAX, "9999-12-31T23:59:59.999Z"),
    ] {
        let checkpoint = Checkpoint {
            links,
            time: time.parse().unwrap(),
            ..checkpoint()
        };
        let note = Checkpoint::parse(&checkpoint.sign(key())).unwrap();
        assert_eq!(note.checkpoint(), &checkpoint);
        note.verify(verifier()).unwrap();
    }
}

// ---- known answers: the format cannot drift silently ----------------------------------------

/// Pinned: a change of format fails here. The key id, public key and signature were also
/// computed apart from this crate (Python's hashlib and OpenSSL's Ed25519, via `cryptography`).
#[test]
fn a_fixed_seed_gives_fixed_keys_and_a_fixed_signed_checkpoint() {
    let key = key();
    assert_eq!(
        key.to_text(),
        "PRIVATE+KEY+ops.example+7698c78c+AQABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f"
    );
    assert_eq!(
        verifier().to_text(),
        "ops.example+7698c78c+AQOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4"
    );
    assert_eq!(verifier().fingerprint(), "ops.example+7698c78c");
    assert_eq!(
        checkpoint().sign(key),
        "project-lanes/prod-eu\n\
         1234567\n\
         AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK+2vcTL0tk=\n\
         time 2026-05-01T03:12:45.123Z\n\
         \n\
         — ops.example dpjHjJ4a6Cz8NGR90dNMMYqhlc20ZoubDeebk9940b2ZHdOCqiKJX86XVYcjoc4nUGsdHa2wcqA2Pr4IXLY9+uKjaAg=\n"
    );
}

#[test]
fn go_sumdb_notes_example_key_reads_and_gives_its_verifier() {
    // The example key of Go's golang.org/x/mod/sumdb/note documentation.
    let signer = SigningKey::parse(
        "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
    )
    .unwrap();
    assert_eq!(
        signer.verifier().to_text(),
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    );
    assert_eq!(signer.verifier().fingerprint(), "PeterNeumann+c74f20a3");
    assert_eq!(signer.verifier().key_id(), 0xc74f20a3);
}

// ---- signatures -----------------------------------------------------------------------------

#[test]
fn a_signature_by_another_key_is_refused_by_this_key_and_accepted_by_its_own() {
    let text = checkpoint().sign(&other_key());
    let note = Checkpoint::parse(&text).unwrap();
    note.verify(&other_key().verifier()).unwrap();
    let error = note.verify(verifier()).unwrap_err();
    assert_eq!(
        error,
        CheckpointError::OtherKey {
            wanted: verifier().fingerprint(),
            present: vec![other_key().verifier().fingerprint()],
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "the checkpoint is not signed by {}, only by {}",
            verifier().fingerprint(),
            other_key().verifier().fingerprint()
        )
    );
}

#[test]
fn a_checkpoint_signed_by_two_keys_verifies_for_each() {
    let mine = checkpoint().sign(key());
    let theirs = checkpoint().sign(&other_key());
    let second_line = theirs.lines().last().unwrap();
    let text = format!("{mine}{second_line}\n");
    let note = Checkpoint::parse(&text).unwrap();
    assert_eq!(note.signatures().len(), 2);
    note.verify(verifier()).unwrap();
    note.verify(&other_key().verifier()).unwrap();
    let third = SigningKey::from_seed("third", seed(50)).unwrap();
    assert_eq!(
        note.verify(&third.verifier()),
        Err(CheckpointError::OtherKey {
            wanted: third.verifier().fingerprint(),
            present: vec![
                verifier().fingerprint(),
                other_key().verifier().fingerprint()
            ],
        })
    );
}

#[test]
fn a_key_with_the_same_name_but_another_id_is_another_key() {
    let text = checkpoint().sign(key());
    let impostor = SigningKey::from_seed("ops.example", seed(1)).unwrap();
    let note = Checkpoint::parse(&text).unwrap();
    assert!(matches!(
        note.verify(&impostor.verifier()),
        Err(CheckpointError::OtherKey { .. })
    ));
}

#[test]
fn changing_any_body_byte_breaks_the_signature() {
    let text = checkpoint().sign(key());
    let body_len = checkpoint().body().len();
    let mut still_read = 0;
    for at in 0..body_len {
        // The first change of this byte that still reads as a checkpoint (another journal,
        // number, root or time), if any: its signature no longer verifies.
        for replacement in *b"0157aAzZ+/-. " {
            let mut bytes = text.clone().into_bytes();
            if bytes[at] == replacement {
                continue;
            }
            bytes[at] = replacement;
            if let Ok(note) = Checkpoint::parse_bytes(&bytes) {
                still_read += 1;
                assert_eq!(
                    note.verify(verifier()),
                    Err(CheckpointError::BadSignature {
                        fingerprint: verifier().fingerprint()
                    }),
                    "byte {at} changed to {:?}",
                    char::from(replacement)
                );
                break;
            }
        }
    }
    // All but 32: `project-lanes/` (14), `time ` (5), the 4 newlines, the root's padding, and the
    // time's 7 separators and the tens of its month.
    assert_eq!(
        still_read,
        body_len - 32,
        "{still_read} of {body_len} bytes"
    );
}

#[test]
fn changing_a_signature_byte_breaks_the_signature() {
    let text = checkpoint().sign(key());
    let line = text.lines().last().unwrap();
    let encoded = line.rsplit(' ').next().unwrap();
    // Past the key id (4 bytes: the first 5 base64 characters and some bits of the 6th).
    let start = text.len() - 1 - encoded.len() + 6;
    for at in start..text.len() - 2 {
        let mut bytes = text.clone().into_bytes();
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        if let Ok(note) = Checkpoint::parse_bytes(&bytes) {
            assert!(
                matches!(
                    note.verify(verifier()),
                    Err(CheckpointError::BadSignature { .. })
                ),
                "byte {at}"
            );
        }
    }
    let error = CheckpointError::BadSignature {
        fingerprint: "ops.example+0badf00d".to_owned(),
    };
    assert_eq!(
        error.to_string(),
        "signature by ops.example+0badf00d does not verify: the checkpoint or its signature \
         was changed"
    );
}

// ---- bad checkpoints ------------------------------------------------------------------------

#[test]
fn a_truncated_checkpoint_names_the_line_it_ends_before() {
    let text = checkpoint().sign(key());
    let body = checkpoint().body();
    assert_eq!(parse_err(""), CheckpointError::Truncated { line: 1 });
    assert_eq!(
        parse_err("project-lanes/prod-eu"),
        CheckpointError::Truncated { line: 1 }
    );
    assert_eq!(
        parse_err("project-lanes/prod-eu\n1234567\n"),
        CheckpointError::Truncated { line: 3 }
    );
    assert_eq!(
        parse_err(&body[..body.len() - 1]),
        CheckpointError::Truncated { line: 4 }
    );
    assert_eq!(
        parse_err(&format!("{body}\n")),
        CheckpointError::Truncated { line: 6 }
    );
    assert_eq!(
        parse_err(&text[..text.len() - 1]),
        CheckpointError::Truncated { line: 6 }
    );
    assert_eq!(
        parse_err("project-lanes/prod-eu\n1234567\n").to_string(),
        "the checkpoint is truncated: it ends before line 3 (the root) is complete"
    );
    assert_eq!(
        parse_err(&text[..text.len() - 1]).to_string(),
        "the checkpoint is truncated: it ends before line 6 (a signature line) is complete"
    );
}

#[test]
fn every_prefix_of_a_signed_checkpoint_but_its_body_is_refused_without_a_panic() {
    let text = checkpoint().sign(key());
    let body_len = checkpoint().body().len();
    for len in 0..=text.len() {
        let read = Checkpoint::parse_bytes(&text.as_bytes()[..len]);
        assert_eq!(read.is_ok(), len == body_len || len == text.len(), "{len}");
    }
}

#[test]
fn bytes_that_are_not_utf8_are_refused_as_such() {
    let mut bytes = checkpoint().sign(key()).into_bytes();
    bytes[16] = 0xff;
    let error = Checkpoint::parse_bytes(&bytes).unwrap_err();
    assert_eq!(error, CheckpointError::NotUtf8 { offset: 16 });
    assert_eq!(
        error.to_string(),
        "the checkpoint is not UTF-8 text (byte 16 is not)"
    );
    // Cut inside the em dash of the signature line.
    let text = checkpoint().sign(key());
    let dash = text.find('—').unwrap();
    assert!(matches!(
        Checkpoint::parse_bytes(&text.as_bytes()[..dash + 1]),
        Err(CheckpointError::NotUtf8 { .. })
    ));
}

#[test]
fn a_line_that_is_not_what_it_must_be_is_named_by_its_number() {
    let line = |line, expected| CheckpointError::Line { line, expected };
    let journal = "project-lanes/ and the journal's identity";
    assert_eq!(
        parse_err(&body_with_line(1, "other-tool/prod-eu")),
        line(1, journal)
    );
    assert_eq!(
        parse_err(&body_with_line(1, "project-lanes/")),
        line(1, journal)
    );
    assert_eq!(
        parse_err(&body_with_line(3, "not base64!")),
        line(3, "the root, 32 bytes in standard base64")
    );
    let time = "time and the checkpoint's time in UTC, like time 2026-05-01T03:12:45.123Z";
    assert_eq!(
        parse_err(&body_with_line(4, "2026-05-01T03:12:45.123Z")),
        line(4, time)
    );
    let blank = "a blank line before the signatures, or the end of the checkpoint";
    assert_eq!(
        parse_err(&format!("{}extra\n", checkpoint().body())),
        line(5, blank)
    );
    let signature = "a signature line: an em dash (U+2014), a space, a key name, a space, and the \
                     key id and signature in standard base64";
    let text = checkpoint().sign(key());
    let (body, signature_line) = text.split_at(text.find('—').unwrap());
    for bad in [
        signature_line.replace('—', "-"),
        signature_line.replacen(' ', "", 1),
        signature_line.replace("ops.example", "ops+example"),
        signature_line.replace(' ', "  "),
        signature_line.replacen("—", "— ", 1),
        "— ops.example AAAA\n".to_owned(),
        "— ops.example AAAAAA==\n".to_owned(),
        "\n".to_owned(),
    ] {
        assert_eq!(
            parse_err(&format!("{body}{bad}")),
            line(6, signature),
            "{bad:?}"
        );
    }
    assert_eq!(
        parse_err(&format!("{text}\n")),
        line(7, signature),
        "a blank line after the signatures"
    );
    let control = "free of control characters (each line ends in a newline alone)";
    assert_eq!(
        parse_err(&checkpoint().body().replace('\n', "\r\n")),
        line(1, control)
    );
    assert_eq!(parse_err(&body_with_line(2, "12\t34")), line(2, control));
    assert_eq!(
        parse_err(&body_with_line(3, "not base64!")).to_string(),
        "line 3 of the checkpoint should be the root, 32 bytes in standard base64"
    );
}

#[test]
fn at_most_one_hundred_signature_lines_are_read() {
    let text = checkpoint().sign(key());
    let line = text.lines().last().unwrap();
    let hundred = format!("{text}{}", format!("{line}\n").repeat(99));
    assert_eq!(Checkpoint::parse(&hundred).unwrap().signatures().len(), 100);
    assert_eq!(
        parse_err(&format!("{hundred}{line}\n")),
        CheckpointError::Line {
            line: 106,
            expected: "the end of the checkpoint (it has at most 100 signature lines)"
        }
    );
}

#[test]
fn a_root_of_another_length_is_refused_with_its_length() {
    let error = parse_err(&body_with_line(3, "AAAA"));
    assert_eq!(error, CheckpointError::RootLength { bytes: 3 });
    assert_eq!(
        error.to_string(),
        "line 3 of the checkpoint holds a root of 3 bytes, not the 32 of a SHA-256"
    );
    assert_eq!(
        parse_err(&body_with_line(3, &"A".repeat(48))),
        CheckpointError::RootLength { bytes: 36 }
    );
    assert_eq!(
        parse_err(&body_with_line(3, "")),
        CheckpointError::RootLength { bytes: 0 }
    );
}

#[test]
fn links_that_are_not_a_number_are_refused() {
    for text in [
        "",
        "-1",
        "+1",
        "01",
        "1e6",
        " 1",
        "1_000",
        "18446744073709551616",
    ] {
        assert_eq!(
            parse_err(&body_with_line(2, text)),
            CheckpointError::Links {
                text: text.to_owned()
            },
            "{text:?}"
        );
    }
    assert_eq!(
        parse_err(&body_with_line(2, "twelve")).to_string(),
        "line 2 of the checkpoint should be the number of links, a decimal number without \
         leading zeros, not \"twelve\""
    );
}

#[test]
fn a_bad_time_is_refused_with_the_times_own_reason() {
    for text in [
        "time 2026-05-01T03:12:45Z",
        "time 2026-02-29T00:00:00.000Z",
        "time 2026-05-01 03:12:45.123Z",
        "time ",
    ] {
        let error = parse_err(&body_with_line(4, text));
        let reason = text[5..].parse::<Timestamp>().unwrap_err();
        assert_eq!(error, CheckpointError::Time(reason.clone()));
        assert_eq!(
            error.to_string(),
            format!("line 4 of the checkpoint has a bad time: {reason}")
        );
    }
}

#[test]
fn check_refuses_a_journal_identity_that_would_not_read_back() {
    checkpoint().check().unwrap();
    for journal in ["", "two\nlines", "tab\there"] {
        let checkpoint = Checkpoint {
            journal: journal.to_owned(),
            ..checkpoint()
        };
        assert_eq!(
            checkpoint.check(),
            Err(CheckpointError::Line {
                line: 1,
                expected: "project-lanes/ and the journal's identity"
            }),
            "{journal:?}"
        );
    }
    let spaced = Checkpoint {
        journal: "eu west / db 1".to_owned(),
        ..checkpoint()
    };
    spaced.check().unwrap();
    assert_eq!(
        Checkpoint::parse(&spaced.body()).unwrap().checkpoint(),
        &spaced
    );
}

// ---- bad keys -------------------------------------------------------------------------------

#[test]
fn key_names_are_one_word_of_at_most_a_hundred_characters() {
    for name in ["", "a+b", "a b", "a\tb", "a\u{7}b", &"n".repeat(101)] {
        assert_eq!(
            SigningKey::from_seed(name, seed(0)).unwrap_err(),
            CheckpointError::KeyName {
                name: name.to_owned()
            },
            "{name:?}"
        );
    }
    SigningKey::from_seed(&"n".repeat(100), seed(0)).unwrap();
    SigningKey::from_seed("sumdb.golang.org/ログ", seed(0)).unwrap();
    assert_eq!(
        SigningKey::from_seed("a b", seed(0))
            .unwrap_err()
            .to_string(),
        "\"a b\" is not a key name: a key name is 1 to 100 characters, without +, whitespace \
         or control characters"
    );
}

#[test]
fn a_malformed_key_file_is_refused_with_what_is_wrong() {
    let signer = key().to_text();
    let verifier = verifier().to_text();
    let malformed = |reason| CheckpointError::KeyMalformed { reason };
    assert_eq!(
        SigningKey::parse(&verifier).unwrap_err(),
        malformed(
            "a signer key file should read PRIVATE+KEY+<name>+<key id>+<key> \
             (is this a verifier key?)"
        )
    );
    assert_eq!(
        VerifierKey::parse(&signer).unwrap_err(),
        malformed(
            "this is a signer key (PRIVATE+KEY+…), which stays secret; a verifier key reads \
             <name>+<key id>+<key>"
        )
    );
    assert_eq!(
        VerifierKey::parse(&format!("{verifier}+extra")).unwrap_err(),
        malformed("its key should be standard base64")
    );
    assert_eq!(
        SigningKey::parse("PRIVATE+KEY+ops.example+1234abcd").unwrap_err(),
        malformed("a signer key file should read PRIVATE+KEY+<name>+<key id>+<key>")
    );
    assert_eq!(
        VerifierKey::parse(&format!("{verifier}\n\n")).unwrap_err(),
        malformed("its key should be standard base64")
    );
    let id = verifier.split('+').nth(1).unwrap();
    for bad_id in ["1234567", "123456789", "1234567g", "+1234567", "-1234567"] {
        assert_eq!(
            VerifierKey::parse(&verifier.replace(id, bad_id)).unwrap_err(),
            malformed("its key id should be 8 hex digits"),
            "{bad_id}"
        );
    }
    assert_eq!(
        VerifierKey::parse(&verifier.replace("ops.example", "ops example")).unwrap_err(),
        CheckpointError::KeyName {
            name: "ops example".to_owned()
        }
    );
    assert_eq!(
        VerifierKey::parse("").unwrap_err(),
        malformed("a verifier key file should read <name>+<key id>+<key>")
    );
    assert_eq!(
        malformed("its key should be standard base64").to_string(),
        "the key is malformed: its key should be standard base64"
    );
}

#[test]
fn a_key_of_the_wrong_length_or_algorithm_is_refused() {
    use base64::Engine;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    // The name and id; the key after them may hold `+` too.
    let head = format!("{}+{:08x}", verifier().name(), verifier().key_id());
    let with_key = |bytes: &[u8]| format!("{head}+{}", b64(bytes));
    let mut short = vec![1u8];
    short.extend([9; 31]);
    assert_eq!(
        VerifierKey::parse(&with_key(&short)).unwrap_err(),
        CheckpointError::KeyLength { bytes: 32 }
    );
    let mut long = vec![1u8];
    long.extend([9; 33]);
    assert_eq!(
        VerifierKey::parse(&with_key(&long)).unwrap_err(),
        CheckpointError::KeyLength { bytes: 34 }
    );
    assert_eq!(
        VerifierKey::parse(&with_key(&[])).unwrap_err(),
        CheckpointError::KeyLength { bytes: 0 }
    );
    assert_eq!(
        VerifierKey::parse(&with_key(&long))
            .unwrap_err()
            .to_string(),
        "the key holds 34 bytes, not the 33 of an Ed25519 key (the algorithm byte 1 and 32 \
         bytes of key)"
    );
    let mut other_algorithm = vec![4u8];
    other_algorithm.extend([9; 32]);
    let error = VerifierKey::parse(&with_key(&other_algorithm)).unwrap_err();
    assert_eq!(error, CheckpointError::KeyAlgorithm { byte: 4 });
    assert_eq!(
        error.to_string(),
        "the key is of algorithm 4, not Ed25519 (algorithm 1), the one this build reads"
    );
    assert_eq!(
        SigningKey::parse(&format!("PRIVATE+KEY+{head}+{}", b64(&short))).unwrap_err(),
        CheckpointError::KeyLength { bytes: 32 }
    );
}

#[test]
fn a_key_whose_id_does_not_match_its_name_and_key_is_refused() {
    let verifier = verifier();
    let text = verifier.to_text();
    let written = format!("{:08x}", verifier.key_id());
    let edited = text.replace(&written, "0badf00d");
    let error = VerifierKey::parse(&edited).unwrap_err();
    assert_eq!(
        error,
        CheckpointError::KeyIdMismatch {
            written: 0x0bad_f00d,
            computed: verifier.key_id()
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "the key file says key id 0badf00d, but its name and key have id {written} (was \
             the file edited?)"
        )
    );
    // A renamed key keeps its id, which no longer matches.
    let renamed = text.replace("ops.example", "ops.example.org");
    assert!(matches!(
        VerifierKey::parse(&renamed),
        Err(CheckpointError::KeyIdMismatch { .. })
    ));
    let signer = key().to_text().replace(&written, "0badf00d");
    assert!(matches!(
        SigningKey::parse(&signer),
        Err(CheckpointError::KeyIdMismatch { .. })
    ));
}

#[test]
fn a_signing_keys_debug_shows_no_secret() {
    let key = key();
    let debug = format!("{key:?}");
    let secret = key.to_text();
    let seed_text = secret.rsplit('+').next().unwrap();
    assert!(debug.contains("ops.example"), "{debug}");
    assert!(!debug.contains(seed_text), "{debug}");
}

// ---- no input panics ------------------------------------------------------------------------

#[test]
fn every_single_byte_change_of_a_note_and_its_keys_reads_without_a_panic() {
    let text = checkpoint().sign(key());
    for at in 0..text.len() {
        for replacement in [0u8, b'\n', b' ', b'+', b'A', b'0', 0x80, 0xe2, 0xff] {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = replacement;
            let read = Checkpoint::parse_bytes(&bytes);
            // The body's changes are verified above; here, the signature line's.
            if at > checkpoint().body().len() {
                let _ = read.map(|note| note.verify(verifier()));
            }
            bytes.remove(at);
            let _ = Checkpoint::parse_bytes(&bytes);
        }
    }
    for key_text in [key().to_text(), verifier().to_text()] {
        for at in 0..key_text.len() {
            for cut in [&key_text[..at], &key_text[at..]] {
                let _ = SigningKey::parse(cut);
                let _ = VerifierKey::parse(cut);
            }
            for replacement in ['+', '\n', 'A', '/', '=', 'é'] {
                let mut changed = key_text.clone();
                changed.replace_range(at..at + 1, &replacement.to_string());
                let _ = SigningKey::parse(&changed);
                let _ = VerifierKey::parse(&changed);
            }
        }
    }
}

fn any_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("project-lanes/prod".to_owned()),
        Just("0".to_owned()),
        Just("time 2026-05-01T03:12:45.123Z".to_owned()),
        Just("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".to_owned()),
        Just("— ops.example AAAAAAAAAAA=".to_owned()),
        ".{0,60}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_make_parsing_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = Checkpoint::parse_bytes(&bytes).map(|note| note.verify(verifier()));
        let text = String::from_utf8_lossy(&bytes);
        let _ = SigningKey::parse(&text);
        let _ = VerifierKey::parse(&text);
    }

    #[test]
    fn arbitrary_lines_never_make_parsing_panic(
        lines in proptest::collection::vec(any_line(), 0..9),
        end in prop_oneof![Just(""), Just("\n")],
    ) {
        let text = format!("{}{end}", lines.join("\n"));
        let _ = Checkpoint::parse(&text).map(|note| note.verify(verifier()));
    }
}

proptest! {
    // Fewer: each case signs and verifies, milliseconds in a debug build.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_checkpoint_reads_back_as_written(
        journal in "[^\\p{Cc}]{1,40}",
        links in any::<u64>(),
        root in any::<[u8; 32]>(),
        millis in 0u64..253_402_300_800_000,
    ) {
        let checkpoint = Checkpoint {
            journal,
            links,
            root: Hash(root),
            time: Timestamp::from_millis(millis).unwrap(),
        };
        let text = checkpoint.sign(key());
        let note = Checkpoint::parse(&text).unwrap();
        prop_assert_eq!(note.checkpoint(), &checkpoint);
        prop_assert_eq!(note.body(), checkpoint.body());
        prop_assert!(note.verify(verifier()).is_ok());
    }
}
