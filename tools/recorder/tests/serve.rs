//! The viewer's file server: the page, the recordings, and nothing outside the viewer.

use impetus_recorder::serve::{default_viewer_dir, serve, ServeOptions};
use std::io::{Read, Write};
use std::net::TcpStream;

fn get(port: u16, path: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&all[..split]).to_string();
    (head, all[split + 4..].to_vec())
}

#[test]
fn serves_the_page_and_the_recording_only() {
    let fixture = default_viewer_dir().join("test/fixtures/fall.impr");
    let options = ServeOptions {
        viewer_dir: default_viewer_dir(),
        recordings: vec![fixture.clone()],
        port: 0,
        max_requests: Some(6),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || {
        serve(&options, |url| tx.send(url.to_string()).unwrap()).unwrap();
    });
    let url = rx.recv().unwrap();
    assert!(url.ends_with("/?file=recordings/0.impr"), "{url}");
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let (head, body) = get(port, "/");
    assert!(
        head.starts_with("HTTP/1.0 200") && head.contains("text/html"),
        "{head}"
    );
    assert!(String::from_utf8_lossy(&body).contains("viewer.js"));
    let (head, body) = get(port, "/recordings/0.impr");
    assert!(head.starts_with("HTTP/1.0 200"), "{head}");
    assert_eq!(body, std::fs::read(&fixture).unwrap());
    let (head, _) = get(port, "/impr.js");
    assert!(head.contains("text/javascript"), "{head}");
    for path in ["/../Cargo.toml", "/recordings/1.impr", "/.hidden"] {
        let (head, _) = get(port, path);
        assert!(head.starts_with("HTTP/1.0 404"), "{path}: {head}");
    }
    server.join().unwrap();
}
