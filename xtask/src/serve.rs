//! The project's one static file server: `cargo xtask serve` serves `target/dist/` with it, and the
//! browser tests fetch their records and fixtures from it (`for_tests`). It listens on 127.0.0.1
//! only, sends correct content types (`.wasm` as `application/wasm`) and never serves anything
//! outside its folder.
//!
//! HTTP is hyper's, on a single-threaded tokio runtime of its own: every connection is a task, so
//! a slow, half-sent or kept-alive connection never holds up another. (tiny_http, which this
//! server used before and which wasm-bindgen-test-runner's server is built on, hands connections
//! to a thread pool that can leave a new connection queued behind kept-alive ones: Chromium's
//! request then sits unread, and a page load hangs. Seen here in about one load in five.)

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use crate::responses::{Body, message, serve_file, set};
use crate::test_routes;
use crate::util::Result;

/// A static file server bound to loopback.
pub struct StaticServer {
    listener: TcpListener,
    shared: Arc<Shared>,
}

/// What every connection's task reads.
struct Shared {
    root: PathBuf,
    for_tests: bool,
    open: Arc<OpenRequests>,
}

impl StaticServer {
    /// Binds `127.0.0.1:port` (0 picks a free port) to serve `root`.
    pub fn bind(root: &Path, port: u16) -> Result<StaticServer> {
        let root = root
            .canonicalize()
            .map_err(|e| format!("cannot serve {}: {e}", root.display()))?;
        let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
            format!(
                "cannot listen on 127.0.0.1:{port}: {e} (is another server using it? try --port N)"
            )
        })?;
        listener.set_nonblocking(true)?;
        Ok(StaticServer {
            listener,
            shared: Arc::new(Shared {
                root,
                for_tests: false,
                open: Arc::default(),
            }),
        })
    }

    /// Serves the browser tests: every response may be read from another origin (the test page
    /// comes from wasm-bindgen-test-runner's own port), and the routes of `test_routes` (slow,
    /// oversized, endless and hanging answers) are on.
    pub fn for_tests(mut self) -> StaticServer {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.for_tests = true;
        }
        self
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// The requests being answered right now (for a report when a test hangs).
    pub fn open_requests(&self) -> Arc<OpenRequests> {
        self.shared.open.clone()
    }

    /// Serves requests until the process ends.
    pub fn run(self) -> Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(self.listener)?;
            loop {
                let (stream, _) = match listener.accept().await {
                    Ok(accepted) => accepted,
                    // Out of file descriptors and the like: wait a little, then go on.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                // Small answers go out at once, not after the client's delayed ACK.
                let _ = stream.set_nodelay(true);
                let shared = self.shared.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let shared = shared.clone();
                        async move { Ok::<_, Infallible>(respond(&shared, request).await) }
                    });
                    // The client may go away at any point; nothing to do about it.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        })
    }

    /// Serves requests on a background thread until the process ends.
    pub fn spawn(self) -> SocketAddr {
        let addr = self.addr();
        thread::spawn(move || {
            if let Err(error) = self.run() {
                eprintln!("xtask: the server on {addr} stopped: {error}");
            }
        });
        addr
    }
}

/// The requests a server is answering, with when each began.
#[derive(Default)]
pub struct OpenRequests {
    next: AtomicU64,
    open: Mutex<BTreeMap<u64, (String, Instant)>>,
}

impl OpenRequests {
    fn begin(self: &Arc<Self>, url: &str) -> OpenRequest {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut open) = self.open.lock() {
            open.insert(id, (url.to_owned(), Instant::now()));
        }
        OpenRequest {
            requests: self.clone(),
            id,
        }
    }

    /// Each request opened since `start` and still open: its path and how long it has been
    /// open, oldest first.
    pub fn list_since(&self, start: Instant) -> Vec<(String, Duration)> {
        self.open
            .lock()
            .map(|open| {
                open.values()
                    .filter(|(_, since)| *since >= start)
                    .map(|(url, since)| (url.clone(), since.elapsed()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One request on the list until it is answered (or its connection is dropped).
struct OpenRequest {
    requests: Arc<OpenRequests>,
    id: u64,
}

impl Drop for OpenRequest {
    fn drop(&mut self) {
        if let Ok(mut open) = self.requests.open.lock() {
            open.remove(&self.id);
        }
    }
}

async fn respond(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    let url = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let _open = shared.open.begin(&url);
    let mut response = match *request.method() {
        Method::GET | Method::HEAD => {
            let routed = if shared.for_tests {
                let client = request
                    .headers()
                    .get(hyper::header::USER_AGENT)
                    .and_then(|agent| agent.to_str().ok())
                    .unwrap_or_default();
                test_routes::respond(&shared.root, &url, client).await
            } else {
                None
            };
            routed.unwrap_or_else(|| serve_file(&shared.root, &url))
        }
        Method::OPTIONS if shared.for_tests => {
            let mut response = message(StatusCode::NO_CONTENT, "");
            set(&mut response, "Access-Control-Allow-Methods", "GET, HEAD");
            set(&mut response, "Access-Control-Allow-Headers", "*");
            response
        }
        _ => {
            let mut response = message(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
            set(&mut response, "Allow", "GET, HEAD");
            response
        }
    };
    if shared.for_tests {
        set(&mut response, "Access-Control-Allow-Origin", "*");
        // The runner's page is cross-origin isolated (COEP require-corp): it may load the
        // stylesheet and other subresources from here only with this.
        set(
            &mut response,
            "Cross-Origin-Resource-Policy",
            "cross-origin",
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpStream;

    fn site() -> PathBuf {
        crate::responses::test_site("serve")
    }

    fn get(addr: SocketAddr, target: &str) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        // Raw request line: no client-side normalisation of the path.
        write!(
            stream,
            "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }

    #[test]
    fn the_server_answers_on_loopback_and_refuses_traversal() {
        let dir = site();
        let server = StaticServer::bind(&dir.join("site"), 0).unwrap();
        let addr = server.spawn();
        assert!(addr.ip().is_loopback());
        let home = get(addr, "/");
        assert!(home.starts_with("HTTP/1.1 200"), "{home}");
        assert!(home.contains("<h1>home</h1>"));
        let wasm = get(addr, "/pkg/v.wasm");
        assert!(
            wasm.to_ascii_lowercase()
                .contains("content-type: application/wasm"),
            "{wasm}"
        );
        for bad in [
            "/../secret.txt",
            "/%2e%2e/secret.txt",
            "/..%2fsecret.txt",
            "/%252e%252e/secret.txt",
        ] {
            let response = get(addr, bad);
            assert!(response.starts_with("HTTP/1.1 404"), "{bad}: {response}");
            assert!(!response.contains("outside"));
        }
    }

    // The test routes, as the browser tests meet them: through a server made `for_tests`.

    fn server() -> SocketAddr {
        let dir = std::env::temp_dir().join(format!("xtask-routes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.json"), "{}").unwrap();
        StaticServer::bind(&dir, 0).unwrap().for_tests().spawn()
    }

    /// Sends a GET and returns the status line and headers (lower-cased), and the open stream.
    fn get_head(addr: SocketAddr, path: &str) -> (String, BufReader<TcpStream>) {
        get_head_as(addr, path, "xtask-test")
    }

    /// [`get_head`] from the client `agent` (its `User-Agent`).
    fn get_head_as(addr: SocketAddr, path: &str, agent: &str) -> (String, BufReader<TcpStream>) {
        let mut stream = TcpStream::connect(addr).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: x\r\nUser-Agent: {agent}\r\n\r\n"
        )
        .unwrap();
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
    fn each_client_counts_its_own_streams() {
        let addr = server();
        let sent = |agent: &str| {
            let (head, mut body) = get_head_as(addr, "/__sent/counted", agent);
            assert!(head.starts_with("http/1.1 200"), "{head}");
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            let mut text = vec![0; length];
            body.read_exact(&mut text).unwrap();
            String::from_utf8(text).unwrap().parse::<u64>().unwrap()
        };
        let (head, mut body) = get_head_as(addr, "/__lines/counted", "Engine A");
        assert!(head.contains("transfer-encoding: chunked"), "{head}");
        let mut some = [0u8; 10_000];
        body.read_exact(&mut some).unwrap();
        assert!(sent("Engine A") >= 10_000);
        assert_eq!(sent("Engine B"), 0);
        // Another client's stream of the same name starts its own count, not A's again.
        let (_, mut other) = get_head_as(addr, "/__lines/counted", "Engine B");
        other.read_exact(&mut some).unwrap();
        assert!(sent("Engine A") >= 10_000);
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
