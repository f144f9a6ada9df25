"""The official TREC nugget F(beta) (2003-2005) and its pyramid variant (2006/07).

Per question: r vital and a okay nuggets matched (distinct), R vital nuggets in the key, l the
non-whitespace characters of all the run's items for the question. Recall r/R, allowance
100(r+a), precision 1 if l < allowance else 1 - (l - allowance)/l, F(beta) as usual and 0 when
nothing vital is matched (which also covers a question whose key has no vital nugget). The pyramid
variant replaces r/R by matched weight / total weight and r+a by the number of matched nuggets.
A run's score is the macro mean over the key's questions; a question it does not answer scores 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Mapping

from ..prf import f_score
from ..signature import make_signature
from ..validate import check_weight
from .formats import AnswerKey, Judgements, Question, Response

ALLOWANCE_PER_NUGGET = 100
BETA_2003 = 5.0
BETA_AFTER_2003 = 3.0


def non_whitespace_length(texts: Iterable[str]) -> int:
    """Characters that are not (Unicode) whitespace, summed over ``texts``."""
    return sum(len(t) - sum(1 for c in t if c.isspace()) for t in texts)


def f_beta(recall: float, precision: float, beta: float) -> float:
    """The official F(beta) of a question's recall and precision: the TREC scorer squares beta
    as ``beta * beta``; 0 when either is 0."""
    return f_score(precision, recall, beta * beta)


def length_precision(length: int, allowance: float) -> float:
    """1 under the allowance, else 1 - (l - allowance)/l (exactly 1 at l == allowance)."""
    if length < allowance or length == 0:
        return 1.0
    return 1.0 - (length - allowance) / length


@dataclass(frozen=True)
class QuestionScore:
    qid: str
    recall: float
    precision: float
    f: float
    length: int
    allowance: float
    vital_matched: int
    okay_matched: int
    vital_total: int


def score_question(
    question: Question, matched: Iterable[str], length: int, *, beta: float, pyramid: bool = False
) -> QuestionScore:
    """Official F of one question from the ids of the nuggets matched (duplicates count once)."""
    check_weight(beta, "beta")
    matched = set(matched)
    known = {n.nugget_id: n for n in question.nuggets}
    unknown = matched - known.keys()
    if unknown:
        raise ValueError(f"question {question.qid}: matched nuggets {sorted(unknown)} are not in the answer key")
    hits = [known[i] for i in matched]
    vital_total = sum(n.is_vital for n in question.nuggets)
    vital = sum(n.is_vital for n in hits)
    if pyramid:
        # a pyramid key gives every nugget a weight (the reader checks it)
        total_weight = sum(n.weight or 0.0 for n in question.nuggets)
        recall = sum(n.weight or 0.0 for n in hits) / total_weight if total_weight > 0 else 0.0
    else:
        recall = vital / vital_total if vital_total else 0.0
    allowance = float(ALLOWANCE_PER_NUGGET * len(hits))
    precision = length_precision(length, allowance)
    return QuestionScore(
        question.qid,
        recall,
        precision,
        f_beta(recall, precision, beta),
        length,
        allowance,
        vital,
        len(hits) - vital,
        vital_total,
    )


@dataclass
class RunScore:
    """Per-question scores of one run and their macro mean over the key's questions.

    Example:

        >>> from qascore.nuggets import AnswerKey, Run
        >>> from qascore.nuggets.formats import Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> score = score_run(key, "sys1", {"1": ["1"]}, run.responses, beta=3)
        >>> score.mean, score.questions["1"].vital_matched
        (1.0, 1)
    """

    run_tag: str
    questions: dict[str, QuestionScore]
    mean: float
    signature: str
    unknown_questions: list[str] = field(default_factory=list)  # qids the run names but the key lacks
    interval: tuple[float, float] | None = None  # 95% interval of the mean over questions (Nuggeteer)


def official_signature(beta: float, pyramid: bool, method: str = "judged") -> str:
    return make_signature("nugget-f", beta=beta, pyramid=pyramid, allowance=ALLOWANCE_PER_NUGGET, assign=method)


def score_run(
    key: AnswerKey,
    run_tag: str,
    matched: Mapping[str, Iterable[str]],
    responses: Mapping[str, list[Response]],
    *,
    beta: float,
    method: str = "judged",
) -> RunScore:
    """The official nugget F of one run from the nuggets matched per question: recall of the vital
    (or pyramid-weighted) nuggets, length allowance precision, F(beta), macro mean over the key.

    Example:

        >>> from qascore.nuggets import AnswerKey, Run
        >>> from qascore.nuggets.formats import Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> score_run(key, "sys1", {"1": ["1", "2"]}, run.responses, beta=3).questions["1"].recall
        1.0

    :param key: the :class:`~qascore.nuggets.formats.AnswerKey`.
    :param run_tag: the run's tag.
    :param matched: qid -> the ids of the nuggets matched.
    :param responses: qid -> the run's responses (their length sets the precision).
    :param beta: recall's weight in F.
    :param method: how the nuggets were matched, for the signature.
    :returns: a :class:`RunScore`.
    :raises ValueError: for a nugget id the key does not hold, or a negative beta.
    """
    """Score one run: ``matched[qid]`` nugget ids, ``responses[qid]`` the run's items (for lengths)."""
    unknown = sorted(set(responses) - set(key.questions) | set(matched) - set(key.questions))
    per_question = {}
    for q in key:
        length = non_whitespace_length(r.text for r in responses.get(q.qid, ()))
        per_question[q.qid] = score_question(q, matched.get(q.qid, ()), length, beta=beta, pyramid=key.pyramid)
    mean = sum(s.f for s in per_question.values()) / len(per_question) if per_question else 0.0
    return RunScore(run_tag, per_question, mean, official_signature(beta, key.pyramid, method), unknown)


def score_judged_runs(key: AnswerKey, judged: Judgements, *, beta: float) -> dict[str, RunScore]:
    """Official scores of every run in a judgement file.

    Example:

        >>> from qascore.nuggets import AnswerKey, Run
        >>> from qascore.nuggets.formats import Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> from qascore.nuggets import Judgements
        >>> scores = score_judged_runs(key, Judgements({"sys1": run}, {("sys1", "1"): {1: ["1"]}}), beta=3)
        >>> scores["sys1"].mean
        1.0

    :param key: the :class:`~qascore.nuggets.formats.AnswerKey`.
    :param judged: the :class:`~qascore.nuggets.formats.Judgements`.
    :param beta: recall's weight in F.
    :returns: run tag -> :class:`RunScore`.
    """
    scores = {}
    for tag, run in judged.runs.items():
        matched = {
            qid: [n for item in items for n in judged.nuggets_of(tag, qid, item.item)]
            for qid, items in run.responses.items()
        }
        scores[tag] = score_run(key, tag, matched, run.responses, beta=beta)
    return scores
