//! Checking a whole input: [`Checker::run`] over a stream of records,
//! [`Checker::run_chunks`] over a slice's chunks, the findings in line order.

use std::io::Read;

use super::checker::{RunError, Summary};
use super::inspect::{Inspection, Walk};
use super::{structure, Checker, Finding};
use crate::event::Event;
use crate::ordered::{grouped, map_in_order};
use crate::par::{first_record_reader, Chunks, Numbering};
use crate::tree::{RecordTree, Records, Schema, Tree};
use crate::Error;

impl Checker {
    /// Checks the input of `chunks` as [`Checker::run`] checks a stream of
    /// records, with the same findings in the same order: each chunk's
    /// records are inspected as its reader reads them (no tree is built)
    /// on one of the chunks' [`jobs`](Chunks::jobs) threads (this checker's own
    /// [`jobs`](Checker::jobs) do not count here), and the inspections are
    /// absorbed in document order on the calling thread. The fast way to
    /// check a file that is in memory (or mapped).
    ///
    /// ```
    /// use gedcom_elf::check::{CheckConfig, Checker};
    /// use gedcom_elf::par::Chunks;
    /// use gedcom_elf::{Input, ReaderConfig};
    ///
    /// let input = Input::new(b"0 HEAD\n1 CHAR UTF-8\n0 @F1@ FAM\n1 HUSB @F1@\n0 TRLR\n")?;
    /// let chunks = Chunks::new(&input, ReaderConfig::new())?.jobs(2);
    /// let mut found = Vec::new();
    /// Checker::new(CheckConfig::new()).run_chunks(chunks, |f| {
    ///     found.push((f.line, f.rule.id));
    ///     Ok::<(), std::convert::Infallible>(())
    /// }).unwrap();
    /// assert_eq!(found, [(4, "link.wrong-type")]);
    /// # Ok::<(), gedcom_elf::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Checker::run`].
    pub fn run_chunks<E, S>(
        mut self,
        chunks: Chunks<'_>,
        mut sink: S,
    ) -> Result<Summary, RunError<E>>
    where
        S: FnMut(&Finding) -> Result<(), E>,
    {
        let head = first_record_reader(chunks.first.clone());
        let schema = Schema::from_reader(chunks.first.clone()).map_err(RunError::Read)?;
        // The version, from the HEAD, before the chunks are read.
        // The HEAD is in the first chunk: the text of the rest is not
        // needed here (each chunk's tree finds its own, on its thread).
        let input = chunks.first.input();
        let text = crate::tree::utf8_prefix(input.get(chunks.range(0)).unwrap_or_default());
        let head_tree = Tree::build_with_schema(head, schema.clone()).map_err(RunError::Read)?;
        head_tree.note_utf8_prefix(text);
        if let Some(h) = head_tree.records().next() {
            self.version = structure::version_of(h);
        }
        self.started = true;
        let ranges: Vec<_> = (0..chunks.len()).map(|i| chunks.range(i)).collect();
        // Room for the records' facts: one record in 256 octets is more
        // than most files have (the generated ones: one in 320).
        self.reserve(input.len() / 256);
        let (config, groups, version) = (self.config.clone(), self.groups, self.version);
        self.jobs = chunks.jobs;
        let mut summary = Summary::default();
        let mut out = Out {
            held: Vec::new(),
            pending: Vec::new(),
        };
        let mut failed_sink = None;
        // Each chunk numbered from line 1 as it is read (no pass over the
        // input to count lines first), its inspection renumbered when its
        // turn comes to be absorbed.
        let result = chunks.run(
            Numbering::Relative,
            |i, reader, ds| {
                let mut found = Inspection::with_room(ranges[i].len());
                let mut walk = Walk::new(&config, groups, version, (i == 0).then_some(version));
                reader.feed(
                    |e| {
                        match e {
                            Event::Begin(b) => {
                                let (tag, xref, value) =
                                    (&b.tag, b.xref.as_ref(), b.value.as_ref());
                                walk.begin(&mut found, tag, xref, value, b.line);
                            }
                            Event::End(_) => walk.end(&mut found),
                        }
                        Ok(())
                    },
                    |d| ds.push(d),
                )?;
                Ok(found)
            },
            |mut found: Inspection, ds, off| {
                found.shift_lines(off);
                out.pending
                    .extend(ds.iter().filter_map(|d| self.diagnostic(d)));
                if let Err(e) = out.absorb(&mut self, found, &mut summary, &mut sink) {
                    failed_sink = Some(e);
                    return Err(Error::from(std::io::Error::other("the sink failed")));
                }
                Ok(())
            },
        );
        if let Some(e) = failed_sink {
            return Err(e);
        }
        let failed = match result {
            Ok(end) => {
                out.pending
                    .extend(end.diagnostics.iter().filter_map(|d| self.diagnostic(d)));
                None
            }
            Err(e) => Some(e),
        };
        self.end(out, failed, summary, &mut sink)
    }

    /// Gives what is held and pending and, unless reading failed, the
    /// findings of [`Checker::finish`].
    fn end<E, S>(
        self,
        mut out: Out,
        failed: Option<Error>,
        mut summary: Summary,
        sink: &mut S,
    ) -> Result<Summary, RunError<E>>
    where
        S: FnMut(&Finding) -> Result<(), E>,
    {
        summary.records = self.records;
        let mut rest = std::mem::take(&mut out.held);
        rest.append(&mut out.pending);
        if failed.is_none() {
            self.finish_unsorted(&mut rest);
        }
        give(&mut rest, &mut summary, sink)?;
        match failed {
            Some(e) => Err(RunError::Read(e)),
            None => Ok(summary),
        }
    }

    /// Inspects the records after the HEAD on `jobs` threads in
    /// [`Checker::run`] (default 1: on the calling thread), in groups of
    /// about 64 KiB of records; what they find is absorbed in document
    /// order, so the findings are the same at every number of jobs.
    pub fn jobs(mut self, jobs: usize) -> Checker {
        self.jobs = jobs.max(1);
        self
    }

    /// Checks every record of `records` and gives every finding to `sink`
    /// in line order: each record's findings and the reader's diagnostics
    /// as the records come (one record behind, so that the diagnostics of
    /// a record's lines come with it), then those of [`Checker::finish`].
    /// The same findings in the same order at every number of
    /// [`jobs`](Checker::jobs), of the records' [`jobs`](Records::jobs) and
    /// of their [`batch_bytes`](Records::batch_bytes).
    ///
    /// # Errors
    /// [`RunError::Read`]: reading failed (the findings of what was read
    /// before were given); [`RunError::Sink`]: `sink` failed.
    pub fn run<R, E, S>(
        mut self,
        records: &mut Records<R>,
        mut sink: S,
    ) -> Result<Summary, RunError<E>>
    where
        R: Read,
        S: FnMut(&Finding) -> Result<(), E>,
    {
        let mut summary = Summary::default();
        let mut out = Out {
            held: Vec::new(),
            pending: Vec::new(),
        };
        let mut failed = None;
        let next = |records: &mut Records<R>, out: &mut Out, checker: &Checker| {
            let next = records.next();
            let ds = records.drain_diagnostics();
            out.pending
                .extend(ds.filter_map(|d| checker.diagnostic(&d)));
            next
        };
        // The HEAD (or whatever comes first) here: it decides the version.
        match next(records, &mut out, &self) {
            Some(Ok(head)) => {
                let inspection = self.inspect(head.root());
                out.absorb(&mut self, inspection, &mut summary, &mut sink)?;
            }
            Some(Err(e)) => failed = Some(e),
            None => {}
        }
        let (config, groups, version) = (self.config.clone(), self.groups, self.version);
        // Each group's records inspected on a thread; the reader's
        // diagnostics read with them pass through, to be absorbed with them.
        let work = move |group: Vec<(RecordTree, Vec<crate::Diagnostic>)>| {
            let mut found = Inspection::default();
            // One walk for the group's records: its buffers reused.
            let mut walk = Walk::new(&config, groups, version, None);
            for (r, _) in &group {
                walk.record(&mut found, r.root());
            }
            drop(walk);
            let diagnostics: Vec<crate::Diagnostic> =
                group.into_iter().flat_map(|(_, ds)| ds).collect();
            (found, diagnostics)
        };
        // The records after the first, until the end or a reading error
        // (given after the findings of the records before it).
        let rest = std::iter::from_fn(|| {
            if failed.is_some() {
                return None;
            }
            match records.next()? {
                Ok(r) => Some((r, records.drain_diagnostics().collect::<Vec<_>>())),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            }
        });
        let groups = grouped(rest, GROUP, |(r, _): &(RecordTree, _)| r.bytes().len());
        map_in_order(self.jobs, groups, work, |(inspection, ds)| {
            out.pending
                .extend(ds.iter().filter_map(|d| self.diagnostic(d)));
            out.absorb(&mut self, inspection, &mut summary, &mut sink)
        })?;
        out.pending.extend(
            records
                .drain_diagnostics()
                .filter_map(|d| self.diagnostic(&d)),
        );
        summary.records = self.records;
        let mut rest = std::mem::take(&mut out.held);
        rest.append(&mut out.pending);
        if failed.is_none() {
            self.finish_unsorted(&mut rest);
        }
        give(&mut rest, &mut summary, &mut sink)?;
        match failed {
            Some(e) => Err(RunError::Read(e)),
            None => Ok(summary),
        }
    }
}

/// Bytes of records inspected together on a thread.
const GROUP: usize = 64 << 10;

/// The findings on their way to the sink in [`Checker::run`].
struct Out {
    /// The last record's findings, held until the next record comes.
    held: Vec<Finding>,
    /// The reader's diagnostics not given yet.
    pending: Vec<Finding>,
}

impl Out {
    /// Absorbs the records of `inspection` one by one, giving before each
    /// the findings held and the diagnostics before its first line (its
    /// own findings are held until the next record's turn).
    fn absorb<E, S>(
        &mut self,
        checker: &mut Checker,
        inspection: Inspection,
        summary: &mut Summary,
        sink: &mut S,
    ) -> Result<(), RunError<E>>
    where
        S: FnMut(&Finding) -> Result<(), E>,
    {
        let mut findings = inspection.findings.into_iter();
        let parts = Inspection {
            findings: Vec::new(),
            ..inspection
        };
        std::hint::black_box(checker.warm(&parts));
        for (i, r) in parts.records.iter().enumerate() {
            let line = r.line;
            if !self.pending.is_empty() {
                let (now, later): (Vec<_>, Vec<_>) = self
                    .pending
                    .drain(..)
                    .partition(|f: &Finding| f.line < line);
                self.pending = later;
                let mut now = now;
                now.append(&mut self.held);
                give(&mut now, summary, sink)?;
            } else if !self.held.is_empty() {
                give(&mut self.held, summary, sink)?;
            }
            checker.absorb_record(&parts, i, &mut findings, &mut self.held);
        }
        checker.keep(parts);
        Ok(())
    }
}

/// Gives `list`'s findings to `sink` in line order (stable: a diagnostic
/// before a finding of the same line), counting them.
fn give<E, S>(
    list: &mut Vec<Finding>,
    summary: &mut Summary,
    sink: &mut S,
) -> Result<(), RunError<E>>
where
    S: FnMut(&Finding) -> Result<(), E>,
{
    // Sorted as keys, not as findings: a finding is a large value, and
    // there may be hundreds of thousands (the index keeps equal lines in
    // their order).
    let mut order: Vec<(u64, u32)> = (0..list.len() as u32)
        .map(|i| (list[i as usize].line, i))
        .collect();
    order.sort_unstable();
    for (_, i) in order {
        let f = &list[i as usize];
        summary.count(f);
        sink(f).map_err(RunError::Sink)?;
    }
    // Hundreds of thousands of findings (at the end) are freed on a
    // thread of their own: nobody waits for it.
    if list.len() > super::checker::LARGE {
        super::checker::drop_elsewhere(std::mem::take(list), true);
    }
    list.clear();
    Ok(())
}
