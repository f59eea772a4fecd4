//! Network sinks inside the sandbox's network namespace: a TCP catch-all (original destination
//! from `SO_ORIGINAL_DST` / `IP6T_SO_ORIGINAL_DST`, HTTP request parsing, TLS SNI), a UDP
//! catch-all and a DNS server that answers every A query with a unique address from 11.0.0.0/8
//! and every AAAA query with one from 2d00:6d63:7073::/48, so the follow-up connection names the
//! host it was meant for. Each runs on IPv4 and, when the namespace has it, on IPv6. Nothing here
//! ever talks to a real network: the sockets were created inside a namespace with only `lo`.

use crate::sandbox::SinkSockets;
use serde::Serialize;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{
    IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6, TcpListener, TcpStream,
    UdpSocket,
};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// First address handed out by the DNS sink (11.0.0.1, 11.0.0.2, ...).
const FAKE_DNS_BASE: u32 = 0x0B00_0000;
/// Base of the AAAA answers (2d00:6d63:7073::1, ::2, ...): 2d00::/8 is reserved by IANA and never
/// routed, yet public-looking (not private, not documentation), like 11.0.0.0/8 for A.
const FAKE_DNS6_BASE: u128 = 0x2d00_6d63_7073_u128 << 80;

/// Said in the report when the namespace has no IPv6.
pub const IPV6_UNAVAILABLE: &str = "IPv6 could not be set up in the sandbox (the kernel has no IPv6 or it is disabled): IPv6 egress is only seen by the tracer, its payloads are not captured";

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
    dns: Mutex<FakeDns>,
    stop: AtomicBool,
}

/// The names the DNS sinks answered: name n gets 11.0.0.n and 2d00:6d63:7073::n.
#[derive(Default)]
struct FakeDns {
    index: HashMap<String, u32>,
    /// Fake address → name it was handed out for.
    names: HashMap<IpAddr, String>,
}

impl FakeDns {
    /// The fake address of `name` in the family of `qtype` (1 = A, 28 = AAAA).
    fn answer(&mut self, name: &str, qtype: u16) -> Option<IpAddr> {
        if qtype != 1 && qtype != 28 {
            return None;
        }
        let next = u32::try_from(self.index.len()).ok()?.checked_add(1)?;
        // 11.0.0.0/8 has room for 2^24 - 1 names; past that nothing more is answered.
        if next >= 1 << 24 && !self.index.contains_key(name) {
            return None;
        }
        let n = *self.index.entry(name.to_string()).or_insert(next);
        let ip = if qtype == 1 {
            IpAddr::V4(Ipv4Addr::from(FAKE_DNS_BASE + n))
        } else {
            IpAddr::V6(Ipv6Addr::from(FAKE_DNS6_BASE + u128::from(n)))
        };
        self.names.insert(ip, name.to_string());
        Some(ip)
    }
}

/// The running sinks.
pub struct Sinks {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    ipv6: bool,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

const SINK_POLL: Duration = Duration::from_millis(20);

impl Sinks {
    pub fn start(sockets: SinkSockets, answer_dns: bool) -> std::io::Result<Sinks> {
        let shared = Arc::new(Shared::default());
        let ipv6 = sockets.v6.is_some();
        let mut sets = vec![(sockets.tcp, sockets.udp, sockets.dns)];
        sets.extend(sockets.v6.map(|v| (v.tcp, v.udp, v.dns)));
        let mut threads = Vec::new();
        for (tcp, udp, dns) in sets {
            let tcp = TcpListener::from(tcp);
            tcp.set_nonblocking(true)?;
            // The timeouts are how often the loops look at the stop flag: `stop` waits that long.
            let udp = UdpSocket::from(udp);
            udp.set_read_timeout(Some(SINK_POLL))?;
            let dns = UdpSocket::from(dns);
            dns.set_read_timeout(Some(SINK_POLL))?;
            let s = shared.clone();
            threads.push(std::thread::spawn(move || tcp_loop(tcp, s)));
            let s = shared.clone();
            threads.push(std::thread::spawn(move || udp_loop(udp, s)));
            let s = shared.clone();
            threads.push(std::thread::spawn(move || dns_loop(dns, s, answer_dns)));
        }
        Ok(Sinks {
            shared,
            threads,
            ipv6,
        })
    }

    /// Whether IPv6 traffic is caught too (else only the tracer sees it; see [`IPV6_UNAVAILABLE`]).
    pub fn ipv6(&self) -> bool {
        self.ipv6
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

/// The destination a NATed connection was meant for: `SO_ORIGINAL_DST` (SOL_IP) on IPv4,
/// `IP6T_SO_ORIGINAL_DST` (SOL_IPV6, same number 80) on IPv6. `None` when it was not NATed.
fn original_dst(stream: &TcpStream) -> Option<SocketAddr> {
    const SO_ORIGINAL_DST: libc::c_int = 80;
    let level = match stream.local_addr().ok()? {
        SocketAddr::V4(_) => libc::SOL_IP,
        SocketAddr::V6(_) => libc::SOL_IPV6,
    };
    // Room for a sockaddr_in6 (28 bytes), the larger of the two.
    let mut buf = [0u8; 32];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `buf`.
    let r = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            level,
            SO_ORIGINAL_DST,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if r != 0 {
        return None;
    }
    parse_sockaddr(buf.get(..usize::try_from(len).ok()?)?)
}

/// Decodes a `sockaddr_in` or `sockaddr_in6` as the kernel writes it (family in host order,
/// port and address in network order).
fn parse_sockaddr(b: &[u8]) -> Option<SocketAddr> {
    let family = i32::from(u16::from_ne_bytes([*b.first()?, *b.get(1)?]));
    let port = u16::from_be_bytes([*b.get(2)?, *b.get(3)?]);
    if family == libc::AF_INET {
        let ip: [u8; 4] = b.get(4..8)?.try_into().ok()?;
        Some(SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::from(ip), port)))
    } else if family == libc::AF_INET6 {
        let flow = u32::from_be_bytes(b.get(4..8)?.try_into().ok()?);
        let ip: [u8; 16] = b.get(8..24)?.try_into().ok()?;
        let scope = u32::from_ne_bytes(b.get(24..28)?.try_into().ok()?);
        Some(SocketAddr::V6(SocketAddrV6::new(
            Ipv6Addr::from(ip),
            port,
            flow,
            scope,
        )))
    } else {
        None
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
            Err(_) => std::thread::sleep(SINK_POLL),
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
    let host = dst.and_then(|d| {
        shared
            .dns
            .lock()
            .ok()
            .and_then(|m| m.names.get(&d.ip()).cloned())
    });
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
        // `1.2.3.4:80`, `[2001:db8::10]:8080`.
        destination: dst.map(|d| SocketAddr::new(d.ip(), d.port()).to_string()),
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
    while !shared.stop.load(Ordering::SeqCst) {
        let Ok((n, from)) = sock.recv_from(&mut buf) else {
            continue;
        };
        let Some(q) = parse_dns_query(&buf[..n]) else {
            continue;
        };
        // Public-looking ranges: servers that refuse private addresses (SSRF guards, sandbox
        // checks) still connect, and the connection still ends at the sink.
        // A real resolver's policy, not a wildcard: random names are NXDOMAIN (resolver.rs).
        let answer = answer && crate::resolver::resolves(&q.name);
        let ip = if answer {
            match shared.dns.lock() {
                Ok(mut d) => d.answer(&q.name, q.qtype),
                Err(_) => continue,
            }
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

fn dns_reply(query: &[u8], q: &DnsQuery, ip: Option<IpAddr>, answer: bool) -> Vec<u8> {
    let mut r = Vec::with_capacity(q.end + 16);
    r.extend_from_slice(&query[..2]); // id
    let rcode: u8 = if answer { 0 } else { 3 };
    r.extend_from_slice(&[0x81, 0x80 | rcode]); // response, RD, RA
    r.extend_from_slice(&[0, 1]); // qdcount
    r.extend_from_slice(&[0, u8::from(ip.is_some())]); // ancount
    r.extend_from_slice(&[0, 0, 0, 0]);
    r.extend_from_slice(query.get(12..q.end).unwrap_or_default());
    // Name pointer to the question, type, class IN, TTL 60, then the address.
    match ip {
        Some(IpAddr::V4(ip)) => {
            r.extend_from_slice(&[0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4]);
            r.extend_from_slice(&ip.octets());
        }
        Some(IpAddr::V6(ip)) => {
            r.extend_from_slice(&[0xc0, 0x0c, 0, 28, 0, 1, 0, 0, 0, 60, 0, 16]);
            r.extend_from_slice(&ip.octets());
        }
        None => {}
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
        let r = dns_reply(&q, &p, Some(IpAddr::V4(Ipv4Addr::new(198, 18, 0, 7))), true);
        assert_eq!(&r[..2], &[0x12, 0x34]);
        assert_eq!(r[7], 1, "one answer");
        assert_eq!(&r[r.len() - 4..], &[198, 18, 0, 7]);
        let nx = dns_reply(&q, &p, None, false);
        assert_eq!(nx[3] & 0x0f, 3, "NXDOMAIN when DNS answers are off");
        assert!(parse_dns_query(&q[..15]).is_none());
    }

    /// A sockaddr_in6 laid out as the kernel fills it for IP6T_SO_ORIGINAL_DST.
    fn kernel_sockaddr_in6(ip: Ipv6Addr, port: u16) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&(libc::AF_INET6 as u16).to_ne_bytes());
        b.extend_from_slice(&port.to_be_bytes());
        b.extend_from_slice(&0u32.to_be_bytes()); // flow info
        b.extend_from_slice(&ip.octets());
        b.extend_from_slice(&0u32.to_ne_bytes()); // scope id
        b
    }

    #[test]
    fn ipv6_original_destination_is_decoded_and_shown_bracketed() {
        let ip: Ipv6Addr = "2001:db8::10".parse().expect("ip");
        let raw = kernel_sockaddr_in6(ip, 8080);
        assert_eq!(raw.len(), std::mem::size_of::<libc::sockaddr_in6>());
        let dst = parse_sockaddr(&raw).expect("v6 destination");
        assert_eq!(dst.ip(), IpAddr::V6(ip));
        assert_eq!(dst.port(), 8080);
        assert_eq!(dst.to_string(), "[2001:db8::10]:8080");
        // Cut short (the kernel wrote less than a sockaddr_in6): no address, no panic.
        for cut in 0..24 {
            assert_eq!(parse_sockaddr(&raw[..cut]), None, "cut at {cut}");
        }
        // Twin: a sockaddr_in still decodes as IPv4, and an unknown family is refused.
        let mut v4 = (libc::AF_INET as u16).to_ne_bytes().to_vec();
        v4.extend_from_slice(&80u16.to_be_bytes());
        v4.extend_from_slice(&[93, 184, 216, 34]);
        v4.extend_from_slice(&[0; 8]);
        assert_eq!(
            parse_sockaddr(&v4).map(|d| d.to_string()).as_deref(),
            Some("93.184.216.34:80")
        );
        let mut unix = raw.clone();
        unix[..2].copy_from_slice(&(libc::AF_UNIX as u16).to_ne_bytes());
        assert_eq!(parse_sockaddr(&unix), None);
    }

    #[test]
    fn dns_answers_aaaa_with_a_fake_v6_address_of_the_same_name() {
        let mut q = vec![0xab, 0xcd, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        for l in ["v6only", "example"] {
            q.push(l.len() as u8);
            q.extend_from_slice(l.as_bytes());
        }
        q.extend_from_slice(&[0, 0, 28, 0, 1]);
        let p = parse_dns_query(&q).expect("query");
        assert_eq!(p.qtype, 28);
        let mut dns = FakeDns::default();
        let v4 = dns.answer("other.example", 1).expect("A");
        let v6 = dns.answer(&p.name, 28).expect("AAAA");
        assert_eq!(v4, IpAddr::V4(Ipv4Addr::new(11, 0, 0, 1)));
        assert_eq!(v6.to_string(), "2d00:6d63:7073::2");
        assert_eq!(
            dns.answer(&p.name, 1).map(|a| a.to_string()).as_deref(),
            Some("11.0.0.2")
        );
        assert_eq!(
            dns.names.get(&v6).map(String::as_str),
            Some("v6only.example")
        );
        // Other record types get no answer.
        assert_eq!(dns.answer(&p.name, 16), None);
        let r = dns_reply(&q, &p, Some(v6), true);
        assert_eq!(r[7], 1, "one answer");
        assert_eq!(&r[r.len() - 18..r.len() - 16], &[0, 16], "rdlength 16");
        let IpAddr::V6(v6) = v6 else {
            panic!("AAAA answered with {v6}")
        };
        assert_eq!(&r[r.len() - 16..], &v6.octets());
        assert_eq!(&r[q.len() + 2..q.len() + 4], &[0, 28], "answer type AAAA");
    }
}
