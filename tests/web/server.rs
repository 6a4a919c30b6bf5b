//! A static file server on 127.0.0.1 for the built web demo: GET only, one thread per request.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// Serves `root` on a free port of 127.0.0.1 until the test process ends; returns its address.
pub fn serve(root: &Path) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
    let address = format!("http://{}", listener.local_addr().unwrap());
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || respond(stream, &root));
        }
    });
    address
}

fn respond(mut stream: TcpStream, root: &Path) {
    let mut reader = BufReader::new(stream.try_clone().expect("a second handle on the stream"));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Skip the headers: a static GET needs none of them.
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        header.clear();
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split('?').next().unwrap_or("/");
    let (status, kind, body) = match file_for(root, path).and_then(|file| Some((std::fs::read(&file).ok()?, file))) {
        Some((body, file)) => ("200 OK", content_type(&file), body),
        None => ("404 Not Found", "text/plain", b"not found".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&body));
}

/// The file under `root` that `path` names (`/` is index.html); none outside `root`.
fn file_for(root: &Path, path: &str) -> Option<PathBuf> {
    let relative = path.trim_start_matches('/');
    let relative = if relative.is_empty() { "index.html" } else { relative };
    if relative.split('/').any(|part| part == ".." || part.is_empty()) {
        return None;
    }
    Some(root.join(relative))
}

/// The type a browser needs: `application/wasm` for streaming compilation, `text/javascript`
/// for modules.
fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}
