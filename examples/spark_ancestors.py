"""Reads a `gedcom-elf table --format parquet` dataset with PySpark and
finds a person's ancestors over `edges`.

    gedcom-elf table --format parquet corpus -o tables
    python examples/spark_ancestors.py tables "corpus/sample.ged" "Anna Dvořák"

Spark (3.5) has no recursive common table expressions, so the ancestors
are found a generation at a time: each step joins the people found so far
to the families they are children of (`role = 'CHIL'`) and those families'
parents (`HUSB`, `WIFE`), until a step finds no one new. Every join is on
`file_id` too: each file has its own `@I1@`.

Runs in local mode as it stands (`local[2]`); on a cluster, give
`spark-submit --master ...` and a dataset path every executor can read.
"""

import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def main(dataset, path, name):
    spark = (
        SparkSession.builder.appName("gedcom-elf ancestors")
        .master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    table = lambda t: spark.read.parquet(f"{dataset}/{t}/*.parquet")

    # Rows per table, as `gedcom-elf count` and DuckDB count them.
    for t in ["files", "nodes", "individuals", "families", "edges", "events", "citations", "diagnostics"]:
        print(f"{t:<12} {table(t).count():>8}")

    files, people, edges = table("files"), table("individuals"), table("edges")
    (file_id,) = files.where(F.col("path") == path).select("file_id").first()
    children = edges.where(F.col("role") == "CHIL").select("file_id", "family_id", "person")
    parents = edges.where(F.col("role").isin("HUSB", "WIFE")).select(
        "file_id", "family_id", F.col("person").alias("parent")
    )
    found = people.where((F.col("file_id") == file_id) & (F.col("name") == name)).select(
        "file_id", F.col("xref").alias("person"), F.lit(0).alias("generation")
    )
    frontier, generation = found, 0
    while True:
        generation += 1
        step = (
            frontier.select("file_id", "person")
            .join(children, ["file_id", "person"])
            .join(parents, ["file_id", "family_id"])
            .select("file_id", F.col("parent").alias("person"), F.lit(generation).alias("generation"))
            .join(found.select("file_id", "person"), ["file_id", "person"], "left_anti")
            .distinct()
            .cache()
        )
        if step.count() == 0:
            break
        found = found.union(step)
        frontier = step

    (
        found.join(people.withColumnRenamed("xref", "person"), ["file_id", "person"])
        .select("generation", "person", "name", "birth_date")
        .orderBy("generation", "person")
        .show(truncate=False)
    )
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: spark_ancestors.py DATASET FILE_PATH NAME")
    main(*sys.argv[1:])
