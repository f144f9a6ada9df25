"""The MRC adaptations of ROUGE-L and BLEU-4 (Yang et al. 2018) as the DuReader challenge scripts
compute them, on compiled LCS and n-gram kernels.

Owns: which questions are scored, normalisation (``mrc2018``: drop whitespace code points;
``lic2019``: also map full-width punctuation), the yes/no bonus (alpha) and entity bonus (beta),
ROUGE-L with gamma and independent max precision / recall over references, and corpus BLEU-N with
the bonus terms added to matched and candidate n-gram counts. Tokens are code points.

Where the 2018 script crashes we give a defined outcome: a zero n-gram denominator gives that
precision 0 and an empty candidate corpus gives BP 0 (the LIC2019 guards); a yes/no question
whose ``yesno_answers`` does not pair 1:1 with its ``answers`` raises ``InputFormatError``
naming the reference line; a corpus without any scorable question raises ``ValueError``.
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._parallel import resolve_n_jobs, threads_for
from ..errors import InputFormatError
from ..metric import CorpusScore, ExampleScores, Metric, Statistics
from ..prf import f_scores
from ..signature import make_signature
from ..text import CharTokenizer, Vocabulary, WhitespaceTokenizer
from ..validate import MAX_ORDER, check_int, check_real, check_weight
from .bleu import closest_reference_lengths
from .formats import DuReaderPrediction, DuReaderReference

VARIANTS = ("mrc2018", "lic2019")
# LIC2019 maps these after removing whitespace; its code replaces the left double quote twice and
# never the right one, so U+201D stays as written.
_LIC2019_PUNCT = str.maketrans({"，": ",", "。": ".", "！": "!", "？": "?", "；": ";", "（": "(", "）": ")",
                                "【": "[", "】": "]", "“": '"'})


TOKENIZATIONS = ("char", "whitespace")

__all__ = ["DuReaderMrc", "DuReaderTotals", "MrcScores", "normalize_answer", "question_of", "score_dureader"]


def normalize_answer(text: str, variant: str = "mrc2018", tokenize: str = "char") -> str:
    """``char``: drop every whitespace code point (``str.isspace``), as the scripts do;
    ``whitespace`` keeps the text for word tokens. ``lic2019`` also maps full-width punctuation.

    Example:

        >>> normalize_answer("The cat sat."), normalize_answer("The cat sat.", tokenize="whitespace")
        ('Thecatsat.', 'The cat sat.')

    :param text: an answer.
    :param variant: ``mrc2018`` or ``lic2019``.
    :param tokenize: ``char`` or ``whitespace``.
    :returns: the normalised answer.
    """
    if tokenize == "char":
        text = "".join(text.split())
    return text.translate(_LIC2019_PUNCT) if variant == "lic2019" else text


def _pack(strings, tokenize, n_jobs):
    """One vocabulary for candidates, answers and entities, through the text layer's encoders."""
    tokenizer = CharTokenizer() if tokenize == "char" else WhitespaceTokenizer()
    packed = tokenizer.encode_batch(strings, Vocabulary(), n_jobs)
    return packed.ids, packed.offsets


def _entity_length_in(entity: str, candidate: str, tokenize: str) -> int:
    """Length of ``entity`` if it occurs contiguously in ``candidate`` (in tokens), else 0."""
    if tokenize == "char":
        return len(entity) if entity in candidate else 0
    ent, cand = entity.split(), candidate.split()
    sep = "\x00"
    return len(ent) if f"{sep}{sep.join(ent)}{sep}" in f"{sep}{sep.join(cand)}{sep}" else 0


@dataclass
class MrcScores:
    """Corpus scores as fractions, the n-gram totals behind BLEU, and per-question detail on request.

    Example:

        >>> import json, os, tempfile
        >>> from qascore.lexical.formats import read_dureader_predictions, read_dureader_references
        >>> folder = tempfile.TemporaryDirectory()
        >>> with open(os.path.join(folder.name, "ref.jsonl"), "w") as out:
        ...     _ = out.write(json.dumps({"question_id": 1, "question_type": "DESCRIPTION",
        ...                               "answers": ["the cat sat on the mat"]}))
        >>> with open(os.path.join(folder.name, "pred.jsonl"), "w") as out:
        ...     _ = out.write(json.dumps({"question_id": 1, "answers": ["a cat sat on the mat"]}))
        >>> references = read_dureader_references(os.path.join(folder.name, "ref.jsonl"))
        >>> predictions = read_dureader_predictions(os.path.join(folder.name, "pred.jsonl"))
        >>> scores = score_dureader(predictions, references, tokenize="whitespace")
        >>> round(scores.rouge_l, 4), round(scores.bleu4, 4), scores.to_dict()["n_scored"]
        (0.8333, 0.7598, 1)
        >>> folder.cleanup()
    """

    rouge_l: float
    bleu: list  # cumulative BLEU-1 .. BLEU-N
    match_ngram: list
    candi_ngram: list
    c_total: int
    r_total: int
    n_scored: int
    n_missing_predictions: int
    n_unused_predictions: int
    signature: str
    rouge_l_sum: float = 0.0  # the script's sequential sum behind the mean ``rouge_l``
    question_ids: list = field(default_factory=list)
    rouge_l_per_question: np.ndarray | None = None
    bleu_per_question: np.ndarray | None = None

    @property
    def bleu4(self) -> float:
        return self.bleu[-1]

    def to_dict(self, per_question: bool = False) -> dict:
        out = {
            "ROUGE-L": self.rouge_l,
            f"BLEU-{len(self.bleu)}": self.bleu[-1],
            "BLEU-1..N": list(self.bleu),
            "match_ngram": list(self.match_ngram),
            "candi_ngram": list(self.candi_ngram),
            "c_total": self.c_total,
            "r_total": self.r_total,
            "n_scored": self.n_scored,
            "n_missing_predictions": self.n_missing_predictions,
            "n_unused_predictions": self.n_unused_predictions,
            "signature": self.signature,
        }
        if per_question:
            if self.rouge_l_per_question is None or self.bleu_per_question is None:
                raise ValueError("per-question scores were not computed: score with per_question=True")
            out["per_question"] = [
                {"question_id": q, "ROUGE-L": float(r), f"BLEU-{len(self.bleu)}": float(b)}
                for q, r, b in zip(self.question_ids, self.rouge_l_per_question, self.bleu_per_question)
            ]
        return out


@dataclass
class _Question:
    qid: object
    candidate: str
    answers: list
    yes_no: str | None  # predicted label when the yes/no bonus applies
    labels: list
    entities: list | None  # distinct normalised entities when the entity bonus applies


def _check_records(records, kind: type, name: str) -> None:
    """``records``: a dict question id -> ``kind`` (what the readers return); anything else names
    the argument and the question."""
    if not isinstance(records, dict):
        raise TypeError(f"{name} must be a dict question id -> {kind.__name__}, got {type(records).__name__}")
    for qid, record in records.items():
        if not isinstance(record, kind):
            raise TypeError(f"{name}[{qid!r}] must be a {kind.__name__} (read_dureader_{name}), "
                            f"got {type(record).__name__}")


def question_of(qid, reference: DuReaderReference, prediction: DuReaderPrediction | None, variant: str,
                tokenize: str) -> _Question | None:
    """What the script scores of one reference question and its prediction (None when absent):
    the normalised candidate and answers and the bonus that applies, for :meth:`DuReaderTotals.add`;
    None for a question without answers, which the script skips.

    Example:

        >>> from qascore.lexical.formats import DuReaderPrediction, DuReaderReference
        >>> from qascore.lexical.mrc import question_of
        >>> reference = DuReaderReference(1, "DESCRIPTION", ("The cat sat.",), (), (), "-", 1)
        >>> prediction = DuReaderPrediction(1, ("A cat sat",), (), "-", 1)
        >>> question = question_of(1, reference, prediction, "mrc2018", "char")
        >>> question.candidate, question.answers  # the scripts' characters: spaces dropped
        ('Acatsat', ['Thecatsat.'])
        >>> question_of(2, DuReaderReference(2, "DESCRIPTION", (), (), (), "-", 2), None, "mrc2018", "char") is None
        True

    :param qid: the question's id.
    :param reference: its reference record.
    :param prediction: its prediction record, or None when the run has none (scored as empty).
    :param variant: ``mrc2018`` or ``lic2019`` (how answers are normalised).
    :param tokenize: ``char`` or ``whitespace``.
    :returns: the question to score, or None.
    :raises qascore.errors.InputFormatError: for a yes/no question whose labels do not match its
        answers, naming the reference's file and line.
    """
    if not reference.answers:
        return None
    pred = prediction
    candidate = normalize_answer(pred.answers[0], variant, tokenize) if pred is not None and pred.answers else ""
    answers = [normalize_answer(a, variant, tokenize) for a in reference.answers]
    yes_no, entities = None, None
    if reference.question_type == "ENTITY":
        distinct = dict.fromkeys(normalize_answer(e, variant, tokenize)
                                 for group in reference.entity_answers for e in group)
        entities = list(distinct) or None
    if reference.question_type == "YES_NO" and pred is not None and pred.yesno_answers:
        yes_no = pred.yesno_answers[0]
        if len(reference.yesno_answers) != len(reference.answers):
            raise InputFormatError(
                reference.path, reference.line,
                f"question {qid!r}: yesno_answers has {len(reference.yesno_answers)} labels for "
                f"{len(reference.answers)} answers; the yes/no bonus needs one label per answer")
    if yes_no is not None:
        entities = None  # the script's elif: at most one bonus per question
    return _Question(qid, candidate, answers, yes_no, list(reference.yesno_answers), entities)


def _scored_questions(predictions: dict, references: dict, variant: str, tokenize: str):
    """The script's selection: every reference question with answers, in reference order."""
    _check_records(predictions, DuReaderPrediction, "predictions")
    _check_records(references, DuReaderReference, "references")
    questions, missing = [], 0
    for qid, ref in references.items():
        pred = predictions.get(qid)
        question = question_of(qid, ref, pred, variant, tokenize)
        if question is not None:
            missing += pred is None
            questions.append(question)
    unused = sum(1 for qid in predictions if qid not in references)
    return questions, missing, unused


def _sequential_total(start: np.ndarray, base: np.ndarray, bonus: np.ndarray) -> np.ndarray:
    """Sum per order as the script does, going on from ``start``: question by question, base
    count then bonus (carried from chunk to chunk, the sum is the same as over the whole)."""
    steps = np.empty((2 * base.shape[0] + 1, base.shape[1]))
    steps[0] = start
    steps[1::2] = base
    steps[2::2] = bonus
    return np.add.accumulate(steps, axis=0)[-1]


def _cumulative_bleu(match, candi, c_total, r_total) -> list:
    """The script's ``BLEU.score`` with the LIC2019 guards (0 precision / BP for empty counts)."""
    probs = [m / float(c) if c != 0 else 0.0 for m, c in zip(match, candi)]
    cumulative = [probs[0]]
    for p in probs[1:]:
        cumulative.append(cumulative[-1] * p)
    cumulative = [b ** (1.0 / float(n + 1)) for n, b in enumerate(cumulative)]
    bp = 0.0 if float(c_total) == 0.0 else math.exp(min(1 - r_total / float(c_total), 0))
    return [b * bp for b in cumulative]


def _check_settings(variant: str, max_order: int, tokenize: str, alpha, beta, gamma) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    check_int(max_order, "max_order", low=1, high=MAX_ORDER)
    check_real(alpha, "alpha", low=0)  # bonus weights: a NaN or inf would make every score NaN
    check_real(beta, "beta", low=0)
    check_weight(gamma, "gamma")
    if tokenize not in TOKENIZATIONS:
        raise ValueError(f"unknown tokenize {tokenize!r}; known: {', '.join(TOKENIZATIONS)}")


def dureader_signature(*, alpha: float, beta: float, gamma: float, max_order: int, variant: str,
                       tokenize: str) -> str:
    """The signature of :func:`score_dureader`'s settings."""
    return make_signature("mrc", variant=variant, alpha=alpha, beta=beta, gamma=gamma, ngram=max_order, tok=tokenize)


@dataclass
class _ChunkCounts:
    """Per-question figures of a run of questions: ROUGE-L, BLEU's base and bonus n-gram matches
    and candidate n-gram counts (one row per question, one column per order), candidate lengths
    and closest reference lengths."""

    rouge: np.ndarray
    base: np.ndarray
    bonus: np.ndarray
    cand_ngrams: np.ndarray
    lengths: np.ndarray
    closest: np.ndarray

    def question_bleu(self) -> np.ndarray:
        """Each question's own BLEU-N (bonus terms included)."""
        base, bonus, cand = self.base, self.bonus, self.cand_ngrams
        return np.array([_cumulative_bleu((base[i] + bonus[i]).tolist(), (cand[i] + bonus[i]).tolist(),
                                          int(self.lengths[i]), int(self.closest[i]))[-1]
                         for i in range(len(self.rouge))])


def _chunk_counts(questions: list, *, alpha: float, beta: float, gamma: float, max_order: int, tokenize: str,
                  n_jobs: int) -> _ChunkCounts:
    from .._kernels.lcs import lcs_lengths
    from .._kernels.ngram import clipped_ngram_matches, ngram_totals

    # Rows of one packed array: candidates, then every answer, then every entity.
    q_count = len(questions)
    strings = [q.candidate for q in questions]
    answer_row_list: list[int] = []
    answer_group_list = [0]
    for q in questions:
        answer_row_list.extend(range(len(strings), len(strings) + len(q.answers)))
        strings.extend(q.answers)
        answer_group_list.append(len(answer_row_list))
    entity_row: dict[str, int] = {}
    for q in questions:
        for e in q.entities or ():
            entity_row.setdefault(e, len(strings) + len(entity_row))
    strings.extend(entity_row)
    ids, offsets = _pack(strings, tokenize, n_jobs)
    lengths = np.diff(offsets)
    cand_rows = np.arange(q_count, dtype=np.int64)
    answer_rows = np.asarray(answer_row_list, dtype=np.int64)
    answer_groups = np.asarray(answer_group_list, dtype=np.int64)
    owner = np.repeat(cand_rows, np.diff(answer_groups))
    cand_len = lengths[:q_count].astype(np.float64)

    # Bonus tasks: yes/no against the answers sharing the predicted label, entity against entities.
    yn_questions: list[int] = []
    yn_refs: list[int] = []
    yn_groups = [0]
    ent_questions: list[int] = []
    ent_refs: list[int] = []
    ent_groups = [0]
    same_label = np.zeros(len(answer_rows), dtype=np.bool_)
    entity_bonus_len = np.zeros(q_count)
    for i, q in enumerate(questions):
        first = answer_groups[i]
        if q.yes_no is not None:
            hits = [k for k, label in enumerate(q.labels) if label == q.yes_no]
            same_label[[first + k for k in hits]] = True
            yn_questions.append(i)
            yn_refs.extend(int(answer_rows[first + k]) for k in hits)
            yn_groups.append(len(yn_refs))
        elif q.entities is not None:
            entity_bonus_len[i] = float(sum(_entity_length_in(e, q.candidate, tokenize) for e in q.entities))
            ent_questions.append(i)
            ent_refs.extend(entity_row[e] for e in q.entities)
            ent_groups.append(len(ent_refs))

    # ROUGE-L: one LCS per (candidate, answer); the yes/no bonus reuses it.
    lcs = lcs_lengths(ids, offsets, owner, ids, offsets, answer_rows,
                      threads_for(len(owner), n_jobs)).astype(np.float64)
    yn_bonus = np.where(same_label, lcs, 0.0)
    ent_bonus = entity_bonus_len[owner]
    gain = lcs + alpha * yn_bonus + beta * ent_bonus
    p_denom = cand_len[owner] + alpha * yn_bonus + beta * ent_bonus
    r_denom = lengths[answer_rows] + alpha * yn_bonus + beta * ent_bonus
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(p_denom > 0.0, gain / p_denom, 0.0)
        rec = np.where(r_denom > 0.0, gain / r_denom, 0.0)
    p_max = np.maximum.reduceat(prec, answer_groups[:-1])
    r_max = np.maximum.reduceat(rec, answer_groups[:-1])
    rouge = f_scores(p_max, r_max, gamma ** 2)  # the script squares gamma with **

    # BLEU: base, yes/no and entity clipped counts in one kernel call.
    task_hyp = np.concatenate([cand_rows, np.asarray(yn_questions + ent_questions, dtype=np.int64)])
    task_refs = np.concatenate([answer_rows, np.asarray(yn_refs + ent_refs, dtype=np.int64)])
    task_groups = np.concatenate([answer_groups, answer_groups[-1] + np.asarray(yn_groups[1:], dtype=np.int64),
                                  answer_groups[-1] + len(yn_refs) + np.asarray(ent_groups[1:], dtype=np.int64)])
    matches = clipped_ngram_matches(ids, offsets, task_hyp, ids, offsets, task_refs, task_groups,
                                    max_order, threads_for(len(task_hyp), n_jobs)).astype(np.float64)
    base = matches[:q_count]
    bonus = np.zeros_like(base)
    bonus[yn_questions] = alpha * matches[q_count:q_count + len(yn_questions)]
    bonus[ent_questions] = beta * matches[q_count + len(yn_questions):]
    return _ChunkCounts(rouge, base, bonus, ngram_totals(lengths[:q_count], max_order).astype(np.float64),
                        lengths[:q_count], closest_reference_lengths(lengths[:q_count], lengths[answer_rows],
                                                                     answer_groups))


class DuReaderTotals:
    """The script's corpus figures built up from runs of questions taken in reference order
    (:meth:`add`), equal to one pass over all of them: the n-gram totals go on as sequential sums,
    and ROUGE-L is the script's ``sum()`` over every question's value, kept as 8 bytes a question
    (the texts are not kept). ``per_question`` also keeps the ids and per-question scores for
    :class:`MrcScores`. :func:`score_dureader` is one run of it.

    Example:

        >>> from qascore.lexical.formats import DuReaderPrediction, DuReaderReference
        >>> from qascore.lexical.mrc import DuReaderTotals, question_of, score_dureader
        >>> references = {1: DuReaderReference(1, "DESCRIPTION", ("the cat sat on the mat",), (), (), "-", 1),
        ...               2: DuReaderReference(2, "DESCRIPTION", ("a dog barked",), (), (), "-", 2)}
        >>> predictions = {1: DuReaderPrediction(1, ("a cat sat on the mat",), (), "-", 1),
        ...                2: DuReaderPrediction(2, ("the dog barked",), (), "-", 2)}
        >>> totals = DuReaderTotals()
        >>> for qid, reference in references.items():  # a question at a time, in reference order
        ...     _ = totals.add([question_of(qid, reference, predictions.get(qid), "mrc2018", "char")])
        >>> streamed = totals.result(n_missing_predictions=0, n_unused_predictions=0)
        >>> streamed.rouge_l == score_dureader(predictions, references).rouge_l, round(streamed.rouge_l, 4)
        (True, 0.8485)

    :param alpha: the weight of the yes/no opinion bonus.
    :param beta: the weight of the entity bonus.
    :param gamma: recall's weight in ROUGE-L's F (the scripts' 1.2).
    :param max_order: the longest n-gram of BLEU.
    :param variant: ``mrc2018`` or ``lic2019``.
    :param tokenize: ``char`` or ``whitespace``.
    :param per_question: also keep each question's ROUGE-L and BLEU.
    :param n_jobs: threads (None: the library's default).
    :raises ValueError: for an unknown option.
    """

    def __init__(self, *, alpha: float = 1.0, beta: float = 1.0, gamma: float = 1.2, max_order: int = 4,
                 variant: str = "mrc2018", tokenize: str = "char", per_question: bool = False,
                 n_jobs: int | None = None) -> None:
        _check_settings(variant, max_order, tokenize, alpha, beta, gamma)
        self.settings: dict[str, Any] = {"alpha": alpha, "beta": beta, "gamma": gamma, "max_order": max_order,
                                         "tokenize": tokenize}
        self.signature = dureader_signature(alpha=alpha, beta=beta, gamma=gamma, max_order=max_order,
                                            variant=variant, tokenize=tokenize)
        self.n_jobs, self.per_question = resolve_n_jobs(n_jobs), per_question
        self.rouge = array("d")
        self.match_total = np.zeros(max_order)
        self.candi_total = np.zeros(max_order)
        self.c_total = self.r_total = 0
        self.question_ids: list = []
        self.bleu_per_question: list = []

    def add(self, questions: list) -> _ChunkCounts:
        """Score the next questions (:func:`question_of`'s, in reference order); returns their
        per-question figures."""
        counts = _chunk_counts(questions, **self.settings, n_jobs=self.n_jobs)
        self.rouge.extend(counts.rouge.tolist())
        self.match_total = _sequential_total(self.match_total, counts.base, counts.bonus)
        self.candi_total = _sequential_total(self.candi_total, counts.cand_ngrams, counts.bonus)
        self.c_total += int(counts.lengths.sum())
        self.r_total += int(counts.closest.sum())
        if self.per_question:
            self.question_ids.extend(q.qid for q in questions)
            self.bleu_per_question.extend(counts.question_bleu().tolist())
        return counts

    def result(self, n_missing_predictions: int, n_unused_predictions: int) -> MrcScores:
        """The corpus figures of every question added, with the counts of reference questions
        without a prediction and of predictions without a reference (reported, not scored)."""
        if not self.rouge:
            raise ValueError("no reference question has answers: there is nothing to score")
        rouge_sum = sum(self.rouge)
        bleu = _cumulative_bleu(self.match_total.tolist(), self.candi_total.tolist(), self.c_total, self.r_total)
        result = MrcScores(
            rouge_l=1.0 * rouge_sum / len(self.rouge), rouge_l_sum=rouge_sum, bleu=bleu,
            match_ngram=self.match_total.tolist(), candi_ngram=self.candi_total.tolist(), c_total=self.c_total,
            r_total=self.r_total, n_scored=len(self.rouge), n_missing_predictions=n_missing_predictions,
            n_unused_predictions=n_unused_predictions, signature=self.signature)
        if self.per_question:
            result.question_ids = list(self.question_ids)
            result.rouge_l_per_question = np.frombuffer(self.rouge, dtype=np.float64).copy()
            result.bleu_per_question = np.array(self.bleu_per_question, dtype=np.float64)
        return result


def score_dureader(predictions: dict, references: dict, *, alpha: float = 1.0, beta: float = 1.0,
                   gamma: float = 1.2, max_order: int = 4, variant: str = "mrc2018",
                   tokenize: str = "char", per_question: bool = False, n_jobs: int | None = None) -> MrcScores:
    """Adapted ROUGE-L and BLEU-1..``max_order`` of DuReader predictions against references.

    ``predictions`` and ``references`` are what :func:`read_dureader_predictions` and
    :func:`read_dureader_references` return. Scores are fractions in [0, 1]. ``tokenize="char"``
    is the scripts' convention; ``"whitespace"`` scores word tokens (as the paper's examples do).
    For inputs too large to hold, :class:`DuReaderTotals` takes the questions a run at a time.

    Example:

        >>> import json, os, tempfile
        >>> from qascore.lexical.formats import read_dureader_predictions, read_dureader_references
        >>> folder = tempfile.TemporaryDirectory()
        >>> with open(os.path.join(folder.name, "ref.jsonl"), "w") as out:
        ...     _ = out.write(json.dumps({"question_id": 1, "question_type": "DESCRIPTION",
        ...                               "answers": ["the cat sat on the mat"]}))
        >>> with open(os.path.join(folder.name, "pred.jsonl"), "w") as out:
        ...     _ = out.write(json.dumps({"question_id": 1, "answers": ["a cat sat on the mat"]}))
        >>> references = read_dureader_references(os.path.join(folder.name, "ref.jsonl"))
        >>> predictions = read_dureader_predictions(os.path.join(folder.name, "pred.jsonl"))
        >>> scores = score_dureader(predictions, references)  # characters, as the scripts
        >>> round(scores.rouge_l, 4), [round(b, 4) for b in scores.bleu][:2]
        (0.8652, [0.8168, 0.8147])
        >>> folder.cleanup()

    :param predictions: question_id -> :class:`~qascore.lexical.formats.DuReaderPrediction`.
    :param references: question_id -> :class:`~qascore.lexical.formats.DuReaderReference`.
    :param alpha: the weight of the yes/no opinion bonus.
    :param beta: the weight of the entity bonus.
    :param gamma: recall's weight in ROUGE-L's F (the scripts' 1.2).
    :param max_order: the longest n-gram of BLEU.
    :param variant: ``mrc2018`` or ``lic2019``.
    :param tokenize: ``char`` or ``whitespace``.
    :param per_question: also keep each question's ROUGE-L and BLEU.
    :param n_jobs: threads (None: the library's default).
    :returns: :class:`MrcScores`.
    :raises ValueError: for an unknown option, or no question with both sides to score.
    """
    totals = DuReaderTotals(alpha=alpha, beta=beta, gamma=gamma, max_order=max_order, variant=variant,
                            tokenize=tokenize, per_question=per_question, n_jobs=n_jobs)
    questions, missing, unused = _scored_questions(predictions, references, variant, tokenize)
    if questions:
        totals.add(questions)
    return totals.result(missing, unused)


class DuReaderMrc(Metric):
    """The DuReader adapted ROUGE-L and BLEU-1..N as a :class:`~qascore.metric.Metric` over
    :func:`score_dureader` (the constructor takes its settings).

    A batch is ``(predictions, references)``, the dicts that :func:`read_dureader_predictions` and
    :func:`read_dureader_references` return; a batch without any scorable question raises
    ``ValueError`` as :func:`score_dureader` does. ``score`` gives per-question ``ROUGE-L`` and
    ``BLEU-N`` (the question's own BLEU; their mean is not the corpus BLEU), with question ids.

    The corpus figures are the script's: ``ROUGE-L`` is the mean of per-question values, and
    ``BLEU-k`` is computed once from n-gram totals. Both decompose into sums, which
    :meth:`statistics` carries: ``rouge_l`` (sum of per-question ROUGE-L), ``match_ngram`` and
    ``candi_ngram`` (per order, bonus terms included), ``c_total`` and ``r_total`` (lengths), and
    the counts ``n_missing_predictions`` / ``n_unused_predictions``. On one batch the aggregate is
    bit for bit :func:`score_dureader`'s; over several batches the script's sequential float sums
    are regrouped, so ``ROUGE-L`` (and BLEU when ``alpha`` or ``beta`` is not an integer, the
    n-gram totals being integers otherwise) can differ in the last bits. Split a corpus by
    question: a prediction whose question sits in another batch counts as unused.

    Example:

        >>> import json, os, tempfile
        >>> from qascore.lexical.formats import read_dureader_predictions, read_dureader_references
        >>> folder = tempfile.TemporaryDirectory()
        >>> with open(os.path.join(folder.name, "ref.jsonl"), "w") as out:
        ...     _ = out.write(json.dumps({"question_id": 1, "question_type": "DESCRIPTION",
        ...                               "answers": ["the cat sat on the mat"]}))
        >>> with open(os.path.join(folder.name, "pred.jsonl"), "w") as out:
        ...     _ = out.write(json.dumps({"question_id": 1, "answers": ["a cat sat on the mat"]}))
        >>> references = read_dureader_references(os.path.join(folder.name, "ref.jsonl"))
        >>> predictions = read_dureader_predictions(os.path.join(folder.name, "pred.jsonl"))
        >>> score = DuReaderMrc(tokenize="whitespace").corpus_score(predictions, references)
        >>> round(score["ROUGE-L"], 4), round(score["BLEU-4"], 4)
        (0.8333, 0.7598)
        >>> folder.cleanup()

    :param alpha: the weight of the yes/no opinion bonus.
    :param beta: the weight of the entity bonus.
    :param gamma: recall's weight in ROUGE-L's F (the scripts' 1.2).
    :param max_order: the longest n-gram of BLEU.
    :param variant: ``mrc2018`` or ``lic2019``.
    :param tokenize: ``char`` (the scripts') or ``whitespace``.
    :param n_jobs: threads (None: the library's default).
    :raises ValueError: for an unknown option.
    """

    name = "mrc"

    def __init__(self, *, alpha: float = 1.0, beta: float = 1.0, gamma: float = 1.2, max_order: int = 4,
                 variant: str = "mrc2018", tokenize: str = "char", n_jobs: int | None = None) -> None:
        _check_settings(variant, max_order, tokenize, alpha, beta, gamma)
        self.alpha, self.beta, self.gamma, self.max_order = alpha, beta, gamma, max_order
        self.variant, self.tokenize, self.n_jobs = variant, tokenize, n_jobs

    def settings(self) -> dict:
        return {"alpha": self.alpha, "beta": self.beta, "gamma": self.gamma, "max_order": self.max_order,
                "variant": self.variant, "tokenize": self.tokenize}

    def signature(self) -> str:
        return dureader_signature(**self.settings())

    def result(self, predictions: dict, references: dict, per_question: bool = False) -> MrcScores:
        """:func:`score_dureader` of a batch with this metric's settings."""
        return score_dureader(predictions, references, **self.settings(), per_question=per_question,
                              n_jobs=self.n_jobs)

    def score(self, predictions: dict, references: dict) -> ExampleScores:
        r = self.result(predictions, references, per_question=True)
        assert r.rouge_l_per_question is not None and r.bleu_per_question is not None  # per_question fills them
        columns = {"ROUGE-L": r.rouge_l_per_question, f"BLEU-{self.max_order}": r.bleu_per_question}
        return ExampleScores(self.name, columns, r.signature, ids=r.question_ids)

    def statistics(self, predictions: dict, references: dict) -> Statistics:
        r = self.result(predictions, references)
        return Statistics({"rouge_l": r.rouge_l_sum, "match_ngram": np.array(r.match_ngram),
                           "candi_ngram": np.array(r.candi_ngram), "c_total": r.c_total, "r_total": r.r_total,
                           "n_missing_predictions": r.n_missing_predictions,
                           "n_unused_predictions": r.n_unused_predictions}, r.n_scored)

    def aggregate(self, statistics: Statistics) -> CorpusScore:
        """``ROUGE-L`` and cumulative ``BLEU-1`` .. ``BLEU-N`` (fractions), and the two counts."""
        sums, n = statistics.sums, statistics.n
        bleu = _cumulative_bleu(sums["match_ngram"].tolist(), sums["candi_ngram"].tolist(),
                                sums["c_total"], sums["r_total"])
        values = {"ROUGE-L": 1.0 * sums["rouge_l"] / n if n else 0.0,
                  **{f"BLEU-{k}": b for k, b in enumerate(bleu, 1)},
                  "n_missing_predictions": sums["n_missing_predictions"],
                  "n_unused_predictions": sums["n_unused_predictions"]}
        return CorpusScore(self.name, values, n, self.signature())
