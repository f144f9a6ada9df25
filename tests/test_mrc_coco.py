"""coco-caption BLEU / ROUGE-L (MS MARCO scorers) against pycocoevalcap itself, and the MS MARCO path."""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.lexical.coco import coco_bleu, coco_rouge_l

pytest.importorskip("pycocoevalcap")
from pycocoevalcap.bleu.bleu import Bleu  # noqa: E402
from pycocoevalcap.rouge.rouge import Rouge  # noqa: E402


def peer(candidates, references):
    res = {i: [c] for i, c in enumerate(candidates)}
    gts = {i: list(r) for i, r in enumerate(references)}
    bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    rouge, per = Rouge().compute_score(gts, res)
    return bleu, rouge, per


def test_msmarco_pairs_match_pycocoevalcap(shared_data, capsys):
    refs = {}
    with open(shared_data / "mrc/msmarco/dev_as_references.json", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            refs[d["query_id"]] = [a.lower() for a in d["answers"]]
    cands, cand_refs = [], []
    with open(shared_data / "mrc/msmarco/dev_first_sentence_as_candidates.json", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if refs.get(d["query_id"]):
                cands.append(d["answers"][0].lower())
                cand_refs.append(refs[d["query_id"]])
    cands, cand_refs = cands[:3000], cand_refs[:3000]
    bleu, rouge, per = peer(cands, cand_refs)
    ours = coco_bleu(cands, cand_refs)
    assert ours.bleu == pytest.approx(bleu, abs=1e-12)
    ours_rouge = coco_rouge_l(cands, cand_refs)
    assert np.max(np.abs(ours_rouge - np.asarray(per))) <= 1e-12
    assert float(np.mean(ours_rouge)) == pytest.approx(rouge, abs=1e-12)


words = st.lists(st.sampled_from("a b c d e".split()), max_size=8).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(data=st.lists(st.tuples(words, st.lists(words, min_size=1, max_size=3)), min_size=1, max_size=5))
def test_generated_segments_match_pycocoevalcap(data):
    cands = [c for c, _ in data]
    refs = [r for _, r in data]
    bleu, rouge, per = peer(cands, refs)
    assert coco_bleu(cands, refs).bleu == pytest.approx(bleu, rel=1e-12, abs=1e-300)
    assert coco_rouge_l(cands, refs).tolist() == pytest.approx(list(per), abs=1e-12)


def test_zero_matches_give_guarded_tiny_values_not_zero():
    got = coco_bleu(["a b"], [["c d"]])
    assert 0 < got.bleu[1] < 1e-6
