//! Running a render tool: no stdin, a deadline, a bound on what it may print and on the memory it
//! (with its children) may hold; killed when it passes any of them. The tool's own message comes back
//! with credentials masked and bounded.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Why a run produced no manifests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The binary could not be started.
    Spawn(String),
    /// It ran past the deadline and was killed.
    Timeout(Duration),
    /// It printed more than the limit and was killed.
    TooLarge(u64),
    /// Its resident memory (its own and its children's) passed the limit and it was killed.
    TooMuchMemory(u64),
    /// It exited non-zero: its stderr (last lines, masked).
    Failed(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "cannot start: {e}"),
            RunError::Timeout(d) => write!(f, "killed after {} s (timeout)", d.as_secs()),
            RunError::TooLarge(n) => write!(f, "killed: output over the limit of {n} bytes"),
            RunError::TooMuchMemory(n) => {
                write!(f, "killed: memory over the limit of {} MiB (--render-memory)", n >> 20)
            }
            RunError::Failed(m) => f.write_str(m),
        }
    }
}

/// The most of a tool's stderr kept for a message.
const STDERR_LIMIT: u64 = 64 * 1024;

/// The bounds of one run.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub timeout: Duration,
    /// The most it may print on stdout.
    pub max_output: u64,
    /// The most resident memory the tool and its children may hold together.
    pub max_memory: u64,
}

/// How often a running tool's memory is looked at.
const MEMORY_POLL: Duration = Duration::from_millis(20);

/// Runs `cmd` and returns its stdout, or why not.
pub fn run(mut cmd: Command, bounds: Bounds) -> Result<String, RunError> {
    let Bounds { timeout, max_output, max_memory } = bounds;
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| RunError::Spawn(e.to_string()))?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        kill(&mut child);
        return Err(RunError::Spawn("no pipes to the tool".into()));
    };
    let deadline = Instant::now() + timeout;
    // stdout is read to its end or one byte past the limit; then the pipe is closed (a tool still
    // writing gets EPIPE) and the result sent.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.take(max_output + 1).read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut limited = stderr.take(STDERR_LIMIT);
        let _ = limited.read_to_end(&mut buf);
        // Drain the rest so the tool never blocks on a full pipe.
        let _ = std::io::copy(&mut limited.into_inner(), &mut std::io::sink());
        buf
    });
    // Wait for stdout to end, looking at the tool's memory as it runs.
    let pid = child.id();
    let bytes = loop {
        match rx.recv_timeout(MEMORY_POLL.min(deadline.saturating_duration_since(Instant::now()))) {
            Ok(b) => break b,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {
                if tree_rss(pid) > max_memory {
                    kill(&mut child);
                    return Err(RunError::TooMuchMemory(max_memory));
                }
            }
            Err(_) => {
                kill(&mut child);
                return Err(RunError::Timeout(timeout));
            }
        }
    };
    if bytes.len() as u64 > max_output {
        kill(&mut child);
        return Err(RunError::TooLarge(max_output));
    }
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() >= deadline => {
                kill(&mut child);
                return Err(RunError::Timeout(timeout));
            }
            Ok(None) if tree_rss(pid) > max_memory => {
                kill(&mut child);
                return Err(RunError::TooMuchMemory(max_memory));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                kill(&mut child);
                return Err(RunError::Spawn(e.to_string()));
            }
        }
    };
    // The tool has exited: its stderr ends now.
    let stderr = err.join().unwrap_or_default();
    if !status.success() {
        return Err(RunError::Failed(message(&stderr, status.code())));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The resident memory in bytes of process `pid` and its descendants, from `/proc` (0 where `/proc` cannot
/// tell: the limit then rests on the deadline and the output bound alone). Bounded: at most 256 processes.
fn tree_rss(pid: u32) -> u64 {
    tree(pid, |_| {})
        .into_iter()
        .map(|p| {
            let status = std::fs::read_to_string(format!("/proc/{p}/status")).unwrap_or_default();
            let kib = status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .unwrap_or(0);
            kib * 1024
        })
        .sum()
}

/// Process `pid` and its descendants, `pid` first, from `/proc` (only `pid` where `/proc` cannot tell);
/// `visit` sees each before its children are listed. Bounded: at most 256 processes.
fn tree(pid: u32, mut visit: impl FnMut(u32)) -> Vec<u32> {
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        if out.len() >= 256 {
            break;
        }
        visit(p);
        out.push(p);
        todo.extend(children(p));
    }
    out
}

/// The children of every thread of process `p` (Linux 3.5+; none where `/proc` cannot tell).
fn children(p: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else { return Vec::new() };
    tasks
        .flatten()
        .flat_map(|t| {
            let children = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()).collect::<Vec<_>>()
        })
        .collect()
}

/// Kills the tool and every process it started. Each process of the tree is stopped before its children are
/// listed (a stopped process starts no more), then all are killed: a child outlives a killed parent, and
/// killing the tool alone left a stand-in's `tail /dev/zero` running, growing, after the tool was reported
/// killed. The tool stays in edgecheck's process group, so that Ctrl-C still reaches it.
fn kill(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{kill, Signal};
        use nix::unistd::Pid;
        let signal = |p: u32, s: Signal| {
            if let Ok(p) = i32::try_from(p) {
                let _ = kill(Pid::from_raw(p), s);
            }
        };
        let stopped = tree(child.id(), |p| signal(p, Signal::SIGSTOP));
        stopped.iter().for_each(|p| signal(*p, Signal::SIGKILL));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The last lines of a tool's stderr, one line, credentials in URLs masked, bounded.
fn message(stderr: &[u8], code: Option<i32>) -> String {
    let text = String::from_utf8_lossy(stderr);
    // kustomize's deprecation notes (`# Warning: 'commonLabels' is deprecated…`) are not why it failed.
    let lines: Vec<&str> =
        text.lines().map(|l| unprefixed(l.trim())).filter(|l| !l.is_empty() && !l.starts_with("# Warning:")).collect();
    // The first line (what failed: kustomize's `trouble configuring builtin PatchTransformer`) and the last
    // two (why); lines between are mostly the configuration it echoes.
    let tail = if lines.len() > 3 {
        format!("{} … {}", lines[0], lines[lines.len() - 2..].join("; "))
    } else {
        lines.join("; ")
    };
    let mut tail = edgecheck_core::redact::credentials(&tail).into_owned();
    // Paths as the user sees them: the working directory's absolute prefix dropped.
    if let Ok(cwd) = std::env::current_dir() {
        let prefix = format!("{}/", cwd.display());
        if prefix.len() > 1 {
            tail = tail.replace(&prefix, "");
        }
    }
    // Bounded, keeping the start and the end: kustomize and helm nest their errors and name the cause last.
    let n = tail.chars().count();
    let mut tail: String = if n > 600 {
        let head: String = tail.chars().take(200).collect();
        let end: String = tail.chars().skip(n - 390).collect();
        format!("{head} … {end}")
    } else {
        tail
    };
    if tail.is_empty() {
        tail = format!("exited with {}", code.map_or("a signal".into(), |c| c.to_string()));
    }
    tail
}

/// A line without Go's log prefixes: klog's `E1203 17:36:03.539713   22960 run.go:72] ` and
/// `"command failed" err=`, and helm's `Error: `.
fn unprefixed(line: &str) -> &str {
    let mut l = line;
    let b = l.as_bytes();
    if b.len() > 5 && matches!(b[0], b'E' | b'W' | b'I' | b'F') && b[1..5].iter().all(u8::is_ascii_digit) {
        if let Some(i) = l.find("] ") {
            l = &l[i + 2..];
        }
    }
    if let Some(rest) = l.strip_prefix("\"command failed\" err=") {
        l = rest.trim_matches('"');
    }
    l.strip_prefix("Error: ").unwrap_or(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(timeout: Duration, max_output: u64) -> Bounds {
        Bounds { timeout, max_output, max_memory: 1 << 30 }
    }

    #[test]
    fn a_tool_past_its_deadline_or_its_output_bound_is_killed() {
        let mut c = Command::new("sh");
        c.args(["-c", "sleep 20"]);
        let t = Instant::now();
        assert_eq!(run(c, b(Duration::from_millis(300), 1024)), Err(RunError::Timeout(Duration::from_millis(300))));
        assert!(t.elapsed() < Duration::from_secs(5));
        let mut c = Command::new("yes");
        c.arg("a long line of output");
        assert_eq!(run(c, b(Duration::from_secs(10), 4096)), Err(RunError::TooLarge(4096)));
        let mut c = Command::new("sh");
        c.args(["-c", "echo 'Error: template: web/templates/x.yaml:3: bad' >&2; exit 1"]);
        assert_eq!(
            run(c, b(Duration::from_secs(10), 4096)),
            Err(RunError::Failed("template: web/templates/x.yaml:3: bad".into()))
        );
        let mut c = Command::new("sh");
        c.args(["-c", "echo 'E1203 17:36:03.539713   22960 run.go:72] \"command failed\" err=\"boom\"' >&2; exit 1"]);
        assert_eq!(run(c, b(Duration::from_secs(10), 4096)), Err(RunError::Failed("boom".into())));
        // A many-line error keeps what failed (its first line) and why (its last).
        let mut c = Command::new("sh");
        c.args(["-c", "printf 'trouble configuring builtin PatchTransformer with config: `\\npath: helm-patch.yaml\\ntarget:\\n  kind: HelmChart\\n`: illegally qualifies as both an SM and JSON patch\\n' >&2; exit 1"]);
        let Err(RunError::Failed(m)) = run(c, b(Duration::from_secs(10), 4096)) else { panic!("fails") };
        assert!(m.starts_with("trouble configuring builtin PatchTransformer"), "{m}");
        assert!(m.ends_with("illegally qualifies as both an SM and JSON patch"), "{m}");
        // Deprecation notes dropped; a long nested error keeps its cause, at the end.
        let mut c = Command::new("sh");
        let long = format!("accumulating resources: {}: expected kind != 'Component'", "x".repeat(900));
        c.args(["-c", &format!("echo \"# Warning: 'commonLabels' is deprecated.\" >&2; echo \"{long}\" >&2; exit 1")]);
        let Err(RunError::Failed(m)) = run(c, b(Duration::from_secs(10), 4096)) else { panic!("fails") };
        assert!(m.starts_with("accumulating resources") && m.ends_with("expected kind != 'Component'"), "{m}");
        assert!(m.chars().count() < 600 && !m.contains("Warning"), "{m}");
        let mut c = Command::new("sh");
        c.args(["-c", "echo kind: A"]);
        assert_eq!(run(c, b(Duration::from_secs(10), 4096)), Ok("kind: A\n".into()));
    }

    /// Whether process `pid` still runs (a zombie waiting for its parent does not).
    fn running(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
            .unwrap_or(false)
    }

    /// Waits up to 5 s for `pid` to stop running.
    fn gone(pid: u32) -> bool {
        let t = Instant::now();
        while running(pid) && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        !running(pid)
    }

    #[test]
    fn a_tool_over_its_memory_bound_is_killed_with_its_children() {
        // `tail` holds an endless line of /dev/zero; it is the shell's child, so the tree is measured, and it is
        // killed with the shell (it used to run on, orphaned, until the machine ran out of memory).
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("pid");
        let mut c = Command::new("sh");
        c.args(["-c", &format!("tail /dev/zero & echo $! > {}; wait; echo done", pidfile.display())]);
        let t = Instant::now();
        let bounds = Bounds { timeout: Duration::from_secs(20), max_output: 4096, max_memory: 64 << 20 };
        assert_eq!(run(c, bounds), Err(RunError::TooMuchMemory(64 << 20)));
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        let tail: u32 = std::fs::read_to_string(&pidfile).expect("pid").trim().parse().expect("a pid");
        assert!(gone(tail), "the tool's child {tail} still runs");
        // A child that leaves the tool's process group is killed too (found in the tree).
        let mut c = Command::new("sh");
        c.args(["-c", &format!("setsid sleep 60 & echo $! > {}; sleep 60", pidfile.display())]);
        let short = Bounds { timeout: Duration::from_secs(1), ..bounds };
        assert_eq!(run(c, short), Err(RunError::Timeout(Duration::from_secs(1))));
        let sleeper: u32 = std::fs::read_to_string(&pidfile).expect("pid").trim().parse().expect("a pid");
        assert!(gone(sleeper), "the tool's child {sleeper} in its own session still runs");
        assert_eq!(
            RunError::TooMuchMemory(64 << 20).to_string(),
            "killed: memory over the limit of 64 MiB (--render-memory)"
        );
        // A small tool under the bound runs as before.
        let mut c = Command::new("sh");
        c.args(["-c", "echo kind: A"]);
        assert_eq!(run(c, Bounds { max_memory: 64 << 20, ..bounds }), Ok("kind: A\n".into()));
    }
}
