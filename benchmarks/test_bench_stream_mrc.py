"""Streaming ``qascore mrc``: peak memory over 100k and 800k MS MARCO queries, and the same
commands from another checkout side by side (``QASCORE_STREAM_BASE_SRC``, e.g. main before the
change, to measure what streaming saved).

The queries are the MS MARCO dev references and first-sentence candidates repeated with new ids
(repetition ``k`` appends `` k`` to each reference answer, so no two repetitions score alike),
written as JSON-lines files under ``QASCORE_STREAM_DIR`` (default ``/tmp/qascore_stream``).
Each command, ``qascore mrc --format msmarco -p P -r R --jsonl --per-example -o OUT``, runs in a
fresh process; its peak RSS is that child's ``ru_maxrss``. Memory grows by the ids and one ROUGE-L
float a query (the corpus mean is numpy's over every value, as coco's); texts are held a chunk
at a time. Run:

    PYTHONPATH=src python -m pytest benchmarks/test_bench_stream_mrc.py -s
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from test_bench_stream import DATA, MSMARCO, SRC, run_command

SIZES = (100_000, 800_000)
BASE_SRC = os.environ.get("QASCORE_STREAM_BASE_SRC")


def write_queries(n: int) -> tuple[Path, Path]:
    DATA.mkdir(parents=True, exist_ok=True)
    pred, ref = DATA / f"mm_pred_{n}.jsonl", DATA / f"mm_ref_{n}.jsonl"
    if pred.exists() and ref.exists():
        return pred, ref
    refs = [json.loads(line) for line in (MSMARCO / "dev_as_references.json").read_text(encoding="utf-8").splitlines()]
    cands = {r["query_id"]: r["answers"] for r in map(json.loads, (MSMARCO / "dev_first_sentence_as_candidates.json")
                                                         .read_text(encoding="utf-8").splitlines())}
    with open(pred, "w", encoding="utf-8") as fp, open(ref, "w", encoding="utf-8") as fr:
        for i in range(n):
            k, record = divmod(i, len(refs))[0], refs[i % len(refs)]
            answers = [f"{a} {k}" if k else a for a in record["answers"]]
            fr.write(json.dumps({"query_id": i, "answers": answers}) + "\n")
            if record["query_id"] in cands:
                fp.write(json.dumps({"query_id": i, "answers": cands[record["query_id"]][:1]}) + "\n")
    return pred, ref


@pytest.fixture(scope="module")
def files():
    if not MSMARCO.is_dir():
        pytest.skip(f"shared data not found at {MSMARCO}")
    return {n: write_queries(n) for n in SIZES}


def test_stream_mrc_memory(files):
    sources = {"this": SRC, **({"base": Path(BASE_SRC)} if BASE_SRC else {})}
    peak = {}
    for name, src in sources.items():
        for n, (pred, ref) in files.items():
            argv = ["mrc", "--format", "msmarco", "-p", str(pred), "-r", str(ref), "--jsonl", "--per-example",
                    "-o", str(DATA / f"mm_out_{n}.jsonl"), *(["--no-progress"] if name == "this" else [])]
            wall, rss = run_command(argv, src)
            peak[name, n] = rss
            print(f"[stream mrc] {name}: {n} queries: {wall:.2f} s, peak RSS {rss:.0f} MB, "
                  f"{n / wall:,.0f} queries/s")
        small, large = SIZES
        print(f"[stream mrc] {name}: peak RSS ratio {large}/{small}: {peak[name, large] / peak[name, small]:.2f}")
