"""Spreads `gedcom-elf table` over many GEDCOM files with Spark, then reads
the whole dataset back as one.

    python examples/spark_table_cluster.py GEDCOM_ELF_BINARY OUT FILE_OR_DIR...

The files are dealt out to Spark tasks in batches (about 8 files a task
here); each task runs `gedcom-elf table --format parquet` on its batch into
a directory of its own, then moves the batch's part files to
`OUT/<table>/batch=<n>/`. Spark reads `OUT/<table>` with `batch` as a
partition column, so `(batch, file_id)` names a file across the dataset
(`file_id` is a file's position in its batch). A batch whose `gedcom-elf`
fails on a file still writes the rest: the failure is a `failed` row of
`files` (exit status 2 is not an error here; any other is).

Local mode as it stands (`local[2]`); on a cluster, the binary and the
inputs must be at the same paths on every executor (or fetched by the
task), and OUT on a file system they all write (HDFS through a FUSE
mount, NFS, or a copy to object storage after the move).
"""

import os
import shutil
import subprocess
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

TABLES = ["files", "nodes", "individuals", "families", "edges", "events", "citations", "diagnostics"]
FILES_PER_TASK = 8


def gedcom_files(paths):
    """The GEDCOM files of `paths` (files, or directories searched as
    `gedcom-elf table` searches them), in path order."""
    found = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                found += [
                    os.path.join(root, n) for n in names if n.lower().endswith((".ged", ".gdz"))
                ]
        else:
            found.append(p)
    return sorted(found)


def run_batch(binary, out):
    """A task: `gedcom-elf table` over one batch, its parts moved under
    `OUT/<table>/batch=<n>/`; yields (batch, files, exit status)."""

    def run(index, files):
        files = list(files)
        if not files:
            return
        work = tempfile.mkdtemp(prefix=f"gedcom-elf-batch-{index}-")
        dest = os.path.join(work, "tables")
        done = subprocess.run(
            [binary, "table", "--format", "parquet", "--jobs", "1", "--quiet", "-o", dest, *files],
            capture_output=True,
            text=True,
        )
        if done.returncode not in (0, 2):
            raise RuntimeError(f"batch {index}: gedcom-elf exited {done.returncode}: {done.stderr}")
        for table in TABLES:
            target = os.path.join(out, table, f"batch={index:05}")
            os.makedirs(target, exist_ok=True)
            for part in sorted(os.listdir(os.path.join(dest, table))):
                shutil.move(os.path.join(dest, table, part), os.path.join(target, part))
        shutil.rmtree(work)
        yield (index, len(files), done.returncode)

    return run


def main(binary, out, inputs):
    files = gedcom_files(inputs)
    spark = (
        SparkSession.builder.appName("gedcom-elf table")
        .master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    batches = max(1, (len(files) + FILES_PER_TASK - 1) // FILES_PER_TASK)
    ran = (
        spark.sparkContext.parallelize(files, batches)
        .mapPartitionsWithIndex(run_batch(os.path.abspath(binary), os.path.abspath(out)))
        .collect()
    )
    print(f"{len(files)} files in {len(ran)} batches; exit statuses {sorted({s for _, _, s in ran})}")

    table = lambda t: spark.read.parquet(os.path.join(out, t))
    for t in TABLES:
        print(f"{t:<12} {table(t).count():>8}")
    table("files").groupBy("status").agg(
        F.count("*").alias("files"), F.sum("records").alias("records")
    ).orderBy("status").show()
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: spark_table_cluster.py GEDCOM_ELF_BINARY OUT FILE_OR_DIR...")
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
