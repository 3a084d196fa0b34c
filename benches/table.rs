//! `table` of generated GEDCOM to Parquet (`nodes`) against `count` of the
//! same file, both through the built `gedcom-elf` binary on two jobs, as the
//! README's table measures them: issue #22's target is 100 MB/s of input for
//! the `nodes` table. Criterion's throughput is the input's bytes per second.
//!
//! `GEDCOM_BENCH_MB` sets the size of the generated input (default 64; the
//! README's numbers are for 300 MB). Needs the `parquet` feature:
//! `cargo bench --features parquet --bench table`.

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[path = "support/generate.rs"]
mod generate;

/// Runs the binary with `args`, which must succeed.
fn run(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_gedcom-elf"))
        .args(args)
        .output()
        .expect("run gedcom-elf");
    assert!(
        out.status.success(),
        "gedcom-elf {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn table(c: &mut Criterion) {
    let (bytes, stats) = generate::bench_input();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-table");
    std::fs::create_dir_all(&dir).expect("the bench's directory");
    let input = dir.join("input.ged");
    std::fs::write(&input, &bytes).expect("write the bench input");
    let file = input.to_str().expect("a UTF-8 path");
    let out = dir.join("tables");
    let remove = |p: &Path| {
        if p.exists() {
            std::fs::remove_dir_all(p).expect("remove the last tables");
        }
    };
    let mut g = c.benchmark_group("table");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(stats.bytes));
    g.bench_function("count_2", |b| {
        b.iter(|| run(&["count", "--jobs", "2", file]))
    });
    g.bench_function("nodes_parquet_2", |b| {
        b.iter(|| {
            remove(&out);
            let tables = out.to_str().expect("a UTF-8 path");
            run(&[
                "table", "--format", "parquet", "--tables", "nodes", "--jobs", "2", file, "-o",
                tables,
            ]);
        })
    });
    g.finish();
    remove(&out);
}

criterion_group!(benches, table);
criterion_main!(benches);
