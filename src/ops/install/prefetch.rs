//! Downloads before the root is locked: every archive a plan fetches over
//! HTTP and the cache does not hold yet is downloaded, verified against the
//! registry's digest, unpacked and put in the cache (`Fetcher::fill`),
//! which only ever holds verified packages. Only then does the install
//! take the root's lock ([`super::apply`]), which links the packages out
//! of the cache, so a slow server never holds up the other orla commands
//! on that root.
//!
//! Nothing here touches the install root. A download that fails or is
//! refused fails the install before anything is locked or staged. An entry
//! added here for an install that is then refused (a package whose name,
//! version or permissions differ from the registry's record) is removed
//! again, so a refused install leaves the cache as it was. A cache that
//! cannot be written only means the archive is fetched again, under the
//! lock, by [`super::apply`]. Git-source tools need nothing here: their
//! tags are fetched into the cache's repository while planning, and only
//! checked out under the lock.
//!
//! The cache's lock is held shared from here until the packages are
//! installed, so `orla cache clear` or `prune` never removes an entry
//! this install is about to link. Once they are installed, the cache is
//! trimmed to `ORLA_CACHE_MAX_SIZE` (least recently used first, never an
//! entry this install used) when no other orla is using it.

use std::collections::HashSet;

use super::plan::{Fetch, Plan};
use crate::context::Context;
use crate::error::Error;
use crate::fetch::{Cache, Fetcher};
use crate::index::ArchiveLocation;
use crate::lock::{FileLock, LockKind};
use crate::verify::Digest;

/// The cache entries added for one install: removed when dropped, unless
/// [`Prefetched::keep`] was called once the packages were installed. Holds
/// the cache's shared lock while it lives.
pub(crate) struct Prefetched {
    cache: Cache,
    added: Vec<Digest>,
    /// Every package this install takes from the cache.
    used: HashSet<Digest>,
    /// `ORLA_CACHE_MAX_SIZE`.
    max_size: Option<u64>,
    /// `None` when the cache cannot be locked (it cannot be written
    /// either, so nothing is added to it).
    lock: Option<FileLock>,
}

impl Prefetched {
    /// The packages were installed: their downloads stay in the cache,
    /// which is then trimmed to its size limit.
    pub(crate) fn keep(mut self) {
        self.added.clear();
        drop(self.lock.take());
        let Some(max_size) = self.max_size else {
            return;
        };
        // Only when no other orla uses the cache: one that does trims it
        // when it is done.
        if let Some(_exclusive) = self.cache.try_lock_exclusive() {
            let _ = self.cache.trim(max_size, &self.used);
        }
    }
}

impl Drop for Prefetched {
    fn drop(&mut self) {
        for digest in &self.added {
            self.cache.forget_unpacked(digest);
        }
    }
}

/// Downloads and verifies into the cache, in parallel, every HTTP archive
/// of `plans` that it does not hold.
pub(crate) fn prefetch(ctx: &Context, plans: &[Plan]) -> Result<Prefetched, Error> {
    let cache = ctx.cache();
    let lock = cache.lock(LockKind::Shared, ctx.reporter.as_ref()).ok();
    let used = plans
        .iter()
        .filter_map(|plan| match &plan.fetch {
            Fetch::Archive(job) => Some(job.expected.blake3),
            Fetch::Git { .. } => None,
        })
        .collect();
    let mut jobs: Vec<_> = plans
        .iter()
        .filter_map(|plan| match &plan.fetch {
            Fetch::Archive(job)
                if matches!(job.location, ArchiveLocation::Http(_))
                    && !cache.has(&job.expected.blake3) =>
            {
                Some(job)
            }
            _ => None,
        })
        .collect();
    jobs.dedup_by_key(|job| job.expected.blake3);
    let mut prefetched = Prefetched {
        cache: cache.clone(),
        added: Vec::new(),
        used,
        max_size: ctx.cache_max_size,
        lock,
    };
    if jobs.is_empty() {
        return Ok(prefetched);
    }
    let reporter = ctx.reporter.as_ref();
    let fetcher = Fetcher::new(cache.clone(), ctx.offline).with_http_limits(ctx.http_limits());
    let results = crate::parallel::map(&jobs, super::WORKERS, |job| -> Result<(), Error> {
        // Without a cache to download into, downloaded under the lock.
        fetcher.fill(job, reporter)?;
        Ok(())
    });
    // Verified against the registry's digest, so they may stay in the
    // cache; `Prefetched` takes them out again if the install fails or is
    // refused.
    prefetched.added = fetcher.take_added();
    results.into_iter().collect::<Result<(), Error>>()?;
    Ok(prefetched)
}
