//! `orla-runtime MANIFEST [--http [--port N] [--host IP]]`: the runtime alone,
//! for another front end than `orla serve`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut manifest = None;
    let mut transport = orla_runtime::Transport::Stdio;
    let (mut host, mut port) = ("127.0.0.1".parse().expect("an address"), None);
    let mut http = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => http = true,
            "--stdio" => http = false,
            "--port" => port = args.next().and_then(|p| p.parse().ok()),
            "--host" => match args.next().and_then(|h| h.parse().ok()) {
                Some(h) => host = h,
                None => return usage("--host takes an IP address"),
            },
            "-h" | "--help" => {
                println!("usage: orla-runtime MANIFEST [--stdio | --http [--port N] [--host IP]]");
                return ExitCode::SUCCESS;
            }
            other if manifest.is_none() && !other.starts_with('-') => {
                manifest = Some(PathBuf::from(other))
            }
            other => return usage(&format!("unexpected argument '{other}'")),
        }
    }
    if http {
        transport = orla_runtime::Transport::Http { host, port };
    }
    let Some(manifest) = manifest else {
        return usage("the path of a manifest.json is required");
    };
    match orla_runtime::serve(orla_runtime::Options::new(
        std::sync::Arc::new(orla_runtime::ManifestFile::new(manifest)),
        transport,
    )) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!(
        "error: {message}\nusage: orla-runtime MANIFEST [--stdio | --http [--port N] [--host IP]]"
    );
    ExitCode::from(2)
}
