//! Search (`orla search`): names, descriptions and keywords of every
//! configured registry's registry.yaml, best matches first.
//!
//! Ranking (higher first, ties by name): the whole query equal to the name
//! (1000), a prefix of it (500) or inside it (300); then per word: inside the
//! name (150), equal to a keyword (200) or inside one (100), a whole word of
//! the description (80) or inside it (40). Every word must match somewhere;
//! a one-word query within two edits of a name also matches (50), so typos
//! still find the tool. A tool in several registries is shown once, from the
//! first registry, the one `orla install` would use.

use std::collections::HashMap;

use serde::Serialize;

use crate::context::Context;
use crate::error::Error;
use crate::fetch::git::ToolRepo;
use crate::index::{GitSourceEntry, Lookup, Registry, RegistryEntry, RegistryKind};

#[derive(Debug, Serialize)]
pub struct Hit {
    pub name: String,
    /// Newest stable version; for a git-source tool, from its tags when its
    /// repository is in the cache (search never fetches one), else `null`;
    /// in a sparse index, for its best `SPARSE_VERSIONS` hits only (one
    /// request per tool, made in parallel), else `null`.
    pub version: Option<String>,
    pub description: String,
    pub keywords: Vec<String>,
    pub registry: String,
    /// `index` (version records) or `git` (RFC 3 git-source tool).
    pub source: &'static str,
    pub score: u32,
}

/// How many hits of one sparse index are shown with their version.
const SPARSE_VERSIONS: usize = 50;

/// The tools matching `query` in the registries `registry` (a
/// `--registry` value) selects, best first.
pub fn search(ctx: &Context, query: &str, registry: Option<&str>) -> Result<Vec<Hit>, Error> {
    let query = query.to_lowercase();
    let registries = ctx.registries(registry)?;
    let mut hits: Vec<Hit> = Vec::new();
    for registry in registries.open_all()? {
        // An RFC 3 registry's entries, read once: every tool in it is a git source.
        let sources: Option<HashMap<String, GitSourceEntry>> = match registry.kind {
            RegistryKind::Rfc3 => Some(
                registry
                    .git_sources()?
                    .into_iter()
                    .filter(|s| s.entry.repository.is_some())
                    .map(|s| (s.entry.name.clone(), s))
                    .collect(),
            ),
            RegistryKind::Index => None,
        };
        let mut found: Vec<(RegistryEntry, u32)> = Vec::new();
        for entry in registry.listing()?.tools {
            // A name orla could not install is not a hit.
            let invalid = crate::package::names::validate_name(&entry.name).is_err();
            if invalid || hits.iter().any(|h| h.name == entry.name) {
                continue;
            }
            let score = score(&query, &entry);
            if score > 0 {
                found.push((entry, score));
            }
        }
        // A sparse index costs a request per tool: the files of its best
        // hits are fetched at once, in parallel, and the rest go without a
        // version (`orla info` gives it).
        let mut remote: Vec<&str> = Vec::new();
        if registry.reads_are_remote() {
            let mut best: Vec<&(RegistryEntry, u32)> = found.iter().collect();
            best.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
            remote = best
                .iter()
                .take(SPARSE_VERSIONS)
                .map(|(e, _)| e.name.as_str())
                .collect();
            registry.prefetch(&remote);
        }
        let remote: Vec<String> = remote.into_iter().map(str::to_string).collect();
        for (entry, score) in found {
            let versioned = !registry.reads_are_remote() || remote.contains(&entry.name);
            hits.push(hit(
                ctx,
                registry,
                sources.as_ref(),
                entry,
                score,
                versioned,
            ));
        }
    }
    hits.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    Ok(hits)
}

fn hit(
    ctx: &Context,
    registry: &Registry,
    sources: Option<&HashMap<String, GitSourceEntry>>,
    entry: RegistryEntry,
    score: u32,
    versioned: bool,
) -> Hit {
    if !versioned {
        return Hit {
            name: entry.name,
            version: None,
            description: entry.description,
            keywords: entry.keywords,
            registry: registry.name.clone(),
            source: "index",
            score,
        };
    }
    let mut description = entry.description;
    let lookup = match sources {
        Some(sources) => Ok(sources.get(&entry.name).cloned().map(Lookup::GitSource)),
        None => registry.lookup(&entry.name),
    };
    let (version, source) = match lookup {
        Ok(Some(Lookup::Records(records))) => {
            let spec = crate::resolve::Spec {
                name: entry.name.clone(),
                requirement: crate::resolve::Requirement::Latest,
                raw: None,
            };
            let selected = crate::resolve::select(&spec, &records).ok();
            // registry.yaml describes the newest published version, maybe a
            // pre-release; the row shows this one.
            if let Some(s) = selected
                .as_ref()
                .filter(|s| !s.record.description.is_empty())
            {
                description = s.record.description.clone();
            }
            (selected.map(|s| s.record.version.to_string()), "index")
        }
        Ok(Some(Lookup::GitSource(source))) => (cached_latest(ctx, registry, &source), "git"),
        _ => (None, "index"),
    };
    Hit {
        name: entry.name,
        version,
        description,
        keywords: entry.keywords,
        registry: registry.name.clone(),
        source,
        score,
    }
}

/// The version `install` would pick for a git-source tool, from the tags
/// already in the cache; `None` when its repository was never fetched.
fn cached_latest(ctx: &Context, registry: &Registry, source: &GitSourceEntry) -> Option<String> {
    let url = registry.tool_repository(&source.entry).ok()?;
    let mut access = ctx.git_access();
    access.offline = true;
    let repo = ToolRepo::open(&url, &access, &crate::progress::Silent).ok()?;
    let offered = crate::ops::install::plan::offered(source, &repo.tags().ok()?);
    let latest = crate::resolve::Spec {
        name: source.entry.name.clone(),
        requirement: crate::resolve::Requirement::Latest,
        raw: None,
    };
    crate::resolve::select(&latest, &offered)
        .ok()
        .map(|s| s.record.version.to_string())
}

/// How well `entry` matches `query` (lowercase); 0 is no match.
fn score(query: &str, entry: &RegistryEntry) -> u32 {
    let name = entry.name.to_lowercase();
    let description = entry.description.to_lowercase();
    let keywords: Vec<String> = entry.keywords.iter().map(|k| k.to_lowercase()).collect();
    let mut total = if name == query {
        1000
    } else if name.starts_with(query) {
        500
    } else if name.contains(query) {
        300
    } else {
        0
    };
    let words: Vec<&str> = query.split_whitespace().collect();
    let mut all_matched = true;
    for word in &words {
        let mut s = 0;
        if name.contains(word) {
            s += 150;
        }
        if keywords.iter().any(|k| k == word) {
            s += 200;
        } else if keywords.iter().any(|k| k.contains(word)) {
            s += 100;
        }
        if description
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == *word)
        {
            s += 80;
        } else if description.contains(word) {
            s += 40;
        }
        if s == 0 {
            all_matched = false;
        }
        total += s;
    }
    if !all_matched {
        total = 0;
    }
    if total == 0
        && words.len() == 1
        && query.len() >= 3
        && strsim::damerau_levenshtein(query, &name) <= 2
    {
        total = 50;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, description: &str, keywords: &[&str]) -> RegistryEntry {
        RegistryEntry {
            name: name.into(),
            description: description.into(),
            keywords: keywords.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn exact_name_beats_prefix_beats_keyword_beats_description() {
        let exact = score("fs", &entry("fs", "x", &[]));
        let prefix = score("fs", &entry("fs-read", "x", &[]));
        let keyword = score("fs", &entry("files", "x", &["fs"]));
        let described = score("fs", &entry("reader", "reads fs trees", &[]));
        assert!(exact > prefix && prefix > keyword && keyword > described && described > 0);
        assert_eq!(score("fs", &entry("http-get", "fetch a url", &["web"])), 0);
    }

    #[test]
    fn every_word_must_match_and_typos_are_forgiven() {
        let e = entry("json-query", "Query JSON documents", &["json"]);
        assert!(score("json documents", &e) > 0);
        assert_eq!(score("json images", &e), 0);
        assert!(score("json-qeury", &e) > 0);
    }
}
