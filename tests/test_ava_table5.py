"""Pure parts of qascore.ava.table5 (the AVA run itself is a study, not a test)."""
import math

import numpy as np

from qascore.ava import table5


def test_references_leave_the_candidate_out():
    groups = np.array([1, 1, 1, 2, 2])
    sentences = ["a", "b", "c", "d", "e"]
    labels = np.array([1, 0, 1, 1, 0])
    assert table5.references_for(groups, sentences, labels) == ["c", "a", "a", "d", "d"]


def test_bm25_hand_computed():
    groups = np.array([0, 0])
    questions = ["cat food", "cat food"]
    sentences = ["cat cat dog", "food"]
    got = table5.bm25_scores(groups, questions, sentences, k1=1.2, b=0.75)
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))  # each query word is in one of the two sentences
    avgdl = 2.0
    cat = idf * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / avgdl))
    food = idf * 1 * 2.2 / (1 + 1.2 * (1 - 0.75 + 0.75 * 1 / avgdl))
    np.testing.assert_allclose(got, [cat, food], rtol=1e-12)
    assert table5.bm25_scores(np.array([0]), ["x"], [""])[0] == 0.0
