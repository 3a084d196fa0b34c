//! Running numbered pieces of work on several threads and consuming their
//! results in order, in bounded memory: [`Pool`], the one ordered worker
//! pool of the crate. Parallel reading of a slice ([`par`](crate::par)), of
//! a stream ([`stream`](crate::stream)), of records
//! ([`Records`](crate::tree::Records)) and parallel writing
//! ([`bridge`](crate::bridge), through [`run_in_order`]) all use it.
//! [`par_ranges`] and [`run_scoped`] run a function on shares of a range, a
//! thread each (the tree's index). Every thread is joined by hand: the end
//! of a [`std::thread::scope`] waits only for the threads' closures, and a
//! thread may still be exiting after it (its thread-local destructors not
//! run: LeakSanitizer in the fuzz targets reports what they free). It
//! depends on nothing else in the crate.
//!
//! What the pool owns: the queue of items not yet taken, the results that
//! came before their turn, the window (how many items may be in flight),
//! starting threads as items come, relaying a worker's panic and joining
//! every thread. What its user owns: the items (it numbers them by
//! submitting them in order) and what is done with each result.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

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

/// Runs `run(i)` for every `i` in `0..n` on up to `jobs` threads and hands
/// each result to `emit(i, result)` on the calling thread, in order of `i`,
/// as soon as the results before it have been handed over. At most `2 *
/// jobs` pieces are in flight, which bounds the results held at once. With
/// `jobs` at most 1 (or one piece) it all happens on the calling thread.
///
/// Returns `Ok(true)`: every result was emitted (a panic in `run` is
/// resumed on the calling thread, in its turn).
///
/// # Errors
/// The first error `emit` returns: no further result is emitted and the
/// pieces not yet started are not run.
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
    std::thread::scope(|scope| {
        let mut pool = Pool::scoped(scope, &run, jobs, 2);
        let (mut sent, mut emitted) = (0, 0);
        loop {
            while sent < n && pool.has_room() {
                pool.submit(sent);
                sent += 1;
            }
            let Some(out) = pool.next() else {
                return Ok(true);
            };
            emit(emitted, out)?;
            emitted += 1;
        }
    })
}

/// Runs `work` on each item `items` gives (taken on the calling thread, as
/// the pool has room), on up to `jobs` threads, and hands the results to
/// `emit` in the items' order; with `jobs` at most 1, all on the calling
/// thread. For a stream of unknown length ([`run_in_order`] numbers a
/// known one): at most two items per thread are in flight, which bounds
/// the results held at once.
///
/// # Errors
/// The first error `emit` returns: no further result is emitted and no
/// further item is taken (a panic in `work` is resumed on the calling
/// thread, in its turn).
pub(crate) fn map_in_order<I, T, E, W, S>(
    jobs: usize,
    mut items: impl Iterator<Item = I>,
    work: W,
    mut emit: S,
) -> Result<(), E>
where
    I: Send,
    T: Send,
    W: Fn(I) -> T + Sync,
    S: FnMut(T) -> Result<(), E>,
{
    if jobs <= 1 {
        return items.try_for_each(|item| emit(work(item)));
    }
    std::thread::scope(|scope| {
        let mut pool = Pool::scoped(scope, &work, jobs, 2);
        let mut more = true;
        loop {
            while more && pool.has_room() {
                match items.next() {
                    Some(item) => pool.submit(item),
                    None => more = false,
                }
            }
            match pool.next() {
                Some(out) => emit(out)?,
                None => return Ok(()),
            }
        }
    })
}

/// Groups the items of `items` in order, each group at least `bytes` of
/// them by `size` (the last one what is left).
pub(crate) fn grouped<I>(
    mut items: impl Iterator<Item = I>,
    bytes: usize,
    size: impl Fn(&I) -> usize,
) -> impl Iterator<Item = Vec<I>> {
    std::iter::from_fn(move || {
        let mut group = Vec::new();
        let mut total = 0;
        while total < bytes {
            let Some(item) = items.next() else {
                break;
            };
            total += size(&item);
            group.push(item);
        }
        (!group.is_empty()).then_some(group)
    })
}

/// What the calling thread and the workers of a [`Pool`] share.
pub(crate) struct Core<I, O> {
    queues: Mutex<Queues<I, O>>,
    /// Signalled when an item is queued or the pool closes.
    queued: Condvar,
    /// Signalled when a result is ready.
    ready: Condvar,
}

struct Queues<I, O> {
    /// Items no thread has taken yet, oldest first, with their numbers.
    items: VecDeque<(u64, I)>,
    /// Results (or the panics of their work) that wait for their turn.
    done: BTreeMap<u64, std::thread::Result<O>>,
    /// The pool is gone: workers stop.
    closed: bool,
}

impl<I, O> Core<I, O> {
    fn lock(&self) -> MutexGuard<'_, Queues<I, O>> {
        // No code panics while it holds the lock; a poisoned lock is still
        // consistent.
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A worker's life: takes items until the pool closes, runs `work` on
    /// each and leaves the result (or the panic) for the calling thread.
    fn serve(&self, work: &impl Fn(I) -> O) {
        loop {
            let (seq, item) = {
                let mut q = self.lock();
                loop {
                    if q.closed {
                        return;
                    }
                    if let Some(next) = q.items.pop_front() {
                        break next;
                    }
                    q = self.queued.wait(q).unwrap_or_else(PoisonError::into_inner);
                }
            };
            let out = std::panic::catch_unwind(AssertUnwindSafe(|| work(item)));
            self.lock().done.insert(seq, out);
            self.ready.notify_one();
        }
    }
}

/// How a [`Pool`] starts its threads: on a scope ([`Scoped`], work that
/// borrows the caller's data) or as threads of their own ([`Owned`], for a
/// pool that lives across calls). The only difference between the two.
pub(crate) trait Spawn<I, O> {
    /// A started thread.
    type Handle;
    /// Starts a thread that serves `core`.
    fn spawn(&self, core: &Arc<Core<I, O>>) -> std::io::Result<Self::Handle>;
    /// Runs one item on the calling thread (no thread could be started).
    fn run_here(&self, item: I) -> O;
    /// Waits until the thread has exited.
    fn join(handle: Self::Handle);
}

/// Threads on a [`std::thread::Scope`], running work that borrows from
/// outside it.
pub(crate) struct Scoped<'scope, 'env, F> {
    scope: &'scope std::thread::Scope<'scope, 'env>,
    work: &'scope F,
}

impl<'scope, I, O, F> Spawn<I, O> for Scoped<'scope, '_, F>
where
    I: Send + 'scope,
    O: Send + 'scope,
    F: Fn(I) -> O + Sync,
{
    type Handle = std::thread::ScopedJoinHandle<'scope, ()>;

    fn spawn(&self, core: &Arc<Core<I, O>>) -> std::io::Result<Self::Handle> {
        let (core, work) = (core.clone(), self.work);
        std::thread::Builder::new().spawn_scoped(self.scope, move || core.serve(work))
    }

    fn run_here(&self, item: I) -> O {
        (self.work)(item)
    }

    fn join(handle: Self::Handle) {
        // Workers catch the panics of the work: a thread ends normally.
        let _ = handle.join();
    }
}

/// Threads of their own, running work that owns what it needs.
pub(crate) struct Owned<F> {
    work: Arc<F>,
    name: &'static str,
}

impl<I, O, F> Spawn<I, O> for Owned<F>
where
    I: Send + 'static,
    O: Send + 'static,
    F: Fn(I) -> O + Send + Sync + 'static,
{
    type Handle = std::thread::JoinHandle<()>;

    fn spawn(&self, core: &Arc<Core<I, O>>) -> std::io::Result<Self::Handle> {
        let (core, work) = (core.clone(), self.work.clone());
        std::thread::Builder::new()
            .name(self.name.into())
            .spawn(move || core.serve(&*work))
    }

    fn run_here(&self, item: I) -> O {
        (self.work)(item)
    }

    fn join(handle: Self::Handle) {
        let _ = handle.join();
    }
}

/// An ordered worker pool: items are numbered in the order they are
/// [`submit`](Pool::submit)ted, run on up to `threads` threads, and their
/// results come out of [`next`](Pool::next) in that order.
///
/// * Threads start as items come, never more than the items in flight; a
///   thread that cannot be started leaves fewer, and with none the calling
///   thread runs each item in [`next`](Pool::next).
/// * [`has_room`](Pool::has_room) bounds the items in flight (queued,
///   running or done and not yet taken) to `ahead` per thread wanted (and
///   [`with_extra`](Pool::with_extra) more).
/// * A panic in the work is resumed on the calling thread when its result's
///   turn comes (the results before it are taken first).
/// * Dropping the pool drops the items not yet started and joins every
///   thread by hand: once it is gone, each has exited, its thread-locals
///   freed (see the [module docs](self)).
pub(crate) struct Pool<I, O, S: Spawn<I, O>> {
    core: Arc<Core<I, O>>,
    spawner: S,
    workers: Vec<S::Handle>,
    /// Threads wanted at most (lowered when one cannot be started).
    threads: usize,
    ahead: usize,
    extra: usize,
    sent: u64,
    taken: u64,
}

impl<'scope, 'env, I, O, F> Pool<I, O, Scoped<'scope, 'env, F>>
where
    I: Send + 'scope,
    O: Send + 'scope,
    F: Fn(I) -> O + Sync,
{
    /// A pool of up to `threads` threads on `scope` running `work`, with up
    /// to `ahead` items in flight per thread.
    pub(crate) fn scoped(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        work: &'scope F,
        threads: usize,
        ahead: usize,
    ) -> Self {
        Pool::new(Scoped { scope, work }, threads, ahead)
    }
}

impl<I, O, F> Pool<I, O, Owned<F>>
where
    I: Send + 'static,
    O: Send + 'static,
    F: Fn(I) -> O + Send + Sync + 'static,
{
    /// A pool of up to `threads` threads named `name` running `work`, with
    /// up to `ahead` items in flight per thread.
    pub(crate) fn owned(name: &'static str, work: F, threads: usize, ahead: usize) -> Self {
        let work = Arc::new(work);
        Pool::new(Owned { work, name }, threads, ahead)
    }
}

impl<I, O, S: Spawn<I, O>> Pool<I, O, S> {
    fn new(spawner: S, threads: usize, ahead: usize) -> Self {
        Pool {
            core: Arc::new(Core {
                queues: Mutex::new(Queues {
                    items: VecDeque::new(),
                    done: BTreeMap::new(),
                    closed: false,
                }),
                queued: Condvar::new(),
                ready: Condvar::new(),
            }),
            spawner,
            workers: Vec::new(),
            threads,
            ahead: ahead.max(1),
            extra: 0,
            sent: 0,
            taken: 0,
        }
    }

    /// Items submitted and not yet taken back.
    pub(crate) fn in_flight(&self) -> usize {
        (self.sent - self.taken) as usize
    }

    /// Lets `extra` more items be in flight than `ahead` per thread: with
    /// `ahead` 1, one item waiting for whichever thread is free first,
    /// without a second item (and result) per thread.
    pub(crate) fn with_extra(mut self, extra: usize) -> Self {
        self.extra = extra;
        self
    }

    /// Whether another item may be submitted: fewer than `ahead` per
    /// thread wanted (one counted when none can be had), plus `extra`, are
    /// in flight. Counted on the threads wanted, not those started: threads
    /// start only as items come, and a window of the threads started would
    /// keep one thread alone with `ahead` 1.
    pub(crate) fn has_room(&self) -> bool {
        self.in_flight() < self.ahead * self.threads.max(1) + self.extra
    }

    /// The threads started.
    #[cfg(test)]
    pub(crate) fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Queues `item`, the next in order, starting a thread when there are
    /// fewer than the items in flight (and than wanted).
    pub(crate) fn submit(&mut self, item: I) {
        self.core.lock().items.push_back((self.sent, item));
        self.core.queued.notify_one();
        self.sent += 1;
        if self.workers.len() < self.threads && self.workers.len() < self.in_flight() {
            match self.spawner.spawn(&self.core) {
                Ok(w) => self.workers.push(w),
                // No more threads to be had: go on with those there are.
                Err(_) => self.threads = self.workers.len(),
            }
        }
    }

    /// The result of the oldest item in flight, waiting for it (running it
    /// here when no thread could be started); `None` when none is in
    /// flight. A panic of its work is resumed here.
    pub(crate) fn next(&mut self) -> Option<O> {
        if self.in_flight() == 0 {
            return None;
        }
        let mut q = self.core.lock();
        loop {
            if let Some(out) = q.done.remove(&self.taken) {
                drop(q);
                self.taken += 1;
                return Some(out.unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
            }
            if self.workers.is_empty() {
                // No thread: the oldest item, queued, is run here.
                let (_, item) = q.items.pop_front()?;
                drop(q);
                self.taken += 1;
                return Some(self.spawner.run_here(item));
            }
            q = self
                .core
                .ready
                .wait(q)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl<I, O, S: Spawn<I, O>> Drop for Pool<I, O, S> {
    fn drop(&mut self) {
        let left = {
            let mut q = self.core.lock();
            q.closed = true;
            std::mem::take(&mut q.items)
        };
        self.core.queued.notify_all();
        drop(left);
        // Each thread ends after the item it is running; joined by hand so
        // that each has exited before the pool is gone.
        for w in self.workers.drain(..) {
            S::join(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

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
    /// waited for it for ever. (Workers now wait only for items, and the pool
    /// closes under the lock they wait with.) A stress test: each round keeps
    /// the window full of fast pieces while the hand-over fails early. A round
    /// that never returns fails the test.
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

    /// Takes every result of `pool`, submitting `items` as room allows.
    fn drain<I, O, S: Spawn<I, O>>(
        pool: &mut Pool<I, O, S>,
        items: impl IntoIterator<Item = I>,
    ) -> Vec<O> {
        let mut items = items.into_iter().peekable();
        let mut out = Vec::new();
        loop {
            while items.peek().is_some() && pool.has_room() {
                pool.submit(items.next().unwrap());
            }
            match pool.next() {
                Some(o) => out.push(o),
                None => return out,
            }
        }
    }

    #[test]
    fn a_pool_gives_results_in_submission_order() {
        for threads in [0, 1, 2, 3, 8] {
            for n in [0u64, 1, 5, 40] {
                let work = |i: u64| {
                    // Later items finish first.
                    std::thread::sleep(std::time::Duration::from_micros((n - i) * 50));
                    i * 10
                };
                let out = std::thread::scope(|s| {
                    let mut pool = Pool::scoped(s, &work, threads, 2);
                    drain(&mut pool, 0..n)
                });
                let want: Vec<u64> = (0..n).map(|i| i * 10).collect();
                assert_eq!(out, want, "threads {threads}, n {n}");
            }
        }
    }

    /// Counts the values alive: items, and the results made from them.
    struct Live<'a>(&'a AtomicUsize);

    impl<'a> Live<'a> {
        fn new(live: &'a AtomicUsize, most: &'a AtomicUsize) -> Self {
            let now = live.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            Live(live)
        }
    }

    impl Drop for Live<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn the_window_bounds_the_items_and_results_held() {
        let (live, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        for (threads, ahead, extra) in [(1, 1, 0), (2, 2, 0), (3, 4, 0), (2, 1, 1)] {
            most.store(0, Ordering::SeqCst);
            // Each item is passed through as its result; the results are
            // taken slowly, so the workers would run far ahead unbounded.
            fn pass(l: Live<'_>) -> Live<'_> {
                l
            }
            let work = pass;
            let taken = std::thread::scope(|s| {
                let mut pool = Pool::scoped(s, &work, threads, ahead).with_extra(extra);
                let mut taken = 0;
                loop {
                    while taken + pool.in_flight() < 200 && pool.has_room() {
                        pool.submit(Live::new(&live, &most));
                    }
                    let Some(out) = pool.next() else { break };
                    std::thread::sleep(std::time::Duration::from_micros(20));
                    drop(out);
                    taken += 1;
                }
                taken
            });
            assert_eq!(taken, 200);
            let most = most.load(Ordering::SeqCst);
            assert!(most <= threads * ahead + extra, "{most} held at once");
            assert_eq!(live.load(Ordering::SeqCst), 0);
        }
    }

    #[test]
    fn a_panic_comes_after_the_results_before_it_and_every_thread_is_joined() {
        let ran = AtomicUsize::new(0);
        let work = |i: usize| {
            ran.fetch_add(1, Ordering::SeqCst);
            assert!(i != 5, "item {i} panicked");
            i
        };
        let mut got = Vec::new();
        let caught = std::panic::catch_unwind(AssertUnwindSafe(|| {
            std::thread::scope(|s| {
                let mut pool = Pool::scoped(s, &work, 3, 2);
                for i in 0..100 {
                    while !pool.has_room() {
                        got.push(pool.next().unwrap());
                    }
                    pool.submit(i);
                }
                while let Some(i) = pool.next() {
                    got.push(i);
                }
            });
        }));
        let panic = caught.expect_err("the panic is resumed on the calling thread");
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert_eq!(message, "item 5 panicked");
        assert_eq!(got, [0, 1, 2, 3, 4]);
        // The pool stopped there: what was queued was dropped unrun.
        assert!(ran.load(Ordering::SeqCst) < 20);
    }

    #[test]
    fn an_error_stops_the_hand_over_and_the_pieces_not_started() {
        let ran = AtomicUsize::new(0);
        let r = run_in_order(
            10_000,
            2,
            |i| {
                ran.fetch_add(1, Ordering::SeqCst);
                i
            },
            |i, _| if i == 3 { Err(i) } else { Ok(()) },
        );
        assert_eq!(r, Err(3));
        // At most the window (2 per thread) beyond the piece that failed.
        assert!(ran.load(Ordering::SeqCst) <= 3 + 1 + 4);
    }

    #[test]
    fn threads_start_as_items_come_never_more_than_in_flight() {
        let work = |i: u32| i;
        std::thread::scope(|s| {
            // One item at a time: one thread is enough.
            let mut pool = Pool::scoped(s, &work, 8, 2);
            for i in 0..50 {
                pool.submit(i);
                assert_eq!(pool.next(), Some(i));
            }
            assert_eq!(pool.threads(), 1);
            // Three in flight: at most three threads.
            for i in 0..3 {
                pool.submit(i);
            }
            assert!(pool.threads() <= 3);
            assert_eq!(drain(&mut pool, []), [0, 1, 2]);
        });
        std::thread::scope(|s| {
            let mut pool = Pool::scoped(s, &work, 8, 2);
            assert_eq!(drain(&mut pool, 0..1000).len(), 1000);
            assert_eq!(pool.threads(), 8);
            // One item per thread: every thread wanted still starts.
            let mut pool = Pool::scoped(s, &work, 2, 1);
            assert_eq!(drain(&mut pool, 0..10).len(), 10);
            assert_eq!(pool.threads(), 2);
            // Nothing submitted: none started.
            let idle: Pool<u32, u32, _> = Pool::scoped(s, &work, 8, 2);
            assert_eq!(idle.threads(), 0);
        });
    }

    /// A spawner for which the system has no thread: all the work is run on
    /// the calling thread.
    struct NoThreads;

    impl Spawn<u32, (u32, std::thread::ThreadId)> for NoThreads {
        type Handle = ();

        fn spawn(&self, _: &Arc<Core<u32, (u32, std::thread::ThreadId)>>) -> std::io::Result<()> {
            Err(std::io::Error::other("no thread"))
        }

        fn run_here(&self, item: u32) -> (u32, std::thread::ThreadId) {
            (item, std::thread::current().id())
        }

        fn join((): ()) {}
    }

    #[test]
    fn with_no_thread_to_be_had_the_calling_thread_does_the_work() {
        let mut pool = Pool::new(NoThreads, 4, 2);
        let out = drain(&mut pool, 0..20);
        assert_eq!(pool.threads(), 0);
        let me = std::thread::current().id();
        let want: Vec<_> = (0..20).map(|i| (i, me)).collect();
        assert_eq!(out, want);
    }

    #[test]
    fn an_owned_pool_lives_across_calls_and_joins_its_threads_when_dropped() {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        static EXITED: AtomicUsize = AtomicUsize::new(0);
        struct Exit;
        impl Drop for Exit {
            fn drop(&mut self) {
                std::thread::sleep(std::time::Duration::from_millis(20));
                EXITED.fetch_add(1, Ordering::SeqCst);
            }
        }
        thread_local! {
            static EXIT: Exit = {
                MADE.fetch_add(1, Ordering::SeqCst);
                Exit
            };
        }
        let base = Arc::new(100u64);
        let mut pool = Pool::owned(
            "gedcom-elf-test",
            move |i: u64| EXIT.with(|_| *base + i),
            2,
            4,
        );
        let mut got = Vec::new();
        for round in 0..3u64 {
            for i in 0..4 {
                pool.submit(round * 4 + i);
            }
            // Taken in another call, as an iterator would.
            while let Some(v) = pool.next() {
                got.push(v);
            }
        }
        assert_eq!(got, (100..112).collect::<Vec<u64>>());
        assert!((1..=2).contains(&pool.threads()));
        drop(pool);
        // Every thread that ran an item has exited, its thread-locals freed.
        let made = MADE.load(Ordering::SeqCst);
        assert!(made >= 1);
        assert_eq!(EXITED.load(Ordering::SeqCst), made);
    }
}
