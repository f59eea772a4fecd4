//! Runtime analysis for mcp-scan (`mcp-scan dynamic`): runs an MCP server in a namespace sandbox
//! under a syscall tracer, drives it as an MCP client, and compares what each tool declares with
//! what it was seen to do. See docs/runtime.md.

pub mod analysis;
pub mod canary;
pub mod client;
pub mod contain;
pub mod detect;
pub mod ebpf;
pub mod events;
pub mod exercise;
pub mod identity;
pub mod inputs;
pub mod launcher;
pub mod paths;
pub mod pins;
pub mod resolver;
pub mod rules;
pub mod sandbox;
pub mod second_run;
pub mod session;
pub mod sinks;
pub mod sse;
pub mod trace;
pub mod wire;
pub mod witness;

use mcp_scan_core::{
    Analyzer, AnalyzerStatus, Diagnostic, DiagnosticLevel, EntityKind, EntityReport, Report,
    ScanInfo, ToolRef,
};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use mcp_scan_trace::choice::{Backend, TracerChoice};
pub use sandbox::SandboxError;

/// Trace kept per run by default (`DynamicOptions::max_trace_bytes`).
const MAX_TRACE_BYTES: usize = 256 << 20;
/// Trace pipe size asked for (the unprivileged maximum by default): ~10,000 lines, so a reader
/// polling every few milliseconds never lets it fill.
const TRACE_PIPE_BYTES: libc::c_int = 1 << 20;
const TRACE_POLL: Duration = Duration::from_millis(3);

/// Settings for one dynamic scan.
#[derive(Debug, Clone)]
pub struct DynamicOptions {
    /// The server's launch command.
    pub command: Vec<String>,
    /// Extra environment passed through (`--env K=V`).
    pub env: Vec<(String, String)>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Time allowed for startup until initialize is answered.
    pub startup_timeout: Duration,
    /// Valid calls per tool before the probes.
    pub calls: u32,
    /// Answer DNS queries (off with `--no-dns`: queries are recorded and answered NXDOMAIN).
    pub answer_dns: bool,
    /// Send adversarial probes after the valid calls.
    pub probes: bool,
    pub out_dir: Option<PathBuf>,
    /// Where pins live; `None` disables pinning.
    pub pin_dir: Option<PathBuf>,
    pub accept_changes: bool,
    /// Trace the server (off only for benchmark baselines).
    pub traced: bool,
    /// How long to keep watching after the last response, for background activity.
    pub linger: Duration,
    /// Catch IPv6 egress too (on by default). Off reproduces a host without IPv6: v6 egress is
    /// then only seen by the tracer and the report says so.
    pub ipv6: bool,
    /// Trace bytes kept; a run that traces more is analysed up to here and reported INCOMPLETE.
    pub max_trace_bytes: usize,
    /// Seed of the persona (user, hostname, HOME, file times, secrets, inputs); `None` picks one.
    pub seed: Option<u64>,
    /// How many secret variables the environment holds.
    pub secrets: identity::SecretEnv,
    /// The client the scanner introduces itself as.
    pub client: exercise::ClientProfile,
    /// After the session, call the tools again after growing delays until this much time has
    /// passed (time bombs, Nth-call triggers); zero is off.
    pub soak: Duration,
    /// Spread calls over time like a client driven by a person and a model.
    pub pacing: bool,
    /// When to run the server again without the tracer (`--second-run`).
    pub second_run: second_run::SecondRun,
    /// Which tracer watches the server (`--tracer`): eBPF where BPF may load, else strace.
    pub tracer: TracerChoice,
    /// The eBPF tracer's ring buffer (a power of two); records that do not fit are lost and the
    /// run is INCOMPLETE. The eBPF tracer keeps at most `max_trace_bytes / 128` events (strace's
    /// lines are about that long), so memory stays bounded under a flood.
    pub ebpf_ring_bytes: u32,
    /// A pause before every drain of the eBPF ring (zero: none). Only for tests of the loss
    /// accounting, which need a reader that falls behind on any machine.
    pub ebpf_drain_delay: Duration,
}

impl DynamicOptions {
    pub fn new(command: Vec<String>) -> Self {
        DynamicOptions {
            command,
            env: Vec::new(),
            timeout: Duration::from_secs(15),
            startup_timeout: Duration::from_secs(30),
            calls: 2,
            answer_dns: true,
            probes: true,
            out_dir: None,
            pin_dir: pins::default_dir(),
            accept_changes: false,
            traced: true,
            linger: Duration::from_millis(700),
            ipv6: true,
            max_trace_bytes: MAX_TRACE_BYTES,
            seed: None,
            secrets: identity::SecretEnv::Few,
            client: exercise::ClientProfile::default(),
            soak: Duration::ZERO,
            pacing: true,
            second_run: second_run::SecondRun::Auto,
            tracer: TracerChoice::Strace,
            ebpf_ring_bytes: 16 << 20,
            ebpf_drain_delay: Duration::ZERO,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DynamicError {
    /// The sandbox or tracer could not be set up (exit 2).
    #[error("sandbox unavailable: {0}")]
    Sandbox(#[from] SandboxError),
    #[error("cannot write {path}: {source}")]
    OutDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Pins(#[from] pins::PinError),
    /// The launch command cannot be run (exit 1).
    #[error("{0}")]
    Command(String),
    #[error("{0}")]
    Other(String),
}

/// The report plus everything observed.
pub struct DynamicOutcome {
    pub report: Report,
    pub events: Vec<events::Event>,
    pub captures: Vec<sinks::Capture>,
    pub exercise: exercise::Exercise,
    pub stderr: String,
    /// Signs in the trace that the server looked for a tracer (see [`second_run`]).
    pub tracer_tells: Vec<String>,
    /// What the second, untraced run did (why, how long, findings added), when there was one.
    pub second_run: Option<String>,
    /// The tracer that ran (`ebpf`, `strace`; `None` untraced), with why when `auto` fell back.
    pub tracer: Option<String>,
}

fn server_name(ex: &exercise::Exercise, command: &[String]) -> String {
    ex.server_info
        .as_ref()
        .and_then(|i| i.pointer("/serverInfo/name"))
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| {
            // The script when an interpreter runs one (`python server.py`), else the program.
            command
                .iter()
                .skip(1)
                .find(|a| std::path::Path::new(a).is_file())
                .or(command.first())
                .and_then(|a| a.trim_end_matches('/').rsplit('/').next())
                .filter(|n| !n.is_empty())
                .unwrap_or("server")
                .to_string()
        })
}

/// Runs one dynamic scan to completion: the traced run, then (see [`second_run`]) the same
/// server again without the tracer when the first run saw it look for a sandbox or a tracer.
pub fn scan(opts: &DynamicOptions) -> Result<DynamicOutcome, DynamicError> {
    let seed = opts.seed.unwrap_or_else(identity::random_seed);
    let again = DynamicOptions {
        traced: false,
        seed: Some(seed),
        // The first run already checked and wrote the pins and the out dir.
        pin_dir: None,
        out_dir: None,
        second_run: second_run::SecondRun::Never,
        ..opts.clone()
    };
    // `always` knows before the traced run that the untraced one is due: both run at once (each
    // in its own sandbox), so its time is not added to the scan's. `auto` decides from what the
    // traced run saw, so it can only follow it.
    let concurrent = opts.traced && opts.second_run == second_run::SecondRun::Always;
    let started = std::time::Instant::now();
    let (first, early) = if concurrent {
        std::thread::scope(|s| {
            let h = s.spawn(|| scan_once(&again, seed));
            let first = scan_once(opts, seed);
            let second = h
                .join()
                .unwrap_or_else(|_| Err(DynamicError::Other("the untraced run panicked".into())));
            (first, Some(second))
        })
    } else {
        (scan_once(opts, seed), None)
    };
    let mut outcome = first?;
    let r019 = outcome
        .report
        .findings()
        .any(|f| f.rule_id == rules::RuleId::SandboxProbe.id());
    let Some(why) = second_run::reason(opts.second_run, opts.traced, r019, &outcome.tracer_tells)
    else {
        return Ok(outcome);
    };
    let (second, started, alongside) = match early {
        Some(r) => (r, started, ", alongside the traced run"),
        None => {
            let started = std::time::Instant::now();
            (scan_once(&again, seed), started, "")
        }
    };
    match second {
        Ok(u) => {
            let added = second_run::merge(&mut outcome.report, &u.report, &why);
            outcome.captures.extend(u.captures);
            // Not a report diagnostic: a warning would make every such report INCOMPLETE.
            outcome.second_run = Some(format!(
                "second run without the tracer ({why}{alongside}): {:.1}s, {added} finding(s) added",
                started.elapsed().as_secs_f64()
            ));
        }
        Err(e) => outcome.report.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Warning,
            file: None,
            line: None,
            column: None,
            message: format!("the second, untraced run ({why}) failed: {e}"),
        }),
    }
    Ok(outcome)
}

fn scan_once(opts: &DynamicOptions, seed: u64) -> Result<DynamicOutcome, DynamicError> {
    scan_with(opts, seed, None)
}

/// One run; `fell_back` says why `auto` runs strace when an earlier attempt's eBPF tracer
/// failed to load.
fn scan_with(
    opts: &DynamicOptions,
    seed: u64,
    fell_back: Option<String>,
) -> Result<DynamicOutcome, DynamicError> {
    let rules = rules::RuntimeRules::load()
        .map_err(|e| DynamicError::Other(format!("built-in runtime rules do not load: {e}")))?;
    let Some(first) = opts.command.first() else {
        return Err(DynamicError::Command("no server command given".into()));
    };
    if sandbox::which(first, &[]).is_none_or(|p| !p.exists()) {
        return Err(DynamicError::Command(format!(
            "server command `{first}` not found (give its full path, or a name on PATH)"
        )));
    }
    let io = |what: &str, e: std::io::Error| DynamicError::Other(format!("{what}: {e}"));
    let canaries =
        canary::CanarySet::generate(rules).map_err(|e| io("cannot create canaries", e))?;
    let secret_names: Vec<String> = rules.canary_env.iter().map(|(n, _)| n.clone()).collect();
    let persona = identity::Identity::generate(seed, &secret_names, opts.secrets);
    let run = sandbox::RunDir::create_rooted(&persona.user)
        .map_err(|e| io("cannot create the sandbox directory", e))?;
    let host_path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    let mut env: Vec<(String, String)> = vec![
        (
            "PATH".into(),
            format!("{}/.local/bin:{host_path}", persona.home),
        ),
        (
            "LANG".into(),
            std::env::var("LANG")
                .ok()
                .filter(|l| l != "C" && l != "POSIX")
                .unwrap_or_else(|| "en_US.UTF-8".into()),
        ),
    ];
    env.extend(persona.session_env());
    env.extend(
        canaries
            .env()
            .into_iter()
            .filter(|(k, _)| persona.secret_vars.contains(k)),
    );
    for (k, v) in &opts.env {
        env.retain(|(x, _)| x != k);
        env.push((k.clone(), expand_home(v, &persona.home)));
    }
    let (backend, mut ebpf_run, fallback) = if opts.traced {
        start_tracer(opts)?
    } else {
        (None, None, None)
    };
    let fallback = fallback.or(fell_back);
    let tracer: Option<Arc<dyn trace::Tracer>> = (backend == Some(Backend::Strace))
        .then(|| Arc::new(trace::Strace::default()) as Arc<dyn trace::Tracer>);
    let tracer_note = backend.map(|b| match &fallback {
        Some(why) => format!("{} ({why})", b.name()),
        None => b.name().to_string(),
    });
    let spec = sandbox::SandboxSpec {
        command: absolute_args(&opts.command)
            .into_iter()
            .enumerate()
            .map(|(i, a)| {
                if i == 0 {
                    a
                } else {
                    expand_home(&a, &persona.home)
                }
            })
            .collect(),
        env,
        limits: sandbox::Limits {
            cpu_seconds: (opts.timeout.as_secs() * 4 + opts.startup_timeout.as_secs()).max(30),
            ..sandbox::Limits::default()
        },
        tracer: tracer.clone(),
        home_files: persona
            .lived_in_files()
            .into_iter()
            .chain(
                canaries
                    .files()
                    .map(|(p, c)| (p.to_string(), c.to_string())),
            )
            .collect(),
        work_files: vec![(inputs::SAMPLE_FILE.into(), inputs::SAMPLE_CONTENT.into())],
        ipv6: opts.ipv6,
        identity: persona.clone(),
        client: opts.client.name.clone(),
        on_launch: ebpf_run.as_ref().map(EbpfRun::hook),
    };
    let decoys = persona.lived_in_files();
    let mut sb = match sandbox::Sandbox::launch(&spec, &run) {
        Ok(sb) => sb,
        // The eBPF tracer loads while the sandbox is prepared: a kernel that refuses it shows
        // here, when the launch hook waits for it.
        Err(e) => match ebpf_run.as_ref().and_then(EbpfRun::load_error) {
            Some(why) if opts.tracer == TracerChoice::Auto => {
                drop(spec);
                drop(ebpf_run);
                let strace = DynamicOptions {
                    tracer: TracerChoice::Strace,
                    ..opts.clone()
                };
                return scan_with(&strace, seed, Some(format!("eBPF did not load: {why}")));
            }
            Some(why) => return Err(tracer_error(format!("the eBPF tracer cannot run: {why}"))),
            None => return Err(e.into()),
        },
    };
    // The hook's reference to the tracer goes with the spec (stopping needs the only one).
    drop(spec);
    let launched = sb.launched.clone();
    let sink_sockets = sb
        .sinks
        .take()
        .ok_or_else(|| DynamicError::Other("sandbox started without sinks".into()))?;
    let sinks = sinks::Sinks::start(sink_sockets, opts.answer_dns)
        .map_err(|e| io("cannot start the network sinks", e))?;
    let ipv6_caught = sinks.ipv6();
    let (layers, shown) = (sb.layers, sb.shown.clone());

    // Trace reader: drains the pipe (a full pipe would stall strace and with it the server), then
    // feeds the streaming parser line by line once the run is over. It polls a large non-blocking
    // pipe instead of blocking in read: strace writes every traced call in two pieces, and waking
    // a blocked reader for each cost a fifth of a traced call.
    let max_trace = opts.max_trace_bytes;
    let trace_thread = sb.trace.take().zip(tracer.clone()).map(|(fd, t)| {
        std::thread::spawn(move || {
            use std::os::fd::AsRawFd;
            // SAFETY: fcntl on a descriptor we own; failures leave a small or blocking pipe,
            // which is slower, not wrong.
            unsafe {
                libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, TRACE_PIPE_BYTES);
                let fl = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
                if fl >= 0 {
                    libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, fl | libc::O_NONBLOCK);
                }
            }
            let mut raw = Vec::new();
            let mut truncated = false;
            let mut f = std::fs::File::from(fd);
            let mut chunk = vec![0u8; 1 << 16];
            loop {
                match std::io::Read::read(&mut f, &mut chunk) {
                    Ok(0) => break,
                    Ok(n) if raw.len() + n <= max_trace => raw.extend_from_slice(&chunk[..n]),
                    // Keep draining so the server is not stalled; the rest is not analysed.
                    Ok(_) => truncated = true,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(TRACE_POLL);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let mut parser = t.parser();
            let mut records = Vec::new();
            for line in raw.split(|b| *b == b'\n') {
                records.extend(parser.feed(&String::from_utf8_lossy(line)));
            }
            records.extend(parser.finish());
            (records, raw, truncated)
        })
    });
    let stderr_thread = sb.stderr.take().map(|fd| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            let mut f = std::fs::File::from(fd);
            loop {
                match std::io::Read::read(&mut f, &mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) if buf.len() < 1 << 20 => buf.extend_from_slice(&chunk[..n]),
                    Ok(_) => {}
                }
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    });

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| io("cannot start the async runtime", e))?;
    // Markers look like data (a word and a made-up name), different every run: a fixed literal
    // is a probe's signature, and so is a run of hex digits.
    let marker_prefix = inputs::marker_prefix(seed);
    let cfg = exercise::ExerciseConfig {
        timeout: opts.timeout,
        startup_timeout: opts.startup_timeout,
        valid_calls: opts.calls,
        probes: if opts.probes {
            rules.probes.clone()
        } else {
            Vec::new()
        },
        marker_prefix,
        client: opts.client.clone(),
        style: inputs::InputStyle {
            work: persona.work.clone(),
            seed,
        },
        pacing: opts.pacing.then(|| exercise::Pacing::new(seed)),
        soak: opts.soak,
    };
    let stdin = sb.stdin.take();
    let stdout = sb.stdout.take();
    let view = sb.view.clone();
    let c1_alive = Arc::new(std::sync::Mutex::new(sb));
    let alive_handle = c1_alive.clone();
    let alive = move || {
        alive_handle
            .lock()
            .map(|mut s| s.running())
            .unwrap_or(false)
    };
    let ex = rt.block_on(async {
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            return exercise::Exercise {
                aborted: Some("sandbox stdio missing".into()),
                ..Default::default()
            };
        };
        let w = tokio::net::unix::pipe::Sender::from_owned_fd(stdin);
        let r = tokio::net::unix::pipe::Receiver::from_owned_fd(stdout);
        match (r, w) {
            (Ok(r), Ok(w)) => {
                let ex = exercise::run(r, w, &cfg, &alive).await;
                tokio::time::sleep(opts.linger).await;
                ex
            }
            _ => exercise::Exercise {
                aborted: Some("cannot attach to the server's stdio".into()),
                ..Default::default()
            },
        }
    });
    drop(rt);
    // Tear down: everything in the PID namespace dies with its PID 1.
    let teardown_ns: u64;
    let exit_status = {
        let mut sb = c1_alive
            .lock()
            .map_err(|_| DynamicError::Other("sandbox state poisoned".into()))?;
        let st = sb.wait(Duration::ZERO);
        // strace dies with the sandbox: what the eBPF tracer sees after this, strace never does.
        teardown_ns = ebpf::boot_now_ns();
        sb.kill();
        // The real wait status, reported by the server's parent (None: still running).
        if sb.relays_exit() {
            sb.server_exit()
        } else {
            st
        }
    };
    let (records, raw_trace, trace_lost) = match trace_thread.map(|t| t.join()) {
        None => (Vec::new(), Vec::new(), None),
        Some(Ok((r, raw, false))) => (r, raw, None),
        Some(Ok((r, raw, true))) => (
            r,
            raw,
            Some(format!(
                "the trace exceeded {} MiB: events after that were not analysed",
                max_trace >> 20
            )),
        ),
        Some(Err(_)) => (
            Vec::new(),
            Vec::new(),
            Some("the trace reader failed: no event was analysed".to_string()),
        ),
    };
    let stderr = stderr_thread
        .and_then(|t| t.join().ok())
        .unwrap_or_default();
    let captures = sinks.stop();

    let (mut evs, raw_trace, traceme, trace_gaps) = match ebpf_run.take() {
        Some(r) => {
            let (conv, gaps) = r.finish(&launched, teardown_ns);
            (conv.events, conv.raw, conv.traceme, gaps)
        }
        None => {
            let traceme = second_run::traceme_in(&raw_trace);
            let evs = records.iter().filter_map(events::from_record).collect();
            (evs, raw_trace, traceme, Vec::new())
        }
    };
    for (i, e) in evs.iter_mut().enumerate() {
        e.seq = i as u64 + 1;
        canonical_home(e, &persona.home);
    }
    paths::Resolver::new(sandbox::SANDBOX_WORK, view).resolve_all(&mut evs);
    // Writes are traced for the unix sockets among them; the rest (files, pipes, stdout) say
    // nothing the other events do not.
    evs.retain(|e| {
        !(e.kind == events::EventKind::Send
            && e.address.is_none()
            && e.syscall.starts_with("write"))
    });
    let phases = analysis::attribute(&mut evs, &ex.calls, ex.startup_end);
    let written = collect_written(&run, &canaries, &decoys);
    let server = server_name(&ex, &opts.command);
    let inputs = analysis::Inputs {
        server: &server,
        exercise: &ex,
        events: &evs,
        phases: &phases,
        captures: &captures,
        canaries: &canaries,
        rules,
        written_files: &written,
    };
    let mut findings = analysis::findings(&inputs);
    findings.extend(detect::sandbox_probes(&inputs));
    if let Some(dir) = &opts.pin_dir
        && ex.aborted.is_none()
        && !ex.tools.is_empty()
    {
        let hashes = pins::entity_hashes(&ex.tools, &ex.resources, &ex.prompts);
        findings.extend(pins::check(
            dir,
            &opts.command,
            &server,
            &hashes,
            opts.accept_changes,
        )?);
    }

    let mut report = build_report(
        opts,
        &server,
        &ex,
        findings,
        exit_status,
        &stderr,
        opts.traced,
    );
    if let Some(why) = &trace_lost {
        mark_incomplete(&mut report, why, |_| false);
    }
    for why in &trace_gaps {
        mark_incomplete(&mut report, why, |_| false);
        report
            .coverage
            .get_or_insert_with(Default::default)
            .gaps
            .push(mcp_scan_core::CoverageGap {
                kind: mcp_scan_core::GapKind::LostEvents,
                file: None,
                line: None,
                reason: why.clone(),
            });
    }
    if let Some(t) = &tracer_note {
        report.containment.push(mcp_scan_core::ContainmentLayer {
            layer: "tracer".into(),
            active: true,
            detail: t.clone(),
        });
    }
    for (layer, active, detail) in layers.describe(&shown) {
        // Every layer not in force is a warning, whatever the reason: the reader must know the
        // containment was weaker than the report's layers promise.
        if !active {
            report.diagnostics.push(Diagnostic {
                level: DiagnosticLevel::Warning,
                file: None,
                line: None,
                column: None,
                message: format!("sandbox containment layer `{layer}` not in force: {detail}"),
            });
        }
        report.containment.push(mcp_scan_core::ContainmentLayer {
            layer,
            active,
            detail,
        });
    }
    if !ipv6_caught {
        report.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Warning,
            file: None,
            line: None,
            column: None,
            message: sinks::IPV6_UNAVAILABLE.into(),
        });
    }
    let analyzer = description_analyzer()?;
    witness::merge(
        &mut report,
        witness::listing_reports(&analyzer, &server, &ex),
        witness::answer_findings(&analyzer, &server, &ex),
    );
    if let Some(dir) = &opts.out_dir {
        write_out_dir(dir, &ex, &evs, &captures, &raw_trace, &stderr)?;
    }
    let tracer_tells = second_run::tracer_tells(&evs, traceme);
    Ok(DynamicOutcome {
        report,
        events: evs,
        captures,
        exercise: ex,
        stderr,
        tracer_tells,
        second_run: None,
        tracer: tracer_note,
    })
}

/// A running eBPF tracer and the clock offset taken when it started.
#[cfg_attr(not(feature = "ebpf"), allow(dead_code))]
struct EbpfRun {
    #[cfg(feature = "ebpf")]
    running: Arc<mcp_scan_trace::ebpf::Running>,
    offset: f64,
    /// Dropped (removed) with the run, after the sandbox's teardown.
    pids: Option<Arc<ebpf::PidsCap>>,
}

type Backends = (Option<Backend>, Option<EbpfRun>, Option<String>);

#[cfg(feature = "ebpf")]
impl EbpfRun {
    /// Tracks the sandbox's first process (and with it everything it creates) before it runs.
    fn hook(&self) -> sandbox::LaunchHook {
        let r = self.running.clone();
        let cap = self.pids.clone();
        Arc::new(move |pid: u32| {
            // Before the sandbox's first process unshares its cgroup namespace, so the server
            // sees the cap's cgroup as its root.
            if let Some(c) = &cap {
                let _ = c.add(pid);
            }
            r.track(pid).map_err(|e| e.to_string())
        })
    }

    /// Why the tracer did not load (waits for the load), if it did not.
    fn load_error(&self) -> Option<String> {
        self.running.wait_loaded().err().map(|e| e.to_string())
    }

    /// Stops the tracer; the events strace would have seen, and the coverage gaps.
    fn finish(self, launched: &str, teardown_ns: u64) -> (ebpf::Converted, Vec<String>) {
        let result = Arc::try_unwrap(self.running)
            .map_err(|_| mcp_scan_trace::ebpf::Error::ThreadGone)
            .and_then(mcp_scan_trace::ebpf::Running::stop);
        let result = match result {
            Ok(r) => r,
            Err(e) => {
                return (
                    ebpf::Converted::default(),
                    vec![format!(
                        "the eBPF tracer failed: {e}; no event was analysed"
                    )],
                );
            }
        };
        let conv = ebpf::convert(&result.events, launched, self.offset, teardown_ns);
        let mut gaps: Vec<String> = result.gap().into_iter().collect();
        if !conv.launch_seen {
            gaps.push(format!(
                "the eBPF tracer did not see the server's launch (`{launched}`): nothing it did was observed"
            ));
        }
        (conv, gaps)
    }
}

#[cfg(not(feature = "ebpf"))]
impl EbpfRun {
    fn load_error(&self) -> Option<String> {
        Some("this build has no eBPF tracer".into())
    }
    fn hook(&self) -> sandbox::LaunchHook {
        Arc::new(|_| Err("this build has no eBPF tracer".to_string()))
    }
    fn finish(self, _: &str, _: u64) -> (ebpf::Converted, Vec<String>) {
        let _ = self.offset;
        (
            ebpf::Converted::default(),
            vec!["this build has no eBPF tracer".into()],
        )
    }
}

/// The system calls both tracers follow: the eBPF backend is given strace's list.
#[cfg(feature = "ebpf")]
fn ebpf_config(opts: &DynamicOptions) -> mcp_scan_trace::ebpf::Config {
    mcp_scan_trace::ebpf::Config {
        syscalls: trace::TRACED_SYSCALLS
            .iter()
            .map(|s| s.to_string())
            .collect(),
        ring_bytes: opts.ebpf_ring_bytes,
        drain_delay: opts.ebpf_drain_delay,
        max_events: (opts.max_trace_bytes / 128).max(1),
        ..Default::default()
    }
}

fn tracer_error(reason: String) -> DynamicError {
    DynamicError::Sandbox(SandboxError {
        reason,
        fix: "run as root (or give mcp-scan CAP_BPF and CAP_PERFMON), or choose `--tracer strace` \
              (`--tracer auto` falls back to it)"
            .into(),
    })
}

/// Picks and, for eBPF, starts the tracer: `auto` takes eBPF when it loads, else strace (and
/// says why); an explicit `ebpf` that cannot load is an error (exit 2).
#[cfg(feature = "ebpf")]
fn start_tracer(opts: &DynamicOptions) -> Result<Backends, DynamicError> {
    use mcp_scan_trace::ebpf as bpf;
    let choice = opts.tracer;
    let cfg = ebpf_config(opts);
    match mcp_scan_trace::choice::resolve(choice, &cfg) {
        Ok(Backend::Strace) if choice == TracerChoice::Auto => {
            let why = bpf::preflight(&cfg)
                .err()
                .map(|e| format!("eBPF unavailable: {e}"));
            Ok((Some(Backend::Strace), None, why))
        }
        Ok(Backend::Strace) => Ok((Some(Backend::Strace), None, None)),
        Ok(Backend::Ebpf) => {
            let offset = crate::ebpf::boot_to_epoch();
            // Loads while the sandbox is prepared; the launch hook waits for it.
            match bpf::start_loading(&cfg) {
                Ok(r) => Ok((
                    Some(Backend::Ebpf),
                    Some(EbpfRun {
                        running: Arc::new(r),
                        offset,
                        pids: ebpf::PidsCap::new(sandbox::Limits::default().processes)
                            .map(Arc::new),
                    }),
                    None,
                )),
                Err(e) if choice == TracerChoice::Auto => Ok((
                    Some(Backend::Strace),
                    None,
                    Some(format!("eBPF did not load: {e}")),
                )),
                Err(e) => Err(tracer_error(format!("the eBPF tracer cannot run: {e}"))),
            }
        }
        Err(e) => Err(tracer_error(format!("the eBPF tracer cannot run: {e}"))),
    }
}

#[cfg(not(feature = "ebpf"))]
fn start_tracer(opts: &DynamicOptions) -> Result<Backends, DynamicError> {
    match opts.tracer {
        TracerChoice::Ebpf => Err(tracer_error(
            "this mcp-scan was built without the eBPF tracer (cargo feature `ebpf`)".into(),
        )),
        _ => Ok((Some(Backend::Strace), None, None)),
    }
}

fn description_analyzer() -> Result<mcp_scan_description::DescriptionAnalyzer<'static>, DynamicError>
{
    mcp_scan_description::DescriptionAnalyzer::builtin()
        .map_err(|e| DynamicError::Other(format!("built-in description rules do not load: {e}")))
}

/// Every analysis that completed (or whose reason `also` accepts) becomes INCOMPLETE with `why`,
/// which the report also carries as a warning.
fn mark_incomplete(report: &mut Report, why: &str, also: impl Fn(&str) -> bool) {
    for e in &mut report.entities {
        for a in &mut e.analyzers {
            if a.state == mcp_scan_core::AnalyzerState::Complete
                || a.reason.as_deref().is_some_and(&also)
            {
                a.state = mcp_scan_core::AnalyzerState::Incomplete;
                a.reason = Some(why.into());
            }
        }
    }
    report.diagnostics.push(Diagnostic {
        level: DiagnosticLevel::Warning,
        file: None,
        line: None,
        column: None,
        message: why.into(),
    });
}

/// HOME changes every run, so a server argument or `--env` value names it as `~`, `$HOME` or the
/// canonical `/home/sandbox` (the fixed HOME of earlier versions), each rewritten to the run's.
fn expand_home(v: &str, home: &str) -> String {
    for prefix in ["~", "$HOME", sandbox::SANDBOX_HOME] {
        if let Some(rest) = v.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("{home}{rest}");
        }
    }
    v.to_string()
}

/// The analysis names HOME by one canonical path whatever the run's persona: every place the
/// run's HOME appears in a path is rewritten to [`sandbox::SANDBOX_HOME`] (the raw line keeps
/// what the server did).
fn canonical_home(e: &mut events::Event, home: &str) {
    if home == sandbox::SANDBOX_HOME {
        return;
    }
    let fix = |s: &mut String| {
        if !s.contains(home) {
            return;
        }
        let mut out = String::with_capacity(s.len());
        let mut rest = s.as_str();
        while let Some(i) = rest.find(home) {
            let after = &rest[i + home.len()..];
            out.push_str(&rest[..i]);
            if after.is_empty() || after.starts_with('/') {
                out.push_str(sandbox::SANDBOX_HOME);
            } else {
                out.push_str(home);
            }
            rest = after;
        }
        out.push_str(rest);
        *s = out;
    };
    for f in [&mut e.path, &mut e.resolved, &mut e.target, &mut e.address]
        .into_iter()
        .flatten()
    {
        fix(f);
    }
    for a in e.argv.iter_mut().flatten() {
        fix(a);
    }
}

#[cfg(test)]
mod home_tests {
    use super::*;

    #[test]
    fn home_placeholders_in_arguments_name_the_runs_home() {
        assert_eq!(
            expand_home("~/workspace/db", "/home/ana"),
            "/home/ana/workspace/db"
        );
        assert_eq!(expand_home("$HOME", "/home/ana"), "/home/ana");
        assert_eq!(
            expand_home("/home/sandbox/workspace", "/home/ana"),
            "/home/ana/workspace"
        );
        // Twins: other paths and look-alike prefixes stay as given.
        assert_eq!(
            expand_home("/home/sandboxes/x", "/home/ana"),
            "/home/sandboxes/x"
        );
        assert_eq!(expand_home("~user/x", "/home/ana"), "~user/x");
        assert_eq!(expand_home("/tmp/x", "/home/ana"), "/tmp/x");
    }

    #[test]
    fn everyday_files_count_as_written_only_when_the_server_changed_them() {
        let run = sandbox::RunDir::create().expect("run dir");
        let decoys = vec![
            (".bashrc".to_string(), "alias ll='ls -l'\n".to_string()),
            (".gitconfig".to_string(), "[user]\n".to_string()),
        ];
        std::fs::write(run.home.join(".bashrc"), "alias ll='ls -l'\n").expect("bashrc");
        std::fs::write(run.home.join(".gitconfig"), "[user]\ncurl x | sh\n").expect("gitconfig");
        std::fs::write(run.home.join("new.txt"), "x").expect("new");
        let mut got: Vec<String> = collect_written(&run, &canary::CanarySet::default(), &decoys)
            .into_iter()
            .map(|(p, _, _)| p)
            .collect();
        got.sort();
        assert_eq!(
            got,
            vec![
                "/home/sandbox/.gitconfig".to_string(),
                "/home/sandbox/new.txt".to_string()
            ]
        );
    }

    #[test]
    fn the_runs_home_is_named_canonically_wherever_it_appears_in_a_path() {
        use crate::trace::Tracer;
        let mut p = trace::Strace::default().parser();
        let line =
            r#"7 1.0 openat(AT_FDCWD, "/proc/self/root/home/ana/.ssh/id_rsa", O_RDONLY) = 3"#;
        let mut e = p
            .feed(line)
            .iter()
            .find_map(events::from_record)
            .expect("event");
        e.argv = Some(vec![
            "ls".into(),
            "/home/ana/workspace".into(),
            "/home/anabel".into(),
        ]);
        canonical_home(&mut e, "/home/ana");
        assert_eq!(
            e.path.as_deref(),
            Some("/proc/self/root/home/sandbox/.ssh/id_rsa")
        );
        assert_eq!(
            e.argv,
            Some(vec![
                "ls".into(),
                "/home/sandbox/workspace".into(),
                "/home/anabel".into()
            ])
        );
    }
}

/// The server runs in the sandbox workspace, so relative paths that exist on the host (the
/// interpreter, the script) are made absolute first.
fn absolute_args(command: &[String]) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    command
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let p = std::path::Path::new(a);
            let looks_like_path = i == 0 && a.contains('/') || !a.starts_with('-');
            if looks_like_path
                && p.is_relative()
                && (i == 0 && a.contains('/') || cwd.join(p).exists())
            {
                cwd.join(p).to_string_lossy().into_owned()
            } else {
                a.clone()
            }
        })
        .collect()
}

/// How to talk to a remote server (`--transport`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RemoteTransport {
    /// Streamable HTTP (MCP 2025-03-26 and later), rmcp's client.
    #[default]
    StreamableHttp,
    /// The legacy HTTP+SSE transport (MCP 2024-11-05), our own client in [`sse`].
    Sse,
}

impl RemoteTransport {
    /// The `--transport` value.
    pub fn name(self) -> &'static str {
        match self {
            RemoteTransport::StreamableHttp => "streamable-http",
            RemoteTransport::Sse => "sse",
        }
    }
}

/// Settings for a remote (streamable HTTP or SSE) server: manifest-only analysis.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    pub url: String,
    pub transport: RemoteTransport,
    /// Extra request headers (`--header K:V`), e.g. `Authorization: Bearer ...`.
    pub headers: Vec<(String, String)>,
    pub timeout: Duration,
    pub pin_dir: Option<PathBuf>,
    pub accept_changes: bool,
    pub out_dir: Option<PathBuf>,
}

/// Connects to a remote server (streamable HTTP or SSE) and lists its tools, resources and prompts.
/// Nothing is called and nothing can be traced, so every entity is INCOMPLETE; the report says so.
pub fn scan_remote(opts: &RemoteOptions) -> Result<DynamicOutcome, DynamicError> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    if !(opts.url.starts_with("http://") || opts.url.starts_with("https://")) {
        return Err(DynamicError::Command(format!(
            "--url must be an http:// or https:// URL, got `{}`",
            opts.url
        )));
    }
    // https needs a rustls crypto provider; installing one twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut headers = std::collections::HashMap::new();
    for (k, v) in &opts.headers {
        let name = http::HeaderName::from_bytes(k.trim().as_bytes())
            .map_err(|e| DynamicError::Command(format!("bad header name `{k}`: {e}")))?;
        let value = http::HeaderValue::from_str(v.trim())
            .map_err(|e| DynamicError::Command(format!("bad value for header `{k}`: {e}")))?;
        headers.insert(name, value);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DynamicError::Other(format!("cannot start the async runtime: {e}")))?;
    let cfg = exercise::ExerciseConfig {
        timeout: opts.timeout,
        startup_timeout: opts.timeout,
        valid_calls: 0,
        probes: Vec::new(),
        marker_prefix: String::new(),
        client: exercise::ClientProfile::default(),
        style: inputs::InputStyle::default(),
        pacing: None,
        soak: Duration::ZERO,
    };
    let ex = rt.block_on(async {
        match opts.transport {
            RemoteTransport::StreamableHttp => {
                let transport = StreamableHttpClientTransport::from_config(
                    StreamableHttpClientTransportConfig::with_uri(opts.url.clone())
                        .custom_headers(headers),
                );
                exercise::manifest_only(transport, &cfg).await
            }
            RemoteTransport::Sse => {
                let headers: http::HeaderMap = headers.into_iter().collect();
                match sse::SseTransport::connect(&opts.url, headers, opts.timeout).await {
                    Ok(transport) => {
                        let log = transport.log();
                        let mut ex = exercise::manifest_only(transport, &cfg).await;
                        // The stream's own end reason says more than rmcp's "transport closed".
                        if let Ok(log) = log.lock() {
                            if let (Some(a), Some(why)) = (&mut ex.aborted, &log.ended) {
                                a.push_str(&format!(" ({why})"));
                            }
                            ex.notes.extend(log.notes.iter().cloned());
                        }
                        ex
                    }
                    Err(e) => exercise::Exercise {
                        aborted: Some(format!("SSE connection failed: {e}")),
                        startup_end: exercise::now(),
                        ..Default::default()
                    },
                }
            }
        }
    });
    drop(rt);
    let command = vec![opts.url.clone()];
    let server = server_name(&ex, &command);
    let mut findings = Vec::new();
    if let Some(dir) = &opts.pin_dir
        && ex.aborted.is_none()
        && !ex.tools.is_empty()
    {
        let hashes = pins::entity_hashes(&ex.tools, &ex.resources, &ex.prompts);
        findings.extend(pins::check(
            dir,
            &command,
            &server,
            &hashes,
            opts.accept_changes,
        )?);
    }
    let base = DynamicOptions::new(command);
    let mut report = build_report(&base, &server, &ex, findings, None, "", false);
    const MANIFEST_ONLY: &str =
        "remote server: manifest only, runtime behaviour was not observed (no sandbox, no tracer)";
    mark_incomplete(&mut report, MANIFEST_ONLY, |reason| {
        reason == "run untraced" || reason.starts_with("not exercised")
    });
    let analyzer = description_analyzer()?;
    witness::merge(
        &mut report,
        witness::listing_reports(&analyzer, &server, &ex),
        Vec::new(),
    );
    if let Some(dir) = &opts.out_dir {
        write_out_dir(dir, &ex, &[], &[], &[], "")?;
    }
    Ok(DynamicOutcome {
        report,
        events: Vec::new(),
        captures: Vec::new(),
        exercise: ex,
        stderr: String::new(),
        tracer_tells: Vec::new(),
        second_run: None,
        tracer: None,
    })
}

/// Files in the writable areas that the server created or changed: (sandbox path, bytes, exec).
/// The persona's everyday files (`decoys`) count only when the server changed them.
fn collect_written(
    run: &sandbox::RunDir,
    canaries: &canary::CanarySet,
    decoys: &[(String, String)],
) -> Vec<(String, Vec<u8>, bool)> {
    use std::os::unix::fs::PermissionsExt;
    let sample = run.work.join(inputs::SAMPLE_FILE);
    // A planted canary file the server changed (`node-options` appended to ~/.npmrc) is kept with
    // the lines it added only: the planted ones hold the canary, which is no leak there.
    let canary_files: std::collections::HashMap<PathBuf, &str> = canaries
        .files()
        .map(|(p, c)| (run.home.join(p), c))
        .collect();
    let decoys: std::collections::HashMap<PathBuf, &str> = decoys
        .iter()
        .map(|(p, c)| (run.home.join(p), c.as_str()))
        .collect();
    let mut out = Vec::new();
    let mut stack = vec![
        (run.home.clone(), sandbox::SANDBOX_HOME.to_string()),
        (run.tmp.clone(), "/tmp".to_string()),
    ];
    let mut seen = 0;
    while let Some((dir, shown)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in rd.flatten() {
            seen += 1;
            if seen > 5000 {
                return out;
            }
            let p = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let sp = format!("{shown}/{name}");
            let Ok(md) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if md.is_dir() {
                stack.push((p, sp));
            } else if md.is_file() && p != sample {
                let mut bytes = Vec::new();
                if let Ok(f) = std::fs::File::open(&p) {
                    let _ = std::io::Read::read_to_end(
                        &mut std::io::Read::take(f, 1 << 20),
                        &mut bytes,
                    );
                }
                if let Some(original) = canary_files.get(&p) {
                    let before: std::collections::HashSet<&str> = original.lines().collect();
                    let text = String::from_utf8_lossy(&bytes);
                    let added: Vec<&str> = text.lines().filter(|l| !before.contains(l)).collect();
                    if added.is_empty() {
                        continue;
                    }
                    bytes = added.join("\n").into_bytes();
                }
                let exec = md.permissions().mode() & 0o111 != 0;
                if !exec
                    && decoys
                        .get(&p)
                        .is_some_and(|c| c.as_bytes() == bytes.as_slice())
                {
                    continue;
                }
                out.push((sp, bytes, exec));
            }
        }
    }
    out
}

fn build_report(
    opts: &DynamicOptions,
    server: &str,
    ex: &exercise::Exercise,
    findings: Vec<mcp_scan_core::Finding>,
    exit_status: Option<i32>,
    stderr: &str,
    traced: bool,
) -> Report {
    let mut report = Report::new(ScanInfo {
        command: "dynamic".into(),
        targets: vec![opts.command.join(" ")],
        analyzers: vec![Analyzer::Runtime],
    });
    let mut entities: Vec<EntityReport> = Vec::new();
    let incomplete_reason = |name: &str, kind: exercise::Target| -> Option<String> {
        let mine: Vec<&exercise::CallRecord> = ex
            .calls
            .iter()
            .filter(|c| c.target == kind && c.name == name)
            .collect();
        if let Some(c) = mine.iter().find(|c| c.timed_out) {
            return Some(format!("{} ({}) timed out", c.phase(), c.label));
        }
        if mine.is_empty() {
            return Some(match &ex.aborted {
                Some(a) => format!("not exercised: {a}"),
                None => "not exercised".into(),
            });
        }
        None
    };
    let add = |entities: &mut Vec<EntityReport>,
               kind: EntityKind,
               tk: exercise::Target,
               name: &str,
               decl: Option<String>| {
        let mut e = EntityReport::new(ToolRef::new(server, kind, name), decl);
        e.analyzers.push(match incomplete_reason(name, tk) {
            Some(r) => AnalyzerStatus::incomplete(Analyzer::Runtime, r),
            None if !traced => AnalyzerStatus::incomplete(Analyzer::Runtime, "run untraced"),
            None => AnalyzerStatus::complete(Analyzer::Runtime),
        });
        entities.push(e);
    };
    let desc = |v: &serde_json::Value| {
        v.get("description")
            .and_then(|d| d.as_str())
            .map(str::to_string)
    };
    let listings = [
        (&ex.tools, "name", EntityKind::Tool, exercise::Target::Tool),
        (
            &ex.resources,
            "uri",
            EntityKind::Resource,
            exercise::Target::Resource,
        ),
        (
            &ex.prompts,
            "name",
            EntityKind::Prompt,
            exercise::Target::Prompt,
        ),
    ];
    for (items, key, kind, target) in listings {
        for item in items {
            if let Some(n) = item.get(key).and_then(|v| v.as_str()) {
                add(&mut entities, kind, target, n, desc(item));
            }
        }
    }
    // The server itself: startup and background activity, and whether the session completed.
    let mut srv = EntityReport::new(
        ToolRef::new(server, EntityKind::Server, server),
        ex.server_info
            .as_ref()
            .and_then(|i| i.get("instructions"))
            .and_then(|v| v.as_str())
            .map(str::to_string),
    );
    srv.analyzers.push(match &ex.aborted {
        Some(reason) => {
            let tail: String = stderr
                .lines()
                .rev()
                .take(3)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join(" | ");
            let status = exit_status
                .map(|s| format!(" (server exit status {s})"))
                .unwrap_or_default();
            let msg = if tail.is_empty() {
                format!("{reason}{status}")
            } else {
                format!("{reason}{status}; stderr: {tail}")
            };
            report.diagnostics.push(Diagnostic {
                level: DiagnosticLevel::Warning,
                file: None,
                line: None,
                column: None,
                message: msg.clone(),
            });
            AnalyzerStatus::incomplete(Analyzer::Runtime, msg)
        }
        None => AnalyzerStatus::complete(Analyzer::Runtime),
    });
    entities.push(srv);
    for note in &ex.notes {
        report.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Warning,
            file: None,
            line: None,
            column: None,
            message: note.clone(),
        });
    }
    for f in findings {
        if let Some(e) = entities.iter_mut().find(|e| e.target == f.target) {
            e.findings.push(f);
        } else {
            let mut e = EntityReport::new(f.target.clone(), None);
            e.analyzers
                .push(AnalyzerStatus::complete(Analyzer::Runtime));
            e.findings.push(f);
            entities.push(e);
        }
    }
    report.entities = entities;
    report.normalize();
    report
}

fn write_out_dir(
    dir: &std::path::Path,
    ex: &exercise::Exercise,
    evs: &[events::Event],
    captures: &[sinks::Capture],
    raw_trace: &[u8],
    stderr: &str,
) -> Result<(), DynamicError> {
    let err = |path: PathBuf| move |source| DynamicError::OutDir { path, source };
    std::fs::create_dir_all(dir).map_err(err(dir.to_path_buf()))?;
    let manifest = serde_json::json!({
        "server_info": ex.server_info,
        "tools": ex.tools,
        "resources": ex.resources,
        "resource_templates": ex.resource_templates,
        "prompts": ex.prompts,
        "tools_after_calls": ex.tools_after,
    });
    let p = dir.join("manifest.json");
    std::fs::write(
        &p,
        serde_json::to_string_pretty(&manifest).unwrap_or_default(),
    )
    .map_err(err(p.clone()))?;
    let p = dir.join("trace.log");
    std::fs::write(&p, raw_trace).map_err(err(p.clone()))?;
    let p = dir.join("stderr.log");
    std::fs::write(&p, stderr).map_err(err(p.clone()))?;
    let jsonl = |name: &str, lines: Vec<String>| -> Result<(), DynamicError> {
        let p = dir.join(name);
        let mut f = std::fs::File::create(&p).map_err(err(p.clone()))?;
        for l in lines {
            writeln!(f, "{l}").map_err(err(p.clone()))?;
        }
        Ok(())
    };
    jsonl(
        "events.jsonl",
        evs.iter()
            .filter_map(|e| serde_json::to_string(e).ok())
            .collect(),
    )?;
    jsonl(
        "captures.jsonl",
        captures
            .iter()
            .filter_map(|c| serde_json::to_string(c).ok())
            .collect(),
    )?;
    jsonl(
        "calls.jsonl",
        ex.calls
            .iter()
            .filter_map(|c| serde_json::to_string(c).ok())
            .collect(),
    )?;
    Ok(())
}
