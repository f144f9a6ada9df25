"""Per-call cost of the sentence-level entry points, one segment a call, side by side with the peers.

Run: PYTHONPATH=src python -m pytest benchmarks/test_bench_sentence_calls.py --benchmark-only \
         --benchmark-columns=mean,stddev,rounds -s
 or: PYTHONPATH=src python benchmarks/test_bench_sentence_calls.py      (a table, no pytest)

Data: the WMT17 en-de systems of sacrebleu's own tests (``test/wmt17_en_de_systems.pkl.bz2`` in
its source distribution): every system's first ``QASCORE_SENTENCE_SEGMENTS`` segments (default
100) against the reference, one ``f(hypothesis, [reference])`` call each, system after system,
as a per-example loop, a reranker or an RL reward calls a metric. The file is looked up at
``QASCORE_WMT17`` or in ``~/.cache/qascore/``, else fetched there with ``peer_suites``' fetcher
(``pip download`` of the sdist); without it the benchmark is skipped.

Each entry point is timed against the peer's own call in interleaved rounds (peer loop, then
ours, ``ROUNDS`` times) in CPU time (``time.process_time``: the machine's other load does not
count), and the median of each side gives the per-call time and the ratio (peer / ours, > 1:
qascore faster). A metric object is built fresh for each round on both sides, so sacrebleu's
tokeniser cache (``lru_cache`` on the tokenisers) helps it as in real use: references repeat
across systems within a round. Every qascore score is checked equal to the peer's.
"""
from __future__ import annotations

import bz2
import logging
import os
import pickle
import statistics
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sacrebleu")

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = int(os.environ.get("QASCORE_SENTENCE_ROUNDS", "5"))
SEGMENTS = int(os.environ.get("QASCORE_SENTENCE_SEGMENTS", "100"))
WMT17_NAME = "wmt17_en_de_systems.pkl.bz2"


def wmt17_path() -> Path | None:
    """sacrebleu's pickled WMT17 systems: ``QASCORE_WMT17``, the cache, or fetched into the cache."""
    if os.environ.get("QASCORE_WMT17"):
        return Path(os.environ["QASCORE_WMT17"])
    cached = Path.home() / ".cache" / "qascore" / WMT17_NAME
    if cached.is_file():
        return cached
    try:
        import importlib.util
        import tempfile

        spec = importlib.util.spec_from_file_location("fetch_sacrebleu", ROOT / "peer_suites" / "sacrebleu" / "fetch.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with tempfile.TemporaryDirectory() as tmp:
            module.fetch(Path(tmp))
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_bytes((Path(tmp) / "test" / WMT17_NAME).read_bytes())
        return cached
    except Exception:  # offline, no pip: the benchmark is skipped
        return None


def wmt17_pairs(segments: int = SEGMENTS) -> list[tuple[str, str]]:
    """(hypothesis, reference) of every system's first ``segments`` segments, system after system."""
    path = wmt17_path()
    if path is None or not path.is_file():
        pytest.skip("sacrebleu's WMT17 systems are not available (set QASCORE_WMT17 or allow pip download)")
    with bz2.open(path, "rb") as f:
        systems = dict(pickle.load(f))
    (reference,) = systems.pop("reference")
    return [(hyp, reference[i]) for lines in systems.values() for i, hyp in enumerate(lines[:segments])]


def entry_points():
    """(name, peer's call factory, qascore's call factory): a factory builds one round's callable."""
    import sacrebleu
    from sacrebleu.metrics import BLEU as SB, CHRF as SC, TER as ST

    from qascore.compat import sacrebleu as compat
    from qascore.lexical.bleu import BLEU
    from qascore.lexical.chrf import CHRF
    from qascore.lexical.ter import TER

    yield "compat BLEU(effective_order=True).sentence_score", \
        lambda: SB(effective_order=True).sentence_score, lambda: compat.BLEU(effective_order=True).sentence_score
    yield "compat BLEU().sentence_score", lambda: SB().sentence_score, lambda: compat.BLEU().sentence_score
    yield "compat sentence_bleu", lambda: sacrebleu.sentence_bleu, lambda: compat.sentence_bleu
    yield "compat CHRF().sentence_score", lambda: SC().sentence_score, lambda: compat.CHRF().sentence_score
    yield "compat sentence_chrf", lambda: sacrebleu.sentence_chrf, lambda: compat.sentence_chrf
    yield "compat TER().sentence_score", lambda: ST().sentence_score, lambda: compat.TER().sentence_score
    yield "compat sentence_ter", lambda: sacrebleu.sentence_ter, lambda: compat.sentence_ter
    yield "lexical BLEU(effective_order=True).sentence_score", \
        lambda: SB(effective_order=True).sentence_score, lambda: BLEU(effective_order=True).sentence_score
    yield "lexical CHRF().sentence_score", lambda: SC().sentence_score, lambda: CHRF().sentence_score
    yield "lexical TER().sentence_score", lambda: ST().sentence_score, lambda: TER().sentence_score


def rouge_entry_point():
    from rouge_score.rouge_scorer import RougeScorer as Peer

    from qascore.compat.rouge_score.rouge_scorer import RougeScorer

    types = ["rouge1", "rouge2", "rougeL"]
    return ("compat RougeScorer(rouge1/2/L).score", lambda: Peer(types).score, lambda: RougeScorer(types).score)


def _score(result) -> float:
    """The score of a sacrebleu-shaped object (``.score``) or of qascore's CorpusScore (``["score"]``)."""
    return result["score"] if hasattr(result, "values") else result.score


def _loop(fn, pairs, sentence: bool) -> tuple[float, list]:
    """CPU seconds of one call per pair, and the scores (read after the clock stops)."""
    start = time.process_time()
    if sentence:
        out = [fn(hyp, [ref]) for hyp, ref in pairs]
    else:  # RougeScorer.score(target, prediction)
        out = [fn(ref, hyp) for hyp, ref in pairs]
    seconds = time.process_time() - start
    return seconds, [_score(r) for r in out] if sentence else out


def side_by_side(peer_factory, ours_factory, pairs, sentence: bool = True, rounds: int = ROUNDS,
                 benchmark=None) -> dict:
    """Interleaved rounds, peer then ours; medians per call (microseconds) and the ratio. With a
    pytest-benchmark fixture, our loop is its timed target and the peer's its untimed setup."""
    peer_times: list[float] = []
    ours_times: list[float] = []
    results: dict[str, list] = {}
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)  # BLEU without effective order warns on every call, on both sides
    try:
        def peer_round():
            seconds, results["peer"] = _loop(peer_factory(), pairs, sentence)
            peer_times.append(seconds)

        def ours_round():
            seconds, results["ours"] = _loop(ours_factory(), pairs, sentence)
            ours_times.append(seconds)

        if benchmark is None:
            for _ in range(rounds):
                peer_round()
                ours_round()
        else:
            benchmark.pedantic(ours_round, setup=peer_round, rounds=rounds, iterations=1)
    finally:
        logging.disable(previous)
    assert results["ours"] == results["peer"], "qascore's scores differ from the peer's"
    peer_us = statistics.median(peer_times) / len(pairs) * 1e6
    ours_us = statistics.median(ours_times) / len(pairs) * 1e6
    return {"calls": len(pairs), "peer_us": round(peer_us, 1), "qascore_us": round(ours_us, 1),
            "ratio": round(peer_us / ours_us, 2)}


def _report(name: str, row: dict) -> None:
    print(f"\n{name}: {row['calls']} calls, peer {row['peer_us']:.1f} us/call, qascore {row['qascore_us']:.1f} "
          f"us/call: {row['ratio']:.2f}x")


@pytest.fixture(scope="module")
def pairs():
    return wmt17_pairs()


ENTRY_POINTS = {name: (peer, ours) for name, peer, ours in entry_points()}


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_sentence_call(benchmark, pairs, name):
    peer, ours = ENTRY_POINTS[name]
    benchmark.group = "sentence-calls-wmt17"
    row = side_by_side(peer, ours, pairs, benchmark=benchmark)
    benchmark.extra_info.update(row)
    _report(name, row)


def test_rouge_scorer_call(benchmark, pairs):
    pytest.importorskip("rouge_score")
    name, peer, ours = rouge_entry_point()
    benchmark.group = "sentence-calls-wmt17"
    row = side_by_side(peer, ours, pairs, sentence=False, benchmark=benchmark)
    benchmark.extra_info.update(row)
    _report(name, row)


def main() -> None:
    data = wmt17_pairs()
    print(f"{len(data)} calls a round ({SEGMENTS} segments of each WMT17 system), {ROUNDS} interleaved rounds, "
          f"CPU time, median per call")
    print(f"{'entry point':52s} {'peer us':>9s} {'qascore us':>11s} {'ratio':>7s}")
    rows = [(name, side_by_side(peer, ours, data)) for name, peer, ours in entry_points()]
    try:
        name, peer, ours = rouge_entry_point()
        rows.append((name, side_by_side(peer, ours, data, sentence=False)))
    except ImportError:
        pass
    for name, row in rows:
        print(f"{name:52s} {row['peer_us']:9.1f} {row['qascore_us']:11.1f} {row['ratio']:6.2f}x")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    main()
