//! Measures the install pipeline against its physical limit.
//!
//! Run with `cargo bench --bench pipeline`. It prints, for one package of
//! about 32 MiB of incompressible-ish data:
//!   - the baseline: read the archive + gunzip + discard (no hashing, no files),
//!   - orla's one pass from a file: read -> BLAKE3 -> gunzip -> untar -> files,
//!   - the same from a local HTTP server on 127.0.0.1,
//!   - index lookups in a directory index of 10 and of 10,000 tools.
//!
//! A regression shows up as a gap between the baseline and the pipeline, or
//! as lookups growing with the index.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use orla::fetch::{Cache, Fetcher, Job};
use orla::index::ArchiveLocation;
use orla::index::{shard_path, IndexConfig, Registry, RegistryLocation, VersionRecord};
use orla::progress::Silent;
use orla::verify::{Digest, Expected};

const RUNS: usize = 5;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let (archive, bytes) = make_package(dir.path());
    let mb = bytes.len() as f64 / (1024.0 * 1024.0);
    println!("archive: {:.1} MiB compressed", mb);
    let expected = Expected {
        blake3: Digest::of(&bytes),
        size: Some(bytes.len() as u64),
        sha256: None,
    };

    let baseline = best(|| {
        let file = std::fs::File::open(&archive).unwrap();
        let mut gz = flate2::read::GzDecoder::new(file);
        std::io::copy(&mut gz, &mut std::io::sink()).unwrap();
    });
    report("baseline: read + gunzip, no hash, no files", baseline, mb);

    let fetcher = Fetcher::new(Cache::new(&dir.path().join("cache")), false);
    let from_file = best(|| {
        let job = Job {
            label: "bench".into(),
            location: ArchiveLocation::File(archive.clone()),
            expected,
        };
        let dest = tempfile::tempdir_in(dir.path()).unwrap();
        fetcher.fetch_unpack(&job, dest.path(), &Silent).unwrap();
    });
    report("orla: file -> blake3 -> gunzip -> files", from_file, mb);

    let url = serve(bytes.clone());
    let from_http = best(|| {
        // A fresh cache each run, so every run downloads.
        let fetcher = Fetcher::new(
            Cache::new(&tempfile::tempdir_in(dir.path()).unwrap().keep()),
            false,
        );
        let job = Job {
            label: "bench".into(),
            location: ArchiveLocation::Http(url.clone()),
            expected,
        };
        let dest = tempfile::tempdir_in(dir.path()).unwrap();
        fetcher.fetch_unpack(&job, dest.path(), &Silent).unwrap();
    });
    report(
        "orla: http 127.0.0.1 -> blake3 -> gunzip -> files",
        from_http,
        mb,
    );

    for tools in [10, 10_000] {
        let index = dir.path().join(format!("index-{tools}"));
        make_index(&index, tools);
        let registry = Registry::open(&RegistryLocation::Dir(index)).unwrap();
        let lookups = 1000;
        let time = best(|| {
            for i in 0..lookups {
                registry
                    .versions(&format!("tool-{:05}", i % tools))
                    .unwrap();
            }
        });
        println!(
            "index of {tools:>6} tools: {:>8.1} µs per lookup",
            time.as_secs_f64() * 1e6 / lookups as f64
        );
    }
}

fn best(mut f: impl FnMut()) -> Duration {
    (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap()
}

fn report(what: &str, time: Duration, mb: f64) {
    println!(
        "{what:<52} {:>8.1} ms  {:>7.1} MiB/s",
        time.as_secs_f64() * 1e3,
        mb / time.as_secs_f64()
    );
}

fn make_package(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("bin")).unwrap();
    std::fs::create_dir_all(src.join("data")).unwrap();
    std::fs::write(
        src.join("tool.yaml"),
        "name: bench\nversion: 1.0.0\ndescription: bench\nentrypoint: bin/run\n",
    )
    .unwrap();
    let mut run = std::fs::File::create(src.join("bin/run")).unwrap();
    run.write_all(b"#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(src.join("bin/run"), std::fs::Permissions::from_mode(0o755)).unwrap();
    // Pseudo-random bytes: gzip cannot shrink them, so the archive is large.
    let mut state: u64 = 0x9e3779b97f4a7c15;
    for i in 0..32 {
        let chunk: Vec<u8> = (0..1024 * 1024)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        std::fs::write(src.join(format!("data/blob-{i:02}")), chunk).unwrap();
    }
    let (_, bytes) = orla::package::pack::pack_to_vec(&src).unwrap();
    let path = dir.join("bench.tar.gz");
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

fn make_index(root: &Path, tools: usize) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("config.json"), IndexConfig::default().to_json()).unwrap();
    for i in 0..tools {
        let name = format!("tool-{i:05}");
        let mut text = String::new();
        for v in 0..5 {
            let record = VersionRecord {
                name: name.clone(),
                version: semver::Version::new(1, v, 0),
                blake3: Digest::of(name.as_bytes()),
                size: 1,
                archive: None,
                sha256: None,
                yanked: false,
                description: String::new(),
                keywords: vec![],
                permissions: vec![],
            };
            text.push_str(&record.to_line());
            text.push('\n');
        }
        let path = root.join(shard_path(&name));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 that serves `bytes` to every GET.
fn serve(bytes: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/bench.tar.gz", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&bytes);
        }
    });
    url
}
