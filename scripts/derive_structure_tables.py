#!/usr/bin/env python3
"""Derives the structure tables of `src/check/structure.rs` from the specs.

    python3 scripts/derive_structure_tables.py [SPECS [SCHEMA [OUT]]]

SPECS is the directory holding `elf/data-model.md` and `gedcom7/*.tsv`
(default `../shared/specs`), SCHEMA the ELF default schema (default
`src/tree/default-schema.ged`). Writes `elf551.tsv` and `gedcom70.tsv` to
OUT (default `src/tables`), and prints to stderr what it had to
decide. `tests/check_structure.rs` checks that the committed tables are what
this script derives.

Only facts carry over (type names, tags, cardinalities, payload kinds); no
spec prose is copied. Both files have the same two kinds of rows:

    type <TAB> NAME <TAB> PAYLOAD
    sub  <TAB> PARENT <TAB> TAG <TAB> CHILD <TAB> MIN <TAB> MAX

`sub` rows list, for every concrete structure type PARENT (`Document` for
level 0), each standard TAG allowed under it, the type CHILD a structure with
that tag has there, and how many of that type may appear (MAX `M`: any).
PAYLOAD is one of

    -            no payload
    text         a string, which may be empty (missing)
    text+        a string that must not be empty (7.0 types whose grammar
                 has no empty string)
    Y            `Y` or nothing (7.0 events)
    @TAG         a pointer to a record with level-0 tag TAG
    @TAG|text    a pointer or a string (5.5.1 notes and citations)
    @TAG|-       a pointer or nothing (5.5.1 multimedia links)
    *            anything, and the substructures are not checked (the
                 serialisation layer's own structures, type `Serialisation`)

ELF 5.5.1 (`elf/data-model.md` + the default schema):

* A type's substructures are those its `Substructures` lists name plus the
  types whose `Superstructures` name it, for the type and all its
  supertypes; an abstract type in a list stands for all its concrete
  subtypes. `?` is {0:1}, `!` {1:1}, `*` and no marker {0:M}; an entry
  marked as GEDCOM 5.5 only never makes a substructure required.
* Tags come from the default schema's `TAG tag superstructure...` lines (a
  line for a supertype applies to its subtypes); a schema tag in a context
  the data model does not list is allowed too, {0:M}.
* `HEAD` is `elf:Metadata`, `TRLR` has no type: both are level-0 rows.
* Departures where the data model is narrower than GEDCOM 5.5.1 and would
  call common, conformant 5.5.1 data wrong (RELAXED below): a `RESI` need
  not have an `ADDR` (5.5.1's INDIVIDUAL_ATTRIBUTE_STRUCTURE requires none;
  a RESI with a date and place is the usual form); attributes may have an
  `AGE` (5.5.1's INDIVIDUAL_EVENT_DETAIL is part of every attribute too);
  note and multimedia records may have source citations (`SOUR`), as in
  5.5.1's NOTE_RECORD and MULTIMEDIA_RECORD. What ELF leaves out on
  purpose (LDS ordinances, `RFN`, `AFN`, `SUBN`, contact details in events)
  stays out.
* Payloads: `None` is none, a pointer is a pointer, everything else is a
  string; a type without a `Payload` entry has its supertype's.

GEDCOM 7.0 (`gedcom7/substructures.tsv`, `cardinalities.tsv`,
`payloads.tsv`): rows as they stand, type names without the
`https://gedcom.io/terms/v7/` prefix; records are {0:M} (HEAD and TRLR {1:1}),
`CONT` is left out (the reader folds it into payloads).
"""

import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def warn(*a):
    print(*a, file=sys.stderr)


# --------------------------------------------------------------- ELF 5.5.1


def parse_data_model(path):
    """Returns (types, abstract): name -> dict of lists of field lines."""
    types = {}
    abstract = set()
    section = None
    cur = None
    field = None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            section = line[3:].strip()
            cur = None
            continue
        m = re.match(r"^### `elf:([^`]+)`", line)
        if m:
            name = m.group(1)
            if name in types:
                # `elf:SUBMITTER_POINTER` is listed twice; the second one
                # only refers to the first.
                cur = None
                continue
            cur = types[name] = defaultdict(list)
            if section.startswith("Abstract"):
                abstract.add(name)
            field = None
            continue
        if line.startswith("### "):
            cur = None
            continue
        if cur is None:
            continue
        if re.match(r"^[A-Z][A-Za-z ]*$", line):
            field = line.strip()
            if field == "Substructure":
                field = "Substructures"
            continue
        if line.startswith(":   ") and field:
            cur[field].append(line[4:].strip())
            continue
        if field == "Payload" and line.startswith("    ") and cur[field]:
            cur[field].append(line.strip())
    return types, abstract


def parse_schema(path):
    """Returns (tags, isa): tags is a list of (type, tag, [superstructure
    types]); isa maps type -> [supertypes]."""
    tags = []
    isa = defaultdict(list)
    cur = None
    for line in open(path, encoding="utf-8"):
        parts = line.split()
        if len(parts) < 2:
            continue
        if parts[0] == "2" and parts[1] == "IRI":
            cur = parts[2].removeprefix("elf:")
        elif parts[0] == "3" and parts[1] == "TAG" and cur:
            ctxs = [p.removeprefix("elf:") for p in parts[3:]]
            tags.append((cur, parts[2], ctxs))
            if cur == "BURIAL" and parts[2] == "BRI":
                # The schema's typo for BURI (as src/tree/schema.rs reads it).
                tags.append((cur, "BURI", ctxs))
        elif parts[0] == "3" and parts[1] == "ISA" and cur:
            isa[cur].append(parts[2].removeprefix("elf:"))
    return tags, isa


# (parent, child): (min, max) overriding the data model, and the tag
# definitions that go with them; see the header.
RELAXED = {
    ("RESIDES_AT", "ADDRESS"): (0, "1"),
    ("IndividualAttribute", "AGE_AT_EVENT"): (0, "M"),
    ("NOTE_RECORD", "SOURCE_CITATION"): (0, "M"),
    ("MULTIMEDIA_RECORD", "SOURCE_CITATION"): (0, "M"),
}
RELAXED_TAGS = [
    ("AGE_AT_EVENT", "AGE", ["IndividualAttribute"]),
    ("SOURCE_CITATION", "SOUR", ["NOTE_RECORD", "MULTIMEDIA_RECORD"]),
]


def elf_tables(dm_path, schema_path):
    types, abstract = parse_data_model(dm_path)
    schema_tags, schema_isa = parse_schema(schema_path)
    pseudo = {"Document", "Metadata"}

    def refs(lines):
        out = []
        for ln in lines:
            m = re.match(r"^`\[elf:([^\]]+)\]`\s*(.*)$", ln)
            if not m:
                continue
            rest = m.group(2)
            card = "M"
            mn = 0
            if rest.startswith("?"):
                card = "1"
            elif rest.startswith("!"):
                card, mn = "1", 1
            only55 = "GEDCOM 5.5" in rest and "5.5.1" not in rest
            if only55:
                mn = 0
            out.append((m.group(1), mn, card))
        return out

    supers = {}
    for name, t in types.items():
        s = [r[0] for r in refs(t["Supertype"])]
        for x in schema_isa.get(name, []):
            if x not in s:
                warn(f"elf: schema ISA {name} -> {x} not in the data model; added")
                s.append(x)
        supers[name] = [x for x in s if x != "Structure"]
    for name, s in schema_isa.items():
        if name not in types:
            warn(f"elf: schema type {name} is not in the data model")

    def ancestors(name):
        out, todo = [], list(supers.get(name, []))
        while todo:
            x = todo.pop(0)
            if x not in out:
                out.append(x)
                todo.extend(supers.get(x, []))
        return out

    def lineage(name):
        return [name] + ancestors(name)

    concrete = [n for n in types if n not in abstract and n != "Structure"]

    def expand(name):
        """The concrete types an entry naming `name` stands for."""
        if name not in abstract:
            return [name]
        return [c for c in concrete if name in ancestors(c)]

    # Declared substructures: parent (possibly abstract) -> {child: (min, max)}
    declared = defaultdict(dict)
    for name, t in types.items():
        for child, mn, mx in refs(t["Substructures"]):
            for c in expand(child):
                declared[name][c] = (mn, mx)
    for name, t in types.items():
        for parent, _, _ in refs(t["Superstructures"]):
            for c in expand(name):
                declared[parent].setdefault(c, (0, "M"))

    for (parent, child), card in RELAXED.items():
        warn(f"elf: relaxed: {parent} {child} {declared[parent].get(child)} -> {card}")
        declared[parent][child] = card
    schema_tags = schema_tags + RELAXED_TAGS

    # Tags: (context type, tag) -> child type, from the schema.
    tag_defs = defaultdict(list)  # child -> [(tag, context)]
    for child, tag, ctxs in schema_tags:
        for ctx in ctxs:
            tag_defs[child].append((tag, ctx))

    def tags_in(parent, child):
        lin = lineage(parent)
        found = []
        for tag, ctx in tag_defs.get(child, []):
            if ctx in lin:
                found.append((lin.index(ctx), tag))
        # Tags of a supertype of `child` defined in this context (none in
        # the default schema, but cheap to honour).
        return sorted(set(t for _, t in found))

    parents = [c for c in concrete if c not in pseudo] + sorted(pseudo)
    rows = []
    for p in parents:
        allowed = {}
        for a in lineage(p):
            for c, card in declared.get(a, {}).items():
                if c not in allowed:
                    allowed[c] = card
        # Schema-only contexts.
        lin = lineage(p)
        for child, tag, ctxs in schema_tags:
            if any(c in lin for c in ctxs) and child not in allowed:
                if child in types or child in pseudo:
                    warn(f"elf: schema allows {child} ({tag}) in {p}; the data model does not: {{0:M}}")
                    allowed[child] = (0, "M")
        bytag = {}
        for c, (mn, mx) in sorted(allowed.items()):
            ts = tags_in(p, c)
            if not ts:
                warn(f"elf: {p} may contain {c} but the schema gives it no tag there; left out")
                continue
            for t in ts:
                if t in bytag and bytag[t][0] != c:
                    warn(f"elf: {p}.{t} is both {bytag[t][0]} and {c}; keeping {bytag[t][0]}")
                    continue
                bytag[t] = (c, mn, mx)
        for t, (c, mn, mx) in sorted(bytag.items()):
            rows.append((p, t, c, mn, mx))

    # Level 0: HEAD is the metadata, TRLR has no type. The serialisation
    # layer's own structures (CHAR, SCHMA, the older drafts' PRFX and DEFN
    # under the HEAD, ELF under GEDC) are allowed and not looked into.
    rows.append(("Document", "HEAD", "Metadata", 0, "1"))
    rows.append(("Document", "TRLR", "TRLR", 0, "1"))
    for t in ("CHAR", "SCHMA", "PRFX", "DEFN"):
        rows.append(("Metadata", t, "Serialisation", 0, "1" if t == "CHAR" else "M"))
    rows.append(("GEDCOM_FORMAT", "ELF", "Serialisation", 0, "1"))

    record_tag = {}
    for p, t, c, _, _ in rows:
        if p == "Document":
            record_tag[c] = t

    def payload(name):
        for a in lineage(name):
            lines = types.get(a, {}).get("Payload")
            if lines:
                return classify(a, " ".join(lines))
        return None

    def classify(name, text):
        first = text.split(".")[0]
        target = None
        m = re.search(r"pointer\*? to an? `\[elf:([A-Z_]+)\]`", text)
        if m:
            target = record_tag[m.group(1)]
        if first.startswith("None"):
            return "-"
        if target and first.startswith("Either"):
            if re.search(r"or none", first):
                return f"@{target}|-"
            return f"@{target}|text"
        if target and re.match(r"^An? \*?pointer", first):
            return f"@{target}"
        return "text"

    type_rows = []
    used = sorted({r[2] for r in rows} | {r[0] for r in rows})
    for name in used:
        if name == "Document":
            pl = "-"
        elif name == "Metadata" or name == "TRLR":
            pl = "-"
        elif name == "Serialisation":
            pl = "*"
        else:
            pl = payload(name)
            if pl is None:
                warn(f"elf: {name} has no payload entry, nor has any supertype: none")
                pl = "-"
        type_rows.append((name, pl))
    return type_rows, rows


# ---------------------------------------------------------------- GEDCOM 7

G7 = "https://gedcom.io/terms/v7/"


def short(uri):
    return uri.removeprefix(G7) if uri else "Document"


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        lines = [ln.rstrip("\n").split("\t") for ln in f]
    return lines[1:]


# Data types whose grammar has no empty string (7.0 §2; `Y|<NULL>` events
# are `Y`).
NON_EMPTY = {
    "https://gedcom.io/terms/v7/type-Enum",
    "https://gedcom.io/terms/v7/type-List#Enum",
    "http://www.w3.org/2001/XMLSchema#nonNegativeInteger",
    "http://www.w3.org/2001/XMLSchema#Language",
    "http://www.w3.org/2001/XMLSchema#anyURI",
    "http://www.w3.org/ns/dcat#mediaType",
    "https://gedcom.io/terms/v7/type-Date#exact",
    "https://gedcom.io/terms/v7/type-FilePath",
    "https://gedcom.io/terms/v7/type-Latitude",
    "https://gedcom.io/terms/v7/type-Longitude",
    "https://gedcom.io/terms/v7/type-Name",
    "https://gedcom.io/terms/v7/type-TagDef",
    "https://gedcom.io/terms/v7/type-Time",
}


def g7_tables(dir_):
    subs = read_tsv(os.path.join(dir_, "substructures.tsv"))
    cards = {(a, b): c for a, b, c in read_tsv(os.path.join(dir_, "cardinalities.tsv"))}
    payloads = {a: b for a, b in read_tsv(os.path.join(dir_, "payloads.tsv"))}
    record_tag = {}
    rows = []
    for sup, tag, struct in subs:
        if tag == "CONT":
            continue
        if not sup:
            record_tag[struct] = tag
            mx = "1" if tag in ("HEAD", "TRLR") else "M"
            rows.append(("Document", tag, short(struct), 0, mx))
            continue
        card = cards.get((sup, struct))
        if card is None:
            warn(f"g7: no cardinality for {short(sup)} {tag} {short(struct)}: {{0:M}}")
            card = "{0:M}"
        m = re.match(r"^\{(\d):(\d|M)\}$", card)
        rows.append((short(sup), tag, short(struct), int(m.group(1)), m.group(2)))
    for (sup, struct), c in cards.items():
        if not any(r[0] == short(sup) and r[2] == short(struct) for r in rows):
            warn(f"g7: cardinality without a tag: {short(sup)} {short(struct)} {c}")
    type_rows = []
    used = sorted({r[2] for r in rows} | {r[0] for r in rows})
    for name in used:
        uri = G7 + name
        if name == "Document":
            pl = "-"
        elif uri not in payloads:
            warn(f"g7: {name} has no payload row: none")
            pl = "-"
        else:
            p = payloads[uri]
            m = re.match(r"^@<(.*)>@$", p)
            if not p:
                pl = "-"
            elif m:
                pl = "@" + record_tag[m.group(1)]
            elif p == "Y|<NULL>":
                pl = "Y"
            elif p in NON_EMPTY:
                pl = "text+"
            else:
                pl = "text"
        type_rows.append((name, pl))
    return type_rows, rows


def write(path, title, type_rows, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# {title}: generated by scripts/derive_structure_tables.py; do not edit.\n")
        for name, pl in type_rows:
            f.write(f"type\t{name}\t{pl}\n")
        for p, t, c, mn, mx in sorted(rows):
            f.write(f"sub\t{p}\t{t}\t{c}\t{mn}\t{mx}\n")
    warn(f"{path}: {len(type_rows)} types, {len(rows)} substructure rows")


def main():
    specs = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "specs")
    schema = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "src", "tree", "default-schema.ged")
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "src", "check", "tables")
    os.makedirs(out, exist_ok=True)
    t, r = elf_tables(os.path.join(specs, "elf", "data-model.md"), schema)
    write(os.path.join(out, "elf551.tsv"), "GEDCOM 5.5.1 per the ELF data model", t, r)
    t, r = g7_tables(os.path.join(specs, "gedcom7"))
    write(os.path.join(out, "gedcom70.tsv"), "GEDCOM 7.0", t, r)


if __name__ == "__main__":
    main()
