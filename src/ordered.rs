//! Running numbered pieces of work on several threads and consuming their
//! results in order, in bounded memory. Shared by parallel reading
//! ([`par`](crate::par)) and parallel writing ([`bridge`](crate::bridge));
//! [`par_ranges`] runs a function on shares of a range, and [`join_all`]
//! joins every scoped thread of the crate (the tree's index too). It depends
//! on nothing else in the crate.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

/// Joins scoped threads one by one, returning their results in order; a
/// thread's panic is resumed on the calling thread. Joining by hand (not
/// leaving it to the end of [`std::thread::scope`]) waits until each thread has
/// exited, its thread-local destructors run: the scope's own join only waits
/// for the threads' closures, and a thread may still be exiting after it.
pub(crate) fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Vec<T> {
    handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        .collect()
}

/// `0..n` cut into at most `parts` ranges of about equal length.
pub(crate) fn split(n: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.clamp(1, n.max(1));
    (0..parts)
        .map(|i| n * i / parts..n * (i + 1) / parts)
        .collect()
}

/// Runs `f` on every range of [`split`]`(n, jobs)`, on that many threads
/// (the calling thread alone when there is one range), returning the
/// results in range order.
pub(crate) fn par_ranges<T: Send>(
    n: usize,
    jobs: usize,
    f: impl Fn(Range<usize>) -> T + Sync,
) -> Vec<T> {
    run_scoped(split(n, jobs), f)
}

/// Runs `f` on each item on a scoped thread of its own, and returns the
/// results in the items' order. An item whose thread cannot be started
/// (the system's limit on threads) is run on the calling thread instead:
/// fewer threads, never a panic. One item runs on the calling thread.
pub(crate) fn run_scoped<I: Send, T: Send>(items: Vec<I>, f: impl Fn(I) -> T + Sync) -> Vec<T> {
    if items.len() <= 1 {
        return items.into_iter().map(f).collect();
    }
    // Each item waits in a slot for whoever runs it: its thread, or this one.
    let slots: Vec<Mutex<Option<I>>> = items.into_iter().map(|i| Mutex::new(Some(i))).collect();
    let take = |k: usize| slots.get(k)?.lock().ok()?.take();
    let (f, take) = (&f, &take);
    let results: Vec<Option<T>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..slots.len())
            .map(|k| {
                std::thread::Builder::new()
                    .spawn_scoped(s, move || take(k).map(f))
                    .ok()
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(k, h)| match h {
                Some(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                None => take(k).map(f),
            })
            .collect()
    });
    // Every slot was taken exactly once.
    results.into_iter().flatten().collect()
}

/// Runs `run(i)` for every `i` in `0..n` on `jobs` threads and hands each
/// result to `emit(i, result)` on the calling thread, in order of `i`, as
/// soon as the results before it have been handed over. A worker waits
/// before it gets more than `2 * jobs` pieces ahead of `emit`, which bounds
/// the results held at once. With `jobs` at most 1 (or one piece) it all
/// happens on the calling thread.
///
/// Returns `Ok(true)` when every result was emitted, `Ok(false)` when a
/// worker died (a panic in `run`) before its result was.
///
/// # Errors
/// The first error `emit` returns: no further result is emitted and the
/// workers stop taking pieces.
pub(crate) fn run_in_order<T, E, R, S>(
    n: usize,
    jobs: usize,
    run: R,
    mut emit: S,
) -> Result<bool, E>
where
    T: Send,
    R: Fn(usize) -> T + Sync,
    S: FnMut(usize, T) -> Result<(), E>,
{
    let jobs = jobs.clamp(1, n.max(1));
    if jobs == 1 {
        for i in 0..n {
            emit(i, run(i))?;
        }
        return Ok(true);
    }
    // `jobs` workers take pieces in order; the calling thread hands results
    // on in order. A worker waits before it gets more than `window` pieces
    // ahead of the hand-over, which bounds memory.
    let window = jobs * 2;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let emitted = Mutex::new(0usize);
    let moved = Condvar::new();
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    let mut failure = None;
    let mut lo = 0;
    std::thread::scope(|scope| {
        let mut workers = Vec::with_capacity(jobs);
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stop, emitted, moved, run) = (&next, &stop, &emitted, &moved, &run);
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(mut done) = emitted.lock() else { break };
                while i >= *done + window && !stop.load(Ordering::Relaxed) {
                    done = match moved.wait(done) {
                        Ok(d) => d,
                        Err(_) => return,
                    };
                }
                drop(done);
                if stop.load(Ordering::Relaxed) || tx.send((i, run(i))).is_err() {
                    break;
                }
            });
            // No more threads to be had: go on with those there are.
            match spawned {
                Ok(w) => workers.push(w),
                Err(_) => break,
            }
        }
        drop(tx);
        if workers.is_empty() {
            // Not one: all of it here.
            for i in 0..n {
                if let Err(e) = emit(i, run(i)) {
                    failure = Some(e);
                    return;
                }
                lo = i + 1;
            }
            return;
        }
        let mut waiting = BTreeMap::new();
        'receive: for (i, out) in rx.iter() {
            waiting.insert(i, out);
            while let Some(out) = waiting.remove(&lo) {
                if let Err(e) = emit(lo, out) {
                    failure = Some(e);
                    break 'receive;
                }
                lo += 1;
                if let Ok(mut done) = emitted.lock() {
                    *done = lo;
                }
                moved.notify_all();
            }
        }
        // `stop` is set under the lock the workers check it under before they
        // wait: set without it, a worker between its check and its wait missed
        // the notification and waited for ever (fuzz `tree` timeout 7f8693bf).
        let held = emitted.lock();
        stop.store(true, Ordering::Relaxed);
        drop(held);
        moved.notify_all();
        drop(rx);
        join_all(workers);
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(lo == n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fuzz `tree` leak report f9f56f94 (LeakSanitizer, once in 30,000 runs): glibc's
    /// record of a worker's thread-local destructor was still allocated when the
    /// input's run ended, because the scope's own join does not wait for a thread to
    /// exit. Workers are joined by hand now: when `run_in_order` returns, every
    /// worker's thread-local destructors have run (here a slow one, which the scope's
    /// join returned before).
    #[test]
    fn fuzz_tree_leak_f9f56f94_workers_have_exited_on_return() {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        static DROPPED: AtomicUsize = AtomicUsize::new(0);
        struct Mark;
        impl Drop for Mark {
            fn drop(&mut self) {
                std::thread::sleep(std::time::Duration::from_millis(30));
                DROPPED.fetch_add(1, Ordering::SeqCst);
            }
        }
        thread_local! {
            static MARK: Mark = {
                MADE.fetch_add(1, Ordering::SeqCst);
                Mark
            };
        }
        let all = run_in_order(8, 2, |i| MARK.with(|_| i), |_, _| Ok::<(), ()>(())).unwrap();
        assert!(all);
        let made = MADE.load(Ordering::SeqCst);
        assert!(made >= 1);
        assert_eq!(DROPPED.load(Ordering::SeqCst), made);
    }

    #[test]
    fn results_come_in_order_for_any_number_of_jobs() {
        for jobs in [0, 1, 2, 3, 8] {
            for n in [0, 1, 5, 40] {
                let mut seen = Vec::new();
                let all = run_in_order(
                    n,
                    jobs,
                    |i| {
                        // Later pieces finish first.
                        std::thread::sleep(std::time::Duration::from_micros(((n - i) * 50) as u64));
                        i * 10
                    },
                    |i, r| {
                        seen.push((i, r));
                        Ok::<(), ()>(())
                    },
                )
                .unwrap();
                assert!(all);
                let want: Vec<_> = (0..n).map(|i| (i, i * 10)).collect();
                assert_eq!(seen, want, "jobs {jobs}, n {n}");
            }
        }
    }

    /// Fuzz `tree` timeout 7f8693bf: `emit` failed while a worker was between
    /// checking `stop` and waiting for the window to move; `stop` was set without
    /// the lock, the worker missed the one notification, and the calling thread
    /// waited for it for ever. A stress test: the race is narrow, so each round
    /// makes workers wait for the window (fast pieces, 2 * jobs ahead) while the
    /// hand-over fails early. A round that never returns fails the test.
    #[test]
    fn fuzz_tree_timeout_7f8693bf_an_error_never_leaves_a_worker_waiting() {
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            for round in 0..5_000 {
                let fail_at = round % 5;
                let r = run_in_order(
                    64,
                    3,
                    |i| i,
                    |i, _| if i == fail_at { Err(i) } else { Ok(()) },
                );
                assert_eq!(r, Err(fail_at));
            }
            let _ = done.send(());
        });
        let waited = finished.recv_timeout(std::time::Duration::from_secs(120));
        assert!(waited.is_ok(), "a run_in_order call never returned");
    }

    #[test]
    fn the_first_error_stops_the_hand_over() {
        for jobs in [1, 2, 4] {
            let mut seen = Vec::new();
            let r = run_in_order(
                100,
                jobs,
                |i| i,
                |i, _| {
                    if i == 7 {
                        return Err(format!("piece {i}"));
                    }
                    seen.push(i);
                    Ok(())
                },
            );
            assert_eq!(r, Err("piece 7".to_string()));
            assert_eq!(seen, (0..7).collect::<Vec<_>>());
        }
    }
}
