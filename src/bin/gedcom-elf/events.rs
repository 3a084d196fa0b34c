//! `gedcom-elf events`: the JSON Lines event stream (a contract).

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use gedcom_elf::{Event, Schema, StructureType, TypeResolver, Value};

use crate::json::write_str;
use crate::{fail, finish_output, flush, print_diagnostic, Input, Options};

/// Writes one event as a JSON object line.
pub fn write_event<W: Write>(out: &mut W, event: &Event<'_>) -> io::Result<()> {
    write_typed_event(out, event, None)
}

/// Writes one event as a JSON object line; a begin gets `"type"` as its last
/// key when `ty` is given (`--types`).
pub fn write_typed_event<W: Write>(
    out: &mut W,
    event: &Event<'_>,
    ty: Option<StructureType<'_>>,
) -> io::Result<()> {
    match event {
        Event::Begin(b) => {
            out.write_all(b"{\"begin\":")?;
            write_str(out, &b.tag)?;
            write!(out, ",\"level\":{}", b.level)?;
            if let Some(x) = &b.xref {
                out.write_all(b",\"xref\":")?;
                write_str(out, &x.to_str_lossy())?;
            }
            match &b.value {
                Some(Value::Pointer(p)) => {
                    out.write_all(b",\"pointer\":")?;
                    write_str(out, &p.to_str_lossy())?;
                }
                Some(Value::Text(t)) => {
                    out.write_all(b",\"text\":")?;
                    write_str(out, &t.text())?;
                }
                None => {}
            }
            if let Some(t) = ty {
                out.write_all(b",\"type\":")?;
                write_str(out, &t.iri())?;
            }
            out.write_all(b"}\n")
        }
        Event::End(e) => {
            out.write_all(b"{\"end\":")?;
            write_str(out, &e.tag)?;
            writeln!(out, ",\"level\":{}}}", e.level)
        }
    }
}

pub fn run(opts: &Options, input: &Input) -> ExitCode {
    let prepared = match gedcom_elf::Input::with_encoding(&input.bytes, opts.encoding) {
        Ok(p) => p,
        Err(e) => return fail(&input.name, &e),
    };
    let mut reader = prepared.reader_with_config(opts.config());
    let mut types = if opts.types {
        match Schema::from_reader(reader.clone()) {
            Ok(s) => Some(TypeResolver::new(s)),
            Err(e) => return fail(&input.name, &e),
        }
    } else {
        None
    };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    loop {
        let next = reader.next_event();
        for d in reader.drain_diagnostics() {
            print_diagnostic(&input.name, &d);
        }
        match next {
            Ok(Some(event)) => {
                let ty = types.as_mut().and_then(|t| t.event(&event));
                if let Err(code) = finish_output(write_typed_event(&mut out, &event, ty)) {
                    return code;
                }
            }
            Ok(None) => break,
            Err(e) => {
                if let Err(code) = flush(&mut out) {
                    return code;
                }
                return fail(&input.name, &e);
            }
        }
    }
    match flush(&mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
