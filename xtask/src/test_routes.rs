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
//!   (views) until the client stops reading, at most 4 GiB, at [`LINES_PACE`]: a record that
//!   never ends, arriving as over a network (unpaced, an engine buffers what loopback gives it,
//!   gigabytes, long before its page has read 64 MiB, and then the end of the 4 GiB cannot be
//!   told from the client stopping).
//! - `/__sent/<name>`: how many bytes the last `/__lines/<name>` of the same client (its
//!   `User-Agent`: the engines run at once) has handed to the connection so far, as decimal text
//!   (`0` for a name never asked for): a test sees where a reader stopped without timing it.
//! - `/__hang/<name>`: never answers (until the server's process ends).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Response;
use hyper::body::{Frame, SizeHint};

use crate::responses::{Body, not_found, serve_file, set};

/// The most a slow answer waits.
const MAX_DELAY_MS: u64 = 30_000;
/// The most an endless answer sends.
const ENDLESS_BYTES: u64 = 4 << 30;
/// Spaces are sent in pieces of this size.
const PIECE: usize = 64 * 1024;
/// `/__lines/` sends a piece (about 64 KiB) each this often: 16 MiB a second, so the 4 GiB
/// take over four minutes, far longer than any engine takes to read the 64 MiB a test allows.
const LINES_PACE: Duration = Duration::from_millis(4);

/// The answer for a test route to `client` (its `User-Agent`), or `None` when `url` is an
/// ordinary file path.
pub async fn respond(root: &Path, url: &str, client: &str) -> Option<Response<Body>> {
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
            Ok(bytes) => Response::new(Made(Pieces::new(&bytes, b"", 0)).boxed()),
            Err(_) => not_found(),
        },
        "lines" => {
            let counted = counter(client, rest);
            sent_so_far(&counted, None);
            let body = Pieces {
                counted: Some(counted),
                pace: Some(Box::pin(tokio::time::sleep(LINES_PACE))),
                ..Pieces::new(LINES_HEAD.as_bytes(), LINES_STEP.as_bytes(), ENDLESS_BYTES)
            };
            Response::new(Made(body).boxed())
        }
        "sent" => {
            let mut response = Response::new(
                Full::new(Bytes::from(
                    sent_so_far(&counter(client, rest), Some(0)).to_string(),
                ))
                .boxed(),
            );
            set(&mut response, "Content-Type", "text/plain; charset=utf-8");
            set(&mut response, "Cache-Control", "no-store");
            response
        }
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

/// Bytes handed to the connection by each `/__lines/<name>`, by [`counter`].
static SENT: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

/// The name under which `client`'s `/__lines/<name>` is counted: each engine's tests see their
/// own streams, as they run at once.
fn counter(client: &str, name: &str) -> String {
    format!("{client}\n{name}")
}

/// Adds `more` to what `counted` has sent (`None` starts it again at 0) and returns the total.
fn sent_so_far(counted: &str, more: Option<u64>) -> u64 {
    let mut sent = SENT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let total = sent.entry(counted.to_owned()).or_insert(0);
    *total = more.map_or(0, |more| *total + more);
    *total
}

/// A body sent without a length (chunked): `first` in pieces of 1,000 bytes, then `again`
/// repeated until `more` bytes of it are sent; counted under `counted`, if named, and a piece
/// each time `pace` ends, if paced.
struct Pieces {
    first: Bytes,
    again: Bytes,
    more: u64,
    counted: Option<String>,
    pace: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// A body made piece by piece as it is sent: [`Made`] is the `hyper` body of any of them.
trait Piecewise: Unpin {
    /// The next piece, `None` after the last.
    fn next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>>;

    /// Whether the last piece was sent.
    fn ended(&self) -> bool {
        false
    }

    /// Its length, when it is announced (`Content-Length`).
    fn hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

/// The body of a [`Piecewise`].
struct Made<P>(P);

impl<P: Piecewise> hyper::body::Body for Made<P> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let piece = self.get_mut().0.next(cx);
        piece.map(|piece| piece.map(|piece| Ok(Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.ended()
    }

    fn size_hint(&self) -> SizeHint {
        self.0.hint()
    }
}

impl Piecewise for Pieces {
    fn next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if let Some(pace) = &mut self.pace {
            if pace.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            let next = pace.deadline() + LINES_PACE;
            pace.as_mut().reset(next);
        }
        let piece = self.next_piece();
        if let (Some(piece), Some(name)) = (&piece, &self.counted) {
            sent_so_far(name, Some(piece.len() as u64));
        }
        Poll::Ready(piece)
    }
}

impl Pieces {
    fn new(first: &[u8], again: &[u8], more: u64) -> Pieces {
        Pieces {
            first: Bytes::copy_from_slice(first),
            again: Bytes::copy_from_slice(again),
            more,
            counted: None,
            pace: None,
        }
    }

    fn next_piece(&mut self) -> Option<Bytes> {
        if !self.first.is_empty() {
            let n = self.first.len().min(1_000);
            return Some(self.first.split_to(n));
        }
        if self.more == 0 || self.again.is_empty() {
            return None;
        }
        // A piece of about 64 KiB of the repeated line.
        let times = (PIECE / self.again.len()).max(1);
        let mut piece = Vec::with_capacity(times * self.again.len());
        for _ in 0..times {
            piece.extend_from_slice(&self.again);
        }
        self.more = self.more.saturating_sub(piece.len() as u64);
        Some(Bytes::from(piece))
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
    let mut response = Response::new(Made(body).boxed());
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

impl Piecewise for Spaces {
    fn next(&mut self, _: &mut Context<'_>) -> Poll<Option<Bytes>> {
        static PIECE_OF_SPACES: [u8; PIECE] = [b' '; PIECE];
        if !self.head.is_empty() {
            let head = std::mem::take(&mut self.head);
            return Poll::Ready(Some(Bytes::from_static(head)));
        }
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let n = self.left.min(PIECE as u64) as usize;
        self.left -= n as u64;
        Poll::Ready(Some(Bytes::from_static(&PIECE_OF_SPACES[..n])))
    }

    fn ended(&self) -> bool {
        self.left == 0 && self.head.is_empty()
    }

    fn hint(&self) -> SizeHint {
        if self.exact {
            SizeHint::with_exact(self.left + self.head.len() as u64)
        } else {
            SizeHint::default()
        }
    }
}
