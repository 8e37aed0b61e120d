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

use crate::serve::{Body, not_found, serve_file, set};

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

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{SocketAddr, TcpStream};
    use std::time::Instant;

    use crate::serve::StaticServer;

    fn server() -> SocketAddr {
        let dir = std::env::temp_dir().join(format!("xtask-routes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.json"), "{}").unwrap();
        StaticServer::bind(&dir, 0).unwrap().for_tests().spawn()
    }

    /// Sends a GET and returns the status line and headers (lower-cased), and the open stream.
    fn get_head(addr: SocketAddr, path: &str) -> (String, BufReader<TcpStream>) {
        let mut stream = TcpStream::connect(addr).unwrap();
        write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            head.push_str(&line.to_ascii_lowercase());
        }
        (head, reader)
    }

    #[test]
    fn files_carry_cors_headers_for_the_test_page() {
        let (head, _) = get_head(server(), "/a.json");
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(head.contains("access-control-allow-origin: *"), "{head}");
        assert!(
            head.contains("cross-origin-resource-policy: cross-origin"),
            "{head}"
        );
    }

    #[test]
    fn a_claimed_length_is_sent_without_being_made_first() {
        let started = Instant::now();
        let (head, mut body) = get_head(server(), "/__length/2000000000/big.json");
        assert!(head.contains("content-length: 2000000000"), "{head}");
        let mut first = [0u8; 1024];
        body.read_exact(&mut first).unwrap();
        assert!(first.iter().all(|b| *b == b' '));
        assert!(started.elapsed().as_secs() < 5);
    }

    #[test]
    fn an_endless_body_is_chunked() {
        let (head, mut body) = get_head(server(), "/__endless/big.json");
        assert!(head.contains("transfer-encoding: chunked"), "{head}");
        assert!(!head.contains("content-length"), "{head}");
        let mut some = [0u8; 100_000];
        body.read_exact(&mut some).unwrap();
    }

    #[test]
    fn a_slow_file_arrives_after_its_delay() {
        let started = Instant::now();
        let (head, _) = get_head(server(), "/__slow/300/a.json");
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(started.elapsed().as_millis() >= 300);
    }

    #[test]
    fn plain_serve_has_no_test_routes_and_no_cors() {
        let dir = std::env::temp_dir().join(format!("xtask-plain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.json"), "{}").unwrap();
        let addr = StaticServer::bind(&dir, 0).unwrap().spawn();
        let (head, _) = get_head(addr, "/__length/10/x.json");
        assert!(head.starts_with("http/1.1 404"), "{head}");
        let (head, _) = get_head(addr, "/a.json");
        assert!(!head.contains("access-control"), "{head}");
    }
}
