#!/usr/bin/env bash
# Does the cost of a command grow with the number of tools in the root?
# orla alone, no network: a directory index on local disk.
#
# Usage: benches/root_size.sh          (from anywhere in the repository)
#   ROOT_TOOLS=1000  tools already in the big root
#   RUNS=10          timed runs per case (plus one warm-up)
#   ORLA_BIN=path    time this orla binary instead of building one
#
# Cases, each timed in a root of 1 tool and in a root of ROOT_TOOLS tools:
#   install, root in use       one small tool, uninstalled again (untimed)
#                              before each run: the steady state of a root
#   install, root just copied  the same into a fresh copy of the filled root
#                              at the same path (every file a new inode, so
#                              nothing orla remembered about the root holds)
#   uninstall one tool         the same tool, installed again (untimed) before
#                              each run
#   install a new tool         each run a tool not in the root yet, their
#                              names spread over the root's (bench-fNNNN-new),
#                              so each lands somewhere else in the manifest
#   list --json                the root unchanged between runs
# It prints the median of each and the ratio big/small. Copies replaced are
# moved aside, not deleted (ext4 delays the reuse of freed inodes).
set -euo pipefail

ROOT_TOOLS=${ROOT_TOOLS:-1000}
RUNS=${RUNS:-10}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [[ -z "${ORLA_BIN:-}" ]]; then
  (cd "$ROOT" && cargo build --release --quiet)
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/orla-root-size.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ORLA="$WORK/orla"
cp "${ORLA_BIN:-$ROOT/target/release/orla}" "$ORLA"

# Tools new to both roots, one per timed run (and the warm-up), their names
# spread over the big root's.
NEW_TOOLS=$(python3 -c "import sys; n, r = int(sys.argv[1]), int(sys.argv[2]) + 1
print(' '.join('bench-f%04d-new' % (i * max(n, 1) // r) for i in range(r)))" "$ROOT_TOOLS" "$RUNS")
export NEW_TOOLS
python3 - "$WORK" "$ROOT_TOOLS" <<'PY'
import os, sys
work, n = sys.argv[1], int(sys.argv[2])
def package(name):
    root = os.path.join(work, "src", name)
    os.makedirs(os.path.join(root, "bin"))
    with open(os.path.join(root, "bin", name), "w") as f:
        f.write("#!/bin/sh\necho %s\n" % name)
    os.chmod(os.path.join(root, "bin", name), 0o755)
    with open(os.path.join(root, "README.md"), "w") as f:
        f.write("# %s\n" % name)
    with open(os.path.join(root, "tool.yaml"), "w") as f:
        f.write("name: %s\nversion: 1.0.0\ndescription: Benchmark tool\nentrypoint: bin/%s\n"
                "permissions: [filesystem:read]\n" % (name, name))
package("bench-one")
for i in range(n):
    package("bench-f%04d" % i)
for name in os.environ["NEW_TOOLS"].split():
    package(name)
PY
INDEX="$WORK/index"
echo "== publishing $((ROOT_TOOLS + 1)) tools" >&2
first=--init
for dir in "$WORK"/src/*; do
  "$ORLA" tool publish "$dir" --index "$INDEX" $first -q >/dev/null
  first=
done

FILLERS=()
for ((i = 0; i < ROOT_TOOLS; i++)); do FILLERS+=("$(printf 'bench-f%04d' "$i")"); done
echo "== filling the roots" >&2
# Receipts are bound to their package directory's path, so every timed run
# uses a root at the path it was filled at ($WORK/small, $WORK/big).
env ORLA_HOME="$WORK/small/home" ORLA_CACHE_DIR="$WORK/cache" \
  "$ORLA" install bench-f0000 --registry "$INDEX" -y -q
for ((i = 0; i < ROOT_TOOLS; i += 100)); do
  env ORLA_HOME="$WORK/big/home" ORLA_CACHE_DIR="$WORK/cache" \
    "$ORLA" install "${FILLERS[@]:i:100}" --registry "$INDEX" -y -q
done
for root in small big; do cp -a "$WORK/$root" "$WORK/$root-master"; done

mkdir -p "$WORK/trash"
python3 - "$WORK" "$ORLA" "$INDEX" "$RUNS" "$ROOT_TOOLS" <<'PY'
import os, statistics, subprocess, sys, time
work, orla, index, runs, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
trash = os.path.join(work, "trash")
new = os.environ["NEW_TOOLS"].split()
def run(root, argv, quiet=False):
    env = dict(os.environ, ORLA_HOME=os.path.join(work, root, "home"),
               ORLA_CACHE_DIR=os.path.join(work, "cache"))
    subprocess.run([orla] + argv, env=env, check=not quiet, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL if quiet else None)
def copied(root):
    path = os.path.join(work, root)
    os.rename(path, os.path.join(trash, str(time.monotonic_ns())))
    subprocess.run(["cp", "-a", path + "-master", path], check=True)
    os.sync()
def uninstalled(root):
    run(root, ["uninstall", "bench-one", "-q"], quiet=True)
    os.sync()
def installed(root):
    run(root, ["install", "bench-one", "--registry", index, "-y", "-q"], quiet=True)
    os.sync()
def timed(root, argv, prepare):
    times = []
    for i in range(runs + 1):
        if prepare:
            prepare(root)
        t0 = time.perf_counter()
        run(root, argv(i) if callable(argv) else argv)
        if i:
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000
install = ["install", "bench-one", "--registry", index, "-y", "-q"]
cases = [
    ("install one tool, root in use", install, uninstalled),
    ("install one tool, root just copied", install, copied),
    ("uninstall one tool", ["uninstall", "bench-one", "-q"], installed),
    ("install a new tool", lambda i: ["install", new[i], "--registry", index, "-y", "-q"],
     lambda root: os.sync()),
    ("list --json", ["list", "--json"], None),
]
print("| case | 1 tool | %d tools | ratio |" % n)
print("| --- | ---: | ---: | ---: |")
for label, argv, prepare in cases:
    # A name directory changed in the last 2 s is read again by the next
    # command (docs/manifest.md): each case starts in a settled root, not
    # in the wake of the fill or of the case before it.
    time.sleep(2.1)
    small = timed("small", argv, prepare)
    big = timed("big", argv, prepare)
    print("| %s | %.1f ms | %.1f ms | %.2fx |" % (label, small, big, big / small))
PY
