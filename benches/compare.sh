#!/usr/bin/env bash
# Cold-install comparison: orla vs uv vs npm, same files, same local server.
#
# Usage: benches/compare.sh            (from anywhere in the repository)
#   RUNS=10      timed runs per case (plus one warm-up)
#   BIG_MIB=24   size of the big package's incompressible payload, in MiB
#   LARGE_MIB=100 LARGE_FILES=2000  the large package (LARGE_MIB=0: left out)
#   LARGE_RUNS=3 timed runs of the large package's cases
#   TOOLS=20     tools installed by the many-tools cases (0: left out)
#   ROOT_TOOLS=200  tools already in the root of the big-root cases (0: left out)
#   NO_NETNS=1   do not re-run inside a private network namespace
#   NO_HYPERFINE=1  time with the date +%s.%N loop even if hyperfine is installed
#   ORLA_BIN=path   time this orla binary instead of building one
#   ORLA_BEFORE=path  another orla build (the one before a change): every orla
#                case gets a row "orla-before ..." for it, below its own, and
#                the two are timed interleaved, in rounds of ROUND_RUNS runs
#   ROUND_RUNS=2 runs of one binary before the other's turn (with ORLA_BEFORE)
#   MEM_RUNS=3   untimed runs of each orla case under GNU time (/usr/bin/time,
#                Debian's package `time`) for its peak RSS (0: no memory column)
#   ONLY=regex   run only the cases whose package and label ("bench-large
#                orla warm") match (grep -E), e.g. ONLY='bench-large.*warm', or
#                ONLY='one command' LARGE_MIB=0 ROOT_TOOLS=0 for the many-tools pair
#
# What it does, every time from scratch:
#   1. builds orla in release mode and installs uv with pip if it is missing
#      (the only steps that may use the network);
#   2. re-runs itself in a private network namespace where only 127.0.0.1
#      exists (unshare -n; as root), so no client can reach another address;
#      without unshare it sets HTTP(S)_PROXY to a dead port instead;
#   3. makes three packages from the same files: "big" (BIG_MIB MiB of random
#      bytes in 4 MiB files, plus a script and a README), "large" (LARGE_MIB
#      MiB in LARGE_FILES files in 40 directories) and "small" (a script, a
#      README and 16 KiB of data), each packaged three ways:
#        orla: tool.yaml + bin/, `orla tool pack`/`orla tool publish` into an
#              index served as a sparse index (sparse+http://127.0.0.1:PORT/orla/)
#        uv:   a wheel behind a PEP 503 simple index (with #sha256=)
#        npm:  a package/ tarball installed by URL;
#   4. serves them with `python3 -m http.server` bound to 127.0.0.1;
#   5. times cold installs (fresh cache, fresh target every run) and warm
#      ones (the cache of an earlier install kept, a fresh target) with
#      hyperfine if present, else with a date +%s.%N loop, checks that every
#      tool installed the right bytes, and prints a table; then orla alone:
#      TOOLS tools in one command against one command per tool, and in a root
#      of ROOT_TOOLS tools against an empty root: installing a tool (in a root
#      in use, and in a root copied just before, so that nothing orla
#      remembered about it holds), uninstalling one, installing a tool new to
#      the root (a different one every run, their names spread over the
#      root's), and `orla list --json`;
#   6. runs each orla case MEM_RUNS more times under GNU time for its peak RSS
#      (the largest of the runs; of the largest process for a script);
#   7. stops the server and removes its temporary directory, whatever happens.
#
# With ORLA_BEFORE, a case and its "orla-before" twin (the same commands on
# the other binary, in a run directory of its own) take turns: ROUND_RUNS
# timed runs of one, then of the other, the order swapped every round, until
# each has its runs (the warm-up only in the first round); the rounds are
# merged into one row each, and the twin's "vs" is against the current
# binary's row. A round is one hyperfine invocation: hyperfine runs the
# commands given to one invocation one after the other, not interleaved.
#
# "orla (no fsync)" is orla run under eatmydata (when installed), which turns
# fsync into a no-op: the difference to "orla" is what orla's durability
# (every file flushed before the rename into place) costs. It is a
# measurement, not a mode orla offers.
#
# "curl + b3sum + tar xz" is the plain one-pass pipeline, no package manager
# (`curl URL | tee >(b3sum) | tar xz`, when b3sum and curl are installed):
# the floor an install that hashes and unpacks while it downloads is held to.
# It flushes nothing either.
set -euo pipefail

RUNS=${RUNS:-10}
BIG_MIB=${BIG_MIB:-24}
LARGE_MIB=${LARGE_MIB:-100}
LARGE_FILES=${LARGE_FILES:-2000}
LARGE_RUNS=${LARGE_RUNS:-3}
TOOLS=${TOOLS:-20}
ROOT_TOOLS=${ROOT_TOOLS:-200}
ROUND_RUNS=${ROUND_RUNS:-2}
MEM_RUNS=${MEM_RUNS:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT="$ROOT/benches/compare.sh"

say() { printf '%s\n' "$*" >&2; }

# ---- phase 1: outside the namespace (network allowed) ---------------------
if [[ -z "${ORLA_BENCH_PHASE2:-}" ]]; then
  if [[ -z "${ORLA_BIN:-}" ]]; then
    say "== building orla (release)"
    (cd "$ROOT" && cargo build --release --quiet)
  fi
  if [[ -n "${ORLA_BEFORE:-}" ]]; then
    [[ -x "$ORLA_BEFORE" ]] || { say "error: ORLA_BEFORE=$ORLA_BEFORE is not an executable"; exit 1; }
    ORLA_BEFORE=$(realpath "$ORLA_BEFORE")
    export ORLA_BEFORE
  fi
  UV_BIN=""
  if ! python3 -c 'import uv' 2>/dev/null; then
    say "== uv not found; installing it with pip"
    python3 -m pip install --quiet uv >&2 || true
  fi
  UV_BIN=$(python3 -c 'import uv; print(uv.find_uv_bin())' 2>/dev/null || true)
  [[ -n "$UV_BIN" && -x "$UV_BIN" ]] || UV_BIN=""
  [[ -n "$UV_BIN" ]] || say "uv could not be installed: skipping uv"
  export ORLA_BENCH_PHASE2=1 UV_BIN
  export PYTHON_BIN
  PYTHON_BIN=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
  if [[ -z "${NO_NETNS:-}" ]] && command -v unshare >/dev/null && command -v ip >/dev/null \
    && unshare -n true 2>/dev/null; then
    say "== entering a private network namespace (only 127.0.0.1 exists)"
    export ORLA_BENCH_NETNS=1
    exec unshare -n -- bash -c 'ip link set lo up && exec bash "$0"' "$SCRIPT"
  fi
  exec bash "$SCRIPT"
fi

# ---- phase 2: the benchmark ------------------------------------------------
if [[ -z "${ORLA_BENCH_NETNS:-}" ]]; then
  # No namespace: any request to another address goes to a dead proxy.
  export HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9
  export http_proxy=$HTTP_PROXY https_proxy=$HTTPS_PROXY
  export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
  say "== no network namespace: other addresses are blocked by a dead proxy"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/orla-compare.XXXXXX")
SERVER_PID=""
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A private copy: a concurrent cargo build cannot swap the binary mid-run.
ORLA="$WORK/orla"
cp "${ORLA_BIN:-$ROOT/target/release/orla}" "$ORLA"
WWW="$WORK/www"
RUN="$WORK/run"
mkdir -p "$WWW/orla" "$WWW/simple" "$WWW/wheels" "$WWW/npm" "$RUN"
# The other build and its own run directory (ORLA_BEFORE).
ORLA_B=""
RUN_B="$WORK/run-before"
if [[ -n "${ORLA_BEFORE:-}" ]]; then
  ORLA_B="$WORK/orla-before"
  cp "$ORLA_BEFORE" "$ORLA_B"
  mkdir -p "$RUN_B"
fi

# ---- the payload: the same files for every package manager -----------------
say "== generating payload (big: ${BIG_MIB} MiB incompressible, small: 16 KiB)"
"$PYTHON_BIN" - "$WORK/payload" "$BIG_MIB" "$LARGE_MIB" "$LARGE_FILES" <<'EOF'
import os, random, sys
out, big_mib = sys.argv[1], int(sys.argv[2])
large_mib, large_files = int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(20261121)  # fixed seed: the same bytes on every run
def tree(name, chunks):
    root = os.path.join(out, name)
    os.makedirs(os.path.join(root, "bin"))
    os.makedirs(os.path.join(root, "data"))
    with open(os.path.join(root, "bin", name), "w") as f:
        f.write("#!/bin/sh\necho %s\n" % name)
    os.chmod(os.path.join(root, "bin", name), 0o755)
    with open(os.path.join(root, "README.md"), "w") as f:
        f.write("# %s\n\nBenchmark payload for benches/compare.sh.\n" % name)
    for i, n in enumerate(chunks):
        # blob-00 first, then (large) 40 subdirectories as a real tree has.
        sub = "" if i == 0 or len(chunks) <= 100 else "d%02d" % (i % 40)
        os.makedirs(os.path.join(root, "data", sub), exist_ok=True)
        with open(os.path.join(root, "data", sub, "blob-%02d" % i), "wb") as f:
            f.write(rng.randbytes(n))
total, mib = big_mib << 20, 4 << 20
tree("bench-big", [min(mib, total - o) for o in range(0, total, mib)])
if large_mib:
    tree("bench-large", [(large_mib << 20) // large_files] * large_files)
tree("bench-small", [16 << 10])
EOF
PACKAGES="bench-big bench-small"
[[ "$LARGE_MIB" == 0 ]] || PACKAGES="bench-big bench-large bench-small"

# ---- orla: tool.yaml + bin/, packed and published into a sparse index ------
for name in $PACKAGES; do
  pkg="$WORK/orla-src/$name"
  mkdir -p "$pkg"
  cp -a "$WORK/payload/$name/." "$pkg/"
  cat >"$pkg/tool.yaml" <<EOF
name: $name
version: 1.0.0
description: Benchmark payload for benches/compare.sh
entrypoint: bin/$name
EOF
  "$ORLA" tool pack "$pkg" -o "$WORK" -q >/dev/null
  "$ORLA" tool publish "$pkg" --index "$WWW/orla" --init -q >/dev/null
done

# The same index grown to 10,000 more tools (records only, no archives): a
# sparse install reads config.json and one tool file, so it should not notice.
cp -a "$WWW/orla" "$WWW/orla-10k"
"$PYTHON_BIN" - "$WWW/orla-10k" <<'EOF'
import json, os, sys
root = sys.argv[1]
entries = []
for i in range(10000):
    name = "tool-%05d" % i
    shard = os.path.join(root, name[0:2], name[2:4])
    os.makedirs(shard, exist_ok=True)
    rec = {"name": name, "version": "1.0.0", "blake3": "%064x" % i, "size": 1000 + i,
           "yanked": False, "description": "filler tool %d" % i}
    with open(os.path.join(shard, name), "w") as f:
        f.write(json.dumps(rec) + "\n")
    entries.append("- name: %s\n  description: filler tool %d\n" % (name, i))
with open(os.path.join(root, "registry.yaml"), "a") as f:
    f.write("".join(entries))
EOF

# ---- uv: wheels behind a PEP 503 simple index ------------------------------
"$PYTHON_BIN" - "$WORK/payload" "$WWW" "$PACKAGES" <<'EOF'
import base64, hashlib, os, sys, zipfile
payload, www = sys.argv[1], sys.argv[2]
for name in sys.argv[3].split():
    dist = "orla-" + name                       # orla-bench-big
    mod = dist.replace("-", "_")                # orla_bench_big
    whl = "%s-1.0.0-py3-none-any.whl" % mod
    info = "%s-1.0.0.dist-info" % mod
    files = []
    src = os.path.join(payload, name)
    for d, _, fs in os.walk(src):
        for f in sorted(fs):
            p = os.path.join(d, f)
            files.append((mod + "/" + os.path.relpath(p, src), open(p, "rb").read(), os.stat(p).st_mode))
    files.append((mod + "/__init__.py", b"", 0o644))
    files.append((info + "/METADATA", ("Metadata-Version: 2.1\nName: %s\nVersion: 1.0.0\n" % dist).encode(), 0o644))
    files.append((info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: compare.sh\nRoot-Is-Purelib: true\nTag: py3-none-any\n", 0o644))
    record = []
    for arc, data, _ in files:
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (arc, h, len(data)))
    record.append(info + "/RECORD,,")
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    path = os.path.join(www, "wheels", whl)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data, mode in files:
            zi = zipfile.ZipInfo(arc, (1980, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100000 | (mode & 0o777)) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
    os.makedirs(os.path.join(www, "simple", dist))
    with open(os.path.join(www, "simple", dist, "index.html"), "w") as f:
        f.write('<!DOCTYPE html><html><body><a href="../../wheels/%s#sha256=%s">%s</a></body></html>\n' % (whl, sha, whl))
with open(os.path.join(www, "simple", "index.html"), "w") as f:
    f.write("".join('<a href="orla-%s/">orla-%s</a>\n' % (n, n) for n in sys.argv[3].split()))
EOF

# ---- npm: package/ tarballs -------------------------------------------------
for name in $PACKAGES; do
  stage="$WORK/npm-src/$name"
  mkdir -p "$stage/package"
  cp -a "$WORK/payload/$name/." "$stage/package/"
  cat >"$stage/package/package.json" <<EOF
{"name": "orla-$name", "version": "1.0.0", "description": "Benchmark payload",
 "license": "MIT", "bin": {"orla-$name": "bin/$name"}}
EOF
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    -C "$stage" -czf "$WWW/npm/orla-$name-1.0.0.tgz" package
done

# ---- the server ---------------------------------------------------------------
PORT=$("$PYTHON_BIN" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$PYTHON_BIN" -m http.server "$PORT" --bind 127.0.0.1 --directory "$WWW" \
  >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 100); do
  "$PYTHON_BIN" -c "import urllib.request as u; u.urlopen('$BASE/orla/config.json', timeout=1)" \
    2>/dev/null && break
  sleep 0.1
done

# ---- orla only: many tools, and a root that already holds many -----------
# TOOLS copies of bench-small under other names; ROOT_TOOLS tiny filler tools;
# NEW_TOOLS tools new to the roots, one per run of the new-tool cases (the
# check, the warm-up, the timed and the memory runs), each named after a
# filler so that they land spread over the root's names.
NEW_TOOLS=0
((ROOT_TOOLS == 0)) || NEW_TOOLS=$((RUNS + MEM_RUNS + 4))
"$PYTHON_BIN" - "$WORK" "$TOOLS" "$ROOT_TOOLS" "$NEW_TOOLS" <<'EOF'
import os, shutil, sys
work, tools, fillers, new = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def package(name, copy_of=None):
    root = os.path.join(work, "orla-src", name)
    if copy_of:
        shutil.copytree(os.path.join(work, "payload", copy_of), root)
        os.rename(os.path.join(root, "bin", copy_of), os.path.join(root, "bin", name))
    else:
        os.makedirs(os.path.join(root, "bin"))
        with open(os.path.join(root, "bin", name), "w") as f:
            f.write("#!/bin/sh\necho %s\n" % name)
        os.chmod(os.path.join(root, "bin", name), 0o755)
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write("# %s\n" % name)
    with open(os.path.join(root, "tool.yaml"), "w") as f:
        f.write("name: %s\nversion: 1.0.0\ndescription: Benchmark tool\nentrypoint: bin/%s\n" % (name, name))

for i in range(tools):
    package("bench-t%02d" % i, "bench-small")
for i in range(fillers):
    package("bench-f%04d" % i)
names = ["bench-f%04d-new%02d" % (i * fillers // max(new, 1), i) for i in range(new)]
for name in names:
    package(name)
with open(os.path.join(work, "new-tools"), "w") as f:
    f.write("".join(n + "\n" for n in names))
EOF
MANY=()
for ((i = 0; i < TOOLS; i++)); do MANY+=("$(printf 'bench-t%02d' "$i")"); done
FILLERS=()
for ((i = 0; i < ROOT_TOOLS; i++)); do FILLERS+=("$(printf 'bench-f%04d' "$i")"); done
if ((TOOLS + ROOT_TOOLS > 0)); then
  say "== publishing $TOOLS + $ROOT_TOOLS + $NEW_TOOLS more tools"
  for name in "${MANY[@]}" "${FILLERS[@]}" $(cat "$WORK/new-tools"); do
    "$ORLA" tool publish "$WORK/orla-src/$name" --index "$WWW/orla" -q >/dev/null 2>&1
  done
fi

# Moves trees aside instead of deleting them before a timed run: ext4 here
# delays the reuse of freed inodes, which would slow the next unpack. The
# trash is removed with the work directory.
TRASH="$WORK/trash"
mkdir -p "$TRASH"
cat >"$WORK/aside" <<EOF
for d in "\$@"; do [ -e "\$d" ] && mv "\$d" "$TRASH/\$(date +%s%N)-\$RANDOM"; done
sync
EOF
ASIDE="bash $WORK/aside"
# A fresh home that keeps the user's receipt key (saved at the first call,
# after the checking install, which is then left 2 s to settle: a cached
# file is stamped only once it is 2 s old, as a cache from an earlier
# command is; docs/cache.md).
cat >"$WORK/fresh-home" <<EOF
h=\$1 k=\$2
[ -f "\$k" ] || [ ! -f "\$h/receipt.key" ] || { cp "\$h/receipt.key" "\$k" && sleep 2; }
$ASIDE "\$h"
[ ! -f "\$k" ] || { mkdir -p "\$h" && cp "\$k" "\$h/"; }
EOF
FRESH_HOME="bash $WORK/fresh-home"
# The root ROOT's home replaced by a copy of the one saved after the fill, at
# the same path (receipts are bound to their directory): every file is a new
# inode, so nothing orla remembered about the root holds. The cache is kept.
cat >"$WORK/recopy" <<EOF
$ASIDE "\$1/home" && cp -a "\$1/home.filled" "\$1/home" && sync
EOF
# The next tool new to the root ROOT, from its list, into ROOT/new-next (the
# timed command reads it with xargs, which starts no shell).
cat >"$WORK/next-new" <<'EOF'
[ -s "$1/new-tools" ] || { echo "error: no new tool left in $1/new-tools" >&2; exit 1; }
head -n 1 "$1/new-tools" >"$1/new-next" && sed -i 1d "$1/new-tools" && sync
EOF

# The roots of the big-root cases, made once (untimed) by each binary in its
# own run directory: root-1, where bench-small was installed and uninstalled
# (an empty root in use, its cache holding bench-small), and root-many with
# ROOT_TOOLS tools. Each home is saved as home.filled for the copied cases.
REG="--registry sparse+$BASE/orla/"
fill_roots() {
  local orla=$1 run=$2 i
  ORLA_HOME="$run/root-1/home" ORLA_CACHE_DIR="$run/root-1/cache" \
    "$orla" install bench-small $REG -y -q >/dev/null
  ORLA_HOME="$run/root-1/home" ORLA_CACHE_DIR="$run/root-1/cache" \
    "$orla" uninstall bench-small -q >/dev/null
  for ((i = 0; i < ROOT_TOOLS; i += 50)); do
    ORLA_HOME="$run/root-many/home" ORLA_CACHE_DIR="$run/root-many/cache" \
      "$orla" install "${FILLERS[@]:i:50}" $REG -y -q >/dev/null
  done
  for root in root-1 root-many; do
    cp -a "$run/$root/home" "$run/$root/home.filled"
    cp "$WORK/new-tools" "$run/$root/new-tools"
  done
}
if ((ROOT_TOOLS > 0)); then
  say "== filling a root with $ROOT_TOOLS tools"
  fill_roots "$ORLA" "$RUN"
  [[ -z "$ORLA_B" ]] || fill_roots "$ORLA_B" "$RUN_B"
  # As a root in use is: a name changed in the last 2 s is read again by
  # the next command (docs/manifest.md), which would time the fill's own
  # last names rather than a steady root when these cases run first.
  sleep 2
fi

# ---- the cases: label|package|prepare|install|check|runs|vs -----------------
# `check` prints the installed path of data/blob-00 (compared with the
# source of the package's first word), or `-` for no check. `vs` is the
# label of the row (of the same package) that the "vs" column compares with;
# empty, the first row of the same package and kind (cold or warm).
EMD=$(command -v eatmydata || true)
# The plain one-pass pipeline, no package manager: download, hash and untar
# at once (when b3sum and curl are installed; a script, for the `>(...)`).
B3SUM=$(command -v b3sum || true)
CURL=$(command -v curl || true)
cat >"$WORK/pipeline" <<'EOF'
curl -sf "$1" | tee >(b3sum >"$2.b3") | tar xz -C "$2"
EOF
CASES=()
add() { CASES+=("$1|$2|$3|$4|$5|${6:-$RUNS}|${7:-}"); }
# An orla case, and with ORLA_BEFORE its twin right after it: the same
# fields with the other binary and the other run directory.
add_orla() {
  add "$@"
  [[ -n "$ORLA_B" ]] || return 0
  local -a twin=("orla-before${1#orla}" "$2")
  local field
  for field in "$3" "$4" "$5"; do
    field=${field//"$RUN/"/"$RUN_B/"}
    twin+=("${field//"$ORLA "/"$ORLA_B "}")
  done
  add "${twin[@]}" "${6:-$RUNS}" "$1"
}
for name in $PACKAGES; do
  r="$RUN/$name"
  runs=$RUNS
  [[ $name != bench-large ]] || runs=$LARGE_RUNS
  orla_env="ORLA_HOME=$r/orla/home ORLA_CACHE_DIR=$r/orla/cache"
  orla_install="$ORLA install $name $REG -y -q"
  add_orla "orla" "$name" "$ASIDE $r/orla" "$orla_env $orla_install" \
    "echo $r/orla/home/tools/$name/1.0.0/data/blob-00" "$runs"
  if [[ $name == bench-small ]]; then
    add_orla "orla, 10k-tool index" "$name" "$ASIDE $r/orla" \
      "$orla_env $ORLA install $name --registry sparse+$BASE/orla-10k/ -y -q" \
      "echo $r/orla/home/tools/$name/1.0.0/data/blob-00" "$runs"
  fi
  if [[ -n "$EMD" ]]; then
    add_orla "orla (no fsync)" "$name" "$ASIDE $r/orla" "$orla_env $EMD $orla_install" \
      "echo $r/orla/home/tools/$name/1.0.0/data/blob-00" "$runs"
  fi
  # Warm: the cache of the checking install (and of the warm-up) is kept,
  # and so is the user's receipt key (the user's own, not the target's: it
  # MACs the cache's stamps); the rest of the home is fresh.
  add_orla "orla warm" "$name" "$FRESH_HOME $r/orla-warm/home $r/orla-warm/receipt.key" \
    "ORLA_HOME=$r/orla-warm/home ORLA_CACHE_DIR=$r/orla-warm/cache $orla_install" \
    "echo $r/orla-warm/home/tools/$name/1.0.0/data/blob-00" "$runs"
  if [[ -n "${UV_BIN:-}" ]]; then
    mod="orla_${name//-/_}"
    uv_install="UV_PYTHON_DOWNLOADS=never $UV_BIN pip install -q --index-url $BASE/simple/ orla-$name"
    add "uv" "$name" \
      "$ASIDE $r/uv && UV_PYTHON_DOWNLOADS=never $UV_BIN venv -q --python $PYTHON_BIN $r/uv/venv" \
      "$uv_install --no-cache --python $r/uv/venv/bin/python" \
      "ls -d $r/uv/venv/lib/python*/site-packages/$mod/data/blob-00" "$runs"
    add "uv warm" "$name" \
      "$ASIDE $r/uv-warm/venv && UV_PYTHON_DOWNLOADS=never $UV_BIN venv -q --python $PYTHON_BIN $r/uv-warm/venv" \
      "$uv_install --cache-dir $r/uv-warm/cache --python $r/uv-warm/venv/bin/python" \
      "ls -d $r/uv-warm/venv/lib/python*/site-packages/$mod/data/blob-00" "$runs"
  fi
  if [[ -n "$B3SUM" && -n "$CURL" ]]; then
    add "curl + b3sum + tar xz" "$name" "$ASIDE $r/pipeline && mkdir -p $r/pipeline" \
      "bash $WORK/pipeline $BASE/orla/archives/$name/$name-1.0.0.tar.gz $r/pipeline" \
      "echo $r/pipeline/$name-1.0.0/data/blob-00" "$runs"
  fi
  if command -v npm >/dev/null; then
    npm_install="npm install $BASE/npm/orla-$name-1.0.0.tgz --no-audit --no-fund --no-update-notifier --loglevel=error --registry $BASE/npm-registry/"
    add "npm" "$name" "$ASIDE $r/npm && mkdir -p $r/npm/prefix $r/npm/cache" \
      "$npm_install --prefix $r/npm/prefix --cache $r/npm/cache" \
      "echo $r/npm/prefix/node_modules/orla-$name/data/blob-00" "$runs"
    add "npm warm" "$name" "$ASIDE $r/npm-warm/prefix && mkdir -p $r/npm-warm/prefix" \
      "$npm_install --prefix $r/npm-warm/prefix --cache $r/npm-warm/cache" \
      "echo $r/npm-warm/prefix/node_modules/orla-$name/data/blob-00" "$runs"
  else
    say "npm not found: skipping npm"
  fi
done
if ((TOOLS > 0)); then
  r="$RUN/many"
  check="echo $r/home/tools/${MANY[0]}/1.0.0/data/blob-00"
  add_orla "orla, one command" "bench-small x$TOOLS" "$ASIDE $r" \
    "ORLA_HOME=$r/home ORLA_CACHE_DIR=$r/cache $ORLA install ${MANY[*]} $REG -y -q" "$check"
  # (a script: the case fields are separated by '|'; its binary and root
  # are arguments, so that the twin runs the other binary in its own root)
  printf 'set -e\nfor t in %s; do ORLA_HOME=$2/home ORLA_CACHE_DIR=$2/cache "$1" install "$t" %s -y -q; done\n' \
    "${MANY[*]}" "$REG" >"$WORK/one-each"
  add_orla "orla, one command each" "bench-small x$TOOLS" "$ASIDE $r" \
    "bash $WORK/one-each $ORLA $r" "$check" "" "orla, one command"
fi
if ((ROOT_TOOLS > 0)); then
  # Timed in the root that was filled, at its own path: receipts are bound
  # to their directory, so a copy elsewhere would serve none of its tools.
  # Each pair differs only in the root's size: the root's cache is kept in
  # both. The copied cases come last: they leave a root just copied.
  empty="$RUN/root-1" many="$RUN/root-many"
  env1="ORLA_HOME=$empty/home ORLA_CACHE_DIR=$empty/cache"
  envn="ORLA_HOME=$many/home ORLA_CACHE_DIR=$many/cache"
  installed() { echo "echo $1/home/tools/bench-small/1.0.0/data/blob-00"; }
  # Install, root in use: bench-small is uninstalled again (untimed) before
  # each run.
  for r in "$empty" "$many"; do
    [[ $r == "$empty" ]] && label="orla, into an empty root" vs="" \
      || label="orla, into a $ROOT_TOOLS-tool root" vs="orla, into an empty root"
    add_orla "$label" "bench-small" \
      "ORLA_HOME=$r/home ORLA_CACHE_DIR=$r/cache $ORLA uninstall bench-small -q >/dev/null 2>&1; sync" \
      "ORLA_HOME=$r/home ORLA_CACHE_DIR=$r/cache $ORLA install bench-small $REG -y -q" \
      "$(installed "$r")" "" "$vs"
  done
  # Uninstall: bench-small is installed again (untimed) before each run.
  for r in "$empty" "$many"; do
    [[ $r == "$empty" ]] && label="orla uninstall, from an empty root" vs="" \
      || label="orla uninstall, from a $ROOT_TOOLS-tool root" vs="orla uninstall, from an empty root"
    add_orla "$label" "bench-small" \
      "ORLA_HOME=$r/home ORLA_CACHE_DIR=$r/cache $ORLA install bench-small $REG -y -q >/dev/null 2>&1; sync" \
      "ORLA_HOME=$r/home ORLA_CACHE_DIR=$r/cache $ORLA uninstall bench-small -q" "-" "" "$vs"
  done
  add_orla "orla list --json, 1 tool" "list" ":" "$env1 $ORLA list --json" "-"
  add_orla "orla list --json, $ROOT_TOOLS tools" "list" ":" "$envn $ORLA list --json" "-"
  # A tool new to the root, a different one every run (bench-fNNNN-newII,
  # landing beside the filler bench-fNNNN); the root grows by one each run.
  for r in "$empty" "$many"; do
    [[ $r == "$empty" ]] && label="orla, a new tool into an empty root" vs="" \
      || label="orla, a new tool into a $ROOT_TOOLS-tool root" vs="orla, a new tool into an empty root"
    add_orla "$label" "new tool" "bash $WORK/next-new $r" \
      "ORLA_HOME=$r/home ORLA_CACHE_DIR=$r/cache xargs -a $r/new-next $ORLA install $REG -y -q" "-" "" "$vs"
  done
  # Install, root just copied: as in use, into a fresh copy of the filled
  # root (bench-small not in it).
  for r in "$empty" "$many"; do
    [[ $r == "$empty" ]] && label="orla, into an empty root just copied" vs="" \
      || label="orla, into a $ROOT_TOOLS-tool root just copied" vs="orla, into an empty root just copied"
    add_orla "$label" "bench-small" "bash $WORK/recopy $r" \
      "ORLA_HOME=$r/home ORLA_CACHE_DIR=$r/cache $ORLA install bench-small $REG -y -q" \
      "$(installed "$r")" "" "$vs"
  done
fi

HYPERFINE=$(command -v hyperfine || true)
[[ -z "${NO_HYPERFINE:-}" ]] || HYPERFINE=""
[[ -n "$HYPERFINE" ]] || say "no hyperfine (or NO_HYPERFINE set): timing with a date +%s.%N loop (it includes starting bash and date, a few ms per run)"
GNU_TIME=""
if ((MEM_RUNS > 0)); then
  if /usr/bin/time -f %M true >/dev/null 2>&1; then
    GNU_TIME=/usr/bin/time
  else
    say "no GNU time at /usr/bin/time (Debian's package \`time\`): no peak memory"
  fi
fi
say "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $RUNS runs per case"
say "== orla $("$ORLA" --version | cut -d' ' -f2), uv ${UV_BIN:+$("$UV_BIN" --version | cut -d' ' -f2)}, npm $(npm --version 2>/dev/null || echo -), node $(node --version 2>/dev/null || echo -)"
[[ -z "$ORLA_B" ]] || say "== orla-before: $ORLA_BEFORE ($("$ORLA_B" --version)), interleaved in rounds of $ROUND_RUNS runs"

# A command without shell syntax runs without a shell: `VAR=value ...`
# words first are split off into VARS, the rest into ARGV.
split_vars() {
  VARS=() ARGV=()
  local rest=$1
  while [[ $rest =~ ^([A-Za-z_][A-Za-z0-9_]*=[^ ]*)\ (.*)$ ]]; do
    VARS+=("${BASH_REMATCH[1]}")
    rest=${BASH_REMATCH[2]}
  done
  read -r -a ARGV <<<"$rest"
}
no_shell() { [[ $1 != *[\|\>\<\;\&\$\(\)\'\"]* ]]; }

# time_case LABEL PREP CMD RUNS WARMUP JSON: RUNS timed runs of CMD, each
# after PREP, into JSON (hyperfine's export format).
time_case() {
  local label=$1 prep=$2 cmd=$3 runs=$4 warmup=$5 json=$6
  if [[ -n "$HYPERFINE" ]]; then
    # Without shell syntax a case runs without a shell (-N, its variables
    # set on hyperfine, which passes them on): hyperfine then subtracts no
    # shell start-up, whose spread is as large as a 2 ms command under load.
    local -a timed=(--prepare "$prep" -n "$label" "$cmd")
    VARS=()
    if no_shell "$cmd"; then
      split_vars "$cmd"
      timed=(-N --prepare "bash -c '${prep//\'/\'\\\'\'}'" -n "$label" "${ARGV[*]}")
    fi
    env "${VARS[@]}" "$HYPERFINE" --style basic --runs "$runs" --warmup "$warmup" \
      --export-json "$json" "${timed[@]}" >&2
  else
    local -a times=()
    local t0 t1 j
    for ((j = 0; j < warmup; j++)); do bash -c "$prep" && bash -c "$cmd" >/dev/null; done
    for ((j = 0; j < runs; j++)); do
      bash -c "$prep"
      t0=$(date +%s.%N)
      bash -c "$cmd" >/dev/null
      t1=$(date +%s.%N)
      times+=("$(echo "$t1 - $t0" | bc -l 2>/dev/null || "$PYTHON_BIN" -c "print($t1-$t0)")")
    done
    "$PYTHON_BIN" - "$json" "$label" "${times[@]}" <<'EOF'
import json, statistics, sys
t = [float(x) for x in sys.argv[3:]]
json.dump({"results": [{"command": sys.argv[2], "mean": statistics.mean(t),
    "median": statistics.median(t),
    "stddev": statistics.stdev(t) if len(t) > 1 else 0.0,
    "min": min(t), "max": max(t), "times": t}]}, open(sys.argv[1], "w"))
EOF
    say "   mean $("$PYTHON_BIN" -c "import json;print(round(json.load(open('$json'))['results'][0]['mean']*1000,1))") ms"
  fi
}

# peak_kib PREP CMD: after PREP, one run of CMD under GNU time; prints its
# peak RSS in KiB (of the largest process, for a script).
peak_kib() {
  local prep=$1 cmd=$2 out="$WORK/peak"
  bash -c "$prep"
  local -a run=(bash -c "$cmd")
  VARS=()
  if no_shell "$cmd"; then
    split_vars "$cmd"
    run=("${ARGV[@]}")
  fi
  env "${VARS[@]}" "$GNU_TIME" -f %M -o "$out" "${run[@]}" >/dev/null 2>"$out.err" \
    || { cat "$out.err" >&2; say "error: $cmd failed"; exit 1; }
  tail -n 1 "$out"
}

# The cases one by one, a case and its twin together. A group's members
# are checked, timed (in turns when there are two), then measured for
# memory (in turns too).
i=0
for ((c = 0; c < ${#CASES[@]}; c++)); do
  IFS='|' read -r label name _ <<<"${CASES[c]}"
  [[ $label != orla-before* ]] || continue   # taken with its case
  if [[ -n "${ONLY:-}" ]] && ! grep -qE -- "$ONLY" <<<"$name $label"; then continue; fi
  group=("${CASES[c]}")
  [[ "${CASES[c + 1]:-}" != orla-before* ]] || group+=("${CASES[c + 1]}")
  i=$((i + 1))
  labels=() names=() preps=() cmds=() vss=()
  for ((m = 0; m < ${#group[@]}; m++)); do
    IFS='|' read -r label name prep cmd check runs vs <<<"${group[m]}"
    labels+=("$label") names+=("$name") preps+=("$prep") cmds+=("$cmd") vss+=("$vs")
    # One untimed install first, to check that it works and installs the right bytes.
    bash -c "$prep" && bash -c "$cmd" >/dev/null
    if [[ $check != - ]]; then
      got=$(bash -c "$check")
      cmp -s "$got" "$WORK/payload/${name%% *}/data/blob-00" \
        || { say "error: $label did not install $name correctly ($got)"; exit 1; }
    fi
  done
  say "-- ${labels[0]}${labels[1]:+ / ${labels[1]}}: $name"
  if ((${#group[@]} == 1)); then
    time_case "${labels[0]} $name" "${preps[0]}" "${cmds[0]}" "$runs" 1 "$WORK/result-$i-0.json"
  else
    # Rounds of about ROUND_RUNS runs each, the order swapped every round.
    rounds=$(((runs + ROUND_RUNS - 1) / ROUND_RUNS))
    for ((r = 0; r < rounds; r++)); do
      n=$((runs * (r + 1) / rounds - runs * r / rounds))
      for m in $((r % 2)) $((1 - r % 2)); do
        time_case "${labels[m]} $name" "${preps[m]}" "${cmds[m]}" "$n" $((r == 0)) \
          "$WORK/result-$i-$m-round-$r.json"
      done
    done
    for m in 0 1; do
      "$PYTHON_BIN" - "$WORK/result-$i-$m.json" "$WORK/result-$i-$m"-round-*.json <<'EOF'
import json, statistics, sys
rounds = [json.load(open(p))["results"][0] for p in sys.argv[2:]]
t = [x for r in rounds for x in r["times"]]
merged = {"command": rounds[0]["command"], "mean": statistics.mean(t),
    "median": statistics.median(t), "stddev": statistics.stdev(t) if len(t) > 1 else 0.0,
    "min": min(t), "max": max(t), "times": t}
if all("user" in r for r in rounds):
    for k in ("user", "system"):  # means over each round's runs
        merged[k] = sum(r[k] * len(r["times"]) for r in rounds) / len(t)
json.dump({"results": [merged]}, open(sys.argv[1], "w"))
EOF
    done
  fi
  # Peak memory of each orla case: the largest of MEM_RUNS runs.
  peaks=()
  for ((m = 0; m < ${#group[@]}; m++)); do peaks+=(-); done
  if [[ -n "$GNU_TIME" && ${labels[0]} == orla* ]]; then
    for ((m = 0; m < ${#group[@]}; m++)); do peaks[m]=0; done
    for ((k = 0; k < MEM_RUNS; k++)); do
      for ((m = 0; m < ${#group[@]}; m++)); do
        kib=$(peak_kib "${preps[m]}" "${cmds[m]}")
        ((kib <= peaks[m])) || peaks[m]=$kib
      done
    done
  fi
  for ((m = 0; m < ${#group[@]}; m++)); do
    echo "${labels[m]}|${names[m]}|$WORK/result-$i-$m.json|${peaks[m]}|${vss[m]}" >>"$WORK/index"
  done
done

# Every request the server saw came over 127.0.0.1 (it listens nowhere else).
requests=$(grep -c '"GET ' "$WORK/server.log" || true)

echo
echo "Installs, $RUNS runs each ($LARGE_RUNS of bench-large), served from $BASE: cold = fresh cache and target every run, warm = the cache kept"
echo "payload: bench-big = ${BIG_MIB} MiB incompressible in 4 MiB files, bench-large = ${LARGE_MIB} MiB in ${LARGE_FILES} files, bench-small = 16 KiB; each + script + README"
echo "archives: orla $(stat -c %s "$WWW"/orla/archives/bench-big/*.tar.gz) B, wheel $(stat -c %s "$WWW"/wheels/orla_bench_big-*.whl) B, npm $(stat -c %s "$WWW"/npm/orla-bench-big-*.tgz) B (bench-big)"
[[ -z "$ORLA_B" ]] || echo "orla-before rows: $ORLA_BEFORE, timed in turns with orla's, $ROUND_RUNS runs at a time"
echo
"$PYTHON_BIN" - "$WORK/index" "$BIG_MIB" "$LARGE_MIB" <<'EOF'
import json, sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1])]
mib = {"bench-big": int(sys.argv[2]), "bench-large": int(sys.argv[3])}
res = {(label, name): json.load(open(path))["results"][0] for label, name, path, _, _ in rows}
# "vs" compares medians with the row named by the case (the row of the
# current binary for an orla-before row, an empty root for a big root), or
# with the first row of the same package and kind: orla, orla warm, one
# command, 1 tool.
print("| package | tool | median | mean | ± σ | min | max | vs | MiB/s | CPU user+sys | peak RSS |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
first = {}
for label, name, _, _, _ in rows:
    first.setdefault((name, "warm" in label), res[(label, name)])
for label, name, _, peak, vs in rows:
    r = res[(label, name)]
    med = r.get("median", r["mean"])
    base = res.get((vs, name)) or first[(name, "warm" in label)]
    b = base.get("median", base["mean"])
    rel = "%.2fx" % (med / b) if b > 0 else "-"
    rate = "%.0f" % (mib[name] / med) if name in mib and med > 0 else "-"
    ms = lambda s: "%.1f ms" % (s * 1000)
    cpu = ms(r["user"] + r["system"]) if "user" in r else "-"
    rss = "%.1f MiB" % (int(peak) / 1024) if peak != "-" else "-"
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        name, label, ms(med), ms(r["mean"]), ms(r["stddev"]), ms(r["min"]), ms(r["max"]), rel, rate, cpu, rss))
EOF
echo
echo "server: $requests requests, all on 127.0.0.1:$PORT${ORLA_BENCH_NETNS:+ (private network namespace)}"
