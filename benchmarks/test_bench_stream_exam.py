"""``qascore exam`` one article input at a time: peak memory with 4 and 16 systems of the same size,
and the same commands from another checkout side by side (``QASCORE_STREAM_BASE_SRC``, e.g. main
before the change, which held every system's articles at once).

Data (real text, written under ``QASCORE_STREAM_DIR``, default ``/tmp/qascore_stream``): a bank of
``QUERIES`` queries of five EVOUNA-NQ questions each (free text, gold aliases); each system one
JSONL file with an article a query of ten paragraphs, each three EVOUNA-NQ answers or questions
drawn at random and tagged with the system (so no two systems share a paragraph and the pooled
idf has every system's paragraphs to count). Each command, ``qascore exam -q BANK --articles ...
--jsonl --per-example -o OUT`` with the default lexical solver, runs in a fresh process; its peak
RSS is that child's ``ru_maxrss``. Run:

    PYTHONPATH=src python -m pytest benchmarks/test_bench_stream_exam.py -s
"""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from test_bench_stream import DATA, SHARED, SRC, run_command

SYSTEMS = (4, 16)  # 31 and 124 MB of articles: both above the 16 MiB where exam starts streaming
QUERIES = 2000
BASE_SRC = os.environ.get("QASCORE_STREAM_BASE_SRC")
NQ = SHARED / "ava" / "evouna" / "NQ.json"


def write_inputs() -> tuple[Path, list[Path]]:
    folder = DATA / f"exam_{QUERIES}"
    bank = folder / "bank.jsonl"
    systems = [folder / f"system{s:02d}.jsonl" for s in range(max(SYSTEMS))]
    if bank.exists() and all(p.exists() for p in systems):
        return bank, systems
    folder.mkdir(parents=True, exist_ok=True)
    records = json.loads(NQ.read_text(encoding="utf-8"))
    questions = [(r["question"], r["golden_answer"].split("/")) for r in records if isinstance(r["golden_answer"], str)]
    texts = [t for r in records for key, t in r.items() if key == "question" or key.startswith("answer_")
             if isinstance(t, str) and t.strip()]
    rng = random.Random(0)
    with bank.open("w", encoding="utf-8") as fh:
        for q in range(QUERIES):
            for k in range(5):
                text, golds = questions[(5 * q + k) % len(questions)]
                fh.write(json.dumps({"query_id": f"q{q}", "question_id": f"q{q}.{k}", "question": text,
                                     "gold_answers": golds}) + "\n")
    for s, path in enumerate(systems):
        with path.open("w", encoding="utf-8") as fh:
            for q in range(QUERIES):
                paragraphs = [" ".join(rng.choice(texts) for _ in range(3)) + f" (system {s})" for _ in range(10)]
                fh.write(json.dumps({"squid": f"x:q{q}", "title": f"q{q}",
                                     "paragraphs": [{"para_body": [{"text": p}]} for p in paragraphs]}) + "\n")
    return bank, systems


@pytest.fixture(scope="module")
def inputs():
    if not NQ.is_file():
        pytest.skip(f"shared data not found at {NQ}")
    return write_inputs()


def test_stream_exam_memory(inputs):
    bank, systems = inputs
    sources = {"this": SRC, **({"base": Path(BASE_SRC)} if BASE_SRC else {})}
    peak = {}
    for name, src in sources.items():
        for n in SYSTEMS:
            argv = ["exam", "-q", str(bank), *(a for p in systems[:n] for a in ("--articles", str(p))),
                    "--jsonl", "--per-example", "-o", str(DATA / f"exam_out_{n}.jsonl")]
            wall, rss = run_command(argv, src)
            peak[name, n] = rss
            print(f"[stream exam] {name}: {n} systems x {QUERIES} queries: {wall:.2f} s, peak RSS {rss:.0f} MB")
        small, large = SYSTEMS
        print(f"[stream exam] {name}: peak RSS ratio {large}/{small} systems: "
              f"{peak[name, large] / peak[name, small]:.2f}")
