"""The Metric interface of the lexical methods (Rouge, BLEU, DuReaderMrc): the same numbers as the
functions they wrap, on real data and on generated text, and streaming over any split."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qascore.lexical import BLEU, DuReaderMrc, Rouge, corpus_bleu, rouge, score_dureader
from qascore.lexical.formats import (
    DuReaderPrediction,
    DuReaderReference,
    read_dureader_predictions,
    read_dureader_references,
)
from qascore.metric import CorpusScore, ExampleScores, Metric

from mrc_reference import msmarco_pairs

ROUGE_SETTINGS = [
    dict(rouge_types=("rouge1", "rouge2", "rougeL", "rougeLsum"), use_stemmer=True),
    dict(rouge_types=("rougeL",), multi_ref="max_pr", gamma=1.2),
]
BLEU_SETTINGS = [dict(), dict(tokenize="intl", smooth_method="floor", effective_order=True),
                 dict(tokenize="char", smooth_method="add-k", lowercase=True, max_ngram_order=3)]
DUREADER_SETS = [("dureader2018_demo/pred.json", "dureader2018_demo/ref.json"),
                 ("dureader2_demo/pred_fake_answers.jsonl", "dureader2_demo/ref_from_demo_dev.jsonl")]

words = st.lists(st.sampled_from("the a cat cats sat on mat . , 1 2 éé".split()), max_size=12).map(" ".join)
batches = st.lists(st.tuples(words, st.lists(words, min_size=1, max_size=3)), min_size=1, max_size=8)


def split_and_stream(metric: Metric, cut: int, *batch):
    metric.reset()
    metric.update(*(part[:cut] for part in batch))
    metric.update(*(part[cut:] for part in batch))
    return metric.compute()


# ---- ROUGE ------------------------------------------------------------------------------------
def check_rouge_parity(predictions, references, options):
    metric = Rouge(**options)
    want = rouge(predictions, references, **options)
    scores = metric.score(predictions, references)
    assert isinstance(scores, ExampleScores) and scores.signature == want.signature == metric.signature()
    for name, arrays in want.items():
        for figure in ("precision", "recall", "fmeasure"):
            assert np.array_equal(scores[f"{name}_{figure}"], getattr(arrays, figure))
    corpus = metric.corpus_score(predictions, references)
    assert isinstance(corpus, CorpusScore) and corpus.n == len(predictions)
    # bit for bit the mean of the functional API
    assert corpus.values == {f"{n}_{f}": v for n, means in want.mean().items() for f, v in means.items()}
    return metric, corpus


@pytest.mark.parametrize("options", ROUGE_SETTINGS)
def test_rouge_metric_equals_rouge_on_real_data_and_streams(shared_data, options):
    hyps, refs = msmarco_pairs(shared_data)
    metric, corpus = check_rouge_parity(hyps, refs, options)
    streamed = split_and_stream(metric, 3_001, hyps, refs)
    assert streamed.n == corpus.n and streamed.signature == corpus.signature
    for key, value in corpus.values.items():  # float sums regrouped: equal to rounding
        assert streamed[key] == pytest.approx(value, rel=1e-12, abs=1e-15)


@settings(max_examples=80, deadline=None)
@given(data=batches, cut=st.integers(0, 8), options=st.sampled_from(ROUGE_SETTINGS))
def test_rouge_metric_on_generated_text(data, cut, options):
    hyps, refs = [h for h, _ in data], [r for _, r in data]
    metric, corpus = check_rouge_parity(hyps, refs, options)
    streamed = split_and_stream(metric, cut, hyps, refs)
    assert streamed.n == corpus.n
    assert streamed.values == pytest.approx(corpus.values, rel=1e-12, abs=1e-15)


def test_rouge_metric_settings_are_checked_at_construction():
    with pytest.raises(ValueError, match="Invalid rouge type"):
        Rouge(("rougeQ",))
    with pytest.raises(ValueError, match="multi_ref"):
        Rouge(multi_ref="mean")
    assert repr(Rouge(("rougeL",))).startswith("Rouge(rouge_types=('rougeL',)")


def test_rouge_metric_compute_before_update_is_an_error():
    with pytest.raises(ValueError, match="before any update"):
        Rouge().compute()


# ---- BLEU -------------------------------------------------------------------------------------
def check_bleu_parity(hyps, refs, options, cut):
    metric = BLEU(**options)
    want = corpus_bleu(hyps, refs, **options)
    streamed = split_and_stream(metric, cut, hyps, refs)
    assert streamed.n == len(hyps) and streamed.signature == want.signature
    # integer statistics add exactly: the streamed corpus BLEU is bit-identical
    assert streamed == want == metric.corpus_score(hyps, refs)
    assert list(want.values) == ["score", *(f"precision_{k}" for k in range(1, metric.max_ngram_order + 1)), "bp",
                                 "sys_len", "ref_len"]
    assert metric.aggregate(metric.statistics(hyps, refs)).values == streamed.values
    scores = metric.score(hyps, refs)
    assert np.array_equal(scores["bleu"], metric.sentence_scores(hyps, refs))
    assert scores.signature == want.signature


@pytest.mark.parametrize("options", BLEU_SETTINGS)
def test_bleu_metric_streams_bit_identically_on_real_data(shared_data, options):
    hyps, refs = msmarco_pairs(shared_data)
    hyps, refs = hyps[:3000], refs[:3000]
    check_bleu_parity(hyps, refs, options, 1_234)


@settings(max_examples=120, deadline=None)
@given(data=batches, cut=st.integers(0, 8), options=st.sampled_from(BLEU_SETTINGS))
def test_bleu_metric_on_generated_text(data, cut, options):
    check_bleu_parity([h for h, _ in data], [r for _, r in data], options, cut)


def test_bleu_signature_counts_references_across_batches():
    metric = BLEU()
    metric.update(["a b"], [["a b", "a c"]])
    metric.update(["c d"], [["c d", "c"]])
    assert "nrefs:2" in metric.compute().signature
    metric.update(["e"], [["e"]])
    assert "nrefs:var" in metric.compute().signature
    assert "nrefs" not in metric.signature()


def test_bleu_statistics_refuse_a_single_string_of_references():
    with pytest.raises(TypeError, match="references must be a sequence"):
        BLEU().statistics(["a"], "a")


# ---- DuReader adapted ROUGE-L / BLEU ------------------------------------------------------------
def check_dureader_parity(preds, refs, options):
    metric = DuReaderMrc(**options)
    want = score_dureader(preds, refs, per_question=True, **options)
    corpus = metric.corpus_score(preds, refs)
    assert corpus.signature == want.signature == metric.signature() and corpus.n == want.n_scored
    assert corpus["ROUGE-L"] == want.rouge_l
    assert [corpus[f"BLEU-{k}"] for k in range(1, len(want.bleu) + 1)] == want.bleu
    assert corpus["n_missing_predictions"] == want.n_missing_predictions
    scores = metric.score(preds, refs)
    assert scores.ids == want.question_ids
    assert np.array_equal(scores["ROUGE-L"], want.rouge_l_per_question)
    assert np.array_equal(scores[f"BLEU-{len(want.bleu)}"], want.bleu_per_question)
    return metric, corpus


def split_by_question(preds, refs, cut):
    ids = list(refs)
    parts = (ids[:cut], ids[cut:])
    return [({q: preds[q] for q in part if q in preds}, {q: refs[q] for q in part}) for part in parts]


@pytest.mark.parametrize("pred_file,ref_file", DUREADER_SETS)
@pytest.mark.parametrize("options", [dict(), dict(alpha=0.0, beta=0.0), dict(alpha=2.0, variant="lic2019")])
def test_dureader_metric_equals_score_dureader_on_real_data(shared_data, pred_file, ref_file, options):
    d = shared_data / "mrc"
    preds, refs = read_dureader_predictions(d / pred_file), read_dureader_references(d / ref_file)
    metric, corpus = check_dureader_parity(preds, refs, options)
    # split by question where both halves have scorable questions
    cut = next(k for k in range(len(refs) // 2, len(refs))
               if any(r.answers for r in list(refs.values())[:k]) and any(r.answers for r in list(refs.values())[k:]))
    metric.reset()
    for part in split_by_question(preds, refs, cut):
        metric.update(*part)
    streamed = metric.compute()
    assert streamed.n == corpus.n
    # integer weights keep every n-gram total an integer: BLEU is bit-identical
    assert {k: v for k, v in streamed.values.items() if k.startswith("BLEU")} == {
        k: v for k, v in corpus.values.items() if k.startswith("BLEU")}
    assert streamed["ROUGE-L"] == pytest.approx(corpus["ROUGE-L"], rel=1e-12)


def qa_corpus(draw_answers, draw_preds, qtypes):
    refs, preds = {}, {}
    for qid, (answers, qtype) in enumerate(zip(draw_answers, qtypes)):
        labels = ["Yes"] * len(answers) if qtype == "YES_NO" else []
        entities = [tuple(a[:2] for a in answers)] if qtype == "ENTITY" else []
        refs[qid] = DuReaderReference(qid, qtype, tuple(answers), tuple(labels), tuple(entities), "ref", qid + 1)
    for qid, answer in enumerate(draw_preds):
        if qid in refs:
            preds[qid] = DuReaderPrediction(qid, (answer,), ("Yes",), "pred", qid + 1)
    return preds, refs


chars = st.text(alphabet="abc，。 \u3000", max_size=8)


@settings(max_examples=80, deadline=None)
@given(answers=st.lists(st.lists(chars, min_size=1, max_size=3), min_size=2, max_size=6),
       candidates=st.lists(chars, max_size=6), data=st.data(),
       options=st.sampled_from([dict(), dict(alpha=0.0, beta=0.0, tokenize="whitespace")]))
def test_dureader_metric_on_generated_corpora(answers, candidates, data, options):
    qtypes = data.draw(st.lists(st.sampled_from(["YES_NO", "ENTITY", "DESCRIPTION"]),
                                min_size=len(answers), max_size=len(answers)))
    preds, refs = qa_corpus(answers, candidates, qtypes)
    metric, corpus = check_dureader_parity(preds, refs, options)
    cut = data.draw(st.integers(1, len(refs) - 1))
    metric.reset()
    for part in split_by_question(preds, refs, cut):
        metric.update(*part)
    streamed = metric.compute()
    assert streamed.n == corpus.n
    for key, value in corpus.values.items():
        if key.startswith("BLEU"):
            assert streamed[key] == value, key
        else:
            assert streamed[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


def test_dureader_metric_rejects_bad_settings_at_construction():
    with pytest.raises(ValueError, match="unknown variant"):
        DuReaderMrc(variant="lic2020")
    with pytest.raises(ValueError, match="max_order"):
        DuReaderMrc(max_order=0)
