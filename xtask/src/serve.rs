//! The project's one static file server: `cargo xtask serve` serves `target/dist/` with it, and the
//! browser tests fetch their records and fixtures from it (`for_tests`). It listens on 127.0.0.1
//! only, sends correct content types (`.wasm` as `application/wasm`), never serves anything
//! outside its folder, and answers each request on its own thread, so a slow or half-sent request
//! never holds up another.

use std::collections::BTreeMap;
use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use percent_encoding::percent_decode_str;
use tiny_http::{Header, Method, Request, Response, ResponseBox, Server};

use crate::test_routes;
use crate::util::Result;

/// A static file server bound to loopback.
pub struct StaticServer {
    server: Arc<Server>,
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
        let server = Server::http(("127.0.0.1", port)).map_err(|e| {
            format!(
                "cannot listen on 127.0.0.1:{port}: {e} (is another server using it? try --port N)"
            )
        })?;
        Ok(StaticServer {
            server: Arc::new(server),
            root,
            for_tests: false,
            open: Arc::default(),
        })
    }

    /// Serves the browser tests: every response may be read from another origin (the test page
    /// comes from wasm-bindgen-test-runner's own port), and the routes of `test_routes` (slow,
    /// oversized, endless and hanging answers) are on.
    pub fn for_tests(mut self) -> StaticServer {
        self.for_tests = true;
        self
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.server
            .server_addr()
            .to_ip()
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// The requests being answered right now (for a report when a test hangs).
    pub fn open_requests(&self) -> Arc<OpenRequests> {
        self.open.clone()
    }

    /// Serves requests until the process ends, one thread per request.
    pub fn run(&self) {
        for request in self.server.incoming_requests() {
            let root = self.root.clone();
            let for_tests = self.for_tests;
            let open = self.open.clone();
            thread::spawn(move || {
                let id = open.begin(request.url());
                respond(&root, for_tests, request);
                open.end(id);
            });
        }
    }

    /// Serves requests on a background thread until the process ends.
    pub fn spawn(self) -> SocketAddr {
        let addr = self.addr();
        thread::spawn(move || self.run());
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
    fn begin(&self, url: &str) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut open) = self.open.lock() {
            open.insert(id, (url.to_owned(), Instant::now()));
        }
        id
    }

    fn end(&self, id: u64) {
        if let Ok(mut open) = self.open.lock() {
            open.remove(&id);
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

fn respond(root: &Path, for_tests: bool, request: Request) {
    let response = match request.method() {
        Method::Get | Method::Head => {
            let routed = if for_tests {
                test_routes::respond(root, request.url())
            } else {
                None
            };
            routed.unwrap_or_else(|| serve_file(root, request.url()))
        }
        Method::Options if for_tests => Response::empty(204)
            .with_header(header("Access-Control-Allow-Methods", "GET, HEAD"))
            .with_header(header("Access-Control-Allow-Headers", "*"))
            .boxed(),
        _ => Response::from_string("method not allowed\n")
            .with_status_code(405)
            .with_header(header("Allow", "GET, HEAD"))
            .boxed(),
    };
    let response = if for_tests {
        response
            .with_header(header("Access-Control-Allow-Origin", "*"))
            // The runner's page is cross-origin isolated (COEP require-corp): it may load the
            // stylesheet and other subresources from here only with this.
            .with_header(header("Cross-Origin-Resource-Policy", "cross-origin"))
    } else {
        response
    };
    // The client may have gone away; nothing to do about it.
    let _ = request.respond(response);
}

/// The file `url` names inside `root`, or 404.
pub fn serve_file(root: &Path, url: &str) -> ResponseBox {
    match resolve(root, url).and_then(|path| Some((File::open(&path).ok()?, path))) {
        Some((file, path)) => Response::from_file(file)
            .with_header(header("Content-Type", content_type(&path)))
            .with_header(header("Cache-Control", "no-cache"))
            .with_header(header("X-Content-Type-Options", "nosniff"))
            .boxed(),
        None => not_found(),
    }
}

pub fn not_found() -> ResponseBox {
    Response::from_string("not found\n")
        .with_status_code(404)
        .with_header(header("Content-Type", "text/plain; charset=utf-8"))
        .boxed()
}

pub fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes())
        .unwrap_or_else(|_| unreachable!("header names and values here are ASCII constants"))
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
