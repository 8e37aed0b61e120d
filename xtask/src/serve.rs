//! `cargo xtask serve`: serves `target/dist/` on 127.0.0.1 only, with correct content types
//! (`.wasm` as `application/wasm`), and never anything outside that folder.

use std::fs::File;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;

use percent_encoding::percent_decode_str;
use tiny_http::{Header, Method, Request, Response, Server};

use crate::util::Result;

/// A static file server bound to loopback.
pub struct StaticServer {
    server: Arc<Server>,
    root: PathBuf,
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
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.server
            .server_addr()
            .to_ip()
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Serves requests until the process ends, one thread per request.
    pub fn run(&self) {
        for request in self.server.incoming_requests() {
            let root = self.root.clone();
            thread::spawn(move || respond(&root, request));
        }
    }

    /// Serves requests on a background thread until the process ends.
    pub fn spawn(self) -> SocketAddr {
        let addr = self.addr();
        thread::spawn(move || self.run());
        addr
    }
}

fn respond(root: &Path, request: Request) {
    let response = match request.method() {
        Method::Get | Method::Head => match resolve(root, request.url()) {
            Some(path) => match File::open(&path) {
                Ok(file) => Response::from_file(file)
                    .with_header(header("Content-Type", content_type(&path)))
                    .with_header(header("Cache-Control", "no-cache"))
                    .with_header(header("X-Content-Type-Options", "nosniff"))
                    .boxed(),
                Err(_) => not_found(),
            },
            None => not_found(),
        },
        _ => Response::from_string("method not allowed\n")
            .with_status_code(405)
            .with_header(header("Allow", "GET, HEAD"))
            .boxed(),
    };
    // The client may have gone away; nothing to do about it.
    let _ = request.respond(response);
}

fn not_found() -> tiny_http::ResponseBox {
    Response::from_string("not found\n")
        .with_status_code(404)
        .with_header(header("Content-Type", "text/plain; charset=utf-8"))
        .boxed()
}

fn header(name: &str, value: &str) -> Header {
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
