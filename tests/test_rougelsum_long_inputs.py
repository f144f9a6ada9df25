"""rougeLsum on inputs that used to cost quadratic memory or time, each test named after its input,
and the bounded-memory path against rouge-score itself on texts of many sentences with ties."""
from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score.rouge_scorer import RougeScorer as PeerScorer

from qascore.cli import main
from qascore.lexical.rouge import rouge

MB = 1 << 20


def test_rougelsum_one_150k_token_sentence_each_side_bounded_memory():
    """One 150,000-token sentence each side used to hold the whole LCS table: 5.4 GB peak RSS.
    Measured in a child process (its peak RSS, ``ru_maxrss``, counts the kernel's C allocations,
    which tracemalloc would not see): the call may add at most 100 MB over the peak before it."""
    child = textwrap.dedent("""
        import resource, sys
        import numpy as np
        from qascore.lexical.rouge import rouge
        rng = np.random.default_rng(0)
        words = np.array([f"w{i}" for i in range(1000)])
        pred, ref = " ".join(rng.choice(words, 150_000)), " ".join(rng.choice(words, 150_000))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        hits = rouge([pred], [ref], ["rougeLsum"], n_jobs=1)["rougeLsum"].recall[0] * 150_000
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(round(hits), (after - before) * 1024)  # ru_maxrss is in KiB on Linux
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    hits, added = map(int, done.stdout.split())
    assert 8_000 < hits < 10_000  # about 0.061 of 150k: two random texts over 1,000 words
    assert added < 100 * MB, f"the call added {added / MB:.0f} MB of peak RSS"


def test_rougelsum_100k_one_token_sentences_each_side():
    """100,000 one-token sentences each side (quadratic in time before: every reference
    sentence visited every candidate sentence). A one-token reference sentence is on the union
    LCS exactly when the candidate holds its token, so the hits are the clipped token overlap."""
    rng = np.random.default_rng(1)
    pred, ref = rng.integers(0, 3000, 100_000), rng.integers(0, 3000, 100_000)
    result = rouge(["\n".join(f"w{t}" for t in pred)], ["\n".join(f"w{t}" for t in ref)], ["rougeLsum"], n_jobs=1)
    overlap = sum((Counter(pred.tolist()) & Counter(ref.tolist())).values())
    assert result["rougeLsum"].recall[0] == overlap / 100_000
    assert result["rougeLsum"].precision[0] == overlap / 100_000


WORDS = ["a", "b", "c", "d", "e", "f", "g", "h"]


@st.composite
def sentence_texts(draw):
    """A text of up to eight lines over a few words: many ties in every table, and sentences
    past 64 tokens (more than one word of bits)."""
    vocabulary = WORDS[: draw(st.sampled_from([1, 2, 3, 8]))]
    sentence = st.lists(st.sampled_from(vocabulary), min_size=1, max_size=draw(st.sampled_from([1, 10, 80])))
    return "\n".join(" ".join(s) for s in draw(st.lists(sentence, max_size=8)))


_PEER = PeerScorer(["rougeLsum"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(sentence_texts(), sentence_texts()), min_size=1, max_size=3), st.sampled_from([0, 3, 40]))
def test_rougelsum_under_a_small_budget_matches_rouge_score(lsum_budget, pairs, budget):
    """The checkpointed table and position-list match rows (forced by a tiny budget) give
    rouge-score's own floats, bit for bit."""
    predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
    with lsum_budget(budget):
        got = rouge(predictions, references, ["rougeLsum"], n_jobs=1)["rougeLsum"]
    for k, (prediction, reference) in enumerate(pairs):
        want = _PEER.score(reference, prediction)["rougeLsum"]
        assert (got.precision[k], got.recall[k], got.fmeasure[k]) == (want.precision, want.recall, want.fmeasure)


def test_rouge_cli_out_of_memory_is_one_line_naming_the_inputs(tmp_path, capsys, monkeypatch):
    """A MemoryError from a kernel ends as one line and exit status 2, not a traceback."""
    lexical_rouge = importlib.import_module("qascore.lexical.rouge")  # the attribute is the function rouge

    def no_memory(*args, **kwargs):
        raise MemoryError("out of memory in the rougeLsum kernel")

    # rouge-score's tokeniser, lines as sentences: rougeLsum comes from the per-pair kernel
    monkeypatch.setattr(lexical_rouge, "raw_rouge_counts", no_memory)
    p, r = tmp_path / "pred.txt", tmp_path / "ref.txt"
    p.write_text("a b c\n", encoding="utf-8")
    r.write_text("a c\n", encoding="utf-8")
    code = main(["rouge", "-p", str(p), "-r", str(r), "--types", "rougeLsum", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("qascore rouge: error: out of memory in the rougeLsum kernel scoring ")
    assert str(p) in err and str(r) in err and "--n-jobs 1" in err
