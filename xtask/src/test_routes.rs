//! Answers the browser tests need and a folder of files cannot give: slow, oversized, endless and
//! hanging responses. Only a server made `for_tests` answers these paths; `cargo xtask serve`
//! never does.
//!
//! - `/__slow/<ms>/<path>`: the site's file `<path>`, after `<ms>` milliseconds (at most 30,000).
//! - `/__length/<bytes>/<name>`: `200` with `Content-Length: <bytes>` and that many spaces, made
//!   as they are sent (claiming 2 GB costs nothing unless the client reads it).
//! - `/__endless/<name>`: `200` without a length (chunked), spaces until the client stops
//!   reading, at most 4 GiB.
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
            let (bytes, _name) = rest.split_once('/')?;
            spaces(bytes.parse().ok()?, true)
        }
        "endless" => spaces(ENDLESS_BYTES, false),
        "hang" => std::future::pending().await,
        _ => not_found(),
    })
}

/// `count` spaces as a JSON body, sent with their length or (not `exact`) chunked.
fn spaces(count: u64, exact: bool) -> Response<Body> {
    let mut response = Response::new(Spaces { left: count, exact }.boxed());
    set(&mut response, "Content-Type", "application/json");
    response
}

/// A body of spaces made as it is sent.
struct Spaces {
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
        self.left == 0
    }

    fn size_hint(&self) -> SizeHint {
        if self.exact {
            SizeHint::with_exact(self.left)
        } else {
            SizeHint::default()
        }
    }
}
