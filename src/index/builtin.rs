//! The built-in registry: the repository's `registry-index/` (index files and
//! archives, not the package sources) compiled into the binary by build.rs,
//! so `orla install fs-read` works on a fresh machine with no network.

include!(concat!(env!("OUT_DIR"), "/builtin_index.rs"));

/// The bytes of one file of the built-in index.
pub fn file(rel: &str) -> Option<&'static [u8]> {
    FILES
        .binary_search_by(|(path, _)| (*path).cmp(rel))
        .ok()
        .map(|i| FILES[i].1)
}
