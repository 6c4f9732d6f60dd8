//! Measures what confinement adds to a call of a simple tool.
//!
//! Run with `cargo bench --bench confine` (Linux with Landlock). It runs a
//! trivial tool (`#!/bin/sh` printing one line, `permissions: []`) `CALLS`
//! times each way, alternating, through the runtime's own spawn
//! (`orla_runtime::exec::run`: clean environment, process group, output
//! collected) and prints the median and p90 of:
//!   - unconfined: the spawn alone,
//!   - confined: what the server does per call of a confined tool
//!     (`orla_runtime::launch::prepare`): a private temporary directory, the
//!     policy, the Landlock ruleset and seccomp programs built, then the same spawn with `no_new_privs`, Landlock and
//!     seccomp applied in the child.
//!
//! The cost of confinement is the difference of the two medians.

use std::time::{Duration, Instant};

use orla_runtime::exec::{self, Limits, Spawn};
use orla_runtime::invoke::Invocation;
use orla_runtime::launch;
use orla_runtime::manifest::{Settings, Source, Tool};
use orla_runtime::sandbox;

const CALLS: usize = 300;

fn main() {
    let abi = match sandbox::kernel_abi() {
        Ok(abi) => abi,
        Err(e) => {
            eprintln!("no Landlock here ({e}): nothing to measure");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("trivial");
    std::fs::write(&script, "#!/bin/sh\necho ok\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tool = Tool {
        name: "trivial".into(),
        version: "1.0.0".into(),
        command: vec!["/bin/sh".into(), script.display().to_string()],
        working_dir: dir.path().display().to_string(),
        input_schema: serde_json::json!({"type": "object"}),
        permissions_declared: true,
        risk_level: orla_runtime::manifest::Risk::Low,
        source: Source {
            kind: "registry".into(),
        },
        ..Tool::default()
    };
    let settings = Settings::default();
    let limits = Limits {
        timeout: Duration::from_secs(10),
        max_output: 1 << 20,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = |name: &str| std::env::var(name).ok();
    let call = || Invocation {
        argv: tool.command.clone(),
        stdin: Vec::new(),
    };
    let mut plain = Vec::with_capacity(CALLS);
    let mut confined = Vec::with_capacity(CALLS);
    runtime.block_on(async {
        for _ in 0..CALLS {
            let started = Instant::now();
            let spawn = Spawn {
                env: exec::environment(&tool, server, None),
                confinement: None,
            };
            let out = exec::run(&tool, call(), limits, spawn).await.unwrap();
            assert_eq!(out.stdout, b"ok\n");
            plain.push(started.elapsed());

            let started = Instant::now();
            let tmp = || tempfile::Builder::new().prefix("orla-call-").tempdir();
            let launched = launch::prepare(&tool, &settings, server, tmp).unwrap();
            assert!(launched.spawn.confinement.is_some());
            let out = exec::run(&tool, call(), limits, launched.spawn)
                .await
                .unwrap();
            assert_eq!(
                out.stdout,
                b"ok\n",
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            drop(launched.tmp);
            confined.push(started.elapsed());
        }
    });
    println!("{CALLS} calls each, Landlock ABI {abi}");
    println!("| spawn | median | p90 |");
    println!("| --- | --- | --- |");
    for (label, times) in [("unconfined", &mut plain), ("confined", &mut confined)] {
        times.sort();
        println!(
            "| {label} | {:.2} ms | {:.2} ms |",
            ms(times[times.len() / 2]),
            ms(times[times.len() * 9 / 10])
        );
    }
    println!(
        "confinement adds {:.2} ms at the median",
        ms(confined[CALLS / 2]) - ms(plain[CALLS / 2])
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
