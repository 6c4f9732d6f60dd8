//! Downloads before the root is locked: every archive a plan fetches over
//! HTTP and the cache does not hold yet is downloaded, verified against the
//! registry's digest and unpacked into a landing directory in the cache's
//! `tmp/`, then linked into the cache's unpacked entries, which only ever
//! hold verified packages. Only then does the install take the root's lock
//! and link the packages from the cache into staging ([`super::apply`]), so
//! a slow server never holds up the other orla commands on that root.
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

use super::plan::{Fetch, Plan};
use crate::context::Context;
use crate::error::Error;
use crate::fetch::{Cache, Fetcher};
use crate::index::ArchiveLocation;
use crate::verify::Digest;

/// The cache entries added for one install: removed when dropped, unless
/// [`Prefetched::keep`] was called once the packages were installed.
pub(crate) struct Prefetched {
    cache: Cache,
    added: Vec<Digest>,
}

impl Prefetched {
    /// The packages were installed: their downloads stay in the cache.
    pub(crate) fn keep(mut self) {
        self.added.clear();
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
    let mut jobs: Vec<_> = plans
        .iter()
        .filter_map(|plan| match &plan.fetch {
            Fetch::Archive(job)
                if matches!(job.location, ArchiveLocation::Http(_))
                    && cache.archive(&job.expected.blake3).is_none() =>
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
    };
    if jobs.is_empty() {
        return Ok(prefetched);
    }
    let reporter = ctx.reporter.as_ref();
    let fetcher = Fetcher::new(cache.clone(), ctx.offline).with_http_limits(ctx.http_limits());
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|job| {
                let (fetcher, cache) = (&fetcher, &cache);
                scope.spawn(move || -> Result<(), Error> {
                    let Ok(landing) = cache.landing_dir() else {
                        // No cache to download into: downloaded under the lock.
                        return Ok(());
                    };
                    fetcher.fetch_unpack(job, landing.path(), reporter)?;
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("fetch threads do not panic"))
            .collect::<Result<Vec<_>, Error>>()
    })?;
    // Verified against the registry's digest, so they may join the cache
    // now; `Prefetched` takes them out again if the install is refused.
    fetcher.keep_downloads();
    prefetched.added = jobs
        .iter()
        .map(|job| job.expected.blake3)
        .filter(|digest| cache.archive(digest).is_some())
        .collect();
    Ok(prefetched)
}
