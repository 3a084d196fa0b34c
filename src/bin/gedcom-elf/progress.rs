//! A progress bar on stderr for long work.
//!
//! Drawn only when stderr is a terminal and standard output is not that same
//! terminal (so it never lands between output lines), and only once the
//! work has taken more than a second. indicatif estimates the rate and the
//! time left; sizes are in MB (10^6 bytes), as everywhere in the tool.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressBarIter, ProgressDrawTarget, ProgressStyle};

/// How long work runs before the bar shows; `GEDCOM_ELF_PROGRESS_DELAY_MS`
/// changes it (for tests).
fn delay() -> Duration {
    std::env::var("GEDCOM_ELF_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_secs(1), Duration::from_millis)
}

/// Whether stderr is a terminal and standard output is not the same one.
fn wanted() -> bool {
    let (out, err) = (std::io::stdout(), std::io::stderr());
    err.is_terminal() && !(out.is_terminal() && same_device(&out, &err))
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

/// A progress bar: see the module's documentation.
pub struct Progress {
    bar: ProgressBar,
    stop: Option<mpsc::Sender<()>>,
    timer: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Bytes done of `total` (a bar, rate, time left), or of an unknown
    /// total (bytes and rate): call [`Progress::set`] as the work goes;
    /// dropped, it is cleared.
    pub fn new(total: Option<u64>) -> Progress {
        let style = match total {
            Some(_) => "{bar:30} {decimal_bytes}/{decimal_total_bytes}, {decimal_bytes_per_sec}, {eta} left",
            None => "{spinner} {decimal_bytes}, {decimal_bytes_per_sec}",
        };
        Progress::start(
            ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden()),
            style,
        )
    }

    /// One long step whose progress cannot be seen from outside: `what`
    /// and the time so far.
    pub fn step(what: String) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        Progress::start(bar.with_message(what), "{spinner} {msg}, {elapsed}")
    }

    /// Shows `bar` after the delay, if it is [`wanted`], redrawn four times a second.
    fn start(bar: ProgressBar, style: &str) -> Progress {
        if let Ok(s) = ProgressStyle::with_template(style) {
            bar.set_style(s);
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = bar.clone();
        let show = move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(delay()) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                // Redrawn four times a second.
                shown.enable_steady_tick(Duration::from_millis(250));
            }
        };
        let timer = wanted()
            .then(|| {
                std::thread::Builder::new()
                    .name("progress".into())
                    .spawn(show)
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

    /// `read`, moving the bar by the bytes taken from it.
    pub fn wrap<R: std::io::Read>(&self, read: R) -> ProgressBarIter<R> {
        self.bar.wrap_read(read)
    }
}

impl Drop for Progress {
    /// Clears the bar (if it was shown) and stops its timer.
    fn drop(&mut self) {
        self.stop.take();
        if let Some(t) = self.timer.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}
