//! Answers the browser tests need and a folder of files cannot give: slow, oversized, endless and
//! hanging responses. Only a server made `for_tests` answers these paths; `cargo xtask serve`
//! never does.
//!
//! - `/__slow/<ms>/<path>`: the site's file `<path>`, after `<ms>` milliseconds (at most 30,000).
//! - `/__length/<bytes>/<name>`: `200` with `Content-Length: <bytes>` and that many spaces, made
//!   as they are sent (claiming 2 GB costs nothing unless the client reads it); for a `<name>`
//!   ending in `.jsonl`, a version 3 record's head first.
//! - `/__endless/<name>`: `200` without a length (chunked), spaces until the client stops
//!   reading, at most 4 GiB.
//! - `/__chunked/<path>`: the site's file `<path>` without a length, in pieces of 1,000 bytes
//!   (a record arriving a chunk at a time).
//! - `/__lines/<name>`: `200` without a length, a version 3 record's head and then valid steps
//!   (views) until the client stops reading, at most 4 GiB: a record that never ends.
//! - `/__hang/<name>`: never answers (until the server's process ends).

use std::convert::Infallible;
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::Response;
use hyper::body::{Frame, SizeHint};

use crate::responses::{Body, not_found, serve_file, set};

/// The most a slow answer waits.
const MAX_DELAY_MS: u64 = 30_000;
/// The most an endless answer sends.
const ENDLESS_BYTES: u64 = 4 << 30;
/// Spaces are sent in pieces of this size.
const PIECE: usize = 64 * 1024;

/// The answer for a test route, or `None` when `url` is an ordinary file path.
pub async fn respond(root: &Path, url: &str) -> Option<Response<Body>> {
    let rest = url.strip_prefix("/__")?;
    let (route, rest) = rest.split_once('/').unwrap_or((rest, ""));
    Some(match route {
        "slow" => {
            let (ms, path) = rest.split_once('/')?;
            let ms: u64 = ms.parse().ok()?;
            tokio::time::sleep(Duration::from_millis(ms.min(MAX_DELAY_MS))).await;
            serve_file(root, &format!("/{path}"))
        }
        "length" => {
            let (bytes, name) = rest.split_once('/')?;
            let head = if name.ends_with(".jsonl") {
                LINES_HEAD
            } else {
                ""
            };
            spaces(bytes.parse().ok()?, true, head)
        }
        "endless" => spaces(ENDLESS_BYTES, false, ""),
        "chunked" => match std::fs::read(root.join(rest)) {
            Ok(bytes) => pieces(bytes, Vec::new(), 0),
            Err(_) => not_found(),
        },
        "lines" => pieces(
            LINES_HEAD.as_bytes().to_vec(),
            LINES_STEP.as_bytes().to_vec(),
            ENDLESS_BYTES,
        ),
        "hang" => std::future::pending().await,
        _ => not_found(),
    })
}

/// The head of `/__lines/`'s record, and the step it repeats.
const LINES_HEAD: &str = concat!(
    r#"{"format":"project-lanes/record","version":3,"id":"endless","#,
    r#""title":{"en":"Endless","ja":"終わらない記録"},"summary":{"en":"It never ends.","ja":"終わりません。"},"#,
    r#""work_executed_here":false}"#,
    "\n"
);
const LINES_STEP: &str = "{\"op\":\"view\",\"project\":\"docs\",\"result\":\"ok\",\"lane\":{\"project\":\"docs\",\"busy\":false}}\n";

/// `first` in pieces of 1,000 bytes, then `again` repeated until `more` bytes of it are sent,
/// without a length (chunked).
fn pieces(first: Vec<u8>, again: Vec<u8>, more: u64) -> Response<Body> {
    let body = Pieces {
        first: Bytes::from(first),
        again: Bytes::from(again),
        more,
    };
    Response::new(body.boxed())
}

/// A body sent a piece at a time: see [`pieces`].
struct Pieces {
    first: Bytes,
    again: Bytes,
    more: u64,
}

impl hyper::body::Body for Pieces {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if !self.first.is_empty() {
            let n = self.first.len().min(1_000);
            let piece = self.first.split_to(n);
            return Poll::Ready(Some(Ok(Frame::data(piece))));
        }
        if self.more == 0 || self.again.is_empty() {
            return Poll::Ready(None);
        }
        // A piece of about 64 KiB of the repeated line.
        let times = (PIECE / self.again.len()).max(1);
        let mut piece = Vec::with_capacity(times * self.again.len());
        for _ in 0..times {
            piece.extend_from_slice(&self.again);
        }
        self.more = self.more.saturating_sub(piece.len() as u64);
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(piece)))))
    }
}

/// `count` spaces as a JSON body (after `head`, counted among them), sent with their length or
/// (not `exact`) chunked.
fn spaces(count: u64, exact: bool, head: &'static str) -> Response<Body> {
    let head = &head.as_bytes()[..head.len().min(count as usize)];
    let body = Spaces {
        head,
        left: count - head.len() as u64,
        exact,
    };
    let mut response = Response::new(body.boxed());
    set(&mut response, "Content-Type", "application/json");
    response
}

/// A body of spaces made as it is sent.
struct Spaces {
    head: &'static [u8],
    left: u64,
    /// Whether the length is announced (`Content-Length`) or not (chunked).
    exact: bool,
}

impl hyper::body::Body for Spaces {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        static PIECE_OF_SPACES: [u8; PIECE] = [b' '; PIECE];
        if !self.head.is_empty() {
            let head = std::mem::take(&mut self.head);
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(head)))));
        }
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let n = self.left.min(PIECE as u64) as usize;
        self.left -= n as u64;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
            &PIECE_OF_SPACES[..n],
        )))))
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0 && self.head.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        if self.exact {
            SizeHint::with_exact(self.left + self.head.len() as u64)
        } else {
            SizeHint::default()
        }
    }
}
