//! Bounded parallelism for the per-package work of one command: fetching,
//! unpacking, linking from the cache and writing receipts. A command
//! naming 100 tools runs as many threads for this as one naming 8;
//! downloads also wait for one of their host's places in `http`.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many packages one command works on at once.
pub(crate) const WORKERS: usize = 8;

/// `f` applied to every item from at most [`WORKERS`] threads, each taking
/// the next item not yet taken; the results in the items' order. One item
/// runs on the caller's thread.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = WORKERS.min(items.len());
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<R>> = items.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            break done;
                        };
                        done.push((i, f(item)));
                    }
                })
            })
            .collect();
        for handle in handles {
            for (i, result) in handle.join().expect("workers do not panic") {
                out[i] = Some(result);
            }
        }
    });
    out.into_iter()
        .map(|r| r.expect("every item was taken"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Mutex;

    #[test]
    fn results_keep_the_items_order_and_threads_are_bounded() {
        let items: Vec<u32> = (0..100).collect();
        let threads = Mutex::new(HashSet::new());
        let out = map(&items, |i| {
            threads.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(1));
            i * 2
        });
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let used = threads.lock().unwrap().len();
        assert!((1..=WORKERS).contains(&used), "{used} threads");
        let caller = std::thread::current().id();
        let one = map(&[7u32], |_| std::thread::current().id());
        assert_eq!(one, vec![caller]);
    }
}
