"""The compiled n-gram recall against a plain-Python reference written here (hypothesis inputs)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.nuggets.ngram_index import NgramIndex, QuestionNuggets


def ngrams(terms, n_max):
    return {tuple(terms[i:i + k]) for k in range(1, n_max + 1) for i in range(len(terms) - k + 1)}


def reference_recall(questions, responses, n_max, informativeness, term_weight, background=None, in_group=True):
    """Nuggeteer eq. 1-4 written out plainly: for each response, per nugget of its question, the
    best description's weighted recall of distinct shared n-grams. ``background[qi]``: the last
    nugget of question qi is a background nugget, left out of G unless ``in_group``."""
    out = []
    for qi, terms in responses:
        descriptions = questions[qi]  # per nugget, its descriptions
        members = [True] * len(descriptions)
        if background and background[qi] and not in_group:
            members[-1] = False
        group = sum(members)
        nugget_grams = [set().union(*(ngrams(d, n_max) for d in descs)) if descs else set() for descs in descriptions]
        response_grams = ngrams(terms, n_max)
        row = []
        for g, descs in enumerate(descriptions):
            def weight(e, nugget_grams=nugget_grams, group=group, g=g, members=members):
                w = sum(term_weight(t) for t in e)
                if informativeness == "none":
                    return w
                holders = sum(e in grams for grams, member in zip(nugget_grams, members) if member)
                others = holders - 1 if informativeness == "others" and members[g] else holders
                return w * (1.0 - others / group) if group else w
            best = 0.0
            for d in descs:
                grams = ngrams(d, n_max)
                total = sum(weight(e) for e in grams)
                shared = sum(weight(e) for e in grams & response_grams)
                if total > 0 and shared > 0:
                    best = max(best, shared / total)
            row.append(best)
        out.append(row)
    return out


VOCAB = ["a", "b", "c", "d", "e", "é", "中"]
term_list = st.lists(st.sampled_from(VOCAB), max_size=7)
question_st = st.lists(st.lists(term_list, max_size=3), min_size=1, max_size=4)  # nuggets -> descriptions


@st.composite
def tasks(draw):
    questions = draw(st.lists(question_st, min_size=1, max_size=3))
    responses = draw(st.lists(st.tuples(st.integers(0, len(questions) - 1), st.lists(st.sampled_from(VOCAB + ["z"]), max_size=12)),
                              max_size=8))
    n_max = draw(st.integers(1, 3))
    informativeness = draw(st.sampled_from(["others", "equation3", "none"]))
    idf = draw(st.one_of(st.none(), st.fixed_dictionaries({t: st.floats(0.0, 5.0) for t in VOCAB})))
    background = draw(st.lists(st.booleans(), min_size=len(questions), max_size=len(questions)))
    in_group = draw(st.booleans())
    return questions, responses, n_max, informativeness, idf, background, in_group


def kernel_recall(questions, responses, n_max, informativeness, idf, background, in_group, n_jobs=1):
    index = NgramIndex([QuestionNuggets(f"q{i}", [str(j) for j in range(len(q))], q, background=bg)
                        for i, (q, bg) in enumerate(zip(questions, background))],
                       n_max=n_max, informativeness=informativeness, background_in_group=in_group)
    ids, offsets = index.encode([t for _, t in responses])
    question = np.array([q for q, _ in responses], dtype=np.int32)
    out_offsets, recall, best, entry_nugget = index.recall(ids, offsets, question, index.weights(None if idf is None else index.term_weights(idf.get)),
                                                           n_jobs=n_jobs)
    rows = [list(recall[out_offsets[i]:out_offsets[i + 1]]) for i in range(len(responses))]
    return rows, index, best, entry_nugget, out_offsets


@settings(max_examples=150, deadline=None)
@given(tasks())
def test_kernel_matches_plain_python(task):
    questions, responses, n_max, informativeness, idf, background, in_group = task
    got, index, best, entry_nugget, out_offsets = kernel_recall(*task)
    want = reference_recall(questions, responses, n_max, informativeness, (lambda t: 1.0) if idf is None else idf.get,
                            background, in_group)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == pytest.approx(w, rel=1e-12, abs=1e-15)
    for i, (q, _) in enumerate(responses):
        for j in range(len(questions[q])):
            k = out_offsets[i] + j
            assert index.nugget_of(int(entry_nugget[k])) == (f"q{q}", str(j))
            if got[i][j] > 0:  # the best description belongs to that nugget
                assert index.desc_nugget[best[k]] == entry_nugget[k]
            else:
                assert best[k] == -1


@settings(max_examples=30, deadline=None)
@given(tasks())
def test_threads_give_identical_results(task):
    one = kernel_recall(*task, n_jobs=1)[0]
    many = kernel_recall(*task, n_jobs=4)[0]
    assert one == many


def test_count_weights_are_exact_and_example_from_the_paper():
    # "American Communist" (Aaron Copland): with count weights W = n, a response holding only
    # "american" gets 1 / (1 + 1 + 2) of the bigram description (no other nugget shares it).
    index = NgramIndex([QuestionNuggets("1901", ["5"], [[["american", "communist"]]])], n_max=2)
    ids, off = index.encode([["the", "american", "way"], ["american", "communist"], []])
    out_offsets, recall, _, _ = index.recall(ids, off, np.zeros(3, dtype=np.int32), index.weights(None), n_jobs=1)
    assert list(recall) == [0.25, 1.0, 0.0]


def test_document_frequency_counts_rows():
    from qascore._kernels.nugget_recall import document_frequency

    ids = np.array([1, 1, 2, 0, 2, 2, 3], dtype=np.int32)
    offsets = np.array([0, 3, 3, 6, 7], dtype=np.int64)
    assert list(document_frequency(ids, offsets, 4)) == [1, 1, 2, 1]


def test_guards():
    with pytest.raises(ValueError, match="n-gram length must be 1, 2 or 3"):
        NgramIndex([], n_max=4)
    with pytest.raises(ValueError, match="duplicate nugget ids"):
        NgramIndex([QuestionNuggets("q", ["1", "1"], [[["a"]], [["b"]]])])
    index = NgramIndex([QuestionNuggets("q", ["1"], [[["a"]]])])
    ids, off = index.encode([["a"]])
    with pytest.raises(ValueError, match="question index out of range"):
        index.recall(ids, off, np.array([1]), index.weights(None))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", " ", "AB", ",", ".", "'", "-", "é", "1", "the ", "running ", "because ", "Of "]),
                         max_size=20).map("".join), max_size=6),
       st.booleans(), st.booleans())
def test_compiled_encoding_gives_the_analyzer_terms(texts, stem, stopwords):
    from qascore.nuggets.terms import Analyzer
    from qascore.nuggets.ngram_index import sequence_hashes

    analyzer = Analyzer(stem=stem, stopwords=stopwords)
    packed = analyzer.encode_batch(texts, n_jobs=1)
    ids, offsets = packed.ids, packed.offsets
    got = [tuple(analyzer.vocab.token(int(i)) for i in ids[offsets[k]:offsets[k + 1]]) for k in range(len(texts))]
    assert got == analyzer.terms_batch(texts)
    hashes = sequence_hashes(ids, offsets)
    for a in range(len(texts)):
        for b in range(len(texts)):
            if got[a] == got[b]:
                assert hashes[a] == hashes[b]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), max_size=12), max_size=8))
def test_document_frequency_is_the_row_count_of_each_id(rows):
    """One shared kernel (ngram.pyx) serves the nugget scorers and EXAM; each id counted once per
    row that holds it, against a plain-Python count."""
    from qascore._kernels import exam_lexical, ngram, nugget_recall

    assert nugget_recall.document_frequency is ngram.document_frequency
    assert exam_lexical.document_frequency is ngram.document_frequency
    ids = np.array([t for row in rows for t in row], dtype=np.int32)
    offsets = np.cumsum([0] + [len(row) for row in rows]).astype(np.int64)
    expected = [sum(t in row for row in rows) for t in range(10)]
    assert list(ngram.document_frequency(ids, offsets, 10)) == expected
    assert list(ngram.document_frequency(np.repeat(ids, 2)[::2], offsets, 10)) == expected  # a strided view
