//! The manifest's list of installed tools as it stands now, for `orla
//! list`: read from the manifest alone when it is current, written again
//! first when an interrupted command left it behind, when a project's
//! inputs changed behind orla's back (orla.yaml edited, an executable
//! dropped into tools_dir, a global install) or when it is damaged. A
//! manifest from a newer orla is refused, never downgraded.
//!
//! `list --json` of a global root whose manifest this version of orla wrote
//! is made from the manifest's text (`json`): its `installed` entries are
//! already what `list --json` prints, one on each line two spaces deeper,
//! so they are copied line by line instead of parsed and serialised again,
//! and the `tools` before them are not even read. When the manifest cache
//! vouches for the file (a genuine cache recorded its stamp: orla wrote it
//! and nobody changed it since), that is all; otherwise the text is parsed
//! as JSON (while the entrypoints are looked for) and must give the same
//! entrypoints, or the listing takes the way through `current`. In a root
//! of 1,000 tools the parse was 6.2 M of the 14.3 M instructions of `list
//! --json` (docs/benchmarks.md).
//!
//! The `missing` mark is one existence check (`faccessat`, no attributes
//! gathered as a `stat` gathers them) per entrypoint, relative to an open
//! tools_dir, from a few threads when there are many.

use std::path::Path;

use crate::manifest::{
    Inputs, InstalledEntry, Listing, Manifest, RootInfo, RootKindName, MANIFEST_VERSION,
};
use crate::progress::Reporter;
use crate::root::{InstallRoot, RootKind, StoreError};

use super::Store;

pub fn current(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Listing, StoreError> {
    if root.needs_recovery() {
        Store::open(root, reporter)?.sync_manifest(reporter)?;
        return Listing::read(root);
    }
    // Only `installed` is read: a listing never parses the tools' schemas.
    match Listing::read(root) {
        Ok(listing) if !listing.root.is_stale(root) => Ok(listing),
        Ok(_) => refreshed(root, reporter),
        Err(e @ StoreError::Manifest { newer: false, .. }) => {
            reporter.warn(&format!("{e}; writing it again"));
            refreshed(root, reporter)
        }
        Err(e) => Err(e),
    }
}

/// The manifest regenerated; when the root cannot be written (a project in
/// a read-only checkout), what it would hold.
fn refreshed(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Listing, StoreError> {
    match Store::open(root, reporter) {
        Ok(store) => {
            store.sync_manifest(reporter)?;
            Listing::read(root)
        }
        Err(e) => {
            reporter.warn(&format!("cannot refresh the project's manifest: {e}"));
            let installed = crate::manifest::packages(root, reporter)?;
            let inputs = Inputs::gather(root, reporter);
            Ok(Manifest::generate_with(root, &installed, &inputs, reporter).into())
        }
    }
}

/// Whether each entry's entrypoint is gone (deleted outside orla).
pub fn missing(root: &InstallRoot, entries: &[InstalledEntry]) -> Vec<bool> {
    let paths: Vec<&str> = entries.iter().map(|e| e.entrypoint.as_str()).collect();
    gone(root, &paths, || ()).0
}

/// Where `list --json` puts each row on one line (see `manifest::layout`).
pub const ROWS_FLAT: usize = 2;

/// `list --json`'s rows, one on each line: each entry as the manifest has
/// it, and `missing: true` when its package was deleted outside orla.
pub fn to_json(entries: &[InstalledEntry], missing: &[bool]) -> String {
    #[derive(serde::Serialize)]
    struct Row<'a> {
        #[serde(flatten)]
        entry: &'a InstalledEntry,
        #[serde(skip_serializing_if = "is_false")]
        missing: bool,
    }
    fn is_false(b: &bool) -> bool {
        !*b
    }
    let rows: Vec<Row> = entries
        .iter()
        .zip(missing)
        .map(|(entry, &missing)| Row { entry, missing })
        .collect();
    crate::manifest::layout::to_string(&rows, ROWS_FLAT)
}

/// `list --json` of a global root whose manifest this very version of orla
/// wrote, made from the manifest's text instead of parsing every entry and
/// serialising it again, and given to `write`: the same bytes as
/// [`to_json`] of [`current`] (`Manifest::to_json` is the same serialiser,
/// its entries two spaces deeper). None when that does not hold (another
/// writer, a project, a damaged file, a command to recover): the caller
/// takes the way through `current`.
///
/// Only the manifest's head and its `installed` part are read (not the
/// `tools` between them, two thirds of it), the rows are the part's lines
/// two spaces less deep (each indented as deep as it is nested), each
/// entry's `entrypoint` is taken from its line to look for, and while
/// other threads look, this one parses the rows as JSON, which must give
/// the same entrypoints: a manifest that is not JSON takes the way through
/// `current`, which writes it again. One edited by hand that is still JSON
/// laid out this way is shown as the file has it.
pub fn json<R>(root: &InstallRoot, write: impl FnOnce(&str) -> R) -> Option<R> {
    if root.kind != RootKind::Global || root.needs_recovery() {
        return None;
    }
    let manifest = ManifestText::read(root)?;
    // Written by this orla and unchanged since: JSON, laid out as orla
    // lays it out, whose lines need no parsing to be taken as they are.
    let vouched = crate::manifest::cache::vouches_for(root, &manifest.file);
    let rows = manifest.rows()?;
    let text = rows.text()?;
    let entrypoints = rows.entrypoints(text)?;
    let paths: Vec<&str> = entrypoints.iter().map(|p| p.as_ref()).collect();
    let (gone, same) = gone(root, &paths, || {
        if vouched {
            return Some(true);
        }
        // Checked as JSON, not as the manifest's entries: parsing those
        // whole cost 1.1 ms more at 1,000 tools (docs/benchmarks.md).
        #[derive(serde::Deserialize)]
        struct Entry<'a> {
            #[serde(borrow)]
            entrypoint: std::borrow::Cow<'a, str>,
        }
        let entries: Vec<Entry> = serde_json::from_str(text).ok()?;
        Some(
            entries
                .iter()
                .map(|e| e.entrypoint.as_ref())
                .eq(paths.iter().copied()),
        )
    });
    (same == Some(true)).then(|| write(&rows.marked(text, &gone)))
}

/// The head and the `installed` part of a manifest as
/// [`crate::manifest::Manifest::to_json`] of this orla lays it out (each
/// top-level key on a line of its own, indented by two spaces, which no
/// string in it can contain), read without the `tools` between them.
struct ManifestText {
    file: std::fs::File,
    /// The file's bytes; only those of the head and of `installed` are
    /// read, the rest are zeros never written (so never paged in).
    bytes: Vec<u8>,
    /// Where the `tools` key starts.
    tools: usize,
    /// Where the `installed` key starts.
    installed: usize,
}

/// The start of the manifest that the head must fit in.
const HEAD_BYTES: usize = 64 * 1024;
/// How much more of the end is read at a time looking for `installed`.
const TAIL_STEP: usize = 256 * 1024;
const TOOLS_KEY: &[u8] = b",\n  \"tools\": [";
const INSTALLED_KEY: &[u8] = b",\n  \"installed\": ";
const END: &[u8] = b"\n}\n";
/// A row's `entrypoint` key, and the quote its value starts with.
const ENTRYPOINT: &[u8] = b"\"entrypoint\":\"";

impl ManifestText {
    fn read(root: &InstallRoot) -> Option<ManifestText> {
        ManifestText::read_in(&root.manifest_path(), HEAD_BYTES, TAIL_STEP)
    }

    /// With the first `head` bytes holding the head, `step` more of the end
    /// read at a time.
    #[cfg(unix)]
    fn read_in(path: &Path, head: usize, step: usize) -> Option<ManifestText> {
        use std::os::unix::fs::FileExt;
        let file = std::fs::File::open(path).ok()?;
        let size = usize::try_from(file.metadata().ok()?.len()).ok()?;
        // Zeroed by the allocator as fresh pages: untouched, they cost nothing.
        let mut bytes = vec![0; size];
        let head = size.min(head);
        file.read_exact_at(&mut bytes[..head], 0).ok()?;
        let ours = format!(
            "{{\n  \"manifest_version\": {MANIFEST_VERSION},\n  \"generator\": \"orla {}\",\n",
            env!("CARGO_PKG_VERSION")
        );
        if !bytes.starts_with(ours.as_bytes()) {
            return None;
        }
        let tools = memchr::memmem::find(&bytes[..head], TOOLS_KEY)?;
        // Backwards from the end until the `installed` key is in.
        let mut start = size;
        let installed = loop {
            let from = start.saturating_sub(step).max(head);
            file.read_exact_at(&mut bytes[from..start], from as u64)
                .ok()?;
            let seen = &bytes[from..(start + INSTALLED_KEY.len()).min(size)];
            if let Some(at) = rfind_key(seen) {
                break from + at;
            }
            if from == head {
                let seen = &bytes[tools..(head + INSTALLED_KEY.len()).min(size)];
                break tools + rfind_key(seen)?;
            }
            start = from;
        };
        (tools < installed && bytes.ends_with(END)).then_some(ManifestText {
            file,
            bytes,
            tools,
            installed,
        })
    }

    #[cfg(not(unix))]
    fn read_in(_: &Path, _: usize, _: usize) -> Option<ManifestText> {
        None
    }

    /// The head: the manifest's version and root.
    fn head(&self) -> Option<Head> {
        let head = std::str::from_utf8(&self.bytes[..self.tools]).ok()?;
        serde_json::from_str(&format!("{head}\n}}")).ok()
    }

    /// The `installed` array.
    #[cfg(test)]
    fn installed(&self) -> Option<&str> {
        let end = self.bytes.len() - END.len();
        std::str::from_utf8(&self.bytes[self.installed + INSTALLED_KEY.len()..end]).ok()
    }
}

/// Where the last `installed` key is in `seen`: looked for from line break
/// to line break, back from the end, as a key of the manifest starts a
/// line and no string holds a line break (each entry after it is a line
/// of its own).
fn rfind_key(seen: &[u8]) -> Option<usize> {
    let mut end = seen.len();
    while let Some(line) = memchr::memrchr(b'\n', &seen[..end]) {
        if line > 0 && seen[line - 1..].starts_with(INSTALLED_KEY) {
            return Some(line - 1);
        }
        end = line;
    }
    None
}

#[derive(serde::Deserialize)]
struct Head {
    manifest_version: u32,
    root: RootInfo,
}

/// `list --json`'s text before the missing marks, made in place of the
/// manifest's `installed` part: its rows two spaces less deep.
struct Rows {
    bytes: Vec<u8>,
    /// Where the text is in `bytes`.
    text: std::ops::Range<usize>,
    /// Where each row's closing brace is in the text.
    ends: Vec<usize>,
    /// Where each row's `entrypoint` is in the text, as a JSON string.
    entrypoints: Vec<std::ops::Range<usize>>,
}

impl ManifestText {
    /// The rows, when `installed` is laid out as `Manifest::to_json` lays
    /// it out (an entry on each line, see `manifest::layout`) and each
    /// line has an `entrypoint`.
    fn rows(self) -> Option<Rows> {
        let head = self.head()?;
        if head.manifest_version != MANIFEST_VERSION || head.root.kind != RootKindName::Global {
            return None;
        }
        let start = self.installed + INSTALLED_KEY.len();
        let len = self.bytes.len() - END.len() - start;
        let mut bytes = self.bytes;
        // With the line break after it, where the last one goes.
        let part = &mut bytes[start..=start + len];
        let (mut ends, mut entrypoints) = (Vec::new(), Vec::new());
        if &part[..len] == b"[]" {
            return Some(Rows {
                bytes,
                text: start..start + len + 1,
                ends,
                entrypoints,
            });
        }
        if part.get(..2)? != b"[\n" {
            return None;
        }
        let key = memchr::memmem::Finder::new(ENTRYPOINT);
        // Each row moves to after `at`, two spaces less deep.
        let mut at = 1;
        let mut line = 2;
        // Whether the row before ended with a comma (or there was none).
        let mut more = true;
        loop {
            let next = memchr::memchr(b'\n', &part[line..len]).map_or(len, |n| line + n);
            let row = &part[line..next];
            if next == len {
                // The closing line, after a row without a comma.
                if row != b"  ]" || more {
                    return None;
                }
                break;
            }
            if !more {
                return None;
            }
            // A line of spaces: room a large manifest leaves between its
            // entries (see `manifest::render`), not a row.
            if crate::manifest::layout::is_room(row) {
                line = next + 1;
                continue;
            }
            let body = row.strip_prefix(b"    ")?;
            let object = body.strip_suffix(b",");
            more = object.is_some();
            let object = object.unwrap_or(body);
            if object.first() != Some(&b'{') || object.last() != Some(&b'}') {
                return None;
            }
            let to = at + 3;
            entrypoints.push(entrypoint(object, &key).map(|r| to + r.start..to + r.end)?);
            ends.push(to + object.len() - 1);
            let body = body.len();
            part[at..to].copy_from_slice(b"\n  ");
            part.copy_within(line + 4..next, to);
            at = to + body;
            line = next + 1;
        }
        part[at..at + 3].copy_from_slice(b"\n]\n");
        Some(Rows {
            bytes,
            text: start..start + at + 3,
            ends,
            entrypoints,
        })
    }
}

/// Where the first `entrypoint` key's string value is in an entry's line,
/// quotes included. The first found is a key: no string holds an unescaped
/// `"` (the JSON parse of the whole text checks it is the entry's own).
fn entrypoint(line: &[u8], key: &memchr::memmem::Finder) -> Option<std::ops::Range<usize>> {
    let open = key.find(line)? + ENTRYPOINT.len() - 1;
    let mut i = open + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', line.get(i..)?)?;
        match line[i] {
            b'"' => return Some(open..i + 1),
            _ => i += 2,
        }
    }
}

impl Rows {
    fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes[self.text.clone()]).ok()
    }

    /// Each row's entrypoint, its JSON string read.
    fn entrypoints<'a>(&self, text: &'a str) -> Option<Vec<std::borrow::Cow<'a, str>>> {
        self.entrypoints
            .iter()
            .map(|range| {
                let quoted = text.get(range.clone())?;
                match quoted.strip_prefix('"')?.strip_suffix('"') {
                    Some(plain) if memchr::memchr2(b'\\', b'"', plain.as_bytes()).is_none() => {
                        Some(plain.into())
                    }
                    _ => serde_json::from_str::<String>(quoted).ok().map(Into::into),
                }
            })
            .collect()
    }

    /// `text` with `"missing":true` last in each row whose package is
    /// gone, as [`to_json`] writes it.
    fn marked<'a>(&self, text: &'a str, gone: &[bool]) -> std::borrow::Cow<'a, str> {
        if !gone.contains(&true) {
            return text.into();
        }
        const MARK: &str = ",\"missing\":true";
        let mut out = String::with_capacity(text.len() + MARK.len() * gone.len());
        let mut copied = 0;
        for (&end, _) in self.ends.iter().zip(gone).filter(|(_, &gone)| gone) {
            out.push_str(&text[copied..end]);
            out.push_str(MARK);
            copied = end;
        }
        out.push_str(&text[copied..]);
        out.into()
    }
}

/// Whether each path is gone: one existence check each, relative to
/// tools_dir for the root's own packages (a walk of four path components
/// instead of the whole absolute path), and `meanwhile`'s result.
///
/// Many paths are looked at from a few threads at once (a check is mostly
/// the kernel walking the path, which runs on every core), `meanwhile` runs
/// on this thread while they start, which then takes its share of what is
/// left.
fn gone<T>(root: &InstallRoot, paths: &[&str], meanwhile: impl FnOnce() -> T) -> (Vec<bool>, T) {
    let dir = std::fs::File::open(&root.tools_dir).ok();
    let prefix = root.tools_dir.to_str();
    let gone = |entrypoint: &str| {
        let relative = prefix
            .and_then(|p| entrypoint.strip_prefix(p))
            .and_then(|r| r.strip_prefix('/'))
            .filter(|r| !r.is_empty());
        match (&dir, relative) {
            (Some(dir), Some(relative)) => {
                exists_at(dir, relative).map_or_else(|| !Path::new(entrypoint).exists(), |e| !e)
            }
            _ => !Path::new(entrypoint).exists(),
        }
    };
    let helpers = if paths.len() < 2 * PER_THREAD {
        0
    } else {
        let cores = crate::fs::cores();
        (cores.min(4) - 1).min(paths.len() / PER_THREAD - 1)
    };
    if helpers == 0 {
        let done = meanwhile();
        return (paths.iter().map(|p| gone(p)).collect(), done);
    }
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    let next = AtomicUsize::new(0);
    let marks: Vec<AtomicBool> = paths.iter().map(|_| AtomicBool::new(false)).collect();
    let work = || loop {
        let start = next.fetch_add(CHUNK, Relaxed);
        if start >= paths.len() {
            break;
        }
        for i in start..(start + CHUNK).min(paths.len()) {
            marks[i].store(gone(paths[i]), Relaxed);
        }
    };
    let done = std::thread::scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(work);
        }
        let done = meanwhile();
        work();
        done
    });
    // The scope joined every helper: their stores are seen here.
    (
        marks.into_iter().map(AtomicBool::into_inner).collect(),
        done,
    )
}

/// The fewest entries worth a thread of their own in [`gone`].
const PER_THREAD: usize = 128;
/// How many paths a thread of [`gone`] takes at a time.
const CHUNK: usize = 32;

/// Whether `relative` names something under `dir` (None: cannot tell here).
#[cfg(unix)]
fn exists_at(dir: &std::fs::File, relative: &str) -> Option<bool> {
    use std::os::fd::AsRawFd;
    let path = std::ffi::CString::new(relative).ok()?;
    // An existence check (F_OK) as the caller's effective ids: no
    // attributes to gather and copy out, as a stat has.
    // SAFETY: `dir` is an open directory and `path` a NUL-terminated
    // relative path; both outlive the call.
    Some(
        unsafe { libc::faccessat(dir.as_raw_fd(), path.as_ptr(), libc::F_OK, libc::AT_EACCESS) }
            == 0,
    )
}

#[cfg(not(unix))]
fn exists_at(_: &std::fs::File, _: &str) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::RootKindName;
    use crate::package::{Mode, RiskLevel};
    use crate::root::receipt::Source;

    fn entry(root: &InstallRoot, name: &str) -> InstalledEntry {
        let path = root.tools_dir.join(name).join("1.0.0");
        InstalledEntry {
            name: name.into(),
            root: RootKindName::Global,
            version: "1.0.0".into(),
            description: String::new(),
            path: path.display().to_string(),
            entrypoint: path.join("run").display().to_string(),
            mode: Mode::Simple,
            active: true,
            permissions: Vec::new(),
            permissions_declared: true,
            risk_level: RiskLevel::Low,
            source: Source::Local {
                path: "/src".into(),
                blake3: crate::verify::Digest::of(name.as_bytes()),
                size: 3,
                extra: Default::default(),
            },
        }
    }

    /// Many entries are looked at from several threads; each answer stays
    /// with its entry.
    #[test]
    fn every_entry_of_a_big_root_is_marked_as_it_is() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        for count in [3, PER_THREAD * 4 + 7] {
            let entries: Vec<InstalledEntry> = (0..count)
                .map(|i| entry(&root, &format!("t{count}-{i}")))
                .collect();
            let expected: Vec<bool> = (0..count).map(|i| i % 5 == 3).collect();
            for (e, gone) in entries.iter().zip(&expected) {
                if !gone {
                    std::fs::create_dir_all(&e.path).unwrap();
                    std::fs::write(&e.entrypoint, "").unwrap();
                }
            }
            assert_eq!(missing(&root, &entries), expected, "{count} entries");
        }
    }

    /// A manifest as this orla writes it, with `tools` standing in for
    /// the served tools (never read by `json`).
    fn write_manifest(root: &InstallRoot, installed: &[InstalledEntry], tools: usize) {
        let mut manifest = Manifest::empty(root);
        manifest.installed = installed.to_vec();
        let mut value = serde_json::to_value(&manifest).unwrap();
        value["tools"] = (0..tools)
            .map(|i| serde_json::json!({"name": format!("t{i}"), "installed": "no"}))
            .collect();
        let text = crate::manifest::layout::to_string(&value, 3);
        // Laid out as `Manifest::to_json` lays it out.
        assert!(tools > 0 || text == manifest.to_json());
        std::fs::create_dir_all(&root.state_dir).unwrap();
        std::fs::write(root.manifest_path(), text).unwrap();
    }

    fn odd_entries(root: &InstallRoot, count: usize) -> Vec<InstalledEntry> {
        (0..count)
            .map(|i| {
                let name = match i % 4 {
                    3 => format!("t{i} \"q\\ é"),
                    _ => format!("t{i}"),
                };
                let mut e = entry(root, &name);
                match i % 4 {
                    0 => {
                        e.description = "\"quoted\" \\ tab\t line\n é — \u{202e}\u{7}\u{9b}".into();
                        e.permissions = vec!["filesystem:read".into(), "network".into()];
                    }
                    1 => {
                        e.permissions_declared = false;
                        e.active = false;
                        e.source = Source::Registry {
                            registry: "builtin".into(),
                            archive: "https://example.org/a.tar.gz".into(),
                            blake3: crate::verify::Digest::of(b"a"),
                            size: 7,
                            extra: serde_json::from_str(
                                r#"{"zeta": {"b": 1.5, "a": [null, true, "x"]}, "alpha": []}"#,
                            )
                            .unwrap(),
                        };
                    }
                    2 => e.version = String::new(),
                    _ => {}
                }
                e
            })
            .collect()
    }

    /// `list --json` made from the manifest's text is byte for byte what
    /// parsing the manifest and serialising its entries gives, missing
    /// marks included, for few entries and for many (looked at from
    /// several threads), and for none.
    #[test]
    fn list_json_from_the_text_is_what_parsing_it_gives() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        for (count, tools) in [(0, 0), (0, 3), (5, 0), (9, 40), (PER_THREAD * 4 + 7, 900)] {
            let entries = odd_entries(&root, count);
            for (i, e) in entries.iter().enumerate() {
                let _ = std::fs::remove_dir_all(&e.path);
                if i % 5 != 3 {
                    std::fs::create_dir_all(&e.path).unwrap();
                    std::fs::write(&e.entrypoint, "").unwrap();
                }
            }
            write_manifest(&root, &entries, tools);
            let listing = Listing::read(&root).unwrap();
            assert_eq!(listing.installed, entries);
            let parsed = to_json(&listing.installed, &missing(&root, &listing.installed));
            assert_eq!(
                json(&root, str::to_string),
                Some(parsed.clone()),
                "{count} entries"
            );
            assert_eq!(parsed.contains("\"missing\":true"), count > 3);
        }
    }

    /// Not made from the text: a manifest another orla wrote, one not laid
    /// out as this orla lays it out, or not JSON; a project's.
    #[test]
    fn list_json_from_the_text_is_only_for_a_global_manifest_of_this_orla() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        write_manifest(&root, &odd_entries(&root, 3), 2);
        assert!(json(&root, |_| ()).is_some());
        let text = std::fs::read_to_string(root.manifest_path()).unwrap();
        let ours = format!("\"orla {}\"", env!("CARGO_PKG_VERSION"));
        for changed in [
            text.replace(&ours, "\"orla 0.0.1\""),
            text.replace("\"t1\",", "\"t1\""),
            text.replace("\n    {\"name\"", "\n     {\"name\""),
            text.replace("},\n    {", "}, {"),
            text.replace("},\n    {", "},\n    {\"a\":{}},\n    {"),
            text.replace("\"kind\": \"global\"", "\"kind\": \"project\""),
            text.replace("\n}\n", "\n}"),
        ] {
            assert_ne!(changed, text);
            std::fs::write(root.manifest_path(), &changed).unwrap();
            assert_eq!(json(&root, |_| ()), None, "{changed}");
        }
        std::fs::remove_file(root.manifest_path()).unwrap();
        assert_eq!(json(&root, |_| ()), None);
    }

    /// A manifest cut short, with a byte changed or a byte taken out
    /// anywhere, is never a panic, and is listed from its text only when it
    /// is still JSON. Then, if it still reads as a manifest, the rows are
    /// the same bytes as parsing gives, or differ only in spaces between
    /// tokens (the text's are kept) or in a key orla does not know (shown
    /// as the file has it, where parsing drops it).
    #[test]
    fn a_damaged_manifest_is_no_panic() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        let entries = odd_entries(&root, 4);
        write_manifest(&root, &entries, 1);
        let text = std::fs::read(root.manifest_path()).unwrap();
        for at in 0..text.len() {
            let mut changed = text.clone();
            changed[at] = match changed[at] {
                b' ' => b'\n',
                b'\n' => b' ',
                _ => b'"',
            };
            let mut shorter = text.clone();
            shorter.remove(at);
            for damaged in [&text[..at], &changed, &shorter] {
                std::fs::write(root.manifest_path(), damaged).unwrap();
                let Some(made) = json(&root, str::to_string) else {
                    continue;
                };
                let made_rows: Vec<serde_json::Value> = serde_json::from_str(&made).unwrap();
                let Ok(listing) = Listing::read(&root) else {
                    continue;
                };
                let gone = missing(&root, &listing.installed);
                let parsed = to_json(&listing.installed, &gone);
                if made == parsed {
                    continue;
                }
                let rows =
                    |text: &str| -> Vec<serde_json::Value> { serde_json::from_str(text).unwrap() };
                let (made, parsed) = (made_rows, rows(&parsed));
                assert_eq!(made.len(), parsed.len(), "at {at}");
                for (made, parsed) in made.iter().zip(&parsed) {
                    let known = |key: &String| parsed.get(key).is_some();
                    let unknown = !made.as_object().unwrap().keys().all(known);
                    assert!(made == parsed || unknown, "at {at}: {made} {parsed}");
                }
            }
        }
    }

    /// The `installed` key is found however the reads fall around it.
    #[test]
    fn the_installed_part_is_found_whatever_the_read_sizes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        write_manifest(&root, &odd_entries(&root, 2), 2);
        let whole = ManifestText::read_in(&root.manifest_path(), usize::MAX, 1).unwrap();
        let text = std::fs::read(root.manifest_path()).unwrap();
        assert_eq!(whole.bytes, text);
        let least = whole.tools + TOOLS_KEY.len();
        assert!(ManifestText::read_in(&root.manifest_path(), least - 1, 1).is_none());
        for head in [least, least + 7, whole.installed + 3, text.len()] {
            for step in 1..=40 {
                let part = ManifestText::read_in(&root.manifest_path(), head, step).unwrap();
                assert_eq!((part.tools, part.installed), (whole.tools, whole.installed));
                assert_eq!(part.installed(), whole.installed(), "{head} {step}");
            }
        }
    }
}
