"""Throughput of scoring in one process, on a local Ray cluster and on Spark local mode, in one run.

Run: ``python benchmarks/scale_table.py [--cpus 2] [--rouge-rows 20000 200000] [--ava-rows 2000]``
(needs the ``ray``, ``spark`` and ``onnx`` extras, Java 17, and ../shared/data for the real text:
MS MARCO pairs for ROUGE, repeated to the row count; EVOUNA-NQ triples with their aliases for AVA).

Each row times one whole job, wall clock, best of ``--rounds``:

* in-process: the metric object on Python lists (``Rouge(...).score``, ``Ava(...).score``), with
  every core (``n_jobs=None``: OpenMP threads over pairs for ROUGE, ONNX Runtime intra-op threads
  for AVA); ``in-process-1t`` the same on one thread (``n_jobs=1``), the per-core baseline that a
  framework's workers multiply;
* Ray: ``score_dataset`` on a Dataset made from an in-memory Arrow table (as many blocks as CPUs
  times two), materialised to Arrow on the driver; ``ray.init(num_cpus=cpus)`` is not timed;
* Spark: ``score_dataframe`` on a DataFrame made from the same Arrow table (``createDataFrame`` of
  a pandas frame with Arrow enabled), collected with ``toArrow()``; session start is not timed;
* processes: the arrangement Ray's and Spark's workers use, without a framework: a pool of
  ``--cpus`` spawned processes, each with its own metric object on one thread (``n_jobs=1``, one
  ONNX session per process), fed the rows in ``2 * cpus`` slices; pool start is not timed. It
  shows what one-thread workers buy over one many-threaded process where Ray or Spark is not
  installed (the GPU machine has neither).

It prints a markdown table (rows/s, rows/s per core, ratio to in-process) and writes the figures
to ``benchmarks/results/scale_<cpus>cpu.json``. A fixed cost per job (scheduling, Arrow hand-off,
Python worker start) dominates small jobs: the crossover is where a framework's rate at that size
reaches in-process.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
ROUGE_OPTIONS = {"rouge_types": ["rouge1", "rouge2", "rougeL"], "use_stemmer": True}


def msmarco_rows(n: int) -> dict[str, list]:
    def answers(path):
        return {r["query_id"]: r["answers"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}

    refs = answers(SHARED / "mrc/msmarco/dev_as_references.json")
    cands = answers(SHARED / "mrc/msmarco/dev_first_sentence_as_candidates.json")
    queries = [q for q in refs if refs[q] and q in cands]
    predictions = [cands[q][0] for q in queries]
    references = [refs[q] for q in queries]
    return {"id": list(range(n)), "prediction": [predictions[i % len(queries)] for i in range(n)],
            "reference": [references[i % len(queries)] for i in range(n)]}


def evouna_rows(n: int) -> dict[str, list]:
    from qascore.ava.data import load_evouna

    triples = load_evouna(SHARED / "ava/evouna/NQ.json", aliases=True)
    return {"id": list(range(n)), "question": triples.questions[:n], "reference": triples.references[:n],
            "prediction": triples.candidates[:n]}


def best_of(rounds: int, job) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        job()
        times.append(time.perf_counter() - start)
    return min(times)


def in_process_job(metric: str, rows: dict, options: dict):
    from qascore.integrations.batches import BatchScorer

    scorer = BatchScorer(metric, **options)
    scorer.metric_object()  # a model loads once, as a service would, outside the timing
    return lambda: scorer.score_columns(rows)


def _load_metric(metric: str, options: dict) -> None:
    from qascore.integrations.batches import BatchScorer

    BatchScorer(metric, **options, n_jobs=1).metric_object()


def _score_slice(job: tuple) -> int:
    from qascore.integrations.batches import BatchScorer

    metric, options, columns = job
    return len(next(iter(BatchScorer(metric, **options, n_jobs=1).score_columns(columns).values())))


def processes_job(metric: str, columns: dict, options: dict, cpus: int):
    """A pool of ``cpus`` spawned processes, each loading the metric (the model) before any timing;
    the job's ``close`` ends them, so pools of earlier jobs never sit beside the one timed."""
    import multiprocessing

    pool = multiprocessing.get_context("spawn").Pool(cpus, initializer=_load_metric, initargs=(metric, options))
    n = len(next(iter(columns.values())))
    step = -(-n // (2 * cpus))
    slices = [(metric, options, {k: v[i:i + step] for k, v in columns.items()}) for i in range(0, n, step)]

    def job():
        assert sum(pool.map(_score_slice, slices, chunksize=1)) == n
    job.close = pool.terminate  # type: ignore[attr-defined]
    return job


def ray_job(metric: str, table: pa.Table, options: dict, cpus: int, concurrency: int | None = None):
    import ray

    from qascore.integrations.ray import score_dataset

    step = -(-table.num_rows // (2 * cpus))
    blocks = [table.slice(i, step) for i in range(0, table.num_rows, step)]
    batch = max(64, min(4096, step))

    def job():
        ds = ray.data.from_arrow(blocks)
        ray_options: dict = {"batch_size": batch}
        if concurrency:  # a fixed pool: actors for AVA, tasks for the lexical metrics (Ray's compute, not concurrency)
            pool = ray.data.ActorPoolStrategy if metric == "ava" else ray.data.TaskPoolStrategy
            ray_options["compute"] = pool(size=concurrency)
        scored = score_dataset(ds, metric, map_batches_kwargs=ray_options, **options)
        out = pa.concat_tables(ray.get(scored.to_arrow_refs()))
        assert out.num_rows == table.num_rows
    return job


def spark_job(spark, metric: str, table: pa.Table, options: dict, cpus: int):
    from qascore.integrations.spark import score_dataframe

    frame = table.to_pandas()

    def job():
        df = spark.createDataFrame(frame).repartition(2 * cpus)
        out = score_dataframe(df, metric, **options).toArrow()
        assert out.num_rows == table.num_rows
    return job


def start_spark(cpus: int):
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master(f"local[{cpus}]").appName("qascore-scale")
               .config("spark.ui.enabled", "false").config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.driver.memory", "4g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--rouge-rows", type=int, nargs="*", default=[20_000, 200_000])
    parser.add_argument("--ava-rows", type=int, nargs="*", default=[2_000])
    parser.add_argument("--ava-models", nargs="+", default=["default", "linear"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ray-concurrency", type=int, default=None,
                        help="a fixed pool of this many Ray workers (map_batches concurrency); default: autoscaling")
    parser.add_argument("--out", help="the JSON figures (default benchmarks/results/scale_<cpus>cpu.json)")
    parser.add_argument("--frameworks", nargs="+", default=["in-process", "ray", "spark"],
                        choices=["in-process", "in-process-1t", "processes", "ray", "spark"])
    args = parser.parse_args(argv)

    if "ray" in args.frameworks:
        import ray

        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
    spark = start_spark(args.cpus) if "spark" in args.frameworks else None

    jobs = [("rouge", n, msmarco_rows(n), ROUGE_OPTIONS) for n in args.rouge_rows]
    jobs += [("ava", n, evouna_rows(n), {"model": model}) for n in args.ava_rows for model in args.ava_models]
    records = []
    for metric, n, rows, options in jobs:
        table = pa.table(rows)
        columns = {k: v for k, v in rows.items() if k != "id"}
        base = None
        for framework in args.frameworks:
            if framework == "in-process":
                job = in_process_job(metric, columns, options)
            elif framework == "in-process-1t":
                job = in_process_job(metric, columns, {**options, "n_jobs": 1})
            elif framework == "processes":
                job = processes_job(metric, columns, options, args.cpus)
            elif framework == "ray":
                job = ray_job(metric, table, options, args.cpus, args.ray_concurrency)
            else:
                job = spark_job(spark, metric, table, options, args.cpus)
            job()  # warm: workers started, models loaded, kernels compiled
            seconds = best_of(args.rounds, job)
            getattr(job, "close", lambda: None)()
            rate = n / seconds
            base = rate if framework == "in-process" else base
            label = metric if metric == "rouge" else f"ava {options['model']}"
            cores = 1 if framework == "in-process-1t" else args.cpus
            records.append({"metric": label, "rows": n, "framework": framework, "seconds": seconds,
                            "rows_per_s": rate, "rows_per_s_per_core": rate / cores,
                            "ratio_to_in_process": rate / base if base else None})
            print(f"{label:12} {n:>8} {framework:10} {seconds:8.3f} s {rate:12.0f} rows/s", flush=True)

    print(f"\n{args.cpus} CPUs ({platform.processor() or platform.machine()}), best of {args.rounds}\n")
    print("| metric | rows | framework | rows/s | rows/s per core | vs in-process |")
    print("|---|---:|---|---:|---:|---:|")
    for r in records:
        print(f"| {r['metric']} | {r['rows']:,} | {r['framework']} | {r['rows_per_s']:,.0f} | "
              f"{r['rows_per_s_per_core']:,.0f} | {r['ratio_to_in_process']:.2f}x |")
    out = Path(args.out) if args.out else ROOT / "benchmarks" / "results" / f"scale_{args.cpus}cpu.json"
    out.write_text(json.dumps({"cpus": args.cpus, "cpu": platform.processor() or platform.machine(),
                               "rounds": args.rounds, "rouge_options": ROUGE_OPTIONS,
                               "records": records}, indent=1) + "\n", encoding="utf-8")
    if spark is not None:
        spark.stop()
    if "ray" in args.frameworks:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
