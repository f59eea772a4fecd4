//! Containment: listeners on the host at every place the sandbox could show (the server's
//! project, next to its script, a PATH entry, /tmp, /run, /var/tmp, /dev/shm, the host HOME, an
//! abstract name), a hostile server (fixtures/runtime/contain_probe) that is told every path and
//! also searches the file system and /proc/net/unix, and proof that no connect or write got
//! through and no listener received anything. Its honest twin uses sockets of its own.
//!
//! The hostile server runs only under `mcp-scan dynamic` (its own network namespace, no route
//! out); the listeners are the test's own and receive nothing if the sandbox holds.

use mcp_scan_dynamic::{DynamicOptions, scan};
use std::io::Read;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram, UnixListener};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> String {
    let p = std::env::var("MCP_SCAN_TEST_PYTHON")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            repo()
                .join(".venv/mcp2/bin/python")
                .to_string_lossy()
                .into_owned()
        });
    assert!(
        Path::new(&p).exists(),
        "{p} not found: run scripts/test-deps"
    );
    p
}

/// One place on the host with a stream socket, a datagram socket and a FIFO (with a reader
/// open, so a writer would get through if it could reach it).
struct Place {
    stream: UnixListener,
    dgram: UnixDatagram,
    fifo: Option<std::fs::File>,
    paths: Vec<String>,
}

impl Place {
    fn at(dir: &Path, stem: &str) -> Place {
        std::fs::create_dir_all(dir).expect("mkdir");
        let s = dir.join(format!("{stem}.sock"));
        let d = dir.join(format!("{stem}.dgram"));
        let f = dir.join(format!("{stem}.fifo"));
        for p in [&s, &d, &f] {
            let _ = std::fs::remove_file(p);
        }
        let stream = UnixListener::bind(&s).expect("bind stream");
        stream.set_nonblocking(true).expect("nonblocking");
        let dgram = UnixDatagram::bind(&d).expect("bind dgram");
        dgram.set_nonblocking(true).expect("nonblocking");
        let cf = std::ffi::CString::new(f.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: mkfifo on a NUL-terminated path.
        let fifo = (unsafe { libc::mkfifo(cf.as_ptr(), 0o666) } == 0).then(|| {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&f)
                .expect("open fifo")
        });
        let mut paths = vec![
            s.to_string_lossy().into_owned(),
            d.to_string_lossy().into_owned(),
        ];
        if fifo.is_some() {
            paths.push(f.to_string_lossy().into_owned());
        }
        Place {
            stream,
            dgram,
            fifo,
            paths,
        }
    }

    fn abstract_(name: &str) -> Place {
        let a = SocketAddr::from_abstract_name(name.as_bytes()).expect("abstract");
        let stream = UnixListener::bind_addr(&a).expect("bind abstract");
        stream.set_nonblocking(true).expect("nonblocking");
        let ad =
            SocketAddr::from_abstract_name(format!("{name}.dgram").as_bytes()).expect("abstract");
        let dgram = UnixDatagram::bind_addr(&ad).expect("bind abstract dgram");
        dgram.set_nonblocking(true).expect("nonblocking");
        Place {
            stream,
            dgram,
            fifo: None,
            paths: vec![format!("@{name}"), format!("@{name}.dgram")],
        }
    }

    /// What reached this place (empty when nothing did).
    fn received(&mut self) -> Vec<String> {
        let mut got = Vec::new();
        if let Ok((mut c, _)) = self.stream.accept() {
            let mut b = Vec::new();
            let _ = c.set_read_timeout(Some(Duration::from_millis(200)));
            let _ = c.read_to_end(&mut b);
            got.push(format!(
                "stream connection: {}",
                String::from_utf8_lossy(&b)
            ));
        }
        let mut buf = [0u8; 4096];
        if let Ok(n) = self.dgram.recv(&mut buf) {
            got.push(format!("datagram: {}", String::from_utf8_lossy(&buf[..n])));
        }
        if let Some(f) = &mut self.fifo
            && let Ok(n) = f.read(&mut buf)
            && n > 0
        {
            got.push(format!("fifo: {}", String::from_utf8_lossy(&buf[..n])));
        }
        got
    }
}

/// Host directories the test made outside its temp dir, removed on drop.
struct Cleanup(Vec<PathBuf>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

fn answer_of(o: &mcp_scan_dynamic::DynamicOutcome, tool: &str, prefix: &str) -> String {
    let resp = o
        .exercise
        .calls
        .iter()
        .find(|c| c.name == tool && c.label == "valid")
        .map(|c| c.response.clone())
        .unwrap_or_else(|| panic!("{tool} was not called"));
    resp.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("{tool} answered no `{prefix}` line: {resp}"))
}

#[test]
fn no_host_unix_socket_fifo_or_abstract_name_accepts_the_server() {
    let pid = std::process::id();
    let tmp = tempfile::tempdir().expect("tempdir");
    // The server's project (a marker makes the sandbox show all of it) and a PATH entry.
    let project = tmp.path().join("notes-project");
    let script_dir = project.join("srv");
    std::fs::create_dir_all(&script_dir).expect("mkdir");
    std::fs::write(
        project.join("pyproject.toml"),
        "[project]\nname = \"notes\"\n",
    )
    .expect("w");
    let fixtures = repo().join("fixtures/runtime");
    std::fs::copy(fixtures.join("mcpshim.py"), project.join("mcpshim.py")).expect("copy");
    std::fs::copy(
        fixtures.join("contain_probe/server.py"),
        script_dir.join("server.py"),
    )
    .expect("copy");
    let bin = tmp.path().join("tools/bin");
    let name = format!("mcp-scan-contain-{pid}");
    let run_dir = PathBuf::from(format!("/run/{name}"));
    let home_dir = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute() && h != Path::new("/"))
        .map(|h| h.join(format!(".{name}")));
    let mut cleanup = Cleanup(vec![
        run_dir.clone(),
        PathBuf::from(format!("/tmp/{name}")),
        PathBuf::from(format!("/var/tmp/{name}")),
        PathBuf::from(format!("/dev/shm/{name}")),
    ]);
    cleanup.0.extend(home_dir.clone());
    let mut places = vec![
        Place::at(&project, "agent"),
        Place::at(&script_dir, "ipc"),
        Place::at(&bin, "helper"),
        Place::at(Path::new(&format!("/tmp/{name}")), "host"),
        Place::at(Path::new(&format!("/var/tmp/{name}")), "host"),
        Place::at(Path::new(&format!("/dev/shm/{name}")), "host"),
        Place::abstract_(&name),
    ];
    // /run and the host HOME when this host lets the test write there.
    if std::fs::create_dir_all(&run_dir).is_ok() {
        places.push(Place::at(&run_dir, "service"));
    }
    if let Some(h) = &home_dir
        && std::fs::create_dir_all(h).is_ok()
    {
        places.push(Place::at(h, "agent"));
    }
    // The places the sandbox shows (project, script dir, PATH entry: the first three) are left
    // for the server to find by itself; the rest are named to it.
    let mut targets: Vec<String> = places[3..].iter().flat_map(|p| p.paths.clone()).collect();
    // /var/run is /run on most hosts: name it that way too.
    targets.push(format!("/var/run/{name}/service.sock"));
    let host_path = std::env::var("PATH").unwrap_or_default();
    let mut opts = DynamicOptions::new(vec![
        python(),
        script_dir.join("server.py").to_string_lossy().into_owned(),
    ]);
    opts.env = vec![
        ("CONTAIN_TARGETS".into(), targets.join(":")),
        ("PATH".into(), format!("{}:{host_path}", bin.display())),
    ];
    opts.timeout = Duration::from_secs(60);
    opts.startup_timeout = Duration::from_secs(60);
    opts.probes = false;
    opts.pin_dir = None;
    let o = scan(&opts).unwrap_or_else(|e| panic!("scan failed: {e}"));
    let attempts: Vec<serde_json::Value> =
        serde_json::from_str(&answer_of(&o, "sync_notes", "attempts: ")).expect("json");
    assert!(!attempts.is_empty(), "the server tried nothing");
    // Every attempt failed, whatever the server found or was told.
    let through: Vec<&serde_json::Value> =
        attempts.iter().filter(|a| a["result"] == "ok").collect();
    assert!(through.is_empty(), "got through: {through:?}");
    // Every named target was tried; the sockets the sandbox shows (project, script dir, PATH
    // entry) were also found by the walk, so they were really visible and still refused.
    for t in &targets {
        assert!(
            attempts.iter().any(|a| a["target"] == t.as_str()),
            "{t} not tried"
        );
    }
    // Found by the walk, and refused (ECONNREFUSED): the files were visible and the sockets
    // behind them unreachable.
    let visible: Vec<&str> = attempts
        .iter()
        .filter(|a| a["found_by"] == "walk")
        .filter(|a| a["result"].as_str().is_some_and(|r| r.ends_with(":111")))
        .filter_map(|a| a["target"].as_str())
        .collect();
    // The walk does not follow links: a host directory moved to a volume (`/media/<user>/…`,
    // linked from its own path) is found there.
    for (shown, sock) in [
        (&project, "agent.sock"),
        (&script_dir, "ipc.sock"),
        (&bin, "helper.sock"),
    ] {
        assert!(
            visible
                .iter()
                .map(Path::new)
                .any(|t| t.parent() == Some(shown.as_path())
                    || (t.starts_with("/media/") && t.file_name() == Some(sock.as_ref()))),
            "no socket in {} was visible-and-refused (ECONNREFUSED): the test did not reach the overlay: {attempts:?}",
            shown.display()
        );
    }
    // And nothing arrived anywhere.
    for p in &mut places {
        let got = p.received();
        assert!(got.is_empty(), "{:?} received {got:?}", p.paths);
    }
    // No host socket connect in the report either (a connect that got through), and the layers
    // are said.
    let observations: Vec<&String> = o.report.findings().map(|f| &f.observation).collect();
    assert!(
        !o.report
            .findings()
            .any(|f| f.observation.starts_with("connects to")
                && f.observation
                    .contains("socket of a service outside the sandbox")),
        "{observations:?}"
    );
    // The refused attempts at host paths and at the host's abstract name are evidence (none of
    // them a well-known daemon's, so LOW), and the secret the probe sent with them is a leak
    // (CRITICAL) though nothing got through.
    let refused: Vec<_> = o
        .report
        .findings()
        .filter(|f| f.observation.starts_with("tries to connect to"))
        .collect();
    assert!(
        refused
            .iter()
            .any(|f| f.observation.contains(&format!("@{name}"))),
        "{observations:?}"
    );
    assert!(
        refused
            .iter()
            .all(|f| f.severity == mcp_scan_core::Severity::Low),
        "{observations:?}"
    );
    assert!(
        o.report
            .findings()
            .any(|f| f.severity == mcp_scan_core::Severity::Critical
                && f.observation
                    .contains("appeared in a payload to a host socket (refused by the sandbox)")),
        "{observations:?}"
    );
    let layer = |n: &str| {
        o.report
            .containment
            .iter()
            .find(|l| l.layer == n)
            .unwrap_or_else(|| panic!("layer {n} not reported: {:?}", o.report.containment))
    };
    assert!(layer("allow-list root").active);
    assert!(layer("host sockets").active);
    let abi = mcp_scan_dynamic::contain::landlock_abi();
    // Traced, the server gets a PID namespace of its own (the tracer hidden). Its /proc is
    // mounted before Landlock, so Landlock holds there too; only without util-linux `nsenter`
    // does the old `unshare --mount-proc` path leave Landlock out, and the report says why.
    let hidden = layer("landlock filesystem").detail.contains("not applied");
    if mcp_scan_dynamic::sandbox::which("nsenter", &["/usr/bin", "/bin"]).is_some() {
        assert!(!hidden, "{:?}", o.report.containment);
    }
    assert_eq!(layer("landlock filesystem").active, abi >= 1 && !hidden);
    assert_eq!(
        layer("landlock abstract unix socket scope").active,
        abi >= 6 && !hidden
    );
    assert_eq!(layer("landlock signal scope").active, abi >= 6 && !hidden);
    if hidden {
        assert!(
            layer("landlock signal scope")
                .detail
                .contains("PID namespace of its own"),
            "{:?}",
            o.report.containment
        );
    }
    if abi < 6 {
        assert!(
            o.report
                .diagnostics
                .iter()
                .any(|d| d.message.contains("abstract unix socket scope")),
            "an unavailable layer must be said"
        );
    }

    // What the sandbox shows of the host's top level: only what the server needs.
    let places_seen: serde_json::Value =
        serde_json::from_str(&answer_of(&o, "list_places", "places: ")).expect("json");
    for absent in ["/run", "/srv", "/mnt"] {
        assert!(
            places_seen[absent]
                .as_str()
                .is_some_and(|s| s.starts_with("absent")),
            "{absent} is shown: {places_seen}"
        );
    }
    // /media holds the persona's volumes (the host directories shown), never the host's /media.
    assert!(
        places_seen["/media"]
            .as_str()
            .is_some_and(|s| s.starts_with("absent"))
            || places_seen["/media"] == places_seen["/home"],
        "the host's /media is shown: {places_seen}"
    );
    assert_eq!(
        places_seen["/var"],
        serde_json::json!(["tmp"]),
        "{places_seen}"
    );
    // Only the run's persona HOME (its name changes per run), none of the host's homes.
    assert_eq!(
        places_seen["/home"].as_array().map(Vec::len),
        Some(1),
        "{places_seen}"
    );
    drop(cleanup);
}

#[test]
fn server_using_its_own_sockets_fifo_and_abstract_name_keeps_working() {
    let dir = repo().join("fixtures/runtime/honest_own_socket");
    let mut opts = DynamicOptions::new(vec![
        python(),
        dir.join("server.py").to_string_lossy().into_owned(),
    ]);
    opts.timeout = Duration::from_secs(30);
    opts.startup_timeout = Duration::from_secs(60);
    opts.pin_dir = None;
    let o = scan(&opts).unwrap_or_else(|e| panic!("scan failed: {e}"));
    let channels = answer_of(&o, "save_note", "channels: ");
    assert_eq!(
        channels, "stream=ok, dgram=ok, fifo=ok, abstract=ok",
        "{channels}"
    );
    let worst = o.report.max_severity();
    assert!(
        worst.is_none_or(|s| s <= mcp_scan_core::Severity::Low),
        "{worst:?}: {:?}",
        o.report
            .findings()
            .map(|f| &f.observation)
            .collect::<Vec<_>>()
    );
}
