//! The one output path: standard output, or `-o OUT` written whole or not
//! at all.
//!
//! `-o OUT` writes to a new temporary file beside OUT (in the directory of
//! the file OUT names, when OUT is a symbolic link) and renames it over OUT
//! only when the command succeeded ([`Output::commit`]), with OUT's
//! permissions. On any failure the temporary file is removed and OUT is as
//! it was; on an interrupt (SIGINT, SIGTERM, SIGHUP) too, through the
//! handler [`on_interrupt`] installs. OUT may be the input itself: the input
//! stays readable until the rename (its old content lives on in the mapped
//! or opened file), so in-place `fmt`, `convert` and `edit` are safe.
//! A large OUT is written to disk as it grows ([`Syncer`]), so the sync
//! before the rename has only its last part to wait for.
//!
//! An OUT that exists and is not a file (a device such as `/dev/null`, a
//! named pipe, `/dev/stdout`) is written in place, as a shell's `> OUT`
//! would: it cannot be replaced without destroying it (a rename over
//! `/dev/null` as root turns the null device into a file that every later
//! `> /dev/null` writes to and every read of it returns), and what a device
//! or a pipe is given cannot be taken back. An OUT that is a directory is
//! refused before any work.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex};
use std::thread::JoinHandle;

use tempfile::NamedTempFile;

use crate::report::Fail;

/// Temporary files not yet renamed or removed, for the interrupt handler.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes pending temporary files and exits (130) on SIGINT, SIGTERM or
/// SIGHUP. If the handler cannot be installed, the signals keep their
/// default action: OUT is still untouched, only a temporary file may stay.
pub fn on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        if let Ok(mut pending) = PENDING.lock() {
            for p in pending.drain(..) {
                let _ = match p.is_dir() {
                    true => fs::remove_dir_all(p),
                    false => fs::remove_file(p),
                };
            }
        }
        std::process::exit(130);
    });
}

/// Adds (`true`) or removes a path of the interrupt handler's list (a
/// file, or a directory removed with what it holds).
pub fn pending(path: &Path, add: bool) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.retain(|p| p != path);
        if add {
            pending.push(path.to_path_buf());
        }
    }
}

/// Bytes written to `-o OUT` between two of [`Syncer`]'s syncs.
const SYNC_EVERY: u64 = 64 << 20;

/// Writes a staged file's data to disk on a thread of its own while the
/// command still writes it: after every [`SYNC_EVERY`] bytes, a
/// `sync_data` of what has reached the file so far (requests that come
/// while one runs are served by the next). [`Output::commit`] still syncs
/// the file whole before the rename; it only has the rest to wait for, not
/// the whole output. Its errors are left to that last sync, which meets
/// them again.
struct Syncer {
    /// Bytes written to the output so far, and when to ask for the next sync.
    written: u64,
    next: u64,
    /// The thread (started at the first request) and its requests.
    thread: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Syncer {
    fn new() -> Self {
        Syncer {
            written: 0,
            next: SYNC_EVERY,
            thread: None,
        }
    }

    /// Counts `n` more bytes written to `file`; asks for a sync at each
    /// [`SYNC_EVERY`] bytes.
    fn wrote(&mut self, n: usize, file: &fs::File) {
        self.written += n as u64;
        if self.written < self.next {
            return;
        }
        self.next = self.written + SYNC_EVERY;
        if self.thread.is_none() {
            // Without a handle of its own or a thread, the last sync does it all.
            let Ok(file) = file.try_clone() else {
                return;
            };
            let (tx, rx) = mpsc::channel::<()>();
            let spawned = std::thread::Builder::new()
                .name("output-sync".into())
                .spawn(move || {
                    while rx.recv().is_ok() {
                        while rx.try_recv().is_ok() {}
                        let _ = file.sync_data();
                    }
                });
            match spawned {
                Ok(handle) => self.thread = Some((tx, handle)),
                Err(_) => return,
            }
        }
        if let Some((tx, _)) = &self.thread {
            let _ = tx.send(());
        }
    }

    /// Stops the thread, after the sync it is running.
    fn stop(&mut self) {
        if let Some((tx, handle)) = self.thread.take() {
            drop(tx);
            let _ = handle.join();
        }
    }
}

/// Where the bytes written go.
enum Dest {
    /// Standard output, through the standard library's handle (when its
    /// descriptor cannot be duplicated: see [`Output::stdout`]).
    Stdout,
    /// `-o OUT`, a file or a new name: the temporary file written (removed
    /// when dropped, unless renamed) and OUT, where it goes.
    Staged(NamedTempFile, PathBuf),
    /// `-o OUT` that is not a file (a device, a pipe): OUT itself, opened
    /// for writing; or standard output's descriptor, duplicated (the
    /// buffer writes through a clone of either: one file description, one
    /// offset).
    InPlace(fs::File),
}

/// Where a command's output goes.
pub struct Output {
    out: BufWriter<Box<dyn Write>>,
    dest: Dest,
    /// The staged file written to disk as it grows.
    syncer: Syncer,
    name: String,
    /// The first error writing (kept so that it is reported, once, as the output's).
    error: Option<io::Error>,
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Dest::Staged(temp, _) = &self.dest {
            pending(temp.path(), false);
        }
    }
}

/// Whether an existing OUT is written in place rather than replaced: it is
/// neither a file nor a directory (a character or block device, a named
/// pipe, a socket).
fn in_place(kind: fs::FileType) -> bool {
    !kind.is_file() && !kind.is_dir()
}

/// Creates a new file beside `dest`, named `.NAME.XXXXXX.tmp`.
fn create_beside(dest: &Path) -> io::Result<NamedTempFile> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = dest.file_name().unwrap_or("output".as_ref());
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // A new OUT gets a new file's permissions (0666 less the umask), not
    // the temporary file's private 0600; an existing OUT keeps its own
    // ([`Output::commit`]).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let temp = builder.tempfile_in(dir)?;
    // An interrupt from here on removes it.
    pending(temp.path(), true);
    Ok(temp)
}

/// Two handles of a duplicate of standard output's descriptor (one for
/// the buffer, one for [`Output::append`]), if it can be duplicated.
#[cfg(unix)]
fn stdout_descriptor() -> Option<(fs::File, fs::File)> {
    use std::os::fd::AsFd;
    let file = fs::File::from(io::stdout().as_fd().try_clone_to_owned().ok()?);
    let writer = file.try_clone().ok()?;
    Some((file, writer))
}

#[cfg(not(unix))]
fn stdout_descriptor() -> Option<(fs::File, fs::File)> {
    None
}

impl Output {
    /// Standard output, written through a duplicate of its descriptor, as
    /// an OUT that is not a file is: the standard library's handle is
    /// line-buffered, and reads every octet written to it for a line
    /// break, which a command writing a gigabyte pays for on its one
    /// writing thread (`gedcomx` of the 300 MB generated file to
    /// `/dev/null` through it was 16% slower than with `-o /dev/null`,
    /// and is now as fast). Through that
    /// handle only when there is no descriptor to duplicate (standard
    /// output closed, whose writes the handle ignores as before; not Unix).
    pub fn stdout() -> Output {
        let name = "<stdout>";
        match stdout_descriptor() {
            Some((file, writer)) => Output::new(Box::new(writer), Dest::InPlace(file), name),
            None => Output::new(Box::new(io::stdout().lock()), Dest::Stdout, name),
        }
    }

    fn new(out: Box<dyn Write>, dest: Dest, name: &str) -> Output {
        Output {
            out: BufWriter::with_capacity(1 << 16, out),
            dest,
            syncer: Syncer::new(),
            name: name.to_string(),
            error: None,
        }
    }

    /// Writes a command's output to standard output with `write`, and
    /// commits it.
    pub fn print(write: impl FnOnce(&mut Output) -> io::Result<()>) -> Result<(), Fail> {
        let mut out = Output::stdout();
        write(&mut out).map_err(|e| out.fail(e))?;
        out.commit()
    }

    /// `-o OUT` (`-` or none: standard output).
    pub fn create(path: Option<&str>) -> Result<Output, Fail> {
        let Some(path) = path.filter(|p| *p != "-") else {
            return Ok(Output::stdout());
        };
        // Beside the file OUT names, when OUT is a symbolic link.
        let dest = fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
        let cannot = |e: io::Error| {
            Fail::Output(
                path.into(),
                io::Error::new(e.kind(), format!("cannot create: {e}")),
            )
        };
        // `fs::metadata` follows links, `/dev/stdout`'s to a pipe among them
        // (which `canonicalize` cannot name).
        match fs::metadata(&dest).map(|m| m.file_type()) {
            Ok(kind) if kind.is_dir() => {
                let e = io::Error::new(io::ErrorKind::IsADirectory, "is a directory");
                return Err(Fail::Output(path.into(), e));
            }
            Ok(kind) if in_place(kind) => {
                let opened = fs::OpenOptions::new().write(true).open(&dest);
                let file = opened.map_err(cannot)?;
                let writer = file.try_clone().map_err(cannot)?;
                return Ok(Output::new(Box::new(writer), Dest::InPlace(file), path));
            }
            _ => {}
        }
        let temp = create_beside(&dest).map_err(cannot)?;
        let file = temp.as_file().try_clone().map_err(cannot)?;
        Ok(Output::new(Box::new(file), Dest::Staged(temp, dest), path))
    }

    /// Writes what `file` holds from its position on, after what was
    /// written before: copied by the kernel where it can (`std::io::copy`
    /// from a file to a file or to standard output), not through this
    /// output's buffer.
    pub fn append(&mut self, file: &mut fs::File) -> io::Result<()> {
        let flushed = self.out.flush();
        self.keep(flushed)?;
        let copied = match &mut self.dest {
            // The file written is the one the buffer writes to (one file
            // description, one offset).
            Dest::Staged(temp, _) => io::copy(file, &mut temp.as_file()),
            Dest::InPlace(out) => io::copy(file, out),
            Dest::Stdout => io::copy(file, &mut io::stdout().lock()),
        };
        let n = self.keep(copied)?;
        if let Dest::Staged(temp, _) = &self.dest {
            self.syncer
                .wrote(usize::try_from(n).unwrap_or(usize::MAX), temp.as_file());
        }
        Ok(())
    }

    /// The failure for a write error of this output.
    pub fn fail(&self, e: io::Error) -> Fail {
        Fail::Output(self.name.clone(), e)
    }

    /// Keeps the first error of `r`, for [`Output::check`].
    fn keep<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        if let (Err(e), None) = (&r, &self.error) {
            self.error = Some(io::Error::new(e.kind(), e.to_string()));
        }
        r
    }

    /// The first write error, if any, as a failure.
    pub fn check(&mut self) -> Result<(), Fail> {
        match self.error.take() {
            Some(e) => Err(self.fail(e)),
            None => Ok(()),
        }
    }

    /// Ends the output: flushes standard output or an OUT written in
    /// place, or puts OUT in place (flushed, synced, with the permissions
    /// OUT had, renamed over it).
    pub fn commit(mut self) -> Result<(), Fail> {
        self.check()?;
        let put = |out: &mut BufWriter<_>, dest: &mut Dest, syncer: &mut Syncer| {
            out.flush()?;
            syncer.stop();
            if let Dest::Staged(temp, dest) = dest {
                temp.as_file().sync_all()?;
                if let Ok(m) = fs::metadata(&dest) {
                    temp.as_file().set_permissions(m.permissions())?;
                }
                fs::rename(temp.path(), &dest)?;
                temp.disable_cleanup(true);
            }
            io::Result::Ok(())
        };
        put(&mut self.out, &mut self.dest, &mut self.syncer).map_err(|e| self.fail(e))
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.out.write(buf);
        if let (Ok(n), Dest::Staged(temp, _)) = (&r, &self.dest) {
            self.syncer.wrote(*n, temp.as_file());
        }
        self.keep(r)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let r = self.out.write_vectored(bufs);
        if let (Ok(n), Dest::Staged(temp, _)) = (&r, &self.dest) {
            self.syncer.wrote(*n, temp.as_file());
        }
        self.keep(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.out.flush();
        self.keep(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("gedcom-elf-output-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn leftovers(d: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_syncer_starts_at_its_threshold_and_stops() {
        let d = dir("sync");
        let file = fs::File::create(d.join("f")).unwrap();
        let mut syncer = Syncer::new();
        syncer.wrote(1, &file);
        assert!(syncer.thread.is_none());
        syncer.wrote(SYNC_EVERY as usize, &file);
        assert!(syncer.thread.is_some());
        syncer.stop();
        assert!(syncer.thread.is_none());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn out_is_replaced_only_on_commit() {
        let d = dir("commit");
        let out = d.join("out.ged");
        fs::write(&out, b"old").unwrap();
        let mut o = Output::create(out.to_str()).unwrap();
        o.write_all(b"new").unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"old");
        o.commit().unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"new");
        assert_eq!(leftovers(&d), ["out.ged"]);
    }

    #[cfg(unix)]
    #[test]
    fn only_what_is_neither_a_file_nor_a_directory_is_written_in_place() {
        let d = dir("kinds");
        let file = d.join("f");
        fs::write(&file, b"").unwrap();
        let kind = |p: &Path| fs::metadata(p).unwrap().file_type();
        assert!(!in_place(kind(&file)));
        assert!(!in_place(kind(&d)));
        // Only the null device's metadata is read here: nothing is written.
        assert!(in_place(kind(Path::new("/dev/null"))));
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_written_through_not_renamed_over() {
        use std::io::Read;
        use std::os::unix::fs::FileTypeExt;
        let d = dir("fifo");
        let fifo = d.join("out");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let mut reader = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        let mut o = Output::create(fifo.to_str()).unwrap();
        o.write_all(b"abc").unwrap();
        let mut spooled = tempfile::tempfile().unwrap();
        spooled.write_all(b"def").unwrap();
        io::Seek::rewind(&mut spooled).unwrap();
        o.append(&mut spooled).unwrap();
        o.write_all(b"g").unwrap();
        o.commit().unwrap();
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(leftovers(&d), ["out"]);
        let mut got = [0; 7];
        reader.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"abcdefg");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_dropped_output_leaves_out_and_no_temporary_file() {
        let d = dir("drop");
        let out = d.join("out.ged");
        fs::write(&out, b"old").unwrap();
        let mut o = Output::create(out.to_str()).unwrap();
        o.write_all(b"half").unwrap();
        drop(o);
        assert_eq!(fs::read(&out).unwrap(), b"old");
        assert_eq!(leftovers(&d), ["out.ged"]);
        assert!(!PENDING.lock().unwrap().iter().any(|p| p.starts_with(&d)));
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_a_new_files_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("newperm");
        let plain = d.join("plain");
        fs::File::create(&plain).unwrap();
        let out = d.join("out");
        let mut o = Output::create(Some(out.to_str().unwrap())).unwrap();
        o.write_all(b"x").unwrap();
        o.commit().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&out), mode(&plain));
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    #[cfg(unix)]
    fn permissions_are_kept_and_links_followed() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("perm");
        let target = d.join("target.ged");
        fs::write(&target, b"old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.join("link.ged");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut o = Output::create(link.to_str()).unwrap();
        o.write_all(b"new").unwrap();
        o.commit().unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }
}
