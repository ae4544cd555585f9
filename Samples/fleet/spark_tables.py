#!/usr/bin/env python3
"""bleanalyze's fleet tables on Apache Spark, then the standard questions in Spark SQL.

On a cluster (the binary is shipped to the executors; captures may be local to the
driver, on HDFS or in object storage):

    spark-submit Samples/fleet/spark_tables.py --bleanalyze .build/release/bleanalyze \
        --out hdfs:///fleet/tables hdfs:///fleet/captures/

On one machine, with pyspark installed (python3 -m pip install --user pyspark) and a JRE:

    python3 Samples/fleet/spark_tables.py --master 'local[2]' \
        --bleanalyze .build/release/bleanalyze --out /tmp/fleet-spark ../shared/captures

The driver lists the captures: `bleanalyze tables --list` for local paths (the same search
as `bleanalyze tables`), Spark's file system for URIs (hdfs://, s3a://, gs://…). Each task
runs `bleanalyze tables CAPTURE --out TMP` on one capture with the shipped binary (a
remote capture is copied to the executor's disk first and keeps its URI as its capture
id) and reads the NDJSON rows back, so a row is exactly what `bleanalyze tables` writes.
Each table becomes a DataFrame, written as Parquet under OUT/<table>/ (captures,
connections, attempts, calls, transactions, pairs, disconnections, advertisers,
transfers, gatt); then questions.sql (beside this script) runs over them with Spark SQL
and the answers are printed: a table per question, or with --json one JSON object per
question ({"name","title","columns","rows","error"}), the shape of
`bleanalyze fleet report --format ndjson`. `bleanalyze fleet report OUT` reads the
Parquet folders too.
"""

import argparse
import decimal
import json
import os
import stat
import subprocess
import sys
import tempfile

TABLES = [
    "captures", "connections", "attempts", "calls", "transactions", "pairs", "disconnections",
    "advertisers", "transfers", "gatt",
]
HERE = os.path.dirname(os.path.abspath(__file__))


def questions(path):
    """Each question of questions.sql: (name, title, statement), split on its marker lines."""
    found = []
    current = None
    with open(path, encoding="utf-8") as sql:
        for line in sql.read().split("\n"):
            if line.startswith("-- question: "):
                if current:
                    found.append(current)
                name, _, title = line[len("-- question: "):].partition(":")
                current = [name.strip(), title.strip(), []]
            elif current is not None and not line.startswith("--"):
                current[2].append(line)
    if current:
        found.append(current)
    return [(name, title, "\n".join(lines).strip().rstrip(";")) for name, title, lines in found]


def is_uri(path):
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme != "file"


def run_captures(binary_name):
    """A mapPartitions function: runs bleanalyze on each capture of the partition and yields
    (table, row) for every row it wrote."""

    def run(items):
        from pyspark import SparkFiles

        binary = SparkFiles.get(binary_name)
        mode = os.stat(binary).st_mode
        if not mode & stat.S_IXUSR:
            os.chmod(binary, mode | stat.S_IXUSR)
        for capture_id, content in items:
            with tempfile.TemporaryDirectory(prefix="bleanalyze-spark-") as work:
                out = os.path.join(work, "tables")
                command = [binary, "tables", "--out", out]
                if content is None:
                    command.append(capture_id)
                else:
                    local = os.path.join(work, os.path.basename(capture_id.rstrip("/")) or "capture")
                    with open(local, "wb") as copy:
                        copy.write(content)
                    command += [local, "--capture-id", capture_id]
                done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                # 2 and 3: a capture unreadable or damaged, which its captures row tells.
                if done.returncode not in (0, 2, 3):
                    raise RuntimeError("%s: %s" % (" ".join(command), done.stderr.decode(errors="replace")))
                for table in TABLES:
                    path = os.path.join(out, table + ".ndjson")
                    if not os.path.exists(path):
                        continue
                    with open(path, encoding="utf-8") as rows:
                        for row in rows:
                            if row.strip():
                                yield table, row

    return run


def plain(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return float(value)
    return str(value)


def print_answer(answer, as_json):
    if as_json:
        print(json.dumps(answer), flush=True)
        return
    print("\n" + answer["title"])
    if answer.get("error"):
        print("  not answered: " + answer["error"])
        return
    cells = [answer["columns"]] + [["-" if v is None else str(v) for v in row] for row in answer["rows"]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(answer["columns"]))]
    for row in cells:
        print("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", metavar="CAPTURE_OR_DIR")
    parser.add_argument("--bleanalyze", required=True, help="the bleanalyze binary to ship to the executors")
    parser.add_argument("--out", required=True, help="where the Parquet tables go, one folder per table")
    parser.add_argument("--master", help="Spark master for a python3 run (local[2]); spark-submit sets its own")
    parser.add_argument("--questions", default=os.path.join(HERE, "questions.sql"))
    parser.add_argument("--json", action="store_true", help="one JSON object per answer")
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("bleanalyze-tables")
    if args.master:
        builder = builder.master(args.master)
        if args.master.startswith("local"):
            # A few cores: a few shuffle partitions (the default 200 is for a cluster).
            builder = builder.config("spark.sql.shuffle.partitions", "4")
    spark = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.caseSensitive", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    binary = os.path.abspath(args.bleanalyze)
    sc.addFile(binary)

    local = [path for path in args.inputs if not is_uri(path)]
    remote = [path for path in args.inputs if is_uri(path)]
    captures = []
    if local:
        listed = subprocess.run([binary, "tables", "--list"] + local, stdout=subprocess.PIPE, check=True)
        captures = [(line, None) for line in listed.stdout.decode().splitlines() if line]
    rdd = sc.parallelize(captures, max(1, min(len(captures), sc.defaultParallelism * 4))) if captures else None
    for uri in remote:
        objects = sc.binaryFiles(uri)
        rdd = objects if rdd is None else rdd.union(objects)
    if rdd is None:
        sys.exit("spark_tables.py: no captures in " + " ".join(args.inputs))

    rows = rdd.mapPartitions(run_captures(os.path.basename(binary))).cache()
    counts = rows.map(lambda item: item[0]).countByValue()
    for table in TABLES:
        if not counts.get(table):
            continue
        lines = rows.filter(lambda item, table=table: item[0] == table).map(lambda item: item[1])
        frame = spark.read.json(lines)
        frame.write.mode("overwrite").parquet(os.path.join(args.out, table))
        # The questions read the same rows (cached) with the schema just inferred.
        frame.createOrReplaceTempView(table)
    if not args.json:
        print("# Spark %s (%s)" % (spark.version, sc.master))
    for name, title, statement in questions(args.questions):
        answer = {"name": name, "title": title, "columns": [], "rows": [], "error": None}
        try:
            result = spark.sql(statement)
            answer["columns"] = result.columns
            answer["rows"] = [[plain(value) for value in row] for row in result.collect()]
        except Exception as error:  # an answer that fails is reported, the others still run
            answer["error"] = str(error).strip().splitlines()[0]
        print_answer(answer, args.json)
    spark.stop()


if __name__ == "__main__":
    main()
