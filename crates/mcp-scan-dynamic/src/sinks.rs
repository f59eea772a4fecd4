//! Network sinks inside the sandbox's network namespace: a TCP catch-all (original destination
//! from `SO_ORIGINAL_DST`, HTTP request parsing, TLS SNI), a UDP catch-all and a DNS server that
//! answers every A query with a unique address from 11.0.0.0/8, so the follow-up connection
//! names the host it was meant for. Nothing here ever talks to a real network: the sockets were
//! created inside a namespace with only `lo`.

use crate::sandbox::SinkSockets;
use serde::Serialize;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// First address handed out by the DNS sink (11.0.0.1, 11.0.0.2, ...).
const FAKE_DNS_BASE: u32 = 0x0B00_0000;

/// Bytes kept per captured connection or datagram.
const MAX_CAPTURE: usize = 256 * 1024;

/// One thing a sink caught.
#[derive(Debug, Clone, Serialize)]
pub struct Capture {
    pub ts: f64,
    /// `tcp`, `udp` or `dns`.
    pub protocol: String,
    /// Intended destination `ip:port` (for UDP the sink cannot recover it; see the trace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    /// Host name the destination address was handed out for, or the DNS name queried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sni: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_request: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub http_headers: Vec<(String, String)>,
    /// Payload (HTTP body, or the whole stream when not HTTP), lossy UTF-8.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub body: String,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

impl Capture {
    /// `http://host/path`, `tls host`, `udp 1.2.3.4:9`, `dns name` for reports.
    pub fn describe(&self) -> String {
        let dest = self
            .host
            .clone()
            .or_else(|| self.destination.clone())
            .unwrap_or_else(|| "unknown destination".into());
        if let Some(req) = &self.http_request {
            let mut parts = req.split_whitespace();
            let method = parts.next().unwrap_or("");
            let path = parts.next().unwrap_or("");
            let host = self
                .http_headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("host"))
                .map(|(_, v)| v.clone())
                .unwrap_or(dest);
            return format!("{method} http://{host}{path}");
        }
        if let Some(sni) = &self.sni {
            return format!("TLS to {sni}");
        }
        match self.protocol.as_str() {
            "dns" => format!("DNS query {dest}"),
            p => format!("{p} to {dest}"),
        }
    }
}

#[derive(Default)]
struct Shared {
    captures: Mutex<Vec<Capture>>,
    /// Fake address → name it was handed out for.
    dns: Mutex<HashMap<Ipv4Addr, String>>,
    stop: AtomicBool,
}

/// The running sinks.
pub struct Sinks {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

impl Sinks {
    pub fn start(sockets: SinkSockets, answer_dns: bool) -> std::io::Result<Sinks> {
        let shared = Arc::new(Shared::default());
        let tcp = TcpListener::from(sockets.tcp);
        tcp.set_nonblocking(true)?;
        let udp = UdpSocket::from(sockets.udp);
        udp.set_read_timeout(Some(Duration::from_millis(100)))?;
        let dns = UdpSocket::from(sockets.dns);
        dns.set_read_timeout(Some(Duration::from_millis(100)))?;
        let mut threads = Vec::new();
        let s = shared.clone();
        threads.push(std::thread::spawn(move || tcp_loop(tcp, s)));
        let s = shared.clone();
        threads.push(std::thread::spawn(move || udp_loop(udp, s)));
        let s = shared.clone();
        threads.push(std::thread::spawn(move || dns_loop(dns, s, answer_dns)));
        Ok(Sinks { shared, threads })
    }

    /// Captures so far.
    pub fn captures(&self) -> Vec<Capture> {
        self.shared
            .captures
            .lock()
            .map(|c| c.clone())
            .unwrap_or_default()
    }

    /// Stops the sinks and returns everything captured.
    pub fn stop(mut self) -> Vec<Capture> {
        self.shared.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        let mut c = self.captures();
        c.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        c
    }
}

impl Drop for Sinks {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
    }
}

fn push(shared: &Shared, c: Capture) {
    if let Ok(mut v) = shared.captures.lock()
        && v.len() < 10_000
    {
        v.push(c);
    }
}

fn original_dst(stream: &TcpStream) -> Option<(Ipv4Addr, u16)> {
    let mut addr: libc::sockaddr_in = unsafe_zeroed();
    let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    const SO_ORIGINAL_DST: libc::c_int = 80;
    // SAFETY: getsockopt writes at most `len` bytes into `addr`.
    let r = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_IP,
            SO_ORIGINAL_DST,
            (&mut addr as *mut libc::sockaddr_in).cast(),
            &mut len,
        )
    };
    (r == 0).then(|| {
        (
            Ipv4Addr::from(u32::from_be(addr.sin_addr.s_addr)),
            u16::from_be(addr.sin_port),
        )
    })
}

fn unsafe_zeroed() -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: 0,
        sin_port: 0,
        sin_addr: libc::in_addr { s_addr: 0 },
        sin_zero: [0; 8],
    }
}

fn tcp_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut workers = Vec::new();
    while !shared.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let s = shared.clone();
                workers.push(std::thread::spawn(move || handle_tcp(stream, s)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
        workers.retain(|w: &JoinHandle<()>| !w.is_finished());
    }
    for w in workers {
        let _ = w.join();
    }
}

fn handle_tcp(mut stream: TcpStream, shared: Arc<Shared>) {
    let ts = now();
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(1500)));
    let dst = original_dst(&stream);
    let host = dst.and_then(|(ip, _)| shared.dns.lock().ok().and_then(|m| m.get(&ip).cloned()));
    let mut data = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                data.extend_from_slice(&buf[..n]);
                if data.len() >= MAX_CAPTURE || request_complete(&data) {
                    break;
                }
                if data.first() == Some(&0x16) && parse_sni(&data).is_some() {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    data.truncate(MAX_CAPTURE);
    let mut c = Capture {
        ts,
        protocol: "tcp".into(),
        destination: dst.map(|(ip, port)| format!("{ip}:{port}")),
        host,
        sni: None,
        http_request: None,
        http_headers: Vec::new(),
        body: String::new(),
        bytes: Vec::new(),
    };
    if data.first() == Some(&0x16) {
        c.sni = parse_sni(&data);
    } else if let Some(req) = parse_http(&data) {
        c.http_request = Some(req.request_line);
        c.http_headers = req.headers;
        c.body = String::from_utf8_lossy(&req.body).into_owned();
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
        );
    } else {
        c.body = String::from_utf8_lossy(&data).into_owned();
    }
    c.bytes = data;
    push(&shared, c);
}

fn udp_loop(sock: UdpSocket, shared: Arc<Shared>) {
    let mut buf = vec![0u8; 65536];
    while !shared.stop.load(Ordering::SeqCst) {
        if let Ok((n, _)) = sock.recv_from(&mut buf) {
            let data = buf[..n].to_vec();
            push(
                &shared,
                Capture {
                    ts: now(),
                    protocol: "udp".into(),
                    destination: None,
                    host: None,
                    sni: None,
                    http_request: None,
                    http_headers: Vec::new(),
                    body: String::from_utf8_lossy(&data).into_owned(),
                    bytes: data,
                },
            );
        }
    }
}

fn dns_loop(sock: UdpSocket, shared: Arc<Shared>, answer: bool) {
    let mut buf = [0u8; 4096];
    let mut next: u32 = 1;
    while !shared.stop.load(Ordering::SeqCst) {
        let Ok((n, from)) = sock.recv_from(&mut buf) else {
            continue;
        };
        let Some(q) = parse_dns_query(&buf[..n]) else {
            continue;
        };
        let ip = if answer && q.qtype == 1 {
            let mut map = match shared.dns.lock() {
                Ok(m) => m,
                Err(_) => continue,
            };
            let existing = map.iter().find(|(_, v)| **v == q.name).map(|(k, _)| *k);
            let ip = existing.unwrap_or_else(|| {
                // A public-looking range: servers that refuse private addresses (SSRF guards,
                // sandbox checks) still connect, and the connection still ends at the sink.
                let ip = Ipv4Addr::from(FAKE_DNS_BASE + next);
                next += 1;
                map.insert(ip, q.name.clone());
                ip
            });
            Some(ip)
        } else {
            None
        };
        let reply = dns_reply(&buf[..n], &q, ip, answer);
        let _ = sock.send_to(&reply, from);
        push(
            &shared,
            Capture {
                ts: now(),
                protocol: "dns".into(),
                destination: None,
                host: Some(q.name.clone()),
                sni: None,
                http_request: None,
                http_headers: Vec::new(),
                body: String::new(),
                bytes: q.name.into_bytes(),
            },
        );
    }
}

/// A parsed HTTP request.
#[derive(Debug, PartialEq)]
pub struct HttpRequest {
    pub request_line: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

fn header_end(data: &[u8]) -> Option<usize> {
    data.windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
}

fn content_length(headers: &[(String, String)]) -> Option<usize> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
}

fn request_complete(data: &[u8]) -> bool {
    let Some(end) = header_end(data) else {
        return false;
    };
    let Some(req) = parse_http(data) else {
        return true;
    };
    if req
        .headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"))
    {
        return data.ends_with(b"0\r\n\r\n");
    }
    data.len() >= end + content_length(&req.headers).unwrap_or(0)
}

/// Parses an HTTP/1.x request (headers and as much body as arrived).
pub fn parse_http(data: &[u8]) -> Option<HttpRequest> {
    let end = header_end(data)?;
    let head = std::str::from_utf8(&data[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next()?.to_string();
    let mut parts = request_line.split(' ');
    let method = parts.next()?;
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    if !parts.nth(1).is_some_and(|v| v.starts_with("HTTP/")) {
        return None;
    }
    let headers = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect();
    Some(HttpRequest {
        request_line,
        headers,
        body: data[end..].to_vec(),
    })
}

/// Extracts the server name from a TLS ClientHello.
pub fn parse_sni(data: &[u8]) -> Option<String> {
    let get = |i: usize| data.get(i).copied().map(usize::from);
    let u16at = |i: usize| Some((get(i)? << 8) | get(i + 1)?);
    if get(0)? != 0x16 || get(5)? != 0x01 {
        return None;
    }
    // record header 5, handshake header 4, version 2, random 32
    let mut p = 5 + 4 + 2 + 32;
    p += 1 + get(p)?; // session id
    p += 2 + u16at(p)?; // cipher suites
    p += 1 + get(p)?; // compression methods
    let ext_end = p + 2 + u16at(p)?;
    p += 2;
    while p + 4 <= ext_end {
        let ty = u16at(p)?;
        let len = u16at(p + 2)?;
        p += 4;
        if ty == 0 {
            // server_name_list: len(2), type(1), name len(2), name
            let name_len = u16at(p + 3)?;
            let name = data.get(p + 5..p + 5 + name_len)?;
            return String::from_utf8(name.to_vec()).ok();
        }
        p += len;
    }
    None
}

#[derive(Debug, PartialEq)]
pub struct DnsQuery {
    pub name: String,
    pub qtype: u16,
    /// Offset just past the question.
    end: usize,
}

pub fn parse_dns_query(data: &[u8]) -> Option<DnsQuery> {
    if data.len() < 12 || u16::from_be_bytes([data[4], data[5]]) == 0 {
        return None;
    }
    let mut p = 12;
    let mut labels = Vec::new();
    loop {
        let len = usize::from(*data.get(p)?);
        p += 1;
        if len == 0 {
            break;
        }
        if len > 63 {
            return None;
        }
        labels.push(String::from_utf8_lossy(data.get(p..p + len)?).into_owned());
        p += len;
    }
    let qtype = u16::from_be_bytes([*data.get(p)?, *data.get(p + 1)?]);
    Some(DnsQuery {
        name: labels.join("."),
        qtype,
        end: p + 4,
    })
}

fn dns_reply(query: &[u8], q: &DnsQuery, ip: Option<Ipv4Addr>, answer: bool) -> Vec<u8> {
    let mut r = Vec::with_capacity(q.end + 16);
    r.extend_from_slice(&query[..2]); // id
    let rcode: u8 = if answer { 0 } else { 3 };
    r.extend_from_slice(&[0x81, 0x80 | rcode]); // response, RD, RA
    r.extend_from_slice(&[0, 1]); // qdcount
    r.extend_from_slice(&[0, u8::from(ip.is_some())]); // ancount
    r.extend_from_slice(&[0, 0, 0, 0]);
    r.extend_from_slice(query.get(12..q.end).unwrap_or_default());
    if let Some(ip) = ip {
        r.extend_from_slice(&[0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4]);
        r.extend_from_slice(&ip.octets());
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_post_with_body() {
        let req = b"POST /collect HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 5\r\n\r\nhello";
        assert!(request_complete(req));
        let r = parse_http(req).expect("http");
        assert_eq!(r.request_line, "POST /collect HTTP/1.1");
        assert_eq!(r.body, b"hello");
        assert!(r.headers.contains(&("Host".into(), "evil.example".into())));
        assert!(!request_complete(&req[..req.len() - 1]));
    }

    #[test]
    fn non_http_bytes_are_not_a_request() {
        assert!(parse_http(b"\x00\x01binary\r\n\r\n").is_none());
        assert!(parse_http(b"hello there\r\n\r\n").is_none());
    }

    fn client_hello(name: &str) -> Vec<u8> {
        let n = name.as_bytes();
        let mut sni = vec![0, 0];
        let list_len = (n.len() + 3) as u16;
        let ext_len = list_len + 2;
        sni.extend_from_slice(&ext_len.to_be_bytes());
        sni.extend_from_slice(&list_len.to_be_bytes());
        sni.push(0);
        sni.extend_from_slice(&(n.len() as u16).to_be_bytes());
        sni.extend_from_slice(n);
        let mut body = vec![3, 3];
        body.extend_from_slice(&[7u8; 32]);
        body.push(0); // session id
        body.extend_from_slice(&[0, 2, 0x13, 0x01]); // one suite
        body.extend_from_slice(&[1, 0]); // compression
        body.extend_from_slice(&(sni.len() as u16).to_be_bytes());
        body.extend_from_slice(&sni);
        let mut hs = vec![1, 0];
        hs.extend_from_slice(&(body.len() as u16).to_be_bytes());
        hs.extend_from_slice(&body);
        let mut rec = vec![0x16, 3, 1];
        rec.extend_from_slice(&(hs.len() as u16).to_be_bytes());
        rec.extend_from_slice(&hs);
        rec
    }

    #[test]
    fn extracts_sni_from_client_hello() {
        assert_eq!(
            parse_sni(&client_hello("api.exfil.example")).as_deref(),
            Some("api.exfil.example")
        );
        let h = client_hello("x.example");
        for cut in 0..h.len() {
            let _ = parse_sni(&h[..cut]);
        }
        assert_eq!(parse_sni(b"GET / HTTP/1.1\r\n"), None);
    }

    #[test]
    fn dns_query_parses_and_reply_answers_with_the_given_address() {
        let mut q = vec![0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        for l in ["abc123", "exfil", "example"] {
            q.push(l.len() as u8);
            q.extend_from_slice(l.as_bytes());
        }
        q.extend_from_slice(&[0, 0, 1, 0, 1]);
        let p = parse_dns_query(&q).expect("query");
        assert_eq!(p.name, "abc123.exfil.example");
        assert_eq!(p.qtype, 1);
        let r = dns_reply(&q, &p, Some(Ipv4Addr::new(198, 18, 0, 7)), true);
        assert_eq!(&r[..2], &[0x12, 0x34]);
        assert_eq!(r[7], 1, "one answer");
        assert_eq!(&r[r.len() - 4..], &[198, 18, 0, 7]);
        let nx = dns_reply(&q, &p, None, false);
        assert_eq!(nx[3] & 0x0f, 3, "NXDOMAIN when DNS answers are off");
        assert!(parse_dns_query(&q[..15]).is_none());
    }
}
