//! A tiny HTTP/1.0 file server (std only) for the viewer: it serves the viewer's folder
//! and the recordings on 127.0.0.1, one connection at a time, `GET` and `HEAD` only.
//!
//! Paths: `/` is the viewer's `index.html`; `/recordings/K.impr` is the K-th recording
//! given; anything else is a file under the viewer's folder (no `..`, no hidden files).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// What to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The viewer's folder (`tools/viewer`).
    pub viewer_dir: PathBuf,
    /// The recordings: the first is opened, the second (if any) compared with it.
    pub recordings: Vec<PathBuf>,
    /// The port on 127.0.0.1 (0: any free one).
    pub port: u16,
    /// Stop after this many requests (`None`: serve until the process ends).
    pub max_requests: Option<usize>,
}

/// The viewer's folder in this source tree.
pub fn default_viewer_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../viewer")
}

/// Binds 127.0.0.1, calls `ready` with the page's URL (with the recordings in its query),
/// then serves.
pub fn serve(options: &ServeOptions, ready: impl FnOnce(&str)) -> std::io::Result<()> {
    if !options.viewer_dir.join("index.html").is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no index.html in {}", options.viewer_dir.display()),
        ));
    }
    for r in &options.recordings {
        if !r.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("no recording {}", r.display()),
            ));
        }
    }
    let listener = TcpListener::bind(("127.0.0.1", options.port))?;
    let port = listener.local_addr()?.port();
    let mut url = format!("http://127.0.0.1:{port}/");
    for (k, _) in options.recordings.iter().enumerate() {
        let key = if k == 0 { "?file" } else { "&compare" };
        if k < 2 {
            url.push_str(&format!("{key}=recordings/{k}.impr"));
        }
    }
    ready(&url);
    for (k, stream) in listener.incoming().enumerate() {
        if let Ok(stream) = stream {
            // A broken connection is the browser's business; serve the next.
            let _ = answer(stream, options);
        }
        if options.max_requests.is_some_and(|m| k + 1 >= m) {
            break;
        }
    }
    Ok(())
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("txt") | Some("md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The file a request path names, if any.
fn resolve(path: &str, options: &ServeOptions) -> Option<PathBuf> {
    let path = path.split(['?', '#']).next().unwrap_or("");
    if path == "/" || path.is_empty() {
        return Some(options.viewer_dir.join("index.html"));
    }
    if let Some(k) = path
        .strip_prefix("/recordings/")
        .and_then(|r| r.strip_suffix(".impr"))
    {
        return k
            .parse::<usize>()
            .ok()
            .and_then(|k| options.recordings.get(k).cloned());
    }
    let rel = Path::new(path.trim_start_matches('/'));
    let plain = rel.components().all(|c| match c {
        Component::Normal(s) => !s.to_string_lossy().starts_with('.'),
        _ => false,
    });
    plain.then(|| options.viewer_dir.join(rel))
}

fn answer(stream: TcpStream, options: &ServeOptions) -> std::io::Result<()> {
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // Drain the headers.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let mut stream = reader.into_inner();
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method != "GET" && method != "HEAD" {
        return reply(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"GET only\n",
            true,
        );
    }
    match resolve(path, options).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b))) {
        Some((p, body)) => reply(
            &mut stream,
            "200 OK",
            content_type(&p),
            &body,
            method == "GET",
        ),
        None => reply(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            true,
        ),
    }
}

fn reply(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.0 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
}
