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

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use percent_encoding::percent_decode_str;

use crate::test_routes;
use crate::util::Result;

/// Every response body: whole (a file, a message) or made as it is sent (test routes).
pub type Body = BoxBody<Bytes, Infallible>;

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
                test_routes::respond(&shared.root, &url).await
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

/// The file `url` names inside `root`, or 404.
pub fn serve_file(root: &Path, url: &str) -> Response<Body> {
    let Some((bytes, path)) =
        resolve(root, url).and_then(|path| Some((std::fs::read(&path).ok()?, path)))
    else {
        return not_found();
    };
    let mut response = Response::new(Full::new(Bytes::from(bytes)).boxed());
    set(&mut response, "Content-Type", content_type(&path));
    set(&mut response, "Cache-Control", "no-cache");
    set(&mut response, "X-Content-Type-Options", "nosniff");
    response
}

/// A plain-text answer with this status.
pub fn message(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    if !text.is_empty() {
        set(&mut response, "Content-Type", "text/plain; charset=utf-8");
    }
    response
}

pub fn not_found() -> Response<Body> {
    message(StatusCode::NOT_FOUND, "not found\n")
}

/// Sets a header; names and values here are ASCII constants or numbers.
pub fn set(response: &mut Response<Body>, name: &'static str, value: &str) {
    if let (Ok(name), Ok(value)) = (
        HeaderName::from_bytes(name.as_bytes()),
        HeaderValue::from_str(value),
    ) {
        response.headers_mut().insert(name, value);
    }
}

/// Maps a request path to a file inside `root`, or `None` (404).
///
/// The path is percent-decoded once; any `..` segment, backslash, NUL or hidden (dot) segment is
/// refused, and the final path must still be inside `root` after resolving symlinks. Twice-encoded
/// input (`%252e%252e`) therefore names a literal file called `%2e%2e`, which does not exist.
pub fn resolve(root: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next()?;
    let path = path.strip_prefix('/')?;
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    let mut out = root.to_path_buf();
    for segment in decoded.split('/') {
        if segment.is_empty() {
            continue;
        }
        if segment.starts_with('.') || segment.contains(['\\', '\0']) {
            return None;
        }
        out.push(segment);
    }
    if out.is_dir() {
        out.push("index.html");
    }
    let real = out.canonicalize().ok()?;
    (real.starts_with(root) && real.is_file()).then_some(real)
}

/// The `Content-Type` for a file name.
pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        _ => "text/plain; charset=utf-8",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    fn site() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-serve-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("site/pkg")).unwrap();
        std::fs::write(dir.join("site/index.html"), "<h1>home</h1>").unwrap();
        std::fs::write(dir.join("site/pkg/v.wasm"), b"\0asm").unwrap();
        std::fs::write(dir.join("site/a b.json"), "{}").unwrap();
        std::fs::write(dir.join("secret.txt"), "outside").unwrap();
        dir
    }

    #[test]
    fn paths_resolve_inside_the_root_only() {
        let dir = site();
        let root = dir.join("site").canonicalize().unwrap();
        assert_eq!(resolve(&root, "/"), Some(root.join("index.html")));
        assert_eq!(
            resolve(&root, "/pkg/v.wasm?x=1"),
            Some(root.join("pkg/v.wasm"))
        );
        assert_eq!(resolve(&root, "/a%20b.json"), Some(root.join("a b.json")));
        for bad in [
            "/../secret.txt",
            "/pkg/../../secret.txt",
            "/%2e%2e/secret.txt",
            "/%2E%2E/secret.txt",
            "/..%2fsecret.txt",
            "/..%2Fsecret.txt",
            "/%2e%2e%2fsecret.txt",
            "/%252e%252e/secret.txt",
            "/..%5csecret.txt",
            "/.%2e/secret.txt",
            "/%00",
            "//etc/passwd",
            "relative",
            "/missing.html",
        ] {
            assert_eq!(resolve(&root, bad), None, "{bad}");
        }
    }

    #[test]
    fn wasm_is_served_as_application_wasm() {
        assert_eq!(
            content_type(Path::new("x/lane_viewer_bg.wasm")),
            "application/wasm"
        );
        assert_eq!(
            content_type(Path::new("index.html")),
            "text/html; charset=utf-8"
        );
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
}
