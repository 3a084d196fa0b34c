//! Deterministic generator of realistic GEDCOM 5.5.1 test data.
//!
//! The output is UTF-8 with LF line endings, starts with a `HEAD` that
//! declares `1 CHAR UTF-8` and ends with `0 TRLR`. Between them come a
//! submitter, the individuals, their families, shared notes, sources and
//! repositories, roughly in the order and proportions that desktop genealogy
//! programs export them. Everything is a pure function of the arguments: the
//! same `individuals` and `seed` always give the same bytes.
//!
//! The data exercises a reader the way real files do: record xrefs, pointers,
//! non-ASCII names and places, `@#DJULIAN@` date escapes, date modifiers and
//! ranges, multi-line notes (`CONT`) and long lines split mid-word (`CONC`),
//! `@@` escapes in e-mail addresses and underscore-prefixed custom tags.
//!
//! This module depends on `std` only, so that benches, examples and tests can
//! all include it with `#[path = ...] mod generate;`.

// Each includer uses a different subset of this module.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{self, Write};

/// Counts of what one call to [`generate`] or [`generate_bytes`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GenStats {
    /// Bytes written.
    pub bytes: u64,
    /// Physical lines written; every line, the last included, ends in LF.
    pub lines: u64,
    /// Lines that are not `CONT`/`CONC` continuation lines, i.e. the number
    /// of structures, which is the number of Begin events a reader reports.
    pub structures: u64,
    /// Level-0 structures, `HEAD` and `TRLR` included.
    pub records: u64,
}

/// Write a realistic GEDCOM 5.5.1 UTF-8 file (LF endings, HEAD with
/// `1 CHAR UTF-8`, TRLR) describing `individuals` people (plus families and
/// sources in sensible proportion), fully determined by `seed`.
///
/// The returned [`GenStats`] counts exactly what was written to `out`.
/// Output is buffered internally in blocks of about 64 KiB, so `out` need
/// not be buffered. Fails with `InvalidInput` for `u32::MAX` or more
/// individuals, and with whatever error `out` reports.
pub fn generate<W: Write>(individuals: u64, seed: u64, out: &mut W) -> io::Result<GenStats> {
    let plan = Plan::build(individuals, seed)?;
    let mut g = Generator {
        em: Emitter::new(out),
        seed,
        n_indi: individuals,
        n_sour: individuals / 25 + 1,
        n_repo: individuals / 200 + 1,
        n_note: individuals / 60 + 1,
        text: String::with_capacity(1024),
        scratch: String::with_capacity(256),
    };
    g.header()?;
    g.submitter()?;
    for id in 1..=individuals {
        g.individual(id, &plan)?;
    }
    for (i, fam) in plan.families.iter().enumerate() {
        g.family(i as u64 + 1, fam, &plan)?;
    }
    for id in 1..=g.n_note {
        g.note_record(id)?;
    }
    for id in 1..=g.n_sour {
        g.source(id)?;
    }
    for id in 1..=g.n_repo {
        g.repository(id)?;
    }
    g.em.line(0, "TRLR", "")?;
    g.em.finish()
}

/// Convenience: generate until at least `target_bytes` have been written.
///
/// Picks the number of individuals from a small calibration run, checks the
/// exact size with counting-only dry runs (which write nothing) and then
/// writes a file that reaches `target_bytes`. The output is therefore a
/// little larger than asked (about 0.1% at most for large targets) and is
/// exactly what [`generate`] writes for the chosen individual count.
pub fn generate_bytes<W: Write>(target_bytes: u64, seed: u64, out: &mut W) -> io::Result<GenStats> {
    let individuals = individuals_for_bytes(target_bytes, seed)?;
    generate(individuals, seed, out)
}

/// The number of individuals for which [`generate`] with `seed` writes at
/// least `target_bytes` bytes, and for large targets at most about 0.1%
/// more (not necessarily the smallest such number).
pub fn individuals_for_bytes(target_bytes: u64, seed: u64) -> io::Result<u64> {
    const SAMPLE: u64 = 2_000;
    let size = |n: u64| generate(n, seed, &mut io::sink()).map(|s| s.bytes);
    let sample = size(SAMPLE)?;
    if sample >= target_bytes {
        // Small targets: walk up from zero in growing steps.
        let mut n = 0;
        while size(n)? < target_bytes {
            n += 1 + n / 8;
        }
        return Ok(n);
    }
    // Secant steps between a count known to be too small and one known to
    // be large enough; bytes grow almost linearly with the count.
    let tolerance = target_bytes / 1000 + 4096;
    let mut low = SAMPLE;
    let mut high: Option<u64> = None;
    let mut n = (target_bytes as f64 * SAMPLE as f64 / sample as f64).ceil() as u64;
    for _ in 0..12 {
        let got = size(n)?;
        if got >= target_bytes {
            if got - target_bytes <= tolerance {
                return Ok(n);
            }
            high = Some(n);
        } else {
            low = n;
        }
        let guess = (n as f64 * target_bytes as f64 / got as f64).ceil() as u64;
        n = match high {
            Some(h) if h - low <= 1 => return Ok(h),
            Some(h) => guess.clamp(low + 1, h - 1),
            None => guess.max(low + 1 + low / 1000),
        };
    }
    // Rarely reached: settle for the closest count known to be enough.
    match high {
        Some(h) => Ok(h),
        None => {
            let mut n = low + 1;
            while size(n)? < target_bytes {
                n += 1 + n / 100;
            }
            Ok(n)
        }
    }
}

// ---------------------------------------------------------------------------
// Random numbers: splitmix64 to derive seeds, xorshift64* for streams.

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        let s = splitmix64(seed);
        Rng(if s == 0 { 0x2545_F491_4F6C_DD1D } else { s })
    }

    /// Independent stream for one record, so that records do not depend on
    /// how much randomness earlier records consumed.
    fn for_record(seed: u64, kind: u8, id: u64) -> Self {
        Rng::new(splitmix64(seed) ^ splitmix64((u64::from(kind) << 56) ^ id))
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------
// The family plan: who is whose child and spouse.

const FEMALE: u16 = 1;

#[derive(Clone, Copy)]
struct Fam {
    husb: u32,
    wife: u32,
    first_child: u32,
    children: u32,
}

/// Family structure for all individuals, built before anything is written
/// because an individual's `FAMS` pointer is known only once a later family
/// takes them as a spouse.
struct Plan {
    /// Per individual (index = id, 0 unused): family as child, 0 = none.
    famc: Vec<u32>,
    /// Per individual: family as spouse, 0 = none.
    fams: Vec<u32>,
    /// Per individual: bit 0 female, the rest the generation number.
    info: Vec<u16>,
    families: Vec<Fam>,
}

impl Plan {
    fn build(individuals: u64, seed: u64) -> io::Result<Plan> {
        let n = u32::try_from(individuals)
            .ok()
            .filter(|&n| n < u32::MAX)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "too many individuals"))?;
        let len = n as usize + 1;
        let mut plan = Plan {
            famc: vec![0; len],
            fams: vec![0; len],
            info: vec![0; len],
            families: Vec::with_capacity(len / 3 + 1),
        };
        let mut rng = Rng::new(seed ^ 0x706C_616E);
        // Unmarried sons and daughters waiting for a spouse, oldest first.
        let mut sons: VecDeque<u32> = VecDeque::new();
        let mut daughters: VecDeque<u32> = VecDeque::new();
        let mut next: u32 = 1;
        let mut alloc = |info: &mut [u16], female: bool, generation: u16| {
            let id = next;
            next += 1;
            info[id as usize] = u16::from(female) | (generation << 1);
            id
        };
        let mut allocated = 0u32;
        while allocated < n {
            let fam_id = plan.families.len() as u32 + 1;
            let husb = if !sons.is_empty() && rng.chance(60) {
                sons.pop_front().unwrap_or(0)
            } else {
                allocated += 1;
                alloc(&mut plan.info, false, 0)
            };
            let husb_gen = plan.info[husb as usize] >> 1;
            // A few families have no known wife.
            let wife = if rng.chance(3) {
                0
            } else if !daughters.is_empty() && rng.chance(45) {
                daughters.pop_front().unwrap_or(0)
            } else if allocated < n {
                allocated += 1;
                alloc(&mut plan.info, true, husb_gen)
            } else {
                0
            };
            let generation = (husb_gen + 1).min(0x7FFF);
            let wanted = [0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6][rng.below(14) as usize];
            let first_child = allocated + 1;
            let mut children = 0;
            while children < wanted && allocated < n {
                let female = rng.chance(49);
                allocated += 1;
                let id = alloc(&mut plan.info, female, generation);
                if female {
                    daughters.push_back(id);
                } else {
                    sons.push_back(id);
                }
                children += 1;
            }
            for spouse in [husb, wife] {
                if spouse != 0 {
                    plan.fams[spouse as usize] = fam_id;
                }
            }
            for child in first_child..first_child + children {
                plan.famc[child as usize] = fam_id;
            }
            plan.families.push(Fam {
                husb,
                wife,
                first_child,
                children,
            });
        }
        Ok(plan)
    }

    fn female(&self, id: u64) -> bool {
        self.info[id as usize] & FEMALE != 0
    }

    fn generation(&self, id: u64) -> u64 {
        u64::from(self.info[id as usize] >> 1)
    }
}

/// Birth year of an individual: generations are 27 years apart and wrap
/// around every 18 generations so that large files keep historic dates.
fn birth_year(plan: &Plan, seed: u64, id: u64) -> u64 {
    1500 + (plan.generation(id) % 18) * 27 + splitmix64(seed ^ id) % 9
}

// ---------------------------------------------------------------------------
// Line output with exact counting.

/// Buffers lines, counts them and writes them to the sink in large blocks.
struct Emitter<'w, W: Write> {
    out: &'w mut W,
    buf: Vec<u8>,
    stats: GenStats,
}

const FLUSH_AT: usize = 64 * 1024;

impl<'w, W: Write> Emitter<'w, W> {
    fn new(out: &'w mut W) -> Self {
        Emitter {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            stats: GenStats::default(),
        }
    }

    fn push_u64(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.buf.extend_from_slice(&digits[i..]);
    }

    fn start(&mut self, level: u8, xref: Option<(u8, u64)>, tag: &str) {
        self.push_u64(u64::from(level));
        self.buf.push(b' ');
        if let Some((prefix, id)) = xref {
            self.buf.push(b'@');
            self.buf.push(prefix);
            self.push_u64(id);
            self.buf.extend_from_slice(b"@ ");
        }
        self.buf.extend_from_slice(tag.as_bytes());
    }

    fn end(&mut self, level: u8, tag: &str) -> io::Result<()> {
        self.buf.push(b'\n');
        self.stats.lines += 1;
        if tag != "CONT" && tag != "CONC" {
            self.stats.structures += 1;
        }
        if level == 0 {
            self.stats.records += 1;
        }
        if self.buf.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.stats.bytes += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// `LEVEL TAG[ payload]`; an empty payload writes no payload.
    fn line(&mut self, level: u8, tag: &str, payload: &str) -> io::Result<()> {
        self.start(level, None, tag);
        if !payload.is_empty() {
            self.buf.push(b' ');
            self.buf.extend_from_slice(payload.as_bytes());
        }
        self.end(level, tag)
    }

    /// `0 @<prefix><id>@ TAG`.
    fn record(&mut self, prefix: u8, id: u64, tag: &str) -> io::Result<()> {
        self.start(0, Some((prefix, id)), tag);
        self.end(0, tag)
    }

    /// `LEVEL TAG @<prefix><id>@`.
    fn pointer(&mut self, level: u8, tag: &str, prefix: u8, id: u64) -> io::Result<()> {
        self.start(level, None, tag);
        self.buf.extend_from_slice(b" @");
        self.buf.push(prefix);
        self.push_u64(id);
        self.buf.push(b'@');
        self.end(level, tag)
    }

    /// A text value over several lines: paragraphs (separated by `\n` in
    /// `text`) after the first go to `CONT` lines one level down, and a
    /// paragraph longer than `width` bytes is cut into `CONC` lines. Cuts
    /// fall inside words, never next to a space, and on character
    /// boundaries, so joining the `CONC` parts restores the paragraph.
    fn text(
        &mut self,
        level: u8,
        xref: Option<(u8, u64)>,
        tag: &str,
        text: &str,
        width: usize,
    ) -> io::Result<()> {
        for (i, para) in text.split('\n').enumerate() {
            let mut rest = para;
            let mut first_chunk = true;
            loop {
                let (chunk, tail) = split_chunk(rest, width);
                let (lvl, xr, t) = match (i, first_chunk) {
                    (0, true) => (level, xref, tag),
                    (_, true) => (level + 1, None, "CONT"),
                    _ => (level + 1, None, "CONC"),
                };
                self.start(lvl, xr, t);
                if !chunk.is_empty() {
                    self.buf.push(b' ');
                    self.buf.extend_from_slice(chunk.as_bytes());
                }
                self.end(lvl, t)?;
                first_chunk = false;
                rest = tail;
                if rest.is_empty() {
                    break;
                }
            }
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<GenStats> {
        self.flush()?;
        self.out.flush()?;
        Ok(self.stats)
    }
}

/// Splits `s` into a head of at most `width` bytes (if possible) and the
/// rest, cutting between two non-space characters.
fn split_chunk(s: &str, width: usize) -> (&str, &str) {
    if s.len() <= width {
        return (s, "");
    }
    let bytes = s.as_bytes();
    let mut cut = width;
    while cut > 1 {
        if s.is_char_boundary(cut) && bytes[cut - 1] != b' ' && bytes[cut] != b' ' {
            return s.split_at(cut);
        }
        cut -= 1;
    }
    // No usable cut within the width: take the first word boundary after it.
    let mut cut = width + 1;
    while cut < s.len() {
        if s.is_char_boundary(cut) && bytes[cut - 1] != b' ' && bytes[cut] != b' ' {
            return s.split_at(cut);
        }
        cut += 1;
    }
    (s, "")
}

// ---------------------------------------------------------------------------
// Vocabulary.

const SURNAMES: &[&str] = &[
    "Müller",
    "Schmidt",
    "Schröder",
    "Weiß",
    "Ødegård",
    "Åberg",
    "Ñúñez",
    "García",
    "Fernández",
    "Kowalski",
    "Łukasiewicz",
    "Wiśniewski",
    "Nowak",
    "Иванов",
    "Смирнов",
    "Кузнецов",
    "李",
    "王",
    "张",
    "Nguyễn",
    "Trần",
    "O'Brien",
    "Murphy",
    "Smith",
    "Johnson",
    "Brown",
    "Taylor",
    "Dubois",
    "Lefèvre",
    "Girard",
    "Jansen",
    "de Vries",
    "van den Berg",
    "Andersson",
    "Johansson",
    "Nielsen",
    "Sørensen",
    "Đorđević",
    "Novák",
    "Dvořák",
    "Yılmaz",
    "Şahin",
    "Παπαδόπουλος",
    "Kovács",
    "Szabó",
    "Virtanen",
    "Mäkinen",
    "Jónsson",
    "Rossi",
    "Esposito",
];

const MALE: &[&str] = &[
    "Jan",
    "Johann",
    "Jürgen",
    "Søren",
    "Iñigo",
    "José",
    "François",
    "Łukasz",
    "Иван",
    "Алексей",
    "伟",
    "明",
    "Minh",
    "Seán",
    "Patrick",
    "John",
    "William",
    "Thomas",
    "Pieter",
    "Lars",
    "Olav",
    "Ömer",
    "Jiří",
    "Δημήτριος",
    "Björn",
    "Mehmet",
    "Gábor",
    "Matti",
    "Giovanni",
    "Carl",
];

const FEMALE_NAMES: &[&str] = &[
    "Anna",
    "Maria",
    "Zoë",
    "Anaïs",
    "Ágnes",
    "Björk",
    "Małgorzata",
    "Ольга",
    "Наталья",
    "芳",
    "丽",
    "Linh",
    "Siobhán",
    "Mary",
    "Elizabeth",
    "Margarethe",
    "Ingrid",
    "Sigrid",
    "Ayşe",
    "Ελένη",
    "Kateřina",
    "Éva",
    "Aino",
    "Guðrún",
    "Inés",
    "Carmen",
    "Giulia",
    "Karin",
];

const PLACES: &[&str] = &[
    "Łódź, Łódzkie, Polska",
    "Kraków, Małopolskie, Polska",
    "Москва, Россия",
    "Санкт-Петербург, Россия",
    "München, Bayern, Deutschland",
    "Köln, Nordrhein-Westfalen, Deutschland",
    "Bergen, Hordaland, Norge",
    "Ålesund, Møre og Romsdal, Norge",
    "Göteborg, Västra Götaland, Sverige",
    "København, Danmark",
    "Reykjavík, Ísland",
    "Zürich, Schweiz",
    "Praha, Čechy",
    "Brno, Morava",
    "Sevilla, Andalucía, España",
    "A Coruña, Galicia, España",
    "São Paulo, Brasil",
    "Lyon, Rhône, France",
    "Besançon, Doubs, France",
    "Dublin, Ireland",
    "Cork, Munster, Ireland",
    "Boston, Suffolk, Massachusetts, USA",
    "Springfield, Sangamon, Illinois, USA",
    "York, Yorkshire, England",
    "Amsterdam, Noord-Holland, Nederland",
    "Groningen, Nederland",
    "Helsinki, Suomi",
    "İstanbul, Türkiye",
    "Θεσσαλονίκη, Ελλάδα",
    "Budapest, Magyarország",
    "北京, 中国",
    "Hà Nội, Việt Nam",
    "Napoli, Campania, Italia",
];

const OCCUPATIONS: &[&str] = &[
    "Farmer",
    "Blacksmith",
    "Weaver",
    "Schneider",
    "Lehrer",
    "Bäcker",
    "Fisker",
    "Miner",
    "Merchant",
    "Priest",
    "Carpenter",
    "Zimmermann",
    "Shoemaker",
    "Rolnik",
    "Крестьянин",
    "Sjømann",
    "Labourer",
    "Domestic servant",
    "Tkacz",
    "Cordonnier",
    "Vinaio",
    "Schoolmaster",
    "Tailor",
    "Innkeeper",
    "Мещанин",
];

const CAUSES: &[&str] = &[
    "Tuberculosis",
    "Typhus",
    "Old age",
    "Childbirth",
    "Cholera",
    "Drowned",
    "Pneumonia",
    "Altersschwäche",
];

const SENTENCES: &[&str] = &[
    "He emigrated with his brother and settled near the river.",
    "The baptism was witnessed by the godparents named in the register.",
    "Nach dem Tod seines Vaters übernahm er den Hof in der Nähe der Mühle.",
    "Służył w wojsku przez siedem lat, a potem wrócił do Łodzi.",
    "По словам семьи, он родился в деревне под Москвой.",
    "Hun flyttet til byen for å arbeide som tjenestepike hos en kjøpmann.",
    "Según el padrón municipal vivían en la calle Mayor número doce.",
    "The census lists the household with three lodgers and a servant.",
    "Il a épousé en secondes noces une veuve originaire de Besançon.",
    "Spelling of the surname varies between records and transcriptions.",
    "Family tradition holds that the farm had been in the family since the Thirty Years' War.",
    "Witnesses at the marriage were neighbours from the same parish.",
    "家谱记载他早年随父迁居北方。",
    "The entry in the burial register is partly illegible due to water damage.",
    "Dopo la guerra la famiglia si trasferì a Napoli in cerca di lavoro.",
    "Ο γάμος τελέστηκε στην εκκλησία του χωριού.",
    "Died in the epidemic that struck the district that winter.",
    "Source transcribed from a microfilm copy; original not consulted.",
];

const SOURCE_TITLES: &[&str] = &[
    "Kirchenbuch der evangelischen Gemeinde St. Marien",
    "Parish register of St. Mary",
    "Census of England and Wales",
    "Метрическая книга Успенской церкви",
    "Folketelling for Bergen",
    "Registro civil de Sevilla",
    "Księga metrykalna parafii św. Stanisława",
    "Registres paroissiaux de Besançon",
    "Massachusetts Vital Records",
    "Burgerlijke Stand Groningen",
    "Husförhörslängd för Göteborgs domkyrkoförsamling",
    "族谱",
];

const AUTHORS: &[&str] = &[
    "Evangelische Kirchengemeinde",
    "Church of England",
    "General Register Office",
    "Statistisk sentralbyrå",
    "Ayuntamiento de Sevilla",
    "Parafia rzymskokatolicka",
    "Archives départementales du Doubs",
    "Commonwealth of Massachusetts",
    "Духовная консистория",
];

const PUBLISHERS: &[&str] = &[
    "Warszawa: Archiwum Główne Akt Dawnych, 1901",
    "London: HMSO, 1853",
    "Oslo: Riksarkivet, 1968",
    "Salt Lake City: Genealogical Society, 1974",
    "Besançon: Imprimerie Jacquin, 1889",
    "Москва: Типография Синода, 1897",
    "Boston: New England Historic Genealogical Society, 1911",
];

const REPOSITORIES: &[&str] = &[
    "Archiwum Państwowe w Łodzi",
    "National Archives of Ireland",
    "Riksarkivet",
    "Центральный государственный архив",
    "Archivo General de Indias",
    "Stadtarchiv München",
    "The National Archives, Kew",
    "Arkivverket Bergen",
];

const STREETS: &[&str] = &[
    "ul. Piotrkowska 104",
    "Bishop Street 8",
    "Fürstenfelder Straße 12",
    "Avenida de la Constitución 3",
    "Маросейка 17",
    "Årstadveien 22",
];

const MONTHS: &[&str] = &[
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

const HEX: &[u8; 16] = b"0123456789ABCDEF";

// Record kinds, for per-record random streams.
const K_INDI: u8 = 1;
const K_FAM: u8 = 2;
const K_SOUR: u8 = 3;
const K_REPO: u8 = 4;
const K_NOTE: u8 = 5;

// ---------------------------------------------------------------------------
// Records.

struct Generator<'w, W: Write> {
    em: Emitter<'w, W>,
    seed: u64,
    n_indi: u64,
    n_sour: u64,
    n_repo: u64,
    n_note: u64,
    /// Reused buffer for long texts.
    text: String,
    /// Reused buffer for short payloads.
    scratch: String,
}

/// Appends a decimal number to a string.
fn push_num(s: &mut String, v: u64) {
    use std::fmt::Write as _;
    let _ = write!(s, "{v}");
}

/// Appends a date phrase for around `year`: mostly exact dates (Julian ones
/// before 1752 sometimes marked with the `@#DJULIAN@` escape), also partial
/// dates, `ABT`/`BEF`/`AFT`/`EST` and `BET … AND …` ranges.
fn push_date(s: &mut String, rng: &mut Rng, year: u64) {
    let month = rng.pick(MONTHS);
    let day = rng.range(1, 28);
    match rng.below(100) {
        0..=54 => {
            if year < 1752 && rng.chance(40) {
                s.push_str("@#DJULIAN@ ");
            }
            push_num(s, day);
            s.push(' ');
            s.push_str(month);
            s.push(' ');
            push_num(s, year);
        }
        55..=64 => {
            s.push_str(month);
            s.push(' ');
            push_num(s, year);
        }
        65..=74 => push_num(s, year),
        75..=82 => {
            s.push_str("ABT ");
            push_num(s, year);
        }
        83..=87 => {
            s.push_str("BEF ");
            push_num(s, year);
        }
        88..=91 => {
            s.push_str("AFT ");
            push_num(s, year);
        }
        92..=96 => {
            s.push_str("BET ");
            push_num(s, year);
            s.push_str(" AND ");
            push_num(s, year + rng.range(1, 10));
        }
        _ => {
            s.push_str("EST ");
            push_num(s, year);
        }
    }
}

/// Fills `s` with a note of one to four paragraphs, sometimes with a blank
/// line between paragraphs.
fn fill_note(s: &mut String, rng: &mut Rng) {
    s.clear();
    let paragraphs = rng.range(1, 4);
    for p in 0..paragraphs {
        if p > 0 {
            s.push('\n');
            if rng.chance(20) {
                s.push('\n');
            }
        }
        let mut previous = usize::MAX;
        for k in 0..rng.range(1, 3) {
            if k > 0 {
                s.push(' ');
            }
            // Never the same sentence twice in a row.
            let mut i = rng.below(SENTENCES.len() as u64) as usize;
            if i == previous {
                i = (i + 1) % SENTENCES.len();
            }
            previous = i;
            s.push_str(SENTENCES[i]);
        }
    }
}

impl<W: Write> Generator<'_, W> {
    fn date_line(&mut self, level: u8, rng: &mut Rng, year: u64) -> io::Result<()> {
        self.scratch.clear();
        push_date(&mut self.scratch, rng, year);
        self.em.line(level, "DATE", &self.scratch)
    }

    /// `1 CHAN` / `2 DATE` / `3 TIME` as most programs write it.
    fn change(&mut self, rng: &mut Rng) -> io::Result<()> {
        self.em.line(1, "CHAN", "")?;
        self.scratch.clear();
        push_num(&mut self.scratch, rng.range(1, 28));
        self.scratch.push(' ');
        self.scratch.push_str(rng.pick(MONTHS));
        self.scratch.push(' ');
        push_num(&mut self.scratch, rng.range(2001, 2024));
        self.em.line(2, "DATE", &self.scratch)?;
        let (h, m, sec) = (rng.below(24), rng.below(60), rng.below(60));
        self.scratch.clear();
        for (i, v) in [h, m, sec].into_iter().enumerate() {
            if i > 0 {
                self.scratch.push(':');
            }
            if v < 10 {
                self.scratch.push('0');
            }
            push_num(&mut self.scratch, v);
        }
        self.em.line(3, "TIME", &self.scratch)
    }

    /// `1 _UID` with 32 upper-case hex digits.
    fn uid(&mut self, rng: &mut Rng) -> io::Result<()> {
        self.scratch.clear();
        for _ in 0..2 {
            let v = rng.next_u64();
            for i in (0..16).rev() {
                self.scratch
                    .push(HEX[((v >> (i * 4)) & 15) as usize] as char);
            }
        }
        self.em.line(1, "_UID", &self.scratch)
    }

    fn event(&mut self, tag: &str, rng: &mut Rng, year: u64) -> io::Result<()> {
        self.em.line(1, tag, "")?;
        if rng.chance(92) {
            self.date_line(2, rng, year)?;
        }
        if rng.chance(80) {
            self.em.line(2, "PLAC", rng.pick(PLACES))?;
        }
        if rng.chance(30) {
            self.citation(2, rng)?;
        }
        Ok(())
    }

    fn citation(&mut self, level: u8, rng: &mut Rng) -> io::Result<()> {
        let s = rng.range(1, self.n_sour);
        self.em.pointer(level, "SOUR", b'S', s)?;
        if rng.chance(60) {
            self.scratch.clear();
            self.scratch
                .push_str(if rng.chance(50) { "p. " } else { "fol. " });
            push_num(&mut self.scratch, rng.range(1, 400));
            self.em.line(level + 1, "PAGE", &self.scratch)?;
        }
        if rng.chance(20) {
            self.scratch.clear();
            push_num(&mut self.scratch, rng.below(4));
            self.em.line(level + 1, "QUAY", &self.scratch)?;
        }
        Ok(())
    }

    fn header(&mut self) -> io::Result<()> {
        let em = &mut self.em;
        em.line(0, "HEAD", "")?;
        em.line(1, "SOUR", "GEDCOM_ELF_GEN")?;
        em.line(2, "VERS", "1.0")?;
        em.line(2, "NAME", "gedcom-elf test data generator")?;
        em.line(1, "DEST", "ANSTFILE")?;
        em.line(1, "DATE", "1 JAN 2024")?;
        em.line(2, "TIME", "12:00:00")?;
        em.pointer(1, "SUBM", b'U', 1)?;
        em.line(1, "FILE", "generated.ged")?;
        em.line(1, "COPR", "Synthetic data; any resemblance is coincidental")?;
        em.line(1, "GEDC", "")?;
        em.line(2, "VERS", "5.5.1")?;
        em.line(2, "FORM", "LINEAGE-LINKED")?;
        em.line(1, "CHAR", "UTF-8")?;
        em.line(1, "LANG", "English")?;
        self.scratch.clear();
        self.scratch.push_str("seed ");
        push_num(&mut self.scratch, self.seed);
        self.scratch.push_str(", ");
        push_num(&mut self.scratch, self.n_indi);
        self.scratch.push_str(" individuals");
        self.em.line(1, "NOTE", &self.scratch)
    }

    fn submitter(&mut self) -> io::Result<()> {
        let em = &mut self.em;
        em.record(b'U', 1, "SUBM")?;
        em.line(1, "NAME", "Jan Ødegård-Müller")?;
        em.line(1, "ADDR", "ul. Piotrkowska 104")?;
        em.line(2, "CONT", "90-001 Łódź")?;
        em.line(2, "CITY", "Łódź")?;
        em.line(2, "CTRY", "Polska")?;
        em.line(1, "EMAI", "jan.odegard@@example.com")?;
        em.line(1, "LANG", "Polish")
    }

    fn individual(&mut self, id: u64, plan: &Plan) -> io::Result<()> {
        let mut rng = Rng::for_record(self.seed, K_INDI, id);
        let female = plan.female(id);
        let famc = u64::from(plan.famc[id as usize]);
        let fams = u64::from(plan.fams[id as usize]);
        // Children take the father's surname; spouses married in bring their own.
        let seed = self.seed;
        let surname_of = move |who: u64| {
            let mut r = Rng::for_record(seed, K_INDI, who);
            r.pick(SURNAMES)
        };
        let surname = match famc {
            0 => rng.pick(SURNAMES),
            f => {
                let fam = plan.families[f as usize - 1];
                let father = if fam.husb != 0 { fam.husb } else { fam.wife };
                surname_of_root(plan, u64::from(father), &surname_of)
            }
        };
        let given = if female {
            rng.pick(FEMALE_NAMES)
        } else {
            rng.pick(MALE)
        };
        let second = if rng.chance(25) {
            Some(if female {
                rng.pick(FEMALE_NAMES)
            } else {
                rng.pick(MALE)
            })
        } else {
            None
        };
        let born = birth_year(plan, self.seed, id);

        self.em.record(b'I', id, "INDI")?;
        if rng.chance(50) {
            self.uid(&mut rng)?;
        }
        self.scratch.clear();
        self.scratch.push_str(given);
        if let Some(g2) = second {
            self.scratch.push(' ');
            self.scratch.push_str(g2);
        }
        let given_len = self.scratch.len();
        self.scratch.push_str(" /");
        self.scratch.push_str(surname);
        self.scratch.push('/');
        self.em.line(1, "NAME", &self.scratch)?;
        self.scratch.truncate(given_len);
        self.em.line(2, "GIVN", &self.scratch)?;
        self.em.line(2, "SURN", surname)?;
        if female && fams != 0 && rng.chance(20) {
            let fam = plan.families[fams as usize - 1];
            if fam.husb != 0 {
                let married = surname_of_root(plan, u64::from(fam.husb), &surname_of);
                self.scratch.clear();
                self.scratch.push_str(given);
                self.scratch.push_str(" /");
                self.scratch.push_str(married);
                self.scratch.push('/');
                self.em.line(1, "NAME", &self.scratch)?;
                self.em.line(2, "TYPE", "married")?;
            }
        }
        self.em.line(1, "SEX", if female { "F" } else { "M" })?;
        self.event("BIRT", &mut rng, born)?;
        if rng.chance(35) {
            self.event(if rng.chance(70) { "CHR" } else { "BAPM" }, &mut rng, born)?;
        }
        let died = born + rng.range(0, 92);
        if died < 1990 && rng.chance(70) {
            self.event("DEAT", &mut rng, died)?;
            if rng.chance(15) {
                self.em.line(2, "CAUS", rng.pick(CAUSES))?;
            }
            if rng.chance(40) {
                self.em.line(1, "BURI", "")?;
                self.em.line(2, "PLAC", rng.pick(PLACES))?;
            }
        }
        if rng.chance(40) {
            self.em.line(1, "OCCU", rng.pick(OCCUPATIONS))?;
        }
        if rng.chance(12) {
            let year = born + rng.range(15, 50);
            self.event("RESI", &mut rng, year)?;
        }
        if rng.chance(4) {
            let year = born + rng.range(15, 40);
            self.event("IMMI", &mut rng, year)?;
        }
        if rng.chance(3) {
            self.scratch.clear();
            self.scratch
                .push_str(["jan", "anna", "olav", "maria", "ivan"][rng.below(5) as usize]);
            self.scratch.push('.');
            push_num(&mut self.scratch, id);
            self.scratch.push_str("@@example.com");
            self.em.line(1, "EMAI", &self.scratch)?;
        }
        if rng.chance(6) {
            self.em.line(1, "OBJE", "")?;
            self.em.line(2, "FORM", "jpg")?;
            self.scratch.clear();
            self.scratch.push_str("photos/I");
            push_num(&mut self.scratch, id);
            self.scratch.push_str(".jpg");
            self.em.line(2, "FILE", &self.scratch)?;
            self.em.line(2, "_PRIM", "Y")?;
        }
        if famc != 0 {
            self.em.pointer(1, "FAMC", b'F', famc)?;
            if rng.chance(5) {
                self.em.line(2, "PEDI", "birth")?;
            }
        }
        if fams != 0 {
            self.em.pointer(1, "FAMS", b'F', fams)?;
        }
        if rng.chance(18) {
            fill_note(&mut self.text, &mut rng);
            let width = rng.range(60, 80) as usize;
            self.em.text(1, None, "NOTE", &self.text, width)?;
        }
        if rng.chance(3) {
            self.em
                .pointer(1, "NOTE", b'N', rng.range(1, self.n_note))?;
        }
        if rng.chance(30) {
            self.change(&mut rng)?;
        }
        Ok(())
    }

    fn family(&mut self, id: u64, fam: &Fam, plan: &Plan) -> io::Result<()> {
        let mut rng = Rng::for_record(self.seed, K_FAM, id);
        self.em.record(b'F', id, "FAM")?;
        if rng.chance(30) {
            self.uid(&mut rng)?;
        }
        if fam.husb != 0 {
            self.em.pointer(1, "HUSB", b'I', u64::from(fam.husb))?;
        }
        if fam.wife != 0 {
            self.em.pointer(1, "WIFE", b'I', u64::from(fam.wife))?;
        }
        if fam.wife != 0 && fam.husb != 0 && rng.chance(75) {
            let year = birth_year(plan, self.seed, u64::from(fam.husb)) + rng.range(19, 32);
            self.event("MARR", &mut rng, year)?;
        }
        if rng.chance(3) {
            self.em.line(1, "DIV", "Y")?;
        }
        for child in fam.first_child..fam.first_child + fam.children {
            self.em.pointer(1, "CHIL", b'I', u64::from(child))?;
        }
        if rng.chance(20) {
            self.change(&mut rng)?;
        }
        Ok(())
    }

    fn note_record(&mut self, id: u64) -> io::Result<()> {
        let mut rng = Rng::for_record(self.seed, K_NOTE, id);
        fill_note(&mut self.text, &mut rng);
        let width = rng.range(60, 80) as usize;
        self.em.text(0, Some((b'N', id)), "NOTE", &self.text, width)
    }

    fn source(&mut self, id: u64) -> io::Result<()> {
        let mut rng = Rng::for_record(self.seed, K_SOUR, id);
        self.em.record(b'S', id, "SOUR")?;
        let title = rng.pick(SOURCE_TITLES);
        let place = rng.pick(PLACES);
        self.scratch.clear();
        self.scratch.push_str(title);
        self.scratch.push_str(", ");
        self.scratch.push_str(place);
        self.scratch.push_str(", vol. ");
        push_num(&mut self.scratch, rng.range(1, 40));
        self.em.line(1, "TITL", &self.scratch)?;
        self.em.line(1, "AUTH", rng.pick(AUTHORS))?;
        self.em.line(1, "PUBL", rng.pick(PUBLISHERS))?;
        if rng.chance(50) {
            self.scratch.clear();
            self.scratch
                .push_str(title.split(' ').next().unwrap_or(title));
            self.scratch.push(' ');
            push_num(&mut self.scratch, id);
            self.em.line(1, "ABBR", &self.scratch)?;
        }
        if rng.chance(70) {
            self.em
                .pointer(1, "REPO", b'R', rng.range(1, self.n_repo))?;
            if rng.chance(60) {
                self.scratch.clear();
                push_num(&mut self.scratch, rng.range(100, 9999));
                self.scratch.push('/');
                push_num(&mut self.scratch, rng.range(1, 99));
                self.em.line(2, "CALN", &self.scratch)?;
                self.em.line(3, "MEDI", "Book")?;
            }
        }
        if rng.chance(35) {
            fill_note(&mut self.text, &mut rng);
            let width = rng.range(60, 80) as usize;
            self.em.text(1, None, "TEXT", &self.text, width)?;
        }
        if rng.chance(25) {
            fill_note(&mut self.text, &mut rng);
            let width = rng.range(60, 80) as usize;
            self.em.text(1, None, "NOTE", &self.text, width)?;
        }
        Ok(())
    }

    fn repository(&mut self, id: u64) -> io::Result<()> {
        let mut rng = Rng::for_record(self.seed, K_REPO, id);
        self.em.record(b'R', id, "REPO")?;
        self.em.line(1, "NAME", rng.pick(REPOSITORIES))?;
        self.em.line(1, "ADDR", rng.pick(STREETS))?;
        let place = rng.pick(PLACES);
        let city = place.split(',').next().unwrap_or(place);
        let country = place.rsplit(", ").next().unwrap_or(place);
        self.em.line(2, "CONT", city)?;
        self.em.line(2, "CITY", city)?;
        self.em.line(2, "CTRY", country)?;
        if rng.chance(50) {
            self.scratch.clear();
            self.scratch.push_str("archive");
            push_num(&mut self.scratch, id);
            self.scratch.push_str("@@example.org");
            self.em.line(1, "EMAI", &self.scratch)?;
        }
        if rng.chance(30) {
            self.scratch.clear();
            self.scratch.push_str("https://archive");
            push_num(&mut self.scratch, id);
            self.scratch.push_str(".example.org/");
            self.em.line(1, "WWW", &self.scratch)?;
        }
        Ok(())
    }
}

/// The surname of a person who starts a line: follows fathers up through
/// the plan until someone with no parents is reached.
fn surname_of_root<'a>(plan: &Plan, mut who: u64, root_name: &impl Fn(u64) -> &'a str) -> &'a str {
    // Each step goes to a strictly smaller id, so this ends.
    loop {
        let famc = plan.famc[who as usize];
        if famc == 0 {
            return root_name(who);
        }
        let fam = plan.families[famc as usize - 1];
        let father = if fam.husb != 0 { fam.husb } else { fam.wife };
        who = u64::from(father);
    }
}

/// The benches' input: `GEDCOM_BENCH_MB` mebibytes (default 64) of
/// generated GEDCOM, seed 42, with its counts.
pub fn bench_input() -> (Vec<u8>, GenStats) {
    let mb: u64 = std::env::var("GEDCOM_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    let mut bytes = Vec::new();
    let stats = generate_bytes(mb << 20, 42, &mut bytes).expect("generate the bench input");
    (bytes, stats)
}
