//! Running one call of a simple tool: one process (in its own process
//! group) per call, in a clean environment and, for a confined tool,
//! confined before its program starts (both set up by [`crate::launch`]); stdin written
//! and closed, stdout and stderr collected up to a cap (stderr also handed
//! on line by line while the call runs), the whole group killed on timeout,
//! on overflow, and once the tool itself has exited (so no stray child
//! outlives its call).

use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use crate::invoke::Invocation;
use crate::manifest::Tool;
use crate::sandbox::Confinement;

/// The variables every tool gets from the server's environment (PATH,
/// HOME, LANG and TMPDIR; docs/security.md, "The environment").
pub const BASE_ENV: [&str; 4] = ["PATH", "HOME", "LANG", "TMPDIR"];

/// PATH when the server has none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The whole environment of a tool's process: [`BASE_ENV`] and the
/// variables `pass_env` names, from `server`, then tool.yaml's `env`. A
/// private temporary directory, when the tool has one, is its TMPDIR.
pub fn environment(
    tool: &Tool,
    server: impl Fn(&str) -> Option<String>,
    tmpdir: Option<&std::path::Path>,
) -> Vec<(String, String)> {
    let mut env: std::collections::BTreeMap<String, String> = Default::default();
    for name in BASE_ENV
        .iter()
        .copied()
        .chain(tool.pass_env.iter().map(String::as_str))
    {
        if let Some(value) = server(name) {
            env.insert(name.to_string(), value);
        }
    }
    env.entry("PATH".into())
        .or_insert_with(|| DEFAULT_PATH.into());
    env.entry("LANG".into()).or_insert_with(|| "C.UTF-8".into());
    if let Some(dir) = tmpdir {
        env.insert("TMPDIR".into(), dir.display().to_string());
    }
    for (k, v) in &tool.env {
        env.insert(k.clone(), v.clone());
    }
    env.into_iter().collect()
}

/// How the process of a call starts.
#[derive(Default)]
pub struct Spawn {
    pub env: Vec<(String, String)>,
    /// Applied in the child before its program starts.
    pub confinement: Option<Confinement>,
}

impl Spawn {
    /// The PATH the process gets.
    pub fn path(&self) -> &str {
        self.env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map_or("", |(_, v)| v.as_str())
    }
}

/// What came back from a process that ran.
#[derive(Debug)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The exit code; None when a signal ended it.
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub duration: Duration,
}

#[derive(Debug)]
pub enum RunError {
    Spawn(std::io::Error),
    Timeout { after: Duration, output: Output },
    TooLarge { limit: usize, output: Output },
}

/// Limits of one call.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    /// Bytes kept of stdout, and separately of stderr.
    pub max_output: usize,
}

/// Where the lines of a tool's stderr go as they are written (without
/// their newline; a last line without one when the stream ends).
pub type StderrLines = tokio::sync::mpsc::UnboundedSender<String>;

pub async fn run(
    tool: &Tool,
    call: Invocation,
    limits: Limits,
    spawn: Spawn,
) -> Result<Output, RunError> {
    run_streaming(tool, call, limits, spawn, None).await
}

/// [`run`], each line of stderr also sent to `lines` as soon as it is
/// complete (only what is kept under the cap).
pub async fn run_streaming(
    tool: &Tool,
    call: Invocation,
    limits: Limits,
    spawn: Spawn,
    lines: Option<StderrLines>,
) -> Result<Output, RunError> {
    let started = Instant::now();
    if call.argv.is_empty() {
        return Err(RunError::Spawn(std::io::Error::other(
            "the manifest gives no command",
        )));
    }
    let mut command = Command::from(crate::launch::command(&call.argv, spawn));
    command
        .current_dir(&tool.working_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(RunError::Spawn)?;
    let pid = child.id();
    // A cancelled call (the future dropped) still kills the whole group.
    let mut guard = GroupGuard(pid);
    let mut stdin = child.stdin.take().expect("piped");
    let input = call.stdin;
    let writer = tokio::spawn(async move {
        // A tool that exits without reading its input is not an error.
        let _ = stdin.write_all(&input).await;
        let _ = stdin.shutdown().await;
    });
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let cap = limits.max_output;
    let out_buf = Shared::default();
    let err_buf = Shared::default();
    let out_task = tokio::spawn(read_capped(stdout, cap, out_buf.clone(), None));
    let err_task = tokio::spawn(read_capped(stderr, cap, err_buf.clone(), lines));

    enum End {
        Exited(std::io::Result<std::process::ExitStatus>),
        Timeout,
        Overflow,
    }
    // Overflow is noticed by the reader finishing early with `over` set;
    // poll the readers alongside the wait.
    let (over_tx, mut over_rx) = tokio::sync::watch::channel(false);
    let out_task = watch_overflow(out_task, over_tx.clone());
    let err_task = watch_overflow(err_task, over_tx);
    let end = tokio::select! {
        status = child.wait() => End::Exited(status),
        _ = tokio::time::sleep(limits.timeout) => End::Timeout,
        Ok(_) = over_rx.wait_for(|o| *o) => End::Overflow,
    };
    kill_group(pid);
    let status = match &end {
        End::Exited(status) => status.as_ref().ok().copied(),
        _ => child.wait().await.ok(),
    };
    guard.0 = None;
    writer.abort();
    collect(out_task).await;
    collect(err_task).await;
    let stdout = std::mem::take(&mut *out_buf.lock().expect("not poisoned"));
    let stderr = std::mem::take(&mut *err_buf.lock().expect("not poisoned"));
    let output = Output {
        stdout,
        stderr,
        code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)),
        duration: started.elapsed(),
    };
    // A tool may die of the pipe its reader closed at the cap (SIGPIPE)
    // before the overflow is seen: what it wrote still passed the cap.
    let over = *over_rx.borrow();
    match end {
        End::Exited(Err(e)) => Err(RunError::Spawn(e)),
        End::Exited(Ok(_)) if over => Err(RunError::TooLarge { limit: cap, output }),
        End::Exited(Ok(_)) => Ok(output),
        End::Timeout => Err(RunError::Timeout {
            after: limits.timeout,
            output,
        }),
        End::Overflow => Err(RunError::TooLarge { limit: cap, output }),
    }
}

/// The bytes read so far, readable even while the reader still waits.
type Shared = std::sync::Arc<std::sync::Mutex<Vec<u8>>>;

/// Finishes with whether the output passed the cap.
type Reader = tokio::task::JoinHandle<bool>;

fn watch_overflow(task: Reader, over: tokio::sync::watch::Sender<bool>) -> Reader {
    tokio::spawn(async move {
        let over_cap = task.await.unwrap_or_default();
        if over_cap {
            let _ = over.send(true);
        }
        over_cap
    })
}

/// The pipes close once every process of the group is gone; a process that
/// left the group (setsid) may keep one open, so collection stops waiting
/// after a moment and keeps what was read.
async fn collect(task: Reader) {
    let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
}

/// Reads up to `cap` bytes into `buf`; returns whether there was more.
/// Each complete line kept is also sent to `lines`.
async fn read_capped<R: AsyncRead + Unpin>(
    mut reader: R,
    cap: usize,
    buf: Shared,
    lines: Option<StderrLines>,
) -> bool {
    let mut chunk = vec![0u8; 64 * 1024];
    // How much of `buf` went to `lines`.
    let mut sent = 0;
    loop {
        let n = reader.read(&mut chunk).await.unwrap_or(0);
        let mut buf = buf.lock().expect("not poisoned");
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..n.min(room)]);
        if let Some(lines) = &lines {
            send_lines(&buf, &mut sent, lines, n == 0);
        }
        if n == 0 || n > room {
            return n > room;
        }
    }
}

/// Sends the complete lines of `buf` after `sent` (and, at the end, what
/// is left).
fn send_lines(buf: &[u8], sent: &mut usize, lines: &StderrLines, end: bool) {
    while *sent < buf.len() {
        let rest = &buf[*sent..];
        let (line, used) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], i + 1),
            None if end => (rest, rest.len()),
            None => return,
        };
        let _ = lines.send(String::from_utf8_lossy(line).into_owned());
        *sent += used;
    }
}

struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.0);
    }
}

/// SIGKILL to the tool's whole process group (it leads its own group).
pub fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: killpg has no memory effects; ESRCH (already gone) is fine.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
}
