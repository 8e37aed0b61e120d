//! The answers the project's server sends: a file of its folder (with its content type), or a
//! short message. `serve.rs` answers with them, and so do the test routes of `test_routes.rs`.

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use percent_encoding::percent_decode_str;

/// Every response body: whole (a file, a message) or made as it is sent (test routes).
pub type Body = BoxBody<Bytes, Infallible>;

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
        // Version 3 records: JSON lines.
        Some("jsonl") => "application/jsonl",
        // The guide's (mdBook's) images and fonts.
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("woff") => "font/woff",
        _ => "text/plain; charset=utf-8",
    }
}

/// A folder for the file server's tests, named after `name`: `site/` (a page, a wasm file, a
/// name with a space) and `secret.txt` beside it, outside the site.
#[cfg(test)]
pub fn test_site(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("site/pkg")).unwrap();
    std::fs::write(dir.join("site/index.html"), "<h1>home</h1>").unwrap();
    std::fs::write(dir.join("site/pkg/v.wasm"), b"\0asm").unwrap();
    std::fs::write(dir.join("site/a b.json"), "{}").unwrap();
    std::fs::write(dir.join("secret.txt"), "outside").unwrap();
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> PathBuf {
        test_site("responses")
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

    #[test]
    fn the_guides_images_and_fonts_get_their_types() {
        assert_eq!(
            content_type(Path::new("guide/favicon-1.svg")),
            "image/svg+xml"
        );
        assert_eq!(content_type(Path::new("guide/favicon-1.png")), "image/png");
        assert_eq!(
            content_type(Path::new(
                "guide/fonts/open-sans-v17-all-charsets-regular.woff2"
            )),
            "font/woff2"
        );
    }
}
