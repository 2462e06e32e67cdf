//! A small static file server on 127.0.0.1 for the built page (`cargo xtask serve`, and the
//! browser test). std only; GET and HEAD; the MIME types a WebAssembly page needs
//! (`application/wasm` lets the browser compile while downloading).
//!
//! This file is also compiled into xtask with `#[path]`, so it depends on nothing but std.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::thread;

/// The MIME type of a file, by extension.
pub fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Maps a request path to a file under `root`, refusing anything that leaves it.
pub fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let path = url_path.split(['?', '#']).next().unwrap_or("/");
    let mut out = root.to_path_buf();
    for c in Path::new(path.trim_start_matches('/')).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    out.is_file().then_some(out)
}

fn respond(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // Skip the headers.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let (status, ctype, body) = match (method, resolve(root, target)) {
        ("GET" | "HEAD", Some(file)) => match std::fs::read(&file) {
            Ok(b) => ("200 OK", mime(&file), b),
            Err(e) => (
                "500 Internal Server Error",
                "text/plain",
                e.to_string().into_bytes(),
            ),
        },
        ("GET" | "HEAD", None) => ("404 Not Found", "text/plain", b"not found\n".to_vec()),
        _ => (
            "405 Method Not Allowed",
            "text/plain",
            b"GET only\n".to_vec(),
        ),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if method != "HEAD" {
        stream.write_all(&body)?;
    }
    stream.flush()
}

/// Serves `root` on `listener` forever, one thread per connection.
pub fn serve(listener: TcpListener, root: PathBuf) {
    for stream in listener.incoming().flatten() {
        let root = root.clone();
        thread::spawn(move || {
            let _ = respond(stream, &root);
        });
    }
}

/// Binds 127.0.0.1:`port` (0 for any free port), serves `root` on a background thread and
/// returns the bound port.
pub fn spawn(root: PathBuf, port: u16) -> std::io::Result<u16> {
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    let port = listener.local_addr()?.port();
    thread::spawn(move || serve(listener, root));
    Ok(port)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_root_and_types_are_right() {
        let root = std::env::temp_dir().join(format!("kupfer-serve-{}", std::process::id()));
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("index.html"), "<p>hi</p>").unwrap();
        std::fs::write(root.join("sub/a.wasm"), [0u8, 97, 115, 109]).unwrap();
        assert_eq!(resolve(&root, "/"), Some(root.join("index.html")));
        assert_eq!(resolve(&root, "/?test"), Some(root.join("index.html")));
        assert_eq!(
            resolve(&root, "/sub/a.wasm#x"),
            Some(root.join("sub/a.wasm"))
        );
        assert_eq!(resolve(&root, "/../etc/passwd"), None);
        assert_eq!(resolve(&root, "/sub/../../x"), None);
        assert_eq!(resolve(&root, "/missing.js"), None);
        assert_eq!(mime(Path::new("x.wasm")), "application/wasm");
        assert!(mime(Path::new("x.js")).starts_with("text/javascript"));

        // A real request over TCP.
        let port = spawn(root.clone(), 0).unwrap();
        let get = |path: &str| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
            let mut out = String::new();
            std::io::Read::read_to_string(&mut s, &mut out).unwrap();
            out
        };
        let ok = get("/");
        assert!(
            ok.starts_with("HTTP/1.1 200 OK") && ok.ends_with("<p>hi</p>"),
            "{ok}"
        );
        assert!(get("/sub/a.wasm").contains("Content-Type: application/wasm"));
        assert!(get("/../Cargo.toml").starts_with("HTTP/1.1 404"));
        let _ = std::fs::remove_dir_all(&root);
    }
}
