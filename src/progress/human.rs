//! The terminal renderer: every sentence orla prints about an event is
//! written here, once. A cargo-style status line is a verb right-aligned in
//! twelve columns and a message (`   Installed fs-read 1.2.1 to ...`); a
//! warning is `warning: ...`. Events a person has no line for today
//! (`resolved`, `verified`) print nothing.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::event::{ClientChange, Event, ServedBecause, SkipReason, Warning};
use super::{printable, write_stderr, Reporter};
use crate::size::human_size;

/// One line a person sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line {
    /// `verb` in green, right-aligned, then the message.
    Status(&'static str, String),
    /// A verb set by a command whose events are not typed yet.
    Custom(String, String),
    /// The cyan "Waiting" line, shown even with `--quiet`.
    Waiting(String),
    /// `warning: ...`, shown even with `--quiet`.
    Warning(String),
    /// `    hint: ...` under a warning, shown with it.
    Hint(String),
}

/// The lines `event` prints, in order (most print one, none or two).
pub(crate) fn lines(event: &Event) -> Vec<Line> {
    use Line::Status;
    let one = |verb: &'static str, message: String| vec![Status(verb, message)];
    match event {
        Event::Resolved { .. }
        | Event::DownloadStarted { .. }
        | Event::DownloadFinished { .. }
        | Event::Verified { .. }
        | Event::Error { .. } => Vec::new(),
        Event::Permissions {
            tool,
            permissions,
            risk,
        } => {
            let shown = match permissions.as_deref() {
                None => "undeclared permissions".to_string(),
                Some([]) => "none".to_string(),
                Some(list) => list.join(", "),
            };
            one("Permissions", format!("{tool}: {shown} (risk: {risk})"))
        }
        Event::CheckingOut { repository, tag } => {
            one("Checking out", format!("{repository} {tag}"))
        }
        Event::UpdatingRegistry { registry, url } if registry == url => {
            one("Updating", format!("registry {url}"))
        }
        Event::UpdatingRegistry { registry, url } => {
            one("Updating", format!("registry {registry} ({url})"))
        }
        Event::FetchingTags { repository } => one("Fetching", format!("the tags of {repository}")),
        Event::Skipped {
            name,
            version,
            reason,
        } => one("Skipping", skipped(name, version.as_ref(), reason)),
        Event::Installed {
            name,
            version,
            path,
            reinstalled,
            active,
            served_version,
            served_because,
            others_installed,
        } => {
            let verb = if *reinstalled {
                "Reinstalled"
            } else {
                "Installed"
            };
            let mut out = vec![Status(verb, format!("{name} {version} to {path}"))];
            // Which version is served is news only when there is a choice.
            if let Some(served) = served_version
                .as_ref()
                .filter(|_| *others_installed || !*active)
            {
                let message = if *active {
                    format!("{name} {version} is the version served")
                } else {
                    let why = match served_because {
                        Some(ServedBecause::PreRelease) => {
                            "pre-releases are served only when chosen"
                        }
                        _ => "the newest installed stable version is served",
                    };
                    format!(
                        "{name} {served} stays the version served ({why}); `orla use {name}@{version}` serves {version}"
                    )
                };
                out.push(Status("Active", message));
            }
            out
        }
        Event::Updated { name, from, to } => one("Updated", format!("{name} {from} -> {to}")),
        Event::UpToDate {
            name,
            version,
            requirement,
        } => {
            let note = match requirement {
                Some(raw) => format!(" (the newest orla.yaml's \"{raw}\" allows)"),
                None => String::new(),
            };
            one("Up to date", format!("{name} {version}{note}"))
        }
        Event::NothingToUpdate => one("Nothing", "to update: no tools are installed".into()),
        Event::Removed { name, version } => one("Removed", format!("{name} {version}")),
        Event::Forgotten { name } => one(
            "Forgot",
            format!("{name}: removed from orla.yaml and orla.lock"),
        ),
        Event::Locked {
            name,
            version,
            requirement,
        } => one("Locked", format!("{name} {version} (\"{requirement}\")")),
        Event::Relocked { path } => one("Locked", format!("the updated versions in {path}")),
        Event::Unlocked { name } => one("Unlocked", format!("{name} (no longer in orla.yaml)")),
        Event::Unpinned { name, was } => one(
            "Unpinned",
            format!("{name} (was {was}): the newest installed version is served"),
        ),
        Event::Using {
            name,
            version,
            path,
        } => one("Using", format!("{name} {version} from {path}")),
        Event::RequirementChanged {
            name,
            requirement,
            was,
        } => one(
            "Updated",
            format!("orla.yaml: {name}: \"{requirement}\" (was \"{was}\")"),
        ),
        Event::ProjectUpToDate { tools } => {
            let (s, them) = if *tools == 1 {
                ("", "it")
            } else {
                ("s", "them")
            };
            one(
                "Up to date",
                format!("{tools} tool{s}, as orla.lock pins {them}"),
            )
        }
        Event::LockWait { what, path } => vec![Line::Waiting(format!(
            "for lock on {what} ({path}): another orla is running"
        ))],
        Event::NetworkWait { what, timeout_secs } => vec![Line::Waiting(format!(
            "for {what} to answer; orla gives up after {timeout_secs} s without an answer (ORLA_HTTP_TIMEOUT)"
        ))],
        Event::ProjectCreated { path } => one("Created", path.clone()),
        Event::GitignoreUpdated {
            path,
            created,
            added,
        } => one(
            if *created { "Created" } else { "Updated" },
            format!(
                "{path} (ignores {}: installed packages and machine state)",
                added.join(" and ")
            ),
        ),
        Event::Scaffolded {
            name,
            version,
            language,
            mode,
            path,
        } => one(
            "Created",
            format!("{name} {version} ({language}, {mode} mode) in {path}"),
        ),
        Event::Valid {
            name,
            version,
            warnings,
        } => {
            let suffix = match warnings {
                0 => String::new(),
                n => format!(" ({})", counted(*n, "warning")),
            };
            one("Valid", format!("{name} {version}{suffix}"))
        }
        Event::Packed {
            name,
            version,
            files,
            path,
        } => one(
            "Packed",
            format!("{name} {version} ({}) to {path}", counted(*files, "file")),
        ),
        Event::Published {
            name,
            version,
            location,
            blake3,
            size,
            archive,
            commit,
            uncommitted_in,
        } => {
            let mut out = vec![Status(
                "Published",
                format!("{name} {version} to {location} (blake3 {blake3}, {size} bytes, archive {archive})"),
            )];
            if let Some(commit) = commit {
                out.push(Status(
                    "Committed",
                    format!("{} \"Publish {name} {version}\"", short(commit)),
                ));
            } else if let Some(worktree) = uncommitted_in {
                out.push(Status(
                    "Note",
                    format!("the index is a directory inside the git repository {worktree}; commit the published files with your change"),
                ));
            }
            out
        }
        Event::AlreadyPublished {
            name,
            version,
            location,
        } => one(
            "Unchanged",
            format!("{name} {version} is already published in {location} with these bytes"),
        ),
        Event::Yanked {
            name,
            version,
            location,
            yanked,
            commit,
        } => {
            let verb = if *yanked { "Yanked" } else { "Unyanked" };
            let mut out = vec![Status(verb, format!("{name} {version} in {location}"))];
            if let Some(commit) = commit {
                out.push(Status("Committed", short(commit).to_string()));
            }
            out
        }
        Event::AlreadyYanked {
            name,
            version,
            yanked,
        } => {
            let state = if *yanked { "yanked" } else { "not yanked" };
            one("Unchanged", format!("{name} {version} is already {state}"))
        }
        Event::ReceiptsMatch { packages: 1 } => {
            one("Verified", "1 installed package matches its receipt".into())
        }
        Event::ReceiptsMatch { packages } => one(
            "Verified",
            format!("{packages} installed packages match their receipts"),
        ),
        Event::NoMatch { query } => one(
            "No match",
            format!("for '{query}'; try fewer or shorter words"),
        ),
        Event::Running { cached: true, .. } => Vec::new(),
        Event::Running { name, version, .. } => {
            one("Running", format!("{name} {version} (not installed)"))
        }
        Event::ReadingArguments { name } => one(
            "Reading",
            format!("the arguments of {name} from the terminal: one JSON object, then Ctrl-D"),
        ),
        Event::CacheEmpty { path } => one("Clean", format!("{path} is already empty")),
        Event::NothingInstalled { path } => one(
            "Nothing",
            format!("installed in {path}; try `orla install fs-read`"),
        ),
        Event::CacheCleared { path, bytes } => {
            one("Removed", format!("{} from {path}", human_size(*bytes)))
        }
        Event::CachePruned {
            path,
            entries,
            bytes,
            left,
        } => one(
            "Pruned",
            format!(
                "{entries} {} ({}) from {path}; {} left",
                if *entries == 1 { "entry" } else { "entries" },
                human_size(*bytes),
                human_size(*left)
            ),
        ),
        Event::ClientEntry {
            client,
            name,
            path,
            change,
        } => {
            let verb = match change {
                ClientChange::Added => "Added",
                ClientChange::Updated => "Updated",
                ClientChange::Removed => "Removed",
                ClientChange::Unchanged => "Unchanged",
            };
            let preposition = match change {
                ClientChange::Removed => "from",
                _ => "in",
            };
            one(verb, format!("{name} {preposition} {path} ({client})"))
        }
        Event::Warning(warning) => {
            let mut out = vec![Line::Warning(warning_text(warning))];
            if let Warning::ToolYaml {
                hint: Some(hint), ..
            } = warning
            {
                out.push(Line::Hint(hint.clone()));
            }
            out
        }
        Event::Status { verb, message } => vec![Line::Custom(verb.clone(), message.clone())],
    }
}

fn skipped(name: &str, version: Option<&semver::Version>, reason: &SkipReason) -> String {
    let tool = match version {
        Some(version) => format!("{name} {version}"),
        None => name.to_string(),
    };
    match reason {
        SkipReason::AlreadyInstalled => {
            format!("{tool}: already installed (--force reinstalls it)")
        }
        SkipReason::InstalledMeanwhile => format!("{tool}: installed meanwhile by another orla"),
        SkipReason::SameContent => {
            format!("{tool}: already installed from the same content (--force reinstalls it)")
        }
        SkipReason::NotInstalledByOrla { path } => format!(
            "{tool}: {path} exists but orla did not install it in this root (--force reinstalls it)"
        ),
        SkipReason::DamagedReceipt { path } => format!(
            "{tool}: {path} exists but its install receipt is damaged (--force reinstalls it)"
        ),
        SkipReason::PinnedByUse { pinned } => {
            format!("{tool}: `orla use` pins {pinned}; `orla use {name}` unpins it")
        }
        SkipReason::LocalSource => format!("{tool}: installed from a local path"),
        SkipReason::NewerThanAllowed {
            newest,
            requirement,
        } => {
            let limit = match requirement {
                Some(raw) => format!("orla.yaml's \"{raw}\""),
                None => "the registry".to_string(),
            };
            format!("{tool}: newer than {newest}, the newest {limit} allows")
        }
    }
}

/// What `warning: ` is followed by.
pub(crate) fn warning_text(warning: &Warning) -> String {
    match warning {
        Warning::Yanked { name, version } => format!(
            "{name} {version} is yanked; installing it because it was asked for exactly"
        ),
        Warning::Renamed {
            name,
            version,
            tool_yaml_name,
        } => format!(
            "{name} {version}: its tool.yaml calls it '{tool_yaml_name}'; installing it as '{name}', the registry's name"
        ),
        Warning::Package {
            name,
            version,
            problem,
        } => format!("{name} {version}: {problem}"),
        Warning::Requirement {
            name,
            version,
            problem,
        } => format!(
            "{name} {version} {problem}; installed anyway, it fails until that is there (--strict refuses such installs)"
        ),
        Warning::NotInstalledByOrla { path, why } => {
            format!("{path} was not installed by orla in this root ({why}); replacing it")
        }
        Warning::DeletedOutsideOrla {
            name,
            version,
            path,
            served_instead,
        } => {
            let served = match served_instead {
                Some(instead) => format!("; {name} {instead} is served instead"),
                None => String::new(),
            };
            format!("{name} {version} was deleted outside orla ({path} is gone): dropped from the manifest{served}")
        }
        Warning::RolledBack {
            name,
            version,
            what,
        } => format!("undid the unfinished {what} of {name} {version}"),
        Warning::Retrying {
            url,
            problem,
            delay_ms,
        } => format!("download of {url} failed ({problem}); retrying in {delay_ms} ms"),
        Warning::OfflineCopy { registry, age_secs } => format!(
            "using the cached copy of registry {registry}, fetched {} ago (--offline)",
            age(*age_secs)
        ),
        Warning::UnreachableRegistry {
            registry,
            path,
            problem,
            age_secs,
        } => {
            let what = match path {
                Some(path) => format!("{path} of registry {registry}"),
                None => format!("registry {registry}"),
            };
            format!(
                "cannot fetch {what} ({problem}); using the cached copy fetched {} ago",
                age(*age_secs)
            )
        }
        Warning::RollbackAccepted {
            registry,
            seen,
            found,
        } => format!(
            "registry {registry} was rewound or rewritten (last seen {}, now {}); accepting it because of --allow-rollback",
            short(seen),
            short(found)
        ),
        // The public registry, which nobody asked for: one short line (the
        // problem is in the JSON event; `install` of one of its tools says it).
        Warning::RegistrySkipped {
            registry,
            fallback: true,
            ..
        } => format!("skipping registry {registry}: unreachable (--offline skips it quietly)"),
        Warning::RegistrySkipped {
            registry, problem, ..
        } => format!("skipping registry {registry}: {problem}"),
        Warning::CachedTags {
            repository,
            problem,
        } => format!("cannot fetch {repository} ({problem}); using the tags cached earlier"),
        Warning::UnreadableTags {
            repository,
            problem,
        } => format!("cannot read the tags of {repository}: {problem}"),
        Warning::PackageIgnored { path, why } => {
            format!("skipping {path}: not installed by orla or damaged ({why})")
        }
        Warning::EntrypointDeleted {
            name,
            version,
            entrypoint,
        } => format!(
            "{name} {version} is not served: its entrypoint {entrypoint} was deleted outside orla (`orla install {name}@{version} --force` restores it)"
        ),
        Warning::ExecutableShadowed { path, name } => format!(
            "{path} is not served: the installed package {name} has the same name (rename the file to serve both)"
        ),
        Warning::NotServed { problem } => problem.clone(),
        Warning::NestedProject { outer } => format!(
            "this project is inside the one of {outer}: orla commands run in it use the new project, not that one"
        ),
        Warning::InputIgnored { input, problem } => match input.as_str() {
            "tools_dir" => format!("cannot look for executables: {problem}"),
            "global_manifest" => format!("not serving global tools here: {problem}"),
            "pins" => format!("ignoring version pins: {problem}"),
            _ => format!("ignoring {input}: {problem}"),
        },
        Warning::ManifestRewritten { problem } => format!("{problem}; writing it again"),
        Warning::ManifestNotRefreshed { problem } => {
            format!("cannot refresh the project's manifest: {problem}")
        }
        Warning::DamagedCacheEntry { label, why } => {
            format!("the cached copy of {label} is damaged ({why}); downloading it again")
        }
        Warning::PackageMissing {
            name,
            version,
            gone,
        } => {
            let at = if version.is_empty() {
                name.clone()
            } else {
                format!("{name}@{version}")
            };
            format!(
                "{name} {version} is missing: {gone} was deleted outside orla (`orla install {at} --force` restores it; `orla verify` checks every package)"
            )
        }
        Warning::RunRequirement {
            name,
            version,
            problem,
        } => format!("{name} {version} {problem}"),
        Warning::RunUnconfined {
            name,
            version,
            reason,
        } => format!("{name} {version} runs unconfined: {reason}"),
        Warning::ToolYaml {
            package: Some(package),
            field,
            problem,
            ..
        } => format!("{package}: {field}: {problem}"),
        Warning::ToolYaml {
            field, problem, ..
        } => format!("{field}: {problem}"),
        Warning::PlaceholderExecutable { path } => {
            format!("{path} is a placeholder script; replace it with your executable")
        }
        Warning::NothingToServe { root } => format!(
            "serving no tools: nothing is installed in {root} (`orla install NAME` adds one; connected clients are told when it arrives)"
        ),
        Warning::RegistriesUnread { problem } => format!(
            "cannot read the configured registries, so every registry clone is kept: {problem}"
        ),
        Warning::Other { message } => message.clone(),
    }
}

/// `secs` as a person says it: `1 second`, `10 minutes`, `3 days`.
pub(crate) fn age(secs: u64) -> String {
    let (n, unit) = match secs {
        0..=119 => (secs, "second"),
        120..=7199 => (secs / 60, "minute"),
        7200..=172_799 => (secs / 3600, "hour"),
        _ => (secs / 86400, "day"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// `n word`, with an `s` unless `n` is 1.
fn counted(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// A commit as shown: its first 12 hex digits.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// The widest each part of a download's line can be, in columns: the
/// right-aligned verb and a space, `1023.99 MiB/1023.99 MiB`, and
/// ` (1023.99 MiB/s, 100y left)`.
const VERB: usize = 13;
const BYTES: usize = 23;
const RATE_AND_ETA: usize = 27;
/// The bar's `[` `]` and the spaces around it, and its least and most
/// columns.
const BAR_FRAME: usize = 3;
const BAR_MIN: usize = 5;
const BAR_MAX: usize = 30;
/// The rate and the time left are shown only beside a bar this long.
const BAR_WITH_RATE: usize = 10;

/// The template of a download's line on a terminal `width` columns wide,
/// for a label of `label` columns, and the most columns the label may then
/// take. The parts that fit are kept, most useful first: bytes so far and
/// in all, then the bar (5 to 30 columns), then the rate and the time
/// left (beside a bar of 10 columns at least). The line never reaches the last column: a line that wraps is
/// redrawn as a new line at every update.
pub(crate) fn bar_template(width: Option<usize>, label: usize, total: bool) -> (String, usize) {
    let Some(width) = width else {
        return (
            if total {
                format!("{{prefix:>12.cyan.bold}} {{msg}} [{{bar:{BAR_MAX}}}] {{bytes}}/{{total_bytes}} ({{binary_bytes_per_sec}}, {{eta}} left)")
            } else {
                "{prefix:>12.cyan.bold} {msg} {spinner} {bytes} ({binary_bytes_per_sec})"
                    .to_string()
            },
            label,
        );
    };
    let room = width.saturating_sub(1);
    let head = "{prefix:>12.cyan.bold} {msg}";
    if !total {
        // ` ⠁ 1023.99 MiB`, then ` (1023.99 MiB/s)`.
        let fixed = VERB + label + 3 + 11;
        return if fixed + 16 <= room {
            (
                format!("{head} {{spinner}} {{bytes}} ({{binary_bytes_per_sec}})"),
                label,
            )
        } else {
            (
                format!("{head} {{spinner}} {{bytes}}"),
                room.saturating_sub(VERB + 14).max(1),
            )
        };
    }
    let bytes = VERB + label + 1 + BYTES;
    let bar = |spare: usize| spare.min(BAR_MAX);
    if bytes + BAR_FRAME + BAR_WITH_RATE + RATE_AND_ETA <= room {
        let n = bar(room - bytes - BAR_FRAME - RATE_AND_ETA);
        (format!("{head} [{{bar:{n}}}] {{bytes}}/{{total_bytes}} ({{binary_bytes_per_sec}}, {{eta}} left)"), label)
    } else if bytes + BAR_FRAME + BAR_MIN <= room {
        let n = bar(room - bytes - BAR_FRAME);
        (
            format!("{head} [{{bar:{n}}}] {{bytes}}/{{total_bytes}}"),
            label,
        )
    } else if bytes <= room {
        (format!("{head} {{bytes}}/{{total_bytes}}"), label)
    } else {
        // `100%`, and the label cut to what is left.
        (
            format!("{head} {{percent}}%"),
            room.saturating_sub(VERB + 5).max(1),
        )
    }
}

/// `label` cut to `most` columns, with an ellipsis.
fn fit_label(label: &str, most: usize) -> String {
    if label.chars().count() <= most {
        return label.to_string();
    }
    let kept: String = label.chars().take(most.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// The terminal printer.
pub struct Printer {
    quiet: bool,
    color: bool,
    multi: Option<MultiProgress>,
    bars: Mutex<HashMap<usize, ProgressBar>>,
    next: AtomicUsize,
    /// The width of the terminal on stderr, asked when a download starts.
    width: fn() -> Option<usize>,
}

impl Printer {
    /// `color`: whether stderr gets colours (`--color`, `NO_COLOR`,
    /// `CLICOLOR_FORCE`, `FORCE_COLOR` and the terminal, decided by
    /// `Context`, where the environment is read); `width` measures the
    /// terminal, for the progress bars.
    pub fn new(quiet: bool, color: bool, width: fn() -> Option<usize>) -> Printer {
        let tty = std::io::stderr().is_terminal();
        let multi =
            (tty && !quiet).then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Printer {
            quiet,
            color,
            multi,
            bars: Mutex::new(HashMap::new()),
            next: AtomicUsize::new(1),
            width,
        }
    }

    /// `line` is escaped by the caller: it holds this printer's colours.
    fn print(&self, line: String) {
        match &self.multi {
            Some(multi) => multi.suspend(|| write_stderr(&line)),
            None => write_stderr(&line),
        }
    }

    /// Empty with `--quiet`.
    fn status_line(&self, verb: &str, message: &str) -> String {
        if self.quiet {
            return String::new();
        }
        format!(
            "{} {}",
            self.paint("1;32", &format!("{:>12}", printable(verb))),
            printable(message)
        )
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

impl Reporter for Printer {
    fn report(&self, event: Event) {
        for line in lines(&event) {
            let text = match line {
                Line::Status(verb, message) => self.status_line(verb, &message),
                Line::Custom(verb, message) => self.status_line(&verb, &message),
                // Always shown, even with --quiet: a silent hang looks like a bug.
                Line::Waiting(message) => format!(
                    "{} {}",
                    self.paint("1;36", &format!("{:>12}", "Waiting")),
                    printable(&message)
                ),
                Line::Warning(message) => {
                    format!("{}: {}", self.paint("1;33", "warning"), printable(&message))
                }
                Line::Hint(hint) => format!("    hint: {}", printable(&hint)),
            };
            if !text.is_empty() {
                self.print(text);
            }
        }
    }

    fn download_start(&self, label: &str, total: Option<u64>) -> usize {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Some(multi) = &self.multi {
            // Hidden until it joins the MultiProgress: a bar that draws on
            // its own first leaves an orphan line on the terminal.
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
            let label = printable(label);
            let (template, most) =
                bar_template((self.width)(), label.chars().count(), total.is_some());
            bar.set_style(
                ProgressStyle::with_template(&template)
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            bar.set_prefix("Fetching");
            bar.set_message(fit_label(&label, most));
            let bar = multi.add(bar);
            self.bars.lock().expect("bars lock").insert(id, bar);
        }
        id
    }

    fn download_progress(&self, id: usize, bytes: u64) {
        if let Some(bar) = self.bars.lock().expect("bars lock").get(&id) {
            bar.inc(bytes);
        }
    }

    fn download_finish(&self, id: usize) {
        if let Some(bar) = self.bars.lock().expect("bars lock").remove(&id) {
            bar.finish_and_clear();
            // A finished bar stays in the MultiProgress (and on screen) until
            // it is removed from it.
            if let Some(multi) = &self.multi {
                multi.remove(&bar);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use semver::Version;

    /// The widest line a template can draw, each placeholder at its widest.
    fn widest(template: &str, label: usize) -> usize {
        let mut width = 0;
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            width += rest[..open].chars().count();
            let close = open + rest[open..].find('}').unwrap();
            let key = &rest[open + 1..close];
            width += match key.split(':').next().unwrap() {
                "prefix" => 12,
                "msg" => label,
                "bar" => key.split(':').nth(1).unwrap().parse().unwrap(),
                "bytes" | "total_bytes" => 11,
                "binary_bytes_per_sec" => 13,
                "eta" => 4,
                "percent" => 3,
                "spinner" => 1,
                other => panic!("{other}"),
            };
            rest = &rest[close + 1..];
        }
        width + rest.chars().count()
    }

    #[test]
    fn a_download_line_fits_the_terminal_dropping_what_does_not_fit() {
        for total in [true, false] {
            for width in 30..=200 {
                for label in [
                    "fs-read 1.2.1",
                    "registry https://example.com/a/long/index.git",
                ] {
                    let (template, most) = bar_template(Some(width), label.chars().count(), total);
                    let shown = fit_label(label, most).chars().count();
                    assert!(
                        widest(&template, shown) < width,
                        "{width}: {template} with {shown}"
                    );
                }
            }
        }
        let at = |width| bar_template(Some(width), 13, true).0;
        // Wide: rate and time left; at 80 columns the bar and the bytes;
        // at 60 a shorter bar, at 55 the bytes alone, at 45 the percentage.
        assert!(
            at(120).contains("{binary_bytes_per_sec}, {eta} left"),
            "{}",
            at(120)
        );
        assert!(at(80).contains("{bar:26}"), "{}", at(80));
        assert!(!at(80).contains("{eta}"), "{}", at(80));
        assert!(at(60).contains("{bar:6}"), "{}", at(60));
        assert!(!at(55).contains("{bar"), "{}", at(55));
        assert!(at(55).contains("{bytes}/{total_bytes}"), "{}", at(55));
        assert!(at(45).ends_with("{percent}%"), "{}", at(45));
        assert_eq!(fit_label("registry https://x", 10), "registry …");
    }

    fn text(event: Event) -> Vec<String> {
        lines(&event)
            .into_iter()
            .map(|line| match line {
                Line::Status(verb, message) => format!("{verb:>12} {message}"),
                Line::Custom(verb, message) => format!("{verb:>12} {message}"),
                Line::Waiting(message) => format!("{:>12} {message}", "Waiting"),
                Line::Warning(message) => format!("warning: {message}"),
                Line::Hint(hint) => format!("    hint: {hint}"),
            })
            .collect()
    }

    #[test]
    fn ages_read_naturally() {
        assert_eq!(age(1), "1 second");
        assert_eq!(age(600), "10 minutes");
        assert_eq!(age(3 * 86400), "3 days");
    }

    #[test]
    fn a_registry_is_named_by_its_url_unless_it_has_a_name() {
        let updating = |registry: &str| {
            text(Event::UpdatingRegistry {
                registry: registry.into(),
                url: "https://r.example/index.git".into(),
            })
        };
        assert_eq!(
            updating("company"),
            ["    Updating registry company (https://r.example/index.git)"]
        );
        assert_eq!(
            updating("https://r.example/index.git"),
            ["    Updating registry https://r.example/index.git"]
        );
        let cached = |path: Option<&str>| {
            warning_text(&Warning::UnreachableRegistry {
                registry: "company".into(),
                path: path.map(str::to_string),
                problem: "refused".into(),
                age_secs: 180,
            })
        };
        assert_eq!(
            cached(None),
            "cannot fetch registry company (refused); using the cached copy fetched 3 minutes ago"
        );
        assert_eq!(
            cached(Some("fs/-r/fs-read")),
            "cannot fetch fs/-r/fs-read of registry company (refused); using the cached copy fetched 3 minutes ago"
        );
    }

    #[test]
    fn an_install_says_which_version_is_served() {
        let v = |s: &str| Version::parse(s).unwrap();
        assert_eq!(
            text(Event::Installed {
                name: "fs".into(),
                version: v("2.0.0-rc.1"),
                path: "/t/fs/2.0.0-rc.1".into(),
                reinstalled: true,
                active: false,
                served_version: Some(v("1.2.1")),
                served_because: Some(ServedBecause::PreRelease),
                others_installed: true,
            }),
            [
                " Reinstalled fs 2.0.0-rc.1 to /t/fs/2.0.0-rc.1",
                "      Active fs 1.2.1 stays the version served (pre-releases are served only when chosen); `orla use fs@2.0.0-rc.1` serves 2.0.0-rc.1",
            ]
        );
        // No served entry (another root's tool of that name): one line.
        assert_eq!(
            text(Event::Installed {
                name: "fs".into(),
                version: v("1.0.0"),
                path: "/t".into(),
                reinstalled: false,
                active: false,
                served_version: None,
                served_because: None,
                others_installed: false,
            }),
            ["   Installed fs 1.0.0 to /t"]
        );
        // The only version installed is the one served: nothing to say.
        let only = |others_installed| {
            text(Event::Installed {
                name: "fs".into(),
                version: v("1.2.1"),
                path: "/t".into(),
                reinstalled: false,
                active: true,
                served_version: Some(v("1.2.1")),
                served_because: None,
                others_installed,
            })
        };
        assert_eq!(only(false), ["   Installed fs 1.2.1 to /t"]);
        assert_eq!(
            only(true),
            [
                "   Installed fs 1.2.1 to /t",
                "      Active fs 1.2.1 is the version served"
            ]
        );
        assert_eq!(
            text(Event::Skipped {
                name: "fs".into(),
                version: Some(v("2.0.0")),
                reason: SkipReason::NewerThanAllowed {
                    newest: v("1.2.1"),
                    requirement: Some("^1".into()),
                },
            }),
            ["    Skipping fs 2.0.0: newer than 1.2.1, the newest orla.yaml's \"^1\" allows"]
        );
        assert_eq!(
            text(Event::ProjectUpToDate { tools: 1 }),
            ["  Up to date 1 tool, as orla.lock pins it"]
        );
        assert!(text(Event::Resolved {
            name: "fs".into(),
            version: v("1.0.0"),
            registry: "builtin".into()
        })
        .is_empty());
    }
}
