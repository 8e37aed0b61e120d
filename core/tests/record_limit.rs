//! A version 3 reader's size limit against the lines it judges: the same bytes and the same limit
//! get one verdict however they are cut into chunks, wherever the cuts fall around the limit
//! (issue 54: an endless stream once refused as `INVALID_RECORD` instead of
//! `RECORD_TOO_LARGE`). The first fault in the bytes wins; the byte after the limit is one.

use project_lanes::record::json::ReadError;
use project_lanes::record::stream::{MAX_LINE_BYTES, Reader, Verdict};

const HEAD: &str = concat!(
    r#"{"format":"project-lanes/record","version":3,"id":"endless","#,
    r#""title":{"en":"Endless","ja":"終わらない記録"},"summary":{"en":"It never ends.","ja":"終わりません。"},"#,
    r#""work_executed_here":false}"#,
    "\n"
);
/// The step `/__lines/` repeats.
const STEP: &str = "{\"op\":\"view\",\"project\":\"docs\",\"result\":\"ok\",\"lane\":{\"project\":\"docs\",\"busy\":false}}\n";

/// How many bytes either side of the limit the cuts are tried at.
const WINDOW: u64 = 64;

/// `bytes` read with `limit`, fed as `pieces` (the lengths of the chunks; the rest in one last).
fn read_cut(bytes: &[u8], limit: u64, pieces: &[usize]) -> Result<Verdict, ReadError> {
    let mut reader = Reader::new().limit(limit);
    let mut rest = bytes;
    for &n in pieces {
        let (piece, after) = rest.split_at(n.min(rest.len()));
        reader.feed(piece, &mut |_| {})?;
        rest = after;
    }
    reader.feed(rest, &mut |_| {})?;
    reader.finish(&mut |_| {})
}

/// The verdict on `bytes` with `limit`, checked to be the same whole, cut in two at every offset
/// within [`WINDOW`] of the limit, cut in three around each of those offsets, and a byte at a
/// time.
fn one_verdict(bytes: &[u8], limit: u64) -> Result<Verdict, ReadError> {
    let whole = read_cut(bytes, limit, &[]);
    let from = limit.saturating_sub(WINDOW) as usize;
    let to = ((limit + WINDOW) as usize).min(bytes.len());
    for cut in from..=to {
        assert_eq!(
            read_cut(bytes, limit, &[cut]),
            whole,
            "limit {limit}, cut at {cut}"
        );
        if cut > 0 {
            assert_eq!(
                read_cut(bytes, limit, &[cut - 1, 2]),
                whole,
                "limit {limit}, cut at {} and {}",
                cut - 1,
                cut + 1
            );
        }
    }
    let mut reader = Reader::new().limit(limit);
    let bytewise = bytes
        .iter()
        .try_for_each(|b| reader.feed(std::slice::from_ref(b), &mut |_| {}))
        .and_then(|()| reader.finish(&mut |_| {}));
    assert_eq!(bytewise, whole, "limit {limit}, a byte at a time");
    whole
}

fn code(verdict: &Result<Verdict, ReadError>) -> &'static str {
    match verdict {
        Ok(_) => "VALID",
        Err(e) => e.code(),
    }
}

fn steps(n: usize) -> Vec<u8> {
    [HEAD, &STEP.repeat(n)].concat().into_bytes()
}

#[test]
fn an_endless_stream_of_steps_is_too_large_however_it_is_cut_at_the_limit() {
    // What `/__lines/endless` sends, up to where a reader stops: the limit falls inside a step,
    // at its line break, and just after it.
    let bytes = steps(200);
    let after_step = (HEAD.len() + 100 * STEP.len()) as u64;
    for limit in [after_step - 1, after_step, after_step + 1, after_step + 30] {
        let verdict = one_verdict(&bytes[..(limit + WINDOW + 1) as usize], limit);
        assert_eq!(
            code(&verdict),
            "RECORD_TOO_LARGE",
            "limit {limit}: {verdict:?}"
        );
    }
}

#[test]
fn a_stream_that_stops_at_the_limit_was_cut_short_and_one_past_it_is_too_large() {
    // The end of the stream and the limit meet: the bytes within the limit are all there is, and
    // they stop before the end line; one more byte is past the limit.
    let bytes = steps(100);
    let n = bytes.len() as u64;
    let verdict = one_verdict(&bytes, n);
    assert_eq!(code(&verdict), "INVALID_RECORD", "{verdict:?}");
    assert!(
        verdict.unwrap_err().to_string().contains("cut short"),
        "a stream that ended is one that stops before its end line"
    );
    assert_eq!(code(&one_verdict(&bytes, n - 1)), "RECORD_TOO_LARGE");
}

#[test]
fn a_valid_record_just_within_the_limit_is_valid_and_one_byte_over_is_too_large() {
    let mut bytes = steps(100);
    bytes.extend_from_slice(b"{\"end\":{\"steps\":100}}\n");
    let n = bytes.len() as u64;
    let verdict = one_verdict(&bytes, n).expect("within the limit");
    assert_eq!((verdict.steps, verdict.mismatch), (100, None));
    assert_eq!(code(&one_verdict(&bytes, n + 1)), "VALID");
    assert_eq!(code(&one_verdict(&bytes, n - 1)), "RECORD_TOO_LARGE");
}

#[test]
fn a_broken_line_within_the_limit_is_invalid_however_the_bytes_past_it_arrive() {
    // Before, a chunk that held both the broken line and the byte past the limit was refused as
    // too large, and the same bytes cut before the limit as invalid.
    let mut bytes = steps(10);
    let broken = bytes.len() as u64;
    bytes.extend_from_slice(b"{\"op\":\"view\"]\n");
    let ends = bytes.len() as u64;
    bytes.extend_from_slice(&STEP.repeat(10).into_bytes());
    for limit in [ends, ends + 1, ends + 40] {
        let verdict = one_verdict(&bytes, limit);
        assert_eq!(code(&verdict), "INVALID_JSON", "limit {limit}: {verdict:?}");
        assert!(verdict.unwrap_err().to_string().starts_with("line 12,"));
    }
    // Its line break past the limit: the line is never judged.
    for limit in [broken + 3, ends - 1] {
        assert_eq!(
            code(&one_verdict(&bytes, limit)),
            "RECORD_TOO_LARGE",
            "{limit}"
        );
    }
}

#[test]
fn an_endless_line_is_invalid_only_when_it_grows_too_long_within_the_limit() {
    // One line that never ends: it is too long at its byte past `MAX_LINE_BYTES`, which is
    // byte `too_long` of the record.
    let mut bytes = HEAD.as_bytes().to_vec();
    bytes.extend_from_slice(br#"{"op":"view","project":""#);
    bytes.resize(HEAD.len() + MAX_LINE_BYTES + 2 * WINDOW as usize, b'x');
    let too_long = (HEAD.len() + MAX_LINE_BYTES + 1) as u64;
    for limit in [too_long, too_long + 1] {
        let verdict = one_verdict(&bytes, limit);
        assert_eq!(
            code(&verdict),
            "INVALID_RECORD",
            "limit {limit}: {verdict:?}"
        );
        assert!(verdict.unwrap_err().to_string().contains("longer than"));
    }
    for limit in [too_long - 2, too_long - 1] {
        let verdict = one_verdict(&bytes, limit);
        assert_eq!(
            code(&verdict),
            "RECORD_TOO_LARGE",
            "limit {limit}: {verdict:?}"
        );
    }
}
