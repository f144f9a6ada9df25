"""Nuggeteer (Marton 2006): automatic nugget assignment from descriptions and judgements.

One binary classifier per nugget (n-grams of its description and, when learning from judgements,
of every judged response that carries it, each one a further description), scored by the
idf-weighted n-gram recall of :mod:`qascore.nuggets.ngram_index`. A response gets a nugget when the
recall reaches the global threshold and, when learning from judgements, beats the *null* nugget
(whose descriptions are the judged responses that carry no nugget). A response identical to a
judged one (after case and whitespace normalisation) gets exactly the judged nuggets. Within a
(run, question) a nugget is credited to the first response that carries it; the run is then scored
with the official F (:mod:`qascore.nuggets.official`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence

import numpy as np

from ..signature import make_signature
from ..validate import check_choice, check_int, check_real
from .terms import Analyzer, IdfTable, resolve_idf
from .formats import AnswerKey, Judgements, Response, Run
from .ngram_index import NgramIndex, QuestionNuggets, score_encoded, sequence_hashes
from .official import RunScore, score_run

NULL_NUGGET = "<null>"
WEIGHTINGS = ("idf", "count")


def normalize_response(text: str) -> str:
    """The identity Nuggeteer uses for exact scoring: lower case, single spaces."""
    return " ".join(text.lower().split())


@dataclass(frozen=True)
class NuggetGuess:
    nugget_id: str
    score: float  # recall of the best description (1.0 for an exact match)
    exact: bool  # from an identical judged response
    description: int = -1  # global description index behind the score (-1 for exact)


@dataclass
class RunAssignment:
    """Nuggets credited to each response of one run (first response that carries a nugget)."""

    run: Run
    threshold: float
    credited: dict[str, list[list[NuggetGuess]]]  # qid -> per item (in run order)
    unknown_questions: list[str] = field(default_factory=list)
    signature: str = ""

    def matched(self) -> dict[str, list[str]]:
        return {qid: [g.nugget_id for guesses in items for g in guesses] for qid, items in self.credited.items()}


@dataclass
class RecallTable:
    """Every response's recall for every nugget of its question (the classifier scores).

    Entries are flat: response i owns ``out_offsets[i]:out_offsets[i + 1]``, one per nugget of its
    question (the null nugget last when learning from judgements); ``entry_nugget`` is the global
    nugget index of the model's index. ``exact_entry`` marks entries of responses identical to a
    judged one (``exact_value`` then says whether the judged response carried that nugget).
    """

    responses: list[Response]
    question: np.ndarray
    out_offsets: np.ndarray
    recall: np.ndarray
    best_description: np.ndarray
    entry_nugget: np.ndarray
    exact_entry: np.ndarray
    exact_value: np.ndarray
    null_entry: np.ndarray
    exact: list[bool]
    weights: tuple

    def row(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.out_offsets[i], self.out_offsets[i + 1]
        return self.recall[lo:hi], self.best_description[lo:hi]

    def carried(self, threshold: float) -> np.ndarray:
        """Boolean per entry: the response carries the nugget (before first-response crediting)."""
        counts = np.diff(self.out_offsets)
        mask = (self.recall > 0.0) & (self.recall >= threshold)
        if self.null_entry.any():
            null_score = np.repeat(self.recall[self.out_offsets[1:] - 1], counts) if len(counts) else self.recall
            mask &= self.recall > null_score
        mask &= ~self.null_entry
        mask[self.exact_entry] = self.exact_value[self.exact_entry]
        return mask


class Nuggeteer:
    """Nugget classifiers for the questions of an answer key.

    Parameters: ``judgements`` (used for exact scoring always, and as extra descriptions plus the
    null nugget when ``learn_from_judgements``); ``n`` the longest n-gram (1-3); ``stem``;
    ``stopwords`` (remove them); ``weighting`` idf or count; ``idf`` where idf comes from:
    ``"background"`` (default) the shipped wordfreq table, fixed, so a run's score does not depend
    on the runs scored with it; ``"runs"`` the responses scored in the same call (each one a
    document: a run's score then changes with its company); or an :class:`IdfTable` of a corpus;
    ``informativeness`` see :mod:`qascore.nuggets.ngram_index`; ``null_in_group`` whether the null
    nugget counts as one of the question's nuggets G in informativeness (True: |G| = key nuggets + 1
    and the null nugget's n-grams count as "other nuggets"; False: the paper's G, the key's nuggets
    only); ``threshold`` the global acceptance threshold.

    Example:

        >>> from qascore.nuggets import AnswerKey, Run
        >>> from qascore.nuggets.formats import Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> other = Run("sys2")
        >>> _ = other.add("1", "doc2", "a play about a prince of Denmark")
        >>> [(score.run_tag, score.mean) for score in Nuggeteer(key, stem=True).score([run, other], beta=3)]
        [('sys1', 1.0), ('sys2', 0.0)]

    :raises ValueError: for an unknown weighting or idf source, ``n`` outside 1-3, or a threshold
        outside [0, 1].
    """

    def __init__(self, key: AnswerKey, *, judgements: Judgements | None = None, learn_from_judgements: bool = True,
                 n: int = 2, stem: bool = False, stopwords: bool = False, weighting: str = "idf",
                 idf: str | IdfTable = "background", informativeness: str = "others", null_in_group: bool = True,
                 threshold: float = 0.2, exclude_runs: Iterable[str] = ()):
        check_choice(weighting, WEIGHTINGS, "weighting")
        check_real(threshold, "threshold", low=0.0, high=1.0)
        check_int(n, "n", low=1, high=3)
        self.key = key
        self.analyzer = Analyzer(stem=stem, stopwords=stopwords)
        self.weighting = weighting
        # count weights read no idf: the shipped table is not loaded for them
        self.idf = resolve_idf(idf, self.analyzer, load=weighting == "idf")
        self.threshold = threshold
        exclude = set(exclude_runs)
        self.exact: dict[str, dict[str, set]] = {}
        # token-sequence hashes of the judged texts, computed on first use
        self._judged_hashes: np.ndarray | None = None
        extra: dict[tuple[str, str], list[str]] = {}
        null: dict[str, list[str]] = {}
        if judgements is not None:
            for tag, run in judgements.runs.items():
                if tag in exclude:
                    continue
                for qid, items in run.responses.items():
                    if qid not in key.questions:
                        continue
                    known = {n.nugget_id for n in key[qid].nuggets}
                    for item in items:
                        nuggets = judgements.nuggets_of(tag, qid, item.item)
                        unknown = set(nuggets) - known
                        if unknown:
                            raise ValueError(f"judgements of run {tag}, question {qid}, item {item.item} name nuggets "
                                             f"{sorted(unknown)} that the answer key lacks")
                        self.exact.setdefault(qid, {}).setdefault(normalize_response(item.text), set()).update(nuggets)
                        if not learn_from_judgements or not item.text.strip():
                            continue
                        for nid in nuggets:
                            extra.setdefault((qid, nid), []).append(item.text)
                        if not nuggets:
                            null.setdefault(qid, []).append(item.text)
        self.learned = judgements is not None and learn_from_judgements
        questions = []
        for q in key:
            ids = [n.nugget_id for n in q.nuggets]
            descs = [
                [self.analyzer.terms(n.description)] + self.analyzer.terms_batch(extra.get((q.qid, n.nugget_id), ()))
                for n in q.nuggets
            ]
            if self.learned:
                ids.append(NULL_NUGGET)
                descs.append(self.analyzer.terms_batch(null.get(q.qid, ())))
            questions.append(QuestionNuggets(q.qid, ids, descs, background=self.learned))
        self.index = NgramIndex(questions, n_max=n, informativeness=informativeness,
                                background_in_group=null_in_group)
        self.n = n
        self.informativeness = informativeness
        self.null_in_group = bool(null_in_group)

    def signature(self) -> str:
        """The settings of this scorer; an assignment's signature adds its threshold
        (:meth:`assignment_signature`)."""
        return make_signature("nuggeteer", **self._settings())

    def assignment_signature(self, threshold: float) -> str:
        """The signature of an assignment made at ``threshold``."""
        return make_signature("nuggeteer", **self._settings(), threshold=threshold)

    def _settings(self) -> dict:
        idf_source = "none" if self.weighting == "count" else (self.idf.source if self.idf else "runs")
        return {"n": self.n, "stem": self.analyzer.stem, "stopwords": self.analyzer.stopwords,
                "weighting": self.weighting, "idf": idf_source, "informativeness": self.informativeness,
                "null_in_group": self.null_in_group,
                "judgements": "learned" if self.learned else ("exact-only" if self.exact else "none")}

    # ---------------------------------------------------------------- classifier scores

    def recall_table(self, runs: Sequence[Run], *, n_jobs: int | None = None) -> RecallTable:
        """Classifier scores of every response of ``runs`` to a question of the key (one kernel call)."""
        blocks = [
            (self.index.question_index[qid], items)
            for run in runs
            for qid, items in run.responses.items()
            if qid in self.index.question_index
        ]
        responses = [r for _, items in blocks for r in items]
        question = np.repeat(np.array([q for q, _ in blocks], dtype=np.int32), [len(items) for _, items in blocks])
        packed = self.analyzer.encode_batch([r.text for r in responses], n_jobs=n_jobs)
        ids, offsets = packed.ids, packed.offsets
        out_offsets, recall, best, entry_nugget, weights = score_encoded(
            self.index, self.analyzer, ids, offsets, question, weighting=self.weighting, idf=self.idf, n_jobs=n_jobs
        )
        exact_entry = np.zeros(len(recall), dtype=bool)
        exact_value = np.zeros(len(recall), dtype=bool)
        exact = [False] * len(responses)
        for i in self._exact_candidates(ids, offsets):
            r = responses[i]
            known = self.exact.get(r.qid, {}).get(normalize_response(r.text))
            if known is not None:
                exact[i] = True
                lo, hi = out_offsets[i], out_offsets[i + 1]
                exact_entry[lo:hi] = True
                ids_q = self.index.questions[question[i]].nugget_ids
                exact_value[lo:hi] = [nid in known for nid in ids_q]
        null_entry = np.zeros(len(recall), dtype=bool)
        if self.learned:
            null_entry[out_offsets[1:] - 1] = True
        return RecallTable(
            responses,
            question,
            out_offsets,
            recall,
            best,
            entry_nugget,
            exact_entry,
            exact_value,
            null_entry,
            exact,
            weights,
        )

    def _exact_candidates(self, ids: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Responses whose token sequence equals a judged response's (equal normalised texts have
        equal tokens), so only those are normalised and looked up."""
        if not self.exact:
            return np.zeros(0, dtype=np.int64)
        if self._judged_hashes is None:
            judged_texts = [text for texts in self.exact.values() for text in texts]
            judged = self.analyzer.encode_batch(judged_texts)
            self._judged_hashes = sequence_hashes(judged.ids, judged.offsets)
        return np.nonzero(np.isin(sequence_hashes(ids, offsets), self._judged_hashes))[0]

    # ---------------------------------------------------------------- assignment

    def guesses(self, table: RecallTable, i: int, carried: np.ndarray) -> list[NuggetGuess]:
        """The nuggets response ``i`` carries, given ``table.carried(threshold)``."""
        lo, hi = table.out_offsets[i], table.out_offsets[i + 1]
        ids = self.index.questions[table.question[i]].nugget_ids
        exact = table.exact[i]
        return [
            NuggetGuess(
                ids[j],
                1.0 if exact else float(table.recall[lo + j]),
                exact,
                -1 if exact else int(table.best_description[lo + j]),
            )
            for j in np.nonzero(carried[lo:hi])[0]
        ]

    def assign_from_table(
        self, table: RecallTable, runs: Sequence[Run], threshold: float | None = None
    ) -> list[RunAssignment]:
        threshold = self.threshold if threshold is None else threshold
        position = {id(r): i for i, r in enumerate(table.responses)}
        carried = table.carried(threshold)
        result = []
        for run in runs:
            credited: dict[str, list[list[NuggetGuess]]] = {}
            for qid, items in run.responses.items():
                if qid not in self.index.question_index:
                    continue
                seen: set[str] = set()
                per_item = []
                for r in items:
                    fresh = [g for g in self.guesses(table, position[id(r)], carried) if g.nugget_id not in seen]
                    seen.update(g.nugget_id for g in fresh)
                    per_item.append(fresh)
                credited[qid] = per_item
            unknown = sorted(set(run.responses) - set(self.index.question_index))
            result.append(RunAssignment(run, threshold, credited, unknown, self.assignment_signature(threshold)))
        return result

    def assign(
        self, runs: Sequence[Run], threshold: float | None = None, *, n_jobs: int | None = None
    ) -> list[RunAssignment]:
        return self.assign_from_table(self.recall_table(runs, n_jobs=n_jobs), runs, threshold)

    def score(
        self, runs: Sequence[Run], *, beta: float, threshold: float | None = None, n_jobs: int | None = None
    ) -> list[RunScore]:
        """Official F of each run with Nuggeteer's assignments."""
        return [score_assignment(self.key, a, beta) for a in self.assign(runs, threshold, n_jobs=n_jobs)]

    def explain(self, table: RecallTable, i: int, nugget_id: str, threshold: float | None = None) -> dict:
        """Why response ``i`` did or did not get ``nugget_id``: score, threshold, matched n-grams."""
        threshold = self.threshold if threshold is None else threshold
        q = self.index.questions[table.question[i]]
        j = list(q.nugget_ids).index(nugget_id)
        recall, best = table.row(i)
        guesses = {g.nugget_id for g in self.guesses(table, i, table.carried(threshold))}
        response = table.responses[i]
        matched = (
            []
            if best[j] < 0
            else self.index.matched_ngrams(self.analyzer.terms(response.text), int(best[j]), table.weights)
        )
        return {
            "qid": q.qid,
            "run": response.run_tag,
            "item": response.item,
            "nugget": nugget_id,
            "score": float(recall[j]),
            "threshold": threshold,
            "null_score": float(recall[-1]) if self.learned else None,
            "exact": table.exact[i],
            "assigned": nugget_id in guesses,
            "matched_ngrams": matched,
        }


def score_assignment(key: AnswerKey, assignment: RunAssignment, beta: float) -> RunScore:
    """The official F of one run under Nuggeteer's assignment, with Nuggeteer's 95% interval
    (mean +- 1.96 standard errors over questions) when there are two questions or more.

    Example:

        >>> from qascore.nuggets import AnswerKey, Run
        >>> from qascore.nuggets.formats import Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote the play")
        >>> [assignment] = Nuggeteer(key, stem=True).assign([run])
        >>> assignment.matched(), score_assignment(key, assignment, 3).mean
        ({'1': ['1']}, 1.0)

    :param key: the :class:`~qascore.nuggets.formats.AnswerKey`.
    :param assignment: a ``RunAssignment`` of :meth:`Nuggeteer.assign`.
    :param beta: recall's weight in F.
    :returns: a :class:`~qascore.nuggets.official.RunScore`.
    """
    score = score_run(
        key, assignment.run.tag, assignment.matched(), assignment.run.responses, beta=beta, method="nuggeteer"
    )
    score.signature = f"{assignment.signature}|beta:{beta}"
    if len(score.questions) >= 2:
        # Nuggeteer's 95% interval: mean over questions +- 1.96 standard errors (qascore.stats,
        # imported here: it brings Numba and SciPy, which assignment alone does not need)
        from ..stats import micro_average

        mean = micro_average([q.f for q in score.questions.values()])
        # F lies in [0, 1]; the normal interval does not know it, so it is clipped to the range
        score.interval = (min(max(mean.low, 0.0), 1.0), min(max(mean.high, 0.0), 1.0))
    score.unknown_questions = sorted(set(score.unknown_questions) | set(assignment.unknown_questions))
    return score


def nugget_diagnostics(model: Nuggeteer, table: RecallTable, threshold: float | None = None) -> list[dict]:
    """Per nugget: how many responses it was assigned to, its best score, where, and the threshold."""
    threshold = model.threshold if threshold is None else threshold
    carried = table.carried(threshold)
    rows: dict[tuple[str, str], dict] = {}
    for q in model.key:
        for n in q.nuggets:
            rows[q.qid, n.nugget_id] = {
                "qid": q.qid,
                "nugget": n.nugget_id,
                "importance": n.importance,
                "description": n.description,
                "assigned": 0,
                "exact": 0,
                "best_score": 0.0,
                "best_response": None,
                "threshold": threshold,
            }
    for i, r in enumerate(table.responses):
        q = model.index.questions[table.question[i]]
        recall, _ = table.row(i)
        for g in model.guesses(table, i, carried):
            rows[r.qid, g.nugget_id]["assigned"] += 1
            rows[r.qid, g.nugget_id]["exact"] += g.exact
        for j, nid in enumerate(q.nugget_ids):
            if nid != NULL_NUGGET and recall[j] > rows[r.qid, nid]["best_score"]:
                rows[r.qid, nid]["best_score"] = float(recall[j])
                rows[r.qid, nid]["best_response"] = f"{r.run_tag}:{r.item}"
    return list(rows.values())


def assessment(assignments: Sequence[RunAssignment]) -> tuple[Judgements, dict]:
    """Nuggeteer's guesses as a judgement file (``write_judgements``) plus the comment of each guess,
    so a developer can adjudicate them and feed the file back as judgements."""
    judged = Judgements()
    comments = {}
    for a in assignments:
        judged.runs[a.run.tag] = a.run
        for qid, per_item in a.credited.items():
            for r, guesses in zip(a.run.responses[qid], per_item):
                for g in guesses:
                    judged.assigned.setdefault((a.run.tag, qid), {}).setdefault(r.item, []).append(g.nugget_id)
                    how = (
                        "exact match of a judged response"
                        if g.exact
                        else f"score {g.score:.4f} >= threshold {a.threshold:.4f}"
                    )
                    comments[a.run.tag, qid, r.item, g.nugget_id] = f"guess: nugget {g.nugget_id} {how}"
    return judged, comments
