//! The one way orla works on many items at once: scoped threads, each
//! taking the next item not yet taken. Used for downloads, index files,
//! the fetch cache's checks and the flushes before a commit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` applied to every item from at most `threads` threads; the results
/// in the items' order. The calling thread takes its share, so one item
/// (or `threads` of 1) runs on it alone. A panic in `f` is resumed on the
/// caller.
pub fn map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                break done;
            };
            done.push((i, f(item)));
        }
    };
    let mut out: Vec<Option<R>> = items.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut place = |done: Vec<(usize, R)>| {
            for (i, result) in done {
                out[i] = Some(result);
            }
        };
        place(work());
        for handle in handles {
            match handle.join() {
                Ok(done) => place(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    out.into_iter()
        .map(|r| r.expect("every item was taken"))
        .collect()
}

/// `f` applied to every item from at most `threads` threads, stopping
/// early (no item is taken after) once one fails; the first error.
pub fn try_for_each<T: Sync, E: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> Result<(), E> + Sync,
) -> Result<(), E> {
    let failed: Mutex<Option<E>> = Mutex::new(None);
    let stop = std::sync::atomic::AtomicBool::new(false);
    map(items, threads, |item| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if let Err(e) = f(item) {
            stop.store(true, Ordering::Relaxed);
            failed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(e);
        }
    });
    match failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn results_keep_the_items_order_and_threads_are_bounded() {
        let items: Vec<u32> = (0..100).collect();
        let threads = Mutex::new(HashSet::new());
        let out = map(&items, 8, |i| {
            threads.lock().unwrap().insert(std::thread::current().id());
            std::thread::yield_now();
            i * 2
        });
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let used = threads.lock().unwrap().len();
        assert!((1..=8).contains(&used), "{used} threads");
        let caller = std::thread::current().id();
        assert_eq!(map(&[7u32], 8, |_| std::thread::current().id()), [caller]);
        assert_eq!(
            map(&[1u32, 2, 3], 1, |_| std::thread::current().id()),
            [caller; 3]
        );
    }

    #[test]
    fn the_first_error_stops_the_rest() {
        let items: Vec<u32> = (0..1000).collect();
        let taken = AtomicUsize::new(0);
        let result = try_for_each(&items, 4, |&i| {
            taken.fetch_add(1, Ordering::Relaxed);
            if i == 3 {
                Err(i)
            } else {
                Ok(())
            }
        });
        assert_eq!(result, Err(3));
        assert!(taken.load(Ordering::Relaxed) < items.len());
        assert_eq!(try_for_each(&items, 4, |_| Ok::<(), ()>(())), Ok(()));
    }

    #[test]
    #[should_panic(expected = "boom")]
    fn a_panic_reaches_the_caller() {
        let items: Vec<u32> = (0..16).collect();
        map(&items, 4, |&i| assert!(i != 9, "boom"));
    }
}
