"""Bad input to every public scoring function and class, one table row per case.

Each row is ``(target:case, call, outcome)``: the call raises a named error (type and a message
naming the argument and, in a batch, the row) or returns the documented result. A peer's own
number is the documented result where one exists (rouge-score, sacrebleu, scipy).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sacrebleu
import scipy.stats
from rouge_score import rouge_scorer as peer_rouge

from qascore import stats
from qascore.judges import ContainmentJudge, WorkbenchJudge, load_judge
from qascore.ava import Ava, default_linear_model, pointwise, ranking_metrics, systemwise_accuracy, tune_threshold
from qascore.compat import sacrebleu as compat_sb
from qascore.compat.rouge_score import rouge_scorer as compat_rs
from qascore.exam import Exam, LexicalSolver
from qascore.lexical import BLEU, DuReaderMrc, Rouge, corpus_bleu, rouge, score_dureader, sentence_bleu
from qascore.lexical.chrf import CHRF
from qascore.lexical.ter import TER
from qascore.nuggets import NuggetF, Nuggeteer, Pourpre, read_answer_key

from .cases import raises, returns

NAN, INF = float("nan"), float("inf")
HUGE = 2**70
SURROGATE = "a \ud800 b"
KEY = read_answer_key(__import__("pathlib").Path(__file__).parents[2] / "src/qascore/demo_data/nuggets/answer_key.txt")
LINEAR = default_linear_model()


def _rouge_f(types, pred, ref, **kw):
    return {t: s.fmeasure[0] for t, s in rouge([pred], [ref], types, **kw).scores.items()}


def _peer_rouge_f(types, pred, ref, **kw):
    return {t: s.fmeasure for t, s in peer_rouge.RougeScorer(types, **kw).score(ref, pred).items()}


def same_as_peer_rouge(pred, ref):
    types = ["rouge1", "rouge2", "rougeL"]
    return returns(lambda got: got == _peer_rouge_f(types, pred, ref), "equal to rouge-score")


def _bleu(hyp, ref):
    return corpus_bleu([hyp], [[ref]])["score"]


CASES = [
    # -- lexical.rouge / Rouge -------------------------------------------------------------
    ("rouge:empty batch", lambda: rouge([], []).mean(),
     returns(lambda m: all(v == 0.0 for t in m.values() for v in t.values()), "means of an empty batch are 0.0")),
    ("rouge:mismatched lengths", lambda: rouge(["a"], ["a", "b"]),
     raises(ValueError, r"references has 2 items but predictions has 1")),
    ("rouge:None prediction", lambda: rouge([None], ["a"]), raises(TypeError, r"predictions\[0\] must be str, got NoneType")),
    ("rouge:None reference", lambda: rouge(["a", "b"], ["a", None]),
     raises(TypeError, r"references\[1\] must be str or a list of str, got NoneType")),
    ("rouge:None inside a reference list", lambda: rouge(["a"], [["a", None]]),
     raises(TypeError, r"references\[0\]\[1\] must be str, got NoneType")),
    ("rouge:empty reference list", lambda: rouge(["a"], [[]]), raises(ValueError, r"references\[0\] is an empty list")),
    ("rouge:int prediction", lambda: rouge([1], ["a"]), raises(TypeError, r"predictions\[0\] must be str, got int")),
    ("rouge:bytes prediction", lambda: rouge([b"a"], ["a"]), raises(TypeError, r"predictions\[0\] must be str, got bytes")),
    ("rouge:a single string as the batch", lambda: rouge("abc", ["a", "b", "c"]),
     raises(TypeError, r"predictions must be a sequence of strings, not a single str")),
    ("rouge:references a single string", lambda: rouge(["a"], "a"), raises(TypeError, r"references must be a sequence")),
    ("rouge:gamma NaN", lambda: rouge(["a"], ["a"], gamma=NAN), raises(ValueError, r"gamma must be a finite number > 0, got nan")),
    ("rouge:gamma inf", lambda: rouge(["a"], ["a"], gamma=INF), raises(ValueError, r"gamma must be a finite number > 0, got inf")),
    ("rouge:gamma 0", lambda: rouge(["a"], ["a"], gamma=0), raises(ValueError, r"gamma must be a finite number > 0, got 0")),
    ("rouge:gamma whose square overflows", lambda: rouge(["a"], ["a"], gamma=1e200),
     raises(ValueError, r"gamma is too large: gamma \*\* 2 must be a finite float")),
    ("rouge:gamma a string", lambda: rouge(["a"], ["a"], gamma="1"), raises(TypeError, r"gamma must be a real number, got str")),
    ("rouge:gamma a bool", lambda: rouge(["a"], ["a"], gamma=True), raises(TypeError, r"gamma must be a real number, got bool")),
    ("rouge:use_stemmer a string", lambda: rouge(["a"], ["a"], use_stemmer="no"),
     raises(TypeError, r"use_stemmer must be a bool, got str")),
    ("rouge:split_summaries a string", lambda: rouge(["a"], ["a"], split_summaries="no"),
     raises(TypeError, r"split_summaries must be a bool, got str")),
    ("rouge:unknown type", lambda: rouge(["a"], ["a"], rouge_types=["rouge0"]), raises(ValueError, r"Invalid rouge type: 'rouge0'")),
    ("rouge:empty types", lambda: rouge(["a"], ["a"], rouge_types=[]), raises(ValueError, r"rouge_types is empty")),
    ("rouge:unknown multi_ref", lambda: rouge(["a"], ["a"], multi_ref="x"),
     raises(ValueError, r"multi_ref must be one of 'best_f', 'max_pr', got 'x'")),
    ("rouge:unknown tokenizer", lambda: rouge(["a"], ["a"], tokenizer="nope"), raises(ValueError, r"unknown tokenizer 'nope'")),
    ("rouge:n_jobs 0", lambda: rouge(["a"], ["a"], n_jobs=0), raises(ValueError, r"n_jobs must be a positive int")),
    ("rouge:n_jobs a string", lambda: rouge(["a"], ["a"], n_jobs="2"), raises(ValueError, r"n_jobs must be a positive int")),
    ("rouge:n_jobs huge", lambda: rouge(["a"], ["a"], n_jobs=HUGE), raises(ValueError, r"n_jobs must be <= 1024")),
    ("rouge:NUL inside the text", lambda: _rouge_f(["rouge1", "rouge2", "rougeL"], "a\x00b c", "a\x00b c d"),
     same_as_peer_rouge("a\x00b c", "a\x00b c d")),
    ("rouge:lone surrogate", lambda: _rouge_f(["rouge1", "rouge2", "rougeL"], SURROGATE, "a b"),
     same_as_peer_rouge(SURROGATE, "a b")),
    ("rouge:BOM inside the text", lambda: _rouge_f(["rouge1", "rouge2", "rougeL"], "\ufeffcat sat", "cat sat"),
     same_as_peer_rouge("\ufeffcat sat", "cat sat")),
    ("rouge:CR and CRLF inside the text", lambda: _rouge_f(["rouge1", "rouge2", "rougeL"], "a\rb\r\nc", "a b c"),
     same_as_peer_rouge("a\rb\r\nc", "a b c")),
    ("rouge:a generator batch", lambda: rouge((x for x in ["a b"]), ["a b"]).mean()["rouge1"]["fmeasure"],
     returns(lambda f: f == 1.0, "a generator is read once, like a list")),
    ("Rouge:None prediction", lambda: Rouge().score([None], ["a"]), raises(TypeError, r"predictions\[0\] must be str")),
    ("Rouge:gamma NaN at construction", lambda: Rouge(gamma=NAN), raises(ValueError, r"gamma must be a finite number")),
    ("Rouge:empty corpus", lambda: Rouge(["rouge1"]).corpus_score([], []).n, returns(lambda n: n == 0, "n = 0")),
    # -- lexical.bleu ----------------------------------------------------------------------
    ("BLEU:empty batch", lambda: corpus_bleu([], [[]]), raises(ValueError, r"hypotheses has 0 items but references has 1")),
    ("BLEU:mismatched lengths", lambda: sentence_bleu(["a", "b"], [["a"]]),
     raises(ValueError, r"hypotheses has 2 items but references has 1")),
    ("BLEU:None hypothesis", lambda: corpus_bleu([None], [["a"]]), raises(TypeError, r"hypotheses\[0\] must be str, got NoneType")),
    ("BLEU:None reference", lambda: corpus_bleu(["a"], [[None]]), raises(TypeError, r"references\[0\]\[0\] must be str")),
    ("BLEU:references a single string", lambda: corpus_bleu(["a"], "a"), raises(TypeError, r"references must be a sequence")),
    ("BLEU:unknown tokenizer", lambda: BLEU(tokenize="x"), raises(ValueError, r"unknown sacrebleu tokenizer 'x'")),
    ("BLEU:max_ngram_order 0", lambda: BLEU(max_ngram_order=0), raises(ValueError, r"max_ngram_order must be >= 1, got 0")),
    ("BLEU:max_ngram_order huge", lambda: BLEU(max_ngram_order=HUGE),
     raises(ValueError, r"max_ngram_order must be <= 65536")),
    ("BLEU:max_ngram_order a bool", lambda: BLEU(max_ngram_order=True), raises(TypeError, r"max_ngram_order must be an int")),
    ("BLEU:max_ngram_order numpy int", lambda: BLEU(max_ngram_order=np.int64(4)).max_ngram_order,
     returns(lambda n: n == 4 and type(n) is int, "a numpy int is an int")),
    ("BLEU:smooth_value NaN", lambda: BLEU(smooth_method="floor", smooth_value=NAN),
     raises(ValueError, r"smooth_value must be a finite number, got nan")),
    ("BLEU:smooth_value a string", lambda: BLEU(smooth_method="add-k", smooth_value="1"),
     raises(TypeError, r"smooth_value must be a real number, got str")),
    ("BLEU:unknown smooth_method", lambda: BLEU(smooth_method="x"), raises(ValueError, r"unknown smooth_method 'x'")),
    ("BLEU:lowercase a string", lambda: BLEU(lowercase="yes"), raises(TypeError, r"lowercase must be a bool, got str")),
    ("BLEU:effective_order a string", lambda: BLEU(effective_order="no"),
     raises(TypeError, r"effective_order must be a bool, got str")),
    ("BLEU:lone surrogate", lambda: _bleu("a \ud800 b c d", "a \ud800 b c d"),
     returns(lambda s: s == sacrebleu.corpus_bleu(["a \ud800 b c d"], [["a \ud800 b c d"]]).score, "equal to sacrebleu")),
    ("BLEU:NUL inside the text", lambda: _bleu("a\x00b c d e", "a\x00b c d e"),
     returns(lambda s: s == sacrebleu.corpus_bleu(["a\x00b c d e"], [["a\x00b c d e"]]).score, "equal to sacrebleu")),
    ("BLEU:CRLF inside the text", lambda: _bleu("a b\r\nc d e", "a b c d e"),
     returns(lambda s: s == sacrebleu.corpus_bleu(["a b\r\nc d e"], [["a b c d e"]]).score, "equal to sacrebleu")),
    # -- lexical.chrf / ter ----------------------------------------------------------------
    ("CHRF:None hypothesis", lambda: CHRF().corpus_score([None], [["a"]]), raises(TypeError, r"hypotheses\[0\] must be str")),
    ("CHRF:mismatched lengths", lambda: CHRF().corpus_score(["a", "b"], [["a"]]),
     raises(ValueError, r"hypotheses has 2 items but references has 1")),
    ("CHRF:empty batch", lambda: CHRF().corpus_score([], [[]]), raises(ValueError, r"hypotheses has 0 items")),
    ("CHRF:char_order negative", lambda: CHRF(char_order=-1), raises(ValueError, r"char_order must be >= 0, got -1")),
    ("CHRF:char_order huge", lambda: CHRF(char_order=HUGE), raises(ValueError, r"char_order must be <= 65536")),
    ("CHRF:char_order a float", lambda: CHRF(char_order=1.5), raises(TypeError, r"char_order must be an int, got float")),
    ("CHRF:no n-gram order at all", lambda: CHRF(char_order=0, word_order=0),
     raises(ValueError, r"char_order \+ word_order must be >= 1")),
    ("CHRF:beta NaN", lambda: CHRF(beta=NAN), raises(ValueError, r"beta must be a finite number >= 0, got nan")),
    ("CHRF:beta huge", lambda: CHRF(beta=10**200), raises(ValueError, r"beta is too large")),
    ("CHRF:lowercase an int", lambda: CHRF(lowercase=1), raises(TypeError, r"lowercase must be a bool, got int")),
    ("CHRF:lone surrogate", lambda: CHRF().corpus_score([SURROGATE], [[SURROGATE + " c"]])["score"],
     returns(lambda s: s == sacrebleu.corpus_chrf([SURROGATE], [[SURROGATE + " c"]]).score, "equal to sacrebleu")),
    ("TER:None hypothesis", lambda: TER().corpus_score([None], [["a"]]), raises(TypeError, r"hypotheses\[0\] must be str")),
    ("TER:mismatched lengths", lambda: TER().corpus_score(["a", "b"], [["a"]]), raises(ValueError, r"hypotheses has 2 items")),
    ("TER:normalized a string", lambda: TER(normalized="yes"), raises(TypeError, r"normalized must be a bool, got str")),
    ("TER:asian_support an int", lambda: TER(asian_support=1), raises(TypeError, r"asian_support must be a bool, got int")),
    ("TER:lone surrogate", lambda: TER().corpus_score([SURROGATE], [["a b"]])["score"],
     returns(lambda s: s == sacrebleu.corpus_ter([SURROGATE], [["a b"]]).score, "equal to sacrebleu")),
    # -- compat: sacrebleu and rouge_score ---------------------------------------------------
    ("compat.sacrebleu:None hypothesis", lambda: compat_sb.corpus_bleu([None], [["a"]]),
     raises(TypeError, r"hyps\[0\] should be a string")),
    ("compat.sacrebleu:sentence_bleu None", lambda: compat_sb.sentence_bleu(None, ["a"]),
     raises(TypeError, r"`hyp` should be a string")),
    ("compat.sacrebleu:sentence_bleu references a string", lambda: compat_sb.sentence_bleu("a", "a"),
     raises(TypeError, r"`refs` should be a sequence of strings")),
    ("compat.sacrebleu:corpus_chrf short stream", lambda: compat_sb.corpus_chrf(["a", "b"], [["a"]]),
     raises(ValueError, r"the reference streams have 1 lines but there are 2 hypotheses")),
    ("compat.sacrebleu:corpus_ter no reference", lambda: compat_sb.corpus_ter(["a"], [[None]]),
     raises(ValueError, r"segment 0 has no reference")),
    ("compat.rouge_score:score None target", lambda: compat_rs.RougeScorer(["rouge1"]).score(None, "a"),
     raises(TypeError, r"target must be str, got NoneType")),
    ("compat.rouge_score:score int prediction", lambda: compat_rs.RougeScorer(["rouge1"]).score("a", 1),
     raises(TypeError, r"prediction must be str, got int")),
    ("compat.rouge_score:unknown type", lambda: compat_rs.RougeScorer(["rougeX"]), raises(ValueError, r"Invalid rouge type")),
    ("compat.rouge_score:types a string", lambda: compat_rs.RougeScorer("rouge1"),
     raises(ValueError, r"rouge_types must be a list of type names")),
    ("compat.rouge_score:no types", lambda: compat_rs.RougeScorer([]).score("a", "a"),
     returns(lambda d: d == peer_rouge.RougeScorer([]).score("a", "a") == {}, "{} like rouge-score")),
    ("compat.rouge_score:score_multi no target", lambda: compat_rs.RougeScorer(["rouge1"]).score_multi([], "a"),
     raises(ValueError, r"score_multi needs at least one target")),
    ("compat.rouge_score:score_batch mismatched", lambda: compat_rs.RougeScorer(["rouge1"]).score_batch(["a"], ["a", "b"]),
     raises(ValueError, r"targets has 1 items but predictions has 2")),
    ("compat.rouge_score:score_batch None", lambda: compat_rs.RougeScorer(["rouge1"]).score_batch(["a", None], ["a", "b"]),
     raises(TypeError, r"targets\[1\] must be str, got NoneType")),
    ("compat.rouge_score:lone surrogate", lambda: compat_rs.RougeScorer(["rouge1"]).score(SURROGATE, "a b"),
     returns(lambda d: d == peer_rouge.RougeScorer(["rouge1"]).score(SURROGATE, "a b"), "equal to rouge-score")),
    # -- lexical.mrc -----------------------------------------------------------------------
    ("DuReaderMrc:alpha NaN", lambda: DuReaderMrc(alpha=NAN), raises(ValueError, r"alpha must be a finite number >= 0, got nan")),
    ("DuReaderMrc:alpha a string", lambda: DuReaderMrc(alpha="1"), raises(TypeError, r"alpha must be a real number, got str")),
    ("DuReaderMrc:beta negative", lambda: DuReaderMrc(beta=-1), raises(ValueError, r"beta must be a finite number >= 0, got -1")),
    ("DuReaderMrc:gamma inf", lambda: DuReaderMrc(gamma=INF), raises(ValueError, r"gamma must be a finite number > 0, got inf")),
    ("DuReaderMrc:max_order 0", lambda: DuReaderMrc(max_order=0), raises(ValueError, r"max_order must be >= 1, got 0")),
    ("DuReaderMrc:max_order huge", lambda: DuReaderMrc(max_order=HUGE), raises(ValueError, r"max_order must be <= 65536")),
    ("DuReaderMrc:unknown variant", lambda: DuReaderMrc(variant="x"), raises(ValueError, r"unknown variant 'x'")),
    ("DuReaderMrc:unknown tokenize", lambda: DuReaderMrc(tokenize="x"), raises(ValueError, r"unknown tokenize 'x'")),
    ("DuReaderMrc:nothing to score", lambda: DuReaderMrc().score({}, {}), raises(ValueError, r"nothing to score")),
    ("score_dureader:plain dicts instead of records", lambda: score_dureader({1: {"answers": ["a"]}}, {}),
     raises(TypeError, r"predictions\[1\] must be a DuReaderPrediction \(read_dureader_predictions\), got dict")),
    ("score_dureader:a list of predictions", lambda: score_dureader([1], {}),
     raises(TypeError, r"predictions must be a dict question id -> DuReaderPrediction, got list")),
    # -- nuggets ---------------------------------------------------------------------------
    ("NuggetF:beta NaN", lambda: NuggetF(KEY, beta=NAN), raises(ValueError, r"beta must be a finite number > 0, got nan")),
    ("NuggetF:beta inf", lambda: NuggetF(KEY, beta=INF), raises(ValueError, r"beta must be a finite number > 0, got inf")),
    ("NuggetF:beta 0", lambda: NuggetF(KEY, beta=0), raises(ValueError, r"beta must be a finite number > 0, got 0")),
    ("NuggetF:unknown question", lambda: NuggetF(KEY).score({"zz": ["1"]}), raises(ValueError, r"questions not in the answer key: zz")),
    ("NuggetF:matched None", lambda: NuggetF(KEY).score(None), raises(TypeError, r"matched must be a mapping")),
    ("NuggetF:unknown nugget", lambda: NuggetF(KEY).score({"1.1": ["99"]}), raises(ValueError, r"not in the answer key")),
    ("Nuggeteer:n 0", lambda: Nuggeteer(KEY, n=0), raises(ValueError, r"n must be >= 1, got 0")),
    ("Nuggeteer:n huge", lambda: Nuggeteer(KEY, n=HUGE), raises(ValueError, r"n must be <= 3")),
    ("Nuggeteer:threshold NaN", lambda: Nuggeteer(KEY, threshold=NAN),
     raises(ValueError, r"threshold must be a finite number in \[0, 1\], got nan")),
    ("Nuggeteer:unknown weighting", lambda: Nuggeteer(KEY, weighting="x"), raises(ValueError, r"weighting must be one of")),
    ("Nuggeteer:stem a string", lambda: Nuggeteer(KEY, stem="no"), raises(TypeError, r"stem must be a bool, got str")),
    ("Pourpre:threshold inf", lambda: Pourpre(KEY, threshold=INF), raises(ValueError, r"threshold must be a finite number in")),
    ("Pourpre:threshold NaN", lambda: Pourpre(KEY, threshold=NAN), raises(ValueError, r"threshold must be a finite number in")),
    # -- exam ------------------------------------------------------------------------------
    ("LexicalSolver:margin NaN", lambda: LexicalSolver(margin=NAN), raises(ValueError, r"margin must be a finite number >= 0")),
    ("LexicalSolver:margin negative", lambda: LexicalSolver(margin=-1), raises(ValueError, r"margin must be a finite number >= 0")),
    ("Exam:unknown_queries", lambda: Exam(unknown_queries="x"), raises(ValueError, r"unknown_queries must be one of")),
    ("Exam:score of None", lambda: Exam(LexicalSolver()).score(None, None), raises(TypeError, r"bank must be a QuestionBank")),
    # -- ava -------------------------------------------------------------------------------
    ("LinearAva:references shorter", lambda: LINEAR.predict_proba(["q", "q"], ["r"], ["c", "c"]),
     raises(ValueError, r"questions, references and candidates differ in length \(2, 1, 2\)")),
    ("LinearAva:questions shorter", lambda: LINEAR.predict_proba(["q"], ["r", "r"], ["c", "c"]),
     raises(ValueError, r"differ in length \(1, 2, 2\)")),
    ("LinearAva:None question", lambda: LINEAR.predict_proba([None], ["r"], ["c"]),
     raises(TypeError, r"questions\[0\] must be str, got NoneType")),
    ("LinearAva:None candidate", lambda: LINEAR.predict_proba(["q", "q"], ["r", "r"], ["c", None]),
     raises(TypeError, r"candidates\[1\] must be str, got NoneType")),
    ("LinearAva:None reference", lambda: LINEAR.predict_proba(["q"], [None], ["c"]),
     raises(TypeError, r"references\[0\] must be a str or a list of str, got NoneType")),
    ("LinearAva:empty reference list", lambda: LINEAR.predict_proba(["q"], [[]], ["c"]), raises(ValueError, r"references\[0\] is empty")),
    ("LinearAva:a single string as questions", lambda: LINEAR.predict_proba("q", ["r"], ["c"]),
     raises(TypeError, r"questions must be a sequence of strings, not a single str")),
    ("LinearAva:short_answers mismatched", lambda: LINEAR.predict_proba(["q"], ["r"], ["c"], short_answers=[["a"], ["b"]]),
     raises(ValueError, r"short_answers has 2 items, expected 1")),
    ("LinearAva:empty batch", lambda: LINEAR.predict_proba([], [], []), returns(lambda p: p.shape == (0,), "an empty array")),
    ("LinearAva:lone surrogate", lambda: LINEAR.predict_proba(["q"], [SURROGATE], [SURROGATE]),
     returns(lambda p: 0.0 <= p[0] <= 1.0, "a probability: the lexical features need no UTF-8 encoding")),
    ("Ava:threshold NaN", lambda: Ava("linear", threshold=NAN), raises(ValueError, r"threshold must be a finite number in \[0, 1\]")),
    ("Ava:threshold 2", lambda: Ava("linear", threshold=2), raises(ValueError, r"threshold must be a finite number in \[0, 1\]")),
    ("Ava:unknown refs rule", lambda: Ava("linear", refs="x"), raises(ValueError, r"refs must be one of 'max', 'mean'")),
    ("Ava:None reference", lambda: Ava("linear").score(["q"], [None], ["c"]), raises(TypeError, r"references\[0\] must be a str")),
    ("Ava:mismatched lengths", lambda: Ava("linear").score(["q"], ["r", "r"], ["c"]), raises(ValueError, r"differ in length")),
    ("ava.pointwise:label 2", lambda: pointwise([2, 0], [1, 0]), raises(ValueError, r"labels\[0\] must be an integer in \[0, 1\], got 2.0")),
    ("ava.pointwise:NaN prediction", lambda: pointwise([1, 0], [NAN, 0]), raises(ValueError, r"predictions\[0\] is NaN")),
    ("ava.pointwise:None label", lambda: pointwise([1, None], [1, 0]), raises(TypeError, r"labels\[1\] must be a number, got NoneType")),
    ("ava.pointwise:mismatched", lambda: pointwise([1, 0], [1]), raises(ValueError, r"labels and predictions differ in shape")),
    ("ava.pointwise:empty", lambda: pointwise([], []), raises(ValueError, r"point-wise evaluation of zero items is undefined")),
    ("ava.tune_threshold:NaN probability", lambda: tune_threshold([NAN, 0.5], [1, 0], ["a", "a"]),
     raises(ValueError, r"probabilities\[0\] is NaN")),
    ("ava.tune_threshold:mismatched", lambda: tune_threshold([0.1, 0.5], [1, 0], ["a"]),
     raises(ValueError, r"probabilities, labels and systems differ in length \(2, 2, 1\)")),
    ("ava.systemwise_accuracy:threshold NaN", lambda: systemwise_accuracy([0.1, 0.5], [1, 0], ["a", "a"], NAN),
     raises(ValueError, r"threshold must be a finite number in \[0, 1\]")),
    ("ava.systemwise_accuracy:None probability", lambda: systemwise_accuracy([None, 0.5], [1, 0], ["a", "a"], 0.5),
     raises(TypeError, r"probabilities\[0\] must be a number, got NoneType")),
    ("ava.systemwise_accuracy:probability 2", lambda: systemwise_accuracy([2.0, 0.5], [1, 0], ["a", "a"], 0.5),
     raises(ValueError, r"probabilities\[0\] must be a number in \[0, 1\], got 2.0")),
    ("ava.ranking_metrics:mismatched", lambda: ranking_metrics([0.1, 0.5], [1, 0], ["a"]),
     raises(ValueError, r"scores, labels and groups differ in length \(2, 2, 1\)")),
    ("ava.ranking_metrics:NaN score", lambda: ranking_metrics([NAN, 0.5], [1, 0], ["a", "a"]), raises(ValueError, r"scores\[0\] is NaN")),
    ("ava.ranking_metrics:label 3", lambda: ranking_metrics([0.1, 0.5], [3, 0], ["a", "a"]),
     raises(ValueError, r"labels\[0\] must be an integer in \[0, 1\], got 3.0")),
    # -- judges ----------------------------------------------------------------------------
    ("load_judge:empty spec", lambda: load_judge(""), raises(ValueError, r"a judge spec must be a non-empty string")),
    ("load_judge:unknown name", lambda: load_judge("nope"), raises(ValueError, r"unknown judge 'nope'.*expected containment")),
    ("load_judge:cascade missing its second judge", lambda: load_judge("containment>"),
     raises(ValueError, r"a judge spec must be a non-empty string")),
    ("ContainmentJudge:None candidate", lambda: ContainmentJudge().judge(["q"], ["r"], [None]),
     raises(TypeError, r"candidates\[0\] must be str, got NoneType")),
    ("ContainmentJudge:mismatched", lambda: ContainmentJudge().judge(["q", "q"], ["r"], ["c", "c"]),
     raises(ValueError, r"differ in length \(2, 1, 2\)")),
    ("ContainmentJudge:threshold NaN", lambda: ContainmentJudge(threshold=NAN), raises(ValueError, r"threshold must be a finite number")),
    ("ContainmentJudge:unknown refs rule", lambda: ContainmentJudge("any"), raises(ValueError, r"refs must be one of")),
    ("WorkbenchJudge:unknown mode", lambda: WorkbenchJudge("fuzzy"), raises(ValueError, r"mode must be 'workbench' or 'contains'")),
    ("WorkbenchJudge:empty reference list", lambda: WorkbenchJudge().judge(["q"], [[]], ["c"]), raises(ValueError, r"references\[0\] is empty")),
    ("cascade:None reference", lambda: load_judge("containment>linear").judge(["q"], [None], ["c"]),
     raises(TypeError, r"references\[0\] must be a str or a list of str, got NoneType")),
    ("cascade:lone surrogate", lambda: load_judge("containment>linear").judge(["q"], [SURROGATE], ["c"]).proba,
     returns(lambda p: 0.0 <= p[0] <= 1.0, "a probability: neither stage needs UTF-8")),
    ("ExamMetric:judge", lambda: Exam(LexicalSolver(), judge=ContainmentJudge()).settings()["judge"],
     returns(lambda name: name == "containment", "the judge named in the settings")),
    # -- stats -----------------------------------------------------------------------------
    ("stats.kendalltau:empty", lambda: stats.kendalltau([], []), raises(ValueError, r"kendalltau needs at least 2 paired items, got 0")),
    ("stats.kendalltau:mismatched", lambda: stats.kendalltau([1, 2], [1, 2, 3]),
     raises(ValueError, r"x has items 2 but y has items 3; they must be paired")),
    ("stats.kendalltau:string item", lambda: stats.kendalltau([1, "b", 3], [1, 2, 3]),
     raises(TypeError, r"x must hold real numbers, got str at index 1")),
    ("stats.kendalltau:None item", lambda: stats.kendalltau([1, 2, 3], [1, None, 3]), raises(TypeError, r"y contains None at index 1")),
    ("stats.kendalltau:2-D input", lambda: stats.kendalltau([[1, 2], [3, 4]], [1, 2]), raises(ValueError, r"x must be a 1-D sequence")),
    ("stats.kendalltau:unknown variant", lambda: stats.kendalltau([1, 2, 3], [1, 2, 3], variant="z"),
     raises(ValueError, r"variant must be one of 'a', 'b', 'c', got 'z'")),
    ("stats.kendalltau:NaN propagates", lambda: stats.kendalltau([1, NAN, 3], [1, 2, 3]).statistic,
     returns(math.isnan, "NaN under nan_policy='propagate' (scipy's default)")),
    ("stats.kendalltau:NaN with nan_policy raise", lambda: stats.kendalltau([1, NAN, 3], [1, 2, 3], nan_policy="raise"),
     raises(ValueError, r"x contains NaN at index 1")),
    ("stats.kendalltau:inf is an extreme value", lambda: tuple(stats.kendalltau([1, INF, 3], [1, 2, 3])),
     returns(lambda r: r == pytest.approx(tuple(scipy.stats.kendalltau([1, INF, 3], [1, 2, 3]))), "equal to scipy")),
    ("stats.kendalltau:integers beyond 2**53", lambda: stats.kendalltau([2**62, 2**62 + 1, -(2**62), 5], [1, 2, 3, 4]).statistic,
     returns(lambda s: s == pytest.approx(-1 / 3), "exact order of the integers (scipy's)")),
    ("stats.kendalltau:integers beyond int64", lambda: stats.kendalltau([HUGE, HUGE + 1, 3], [1, 2, 3]).statistic,
     returns(lambda s: s == pytest.approx(-1 / 3), "exact order of the integers")),
    ("stats.kendalltau:huge integers mixed with floats", lambda: stats.kendalltau([2**62, 2**62 + 1, 0.5], [1, 2, 3]).statistic,
     returns(lambda s: s == pytest.approx(scipy.stats.kendalltau([2**62, 2**62 + 1, 0.5], [1, 2, 3]).statistic),
             "float64 values as numpy reads a mixed list (scipy's number)")),
    ("stats.spearmanr:None item", lambda: stats.spearmanr([1, None, 3], [1, 2, 3]), raises(TypeError, r"x contains None at index 1")),
    ("stats.spearmanr:integers beyond 2**53", lambda: stats.spearmanr([2**62, 2**62 + 1, -(2**62), 5], [1, 2, 3, 4]).statistic,
     returns(lambda s: s == pytest.approx(-0.6), "exact ranks")),
    ("stats.pearsonr:inf", lambda: stats.pearsonr([1, INF, 3], [1, 2, 3]),
     raises(ValueError, r"x contains inf at index 1; this statistic needs finite values")),
    ("stats.pearsonr:None item", lambda: stats.pearsonr([1, 2, 3], [None, 2, 3]), raises(TypeError, r"y contains None at index 0")),
    ("stats.rmse:mismatched", lambda: stats.rmse([1, 2], [1]), raises(ValueError, r"x has items 2 but y has items 1")),
    ("stats.rmse:None item", lambda: stats.rmse([1, None], [1, 2]), raises(TypeError, r"x contains None at index 1")),
    ("stats.rmse:empty", lambda: stats.rmse([], []), raises(ValueError, r"rmse needs at least 2 paired items, got 0")),
    ("stats.r2_score:None item", lambda: stats.r2_score([1, None, 3], [1, 2, 3]), raises(TypeError, r"x contains None at index 1")),
    ("stats.goodman_kruskal_gamma:None item", lambda: stats.goodman_kruskal_gamma([1, None, 3], [1, 2, 3]),
     raises(TypeError, r"x contains None at index 1")),
    ("stats.kendalltau_rows:mismatched", lambda: stats.kendalltau_rows([[1, 2, 3]], [[1, 2]]),
     raises(ValueError, r"X has shape \(1, 3\) but Y has shape \(1, 2\)")),
    ("stats.kendalltau_rows:None item", lambda: stats.kendalltau_rows([[1, None, 3]], [[1, 2, 3]]),
     raises(TypeError, r"X contains None at row 0, index 1")),
    ("stats.kendalltau_rows:string item", lambda: stats.kendalltau_rows([[1, 2], [3, "x"]], [[1, 2], [3, 4]]),
     raises(TypeError, r"X must hold real numbers, got str at row 1, index 1")),
    ("stats.bootstrap:empty", lambda: stats.bootstrap([]), raises(ValueError, r"the bootstrap needs at least 2 items, got 0")),
    ("stats.bootstrap:None item", lambda: stats.bootstrap([1, None, 3]), raises(TypeError, r"data contains None at index 1")),
    ("stats.bootstrap:NaN item", lambda: stats.bootstrap([1, NAN, 3]), raises(ValueError, r"data contains NaN at index 1")),
    ("stats.bootstrap:n_resamples 0", lambda: stats.bootstrap([1, 2, 3], n_resamples=0), raises(ValueError, r"n_resamples must be >= 1, got 0")),
    ("stats.bootstrap:n_resamples huge", lambda: stats.bootstrap([1, 2, 3], n_resamples=HUGE),
     raises(ValueError, r"n_resamples must be <= 2147483647")),
    ("stats.bootstrap:confidence_level 1", lambda: stats.bootstrap([1, 2, 3], confidence_level=1),
     raises(ValueError, r"confidence_level must be a finite number in \(0, 1\), got 1")),
    ("stats.bootstrap:confidence_level NaN", lambda: stats.bootstrap([1, 2, 3], confidence_level=NAN),
     raises(ValueError, r"confidence_level must be a finite number in \(0, 1\), got nan")),
    ("stats.bootstrap:seed a string", lambda: stats.bootstrap([1, 2, 3], seed="x"), raises(TypeError, r"seed must be an int, got str")),
    ("stats.bootstrap:seed beyond int64", lambda: stats.bootstrap([1, 2, 3], seed=2**63),
     raises(ValueError, r"seed must be <= 9223372036854775807")),
    ("stats.bootstrap:unknown statistic", lambda: stats.bootstrap([1, 2, 3], statistic="x"), raises(ValueError, r"statistic must be one of")),
    ("stats.paired_bootstrap_means:mismatched", lambda: stats.paired_bootstrap_means([1, 2], [1]),
     raises(ValueError, r"scores_a has items 2 but scores_b has items 1")),
    ("stats.paired_bootstrap_means:None item", lambda: stats.paired_bootstrap_means([1, None], [1, 2]),
     raises(TypeError, r"scores_a contains None at index 1")),
    ("stats.micro_average:None item", lambda: stats.micro_average([1, None]), raises(TypeError, r"values contains None at index 1")),
    ("stats.micro_average:NaN item", lambda: stats.micro_average([1, NAN]), raises(ValueError, r"values contains nan at index 1")),
    ("stats.micro_average:weights mismatched", lambda: stats.micro_average([1, 2], [1]),
     raises(ValueError, r"values has 2 items but weights has 1")),
    ("stats.micro_average:empty", lambda: stats.micro_average([]), raises(ValueError, r"needs at least 2 questions, got 0")),
    ("stats.Leaderboard:None score", lambda: stats.Leaderboard({"a": [1, None], "b": [1, 2]}),
     raises(TypeError, r"scores\['a'\] contains None at index 1")),
    ("stats.Leaderboard:ragged", lambda: stats.Leaderboard({"a": [1], "b": [1, 2]}),
     raises(ValueError, r"systems have different numbers of query scores")),
    ("stats.Leaderboard:NaN score", lambda: stats.Leaderboard({"a": [1, NAN], "b": [1, 2]}),
     raises(ValueError, r"system 'a' has nan at query 1")),
    ("stats.Leaderboard:no system", lambda: stats.Leaderboard({}), raises(ValueError, r"needs at least 2 systems, got 0")),
    ("stats.leaderboard_correlation:repeats 0", lambda: stats.leaderboard_correlation(
        stats.Leaderboard.from_means({"a": 1, "b": 2}), stats.Leaderboard.from_means({"a": 1, "b": 2}), repeats=0),
     raises(ValueError, r"repeats must be >= 1, got 0")),
    ("stats.compare:unknown test", lambda: stats.compare(stats.Leaderboard({"a": [1, 2], "b": [1, 2]}), test="x"),
     raises(ValueError, r"test must be one of")),
]


@pytest.mark.parametrize("call,outcome", [pytest.param(c, o, id=i) for i, c, o in CASES])
def test_bad_input(call, outcome):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConstantInputWarning and the like are not outcomes
        outcome.check(call)


@pytest.fixture(scope="module")
def onnx_model():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from qascore.ava import load_default_model

    return load_default_model()


ONNX_CASES = [
    ("mismatched lengths", (["q", "q"], ["r"], ["c", "c"]), raises(ValueError, r"differ in length \(2, 1, 2\)")),
    ("None reference", (["q"], [None], ["c"]), raises(TypeError, r"references\[0\] must be a str or a list of str")),
    ("None question", (["q", None], ["r", "r"], ["c", "c"]), raises(TypeError, r"questions\[1\] must be str, got NoneType")),
    ("a single string as questions", ("q", ["r"], ["c"]), raises(TypeError, r"questions must be a sequence of strings")),
    ("lone surrogate in a candidate", (["q"], ["r"], ["a\udc00"]),
     raises(ValueError, r"candidates\[0\] is not valid Unicode: lone surrogate U\+DC00 at position 1")),
    ("lone surrogate in a reference list", (["q"], [["r", "\ud800"]], ["c"]),
     raises(ValueError, r"references\[0\]\[1\] is not valid Unicode")),
    ("empty batch", ([], [], []), returns(lambda p: p.shape == (0,), "an empty array")),
    ("NUL inside a text", (["q\x00"], ["r"], ["c"]), returns(lambda p: 0.0 <= p[0] <= 1.0, "a probability")),
]


@pytest.mark.parametrize("args,outcome", [pytest.param(a, o, id=f"OnnxAvaModel:{i}") for i, a, o in ONNX_CASES])
def test_bad_input_onnx_model(onnx_model, args, outcome):
    outcome.check(lambda: onnx_model.predict_proba(*args))
