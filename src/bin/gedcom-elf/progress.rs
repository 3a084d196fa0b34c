//! A progress bar on stderr for long work.
//!
//! Drawn only when stderr is a terminal and standard output is not that same
//! terminal (so it never lands between output lines), and only once the
//! work has taken more than a second. Rate and time left come from the last
//! few seconds of progress, not from the start; sizes are in MB (10^6
//! bytes), as everywhere in the tool.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before the bar shows; `GEDCOM_ELF_PROGRESS_DELAY_MS`
/// changes it (for tests).
fn delay() -> Duration {
    std::env::var("GEDCOM_ELF_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_secs(1), Duration::from_millis)
}

/// How far back the rate looks.
const WINDOW: Duration = Duration::from_secs(5);
/// How often the bar is redrawn.
const TICK: Duration = Duration::from_millis(250);

/// Whether stderr is a terminal and standard output is not the same one.
fn wanted() -> bool {
    let err = std::io::stderr();
    if !err.is_terminal() {
        return false;
    }
    let out = std::io::stdout();
    if !out.is_terminal() {
        return true;
    }
    !same_device(&out, &err)
}

#[cfg(unix)]
fn same_device(out: &std::io::Stdout, err: &std::io::Stderr) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let meta = |fd: std::os::fd::BorrowedFd<'_>| {
        fd.try_clone_to_owned()
            .ok()
            .and_then(|o| std::fs::File::from(o).metadata().ok())
            .map(|m| (m.dev(), m.ino(), m.rdev()))
    };
    match (meta(out.as_fd()), meta(err.as_fd())) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

#[cfg(not(unix))]
fn same_device(_: &std::io::Stdout, _: &std::io::Stderr) -> bool {
    true
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{}:{:02} min", s / 60, s % 60),
        _ => format!("{}:{:02} h", s / 3600, (s / 60) % 60),
    }
}

/// Done, total, rate and time left, from `samples` (oldest first).
fn describe(samples: &VecDeque<(Instant, u64)>, total: Option<u64>) -> String {
    let Some(&(now, done)) = samples.back() else {
        return String::new();
    };
    let rate = samples.front().and_then(|&(then, before)| {
        let secs = now.duration_since(then).as_secs_f64();
        (secs > 0.2).then(|| done.saturating_sub(before) as f64 / secs)
    });
    let mut s = match total {
        Some(t) => format!("{}/{}", mb(done), mb(t)),
        None => mb(done),
    };
    if let Some(r) = rate {
        s += &format!(", {:.1} MB/s", r / 1e6);
        if let (Some(t), true) = (total, r > 0.0) {
            s += &format!(", {} left", duration(t.saturating_sub(done) as f64 / r));
        }
    }
    s
}

/// A progress bar: see the module's documentation.
pub struct Progress {
    bar: ProgressBar,
    stop: Option<mpsc::Sender<()>>,
    timer: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Bytes done of `total` (a bar, rate, time left), or of an unknown
    /// total (bytes and rate): call [`Progress::set`] as the work goes.
    pub fn new(total: Option<u64>) -> Progress {
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        let style = match total {
            Some(_) => "{bar:30} {msg}",
            None => "{spinner} {msg}",
        };
        Progress::start(bar, style, total, None)
    }

    /// One long step whose progress cannot be seen from outside: `what`
    /// and the time so far.
    pub fn step(what: String) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        Progress::start(bar, "{spinner} {msg}", None, Some(what))
    }

    fn start(bar: ProgressBar, style: &str, total: Option<u64>, step: Option<String>) -> Progress {
        if let Ok(s) = ProgressStyle::with_template(style) {
            bar.set_style(s);
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = bar.clone();
        let timer = wanted()
            .then(|| {
                std::thread::Builder::new()
                    .name("progress".into())
                    .spawn(move || tick(shown, stopped, total, step))
                    .ok()
            })
            .flatten();
        Progress {
            bar,
            stop: Some(stop),
            timer,
        }
    }

    /// Bytes done so far.
    pub fn set(&self, done: u64) {
        self.bar.set_position(done);
    }

    /// Adds to the bytes done.
    pub fn add(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Clears the bar (if it was shown) and stops its timer.
    pub fn finish(mut self) {
        self.close();
    }

    fn close(&mut self) {
        self.stop.take();
        if let Some(t) = self.timer.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.close();
    }
}

/// The timer thread: after a second, draws the bar every [`TICK`] until
/// told to stop.
fn tick(bar: ProgressBar, stopped: mpsc::Receiver<()>, total: Option<u64>, step: Option<String>) {
    let started = Instant::now();
    let mut samples: VecDeque<(Instant, u64)> = VecDeque::new();
    let mut first = true;
    loop {
        let wait = if first { delay() } else { TICK };
        if !matches!(
            stopped.recv_timeout(wait),
            Err(mpsc::RecvTimeoutError::Timeout)
        ) {
            return;
        }
        if first {
            first = false;
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        let now = Instant::now();
        let msg = match &step {
            Some(what) => format!("{what}, {}", duration(started.elapsed().as_secs_f64())),
            None => {
                samples.push_back((now, bar.position()));
                while samples
                    .front()
                    .is_some_and(|&(t, _)| now.duration_since(t) > WINDOW)
                {
                    samples.pop_front();
                }
                describe(&samples, total)
            }
        };
        bar.set_message(msg);
        bar.tick();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_that_of_the_window() {
        let t0 = Instant::now();
        let mut s = VecDeque::new();
        s.push_back((t0, 100_000_000));
        s.push_back((t0 + Duration::from_secs(2), 300_000_000));
        let d = describe(&s, Some(500_000_000));
        assert_eq!(d, "300.0 MB/500.0 MB, 100.0 MB/s, 2 s left");
    }

    #[test]
    fn no_rate_from_one_sample() {
        let mut s = VecDeque::new();
        s.push_back((Instant::now(), 1_500_000));
        assert_eq!(describe(&s, None), "1.5 MB");
    }

    #[test]
    fn durations() {
        assert_eq!(duration(59.4), "59 s");
        assert_eq!(duration(61.0), "1:01 min");
        assert_eq!(duration(7322.0), "2:02 h");
    }
}
