"""Every text of the shared data that the text-layer parity tests run over, loaded once."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

MSMARCO = Path("mrc/msmarco")


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@cache
def msmarco_pairs(data_dir: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The 9,754 scored MS MARCO dev pairs: (first reference answer, first-sentence candidate)."""
    references = {row["query_id"]: row["answers"] for row in _jsonl(data_dir / MSMARCO / "dev_as_references.json")}
    candidates = _jsonl(data_dir / MSMARCO / "dev_first_sentence_as_candidates.json")
    pairs = [(references[row["query_id"]][0], row["answers"][0]) for row in candidates if references[row["query_id"]]]
    return tuple(ref for ref, _ in pairs), tuple(cand for _, cand in pairs)


def _strings_in(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings_in(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings_in(item)]
    return []


@cache
def all_texts(data_dir: Path) -> tuple[str, ...]:
    """Every string field of MS MARCO, EVOUNA-NQ, rouge-score's test lines, TREC RAG 2024 and the
    DuReader demo sets (Chinese)."""
    texts: list[str] = []
    for path in sorted((data_dir / MSMARCO).glob("*.json")):
        texts += _strings_in(_jsonl(path))
    with open(data_dir / "ava/evouna/NQ.json", encoding="utf-8") as handle:
        texts += _strings_in(json.load(handle))
    for path in sorted((data_dir / "rouge_score").glob("*.txt")):
        texts += path.read_text(encoding="utf-8").splitlines()
    for path in sorted((data_dir / "nuggets/rag24").glob("assignments.*.jsonl")):
        texts += _strings_in(_jsonl(path))
    for path in sorted((data_dir / "mrc").glob("dureader*/*.json*")):
        texts += _strings_in(_jsonl(path))
    return tuple(dict.fromkeys(texts))


def test_corpus_has_the_scored_msmarco_pairs(shared_data):
    references, candidates = msmarco_pairs(shared_data)
    assert len(references) == len(candidates) == 9754
    assert len(all_texts(shared_data)) > 20000
