"""A cascade of judges: a cheap first judge settles the triples it accepts, the next judge the rest."""
from __future__ import annotations

import numpy as np

from .base import Judge, Verdicts
from .triples import check_encodable_triples, check_triples, shortlist_references, unique_rows
from .triage import triage_features


class CascadeJudge(Judge):
    """``first`` judges every triple; the triples it labels correct keep its verdict, and only the
    others go to ``then`` (which may itself be a cascade). With :class:`ContainmentJudge` first, an
    answer that contains a reference is accepted without running a model: on EVOUNA-NQ dev, humans
    agree with 99.3% of those acceptances (docs/judges.md).

    ``threshold`` and ``refs`` are ``then``'s; an accepted triple's probability is ``first``'s.

    Example:

        >>> from qascore.judges import ContainmentJudge, default_linear_model
        >>> judge = CascadeJudge(ContainmentJudge(), default_linear_model())
        >>> verdicts = judge.judge(["who wrote Hamlet?", "capital of France?"], ["Shakespeare", "Paris"],
        ...                        ["It was William Shakespeare.", "Lyon"])
        >>> verdicts.labels.tolist()
        [True, False]

    :param first: the judge that accepts what it can.
    :param then: the judge of the triples ``first`` does not accept.
    """

    name = "cascade"

    def __init__(self, first: Judge, then: Judge) -> None:
        self.first = first
        self.then = then

    @property
    def threshold(self) -> float:
        return self.then.threshold

    @property
    def refs(self) -> str | None:
        return getattr(self.then, "refs", None)

    def with_refs(self, refs: str, threshold: float | None = None) -> CascadeJudge:
        first = self.first.with_refs(refs) if hasattr(self.first, "with_refs") else self.first
        then = self.then.with_refs(refs, threshold) if hasattr(self.then, "with_refs") else self.then
        return CascadeJudge(first, then)

    def settings(self) -> dict:
        """Both stages' settings, each under its stage's name (``first.refs``, ``then.threshold``, ...)."""
        return dict(first=self.first.name, **{f"first.{k}": v for k, v in self.first.settings().items()},
                    then=self.then.name, **{f"then.{k}": v for k, v in self.then.settings().items()})


    def judge(self, questions, references, candidates) -> Verdicts:
        first = self.first.judge(questions, references, candidates)
        rest = np.flatnonzero(~first.labels)
        proba, labels = first.proba.copy(), first.labels.copy()
        if len(rest):
            later = self.then.judge([questions[i] for i in rest], [references[i] for i in rest],
                                    [candidates[i] for i in rest])
            proba[rest], labels[rest] = later.proba, later.labels
        return Verdicts(proba, labels)

    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        return self.judge(questions, references, candidates).proba


STAGES = ("triage-accept", "triage-reject", "network")


class CalibratedCascade(Judge):
    """The default judge: a :class:`~qascore.judges.triage.TriageModel` settles the triples in its
    calibrated bands (accept or reject, where on calibration data it was right at least as often as
    the network), and ``network`` (the AVA transformer model) judges the uncertain middle.

    A triage-settled triple's probability is the triage's (at or above ``accept_at``, at or below
    ``reject_at``; an answer accepted for containing a reference gets at least ``accept_at``); a
    deferred triple's is the network's, over the ``references`` aliases with the most lexical
    evidence for the answer (an alias the answer shares no words with is where the network, too,
    rarely accepts; on EVOUNA-NQ's calibration part, reading 2 of them agreed with reading all).
    ``threshold`` and ``refs`` are the network's. Under ``refs="mean"`` (the paper's rule for
    sentence-long references) the triage, whose evidence is "any reference", stands aside and the
    network judges every triple. Each triple is judged independently of its batch, like every
    judge; :meth:`judge_stages` also says which stage decided each one.

    Example:

        >>> from qascore.judges import load_default_model
        >>> judge = load_default_model()  # a CalibratedCascade
        >>> verdicts, stages = judge.judge_stages(["who wrote Hamlet?", "capital of France?"],
        ...                                       ["William Shakespeare", "Paris"],
        ...                                       ["It was William Shakespeare.", "Lyon"])
        >>> verdicts.labels.tolist(), [STAGES[s] for s in stages]
        ([True, False], ['triage-accept', 'triage-reject'])

    :param triage: the calibrated :class:`~qascore.judges.triage.TriageModel`.
    :param network: the judge of the triples the triage defers (the AVA network).
    :param shortlist: candidates per item the network reads in :meth:`first_accepted`.
    :param references: aliases per triple the network reads (those with the most lexical evidence).
    :raises ValueError: for a ``shortlist`` or ``references`` that is not a positive integer.
    """

    name = "ava-cascade"

    def __init__(self, triage, network: Judge, *, shortlist: int = 2, references: int = 2) -> None:
        self.triage = triage
        self.network = network
        for name, value in (("shortlist", shortlist), ("references", references)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.shortlist = shortlist
        self.references = references

    @property
    def threshold(self) -> float:
        return self.network.threshold

    @property
    def refs(self) -> str | None:
        return getattr(self.network, "refs", None)

    def with_refs(self, refs: str, threshold: float | None = None) -> CalibratedCascade:
        return CalibratedCascade(self.triage, self.network.with_refs(refs, threshold),  # type: ignore[attr-defined]
                                 shortlist=self.shortlist, references=self.references)

    def cached(self, remember) -> CalibratedCascade:
        """The same cascade with the network's verdicts remembered: the triage costs little."""
        return CalibratedCascade(self.triage, self.network.cached(remember), shortlist=self.shortlist,
                                 references=self.references)

    def settings(self) -> dict:
        triage = (f"logistic{len(self.triage.weights)}[reject<={self.triage.reject_at:.3f},"
                  f"accept>={self.triage.accept_at:.3f}{',contained' if self.triage.accept_contained else ''}]"
                  if self.refs != "mean" else "off")
        return dict(triage=triage, shortlist=self.shortlist,
                    **({"references": self.references} if self.refs != "mean" else {}),
                    **{f"then.{k}": v for k, v in self.network.settings().items()})

    def judge_stages(self, questions, references, candidates) -> tuple[Verdicts, np.ndarray]:
        """Verdicts and, per triple, the index in :data:`STAGES` of the stage that decided it."""
        questions, references, candidates = check_triples(questions, references, candidates)
        check_encodable_triples(questions, references, candidates)  # as the network would, whoever decides
        n = len(questions)
        stage = np.full(n, STAGES.index("network"), dtype=np.int8)
        proba = np.zeros(n)
        if self.refs != "mean" and n:
            features = triage_features(questions, references, candidates)
            p = self.triage.proba(features)
            bands = self.triage.bands(p, features)
            stage[bands == 1] = STAGES.index("triage-accept")
            stage[bands == -1] = STAGES.index("triage-reject")
            # an accepted triple's probability is at least the accept band's, so that the label at the
            # threshold is the triage's decision (a contained reference may have a lower regression p)
            proba[bands == 1] = np.maximum(p[bands == 1], self.triage.accept_at)
            proba[bands == -1] = p[bands == -1]
        rest = np.flatnonzero(stage == STAGES.index("network"))
        if len(rest):
            refs = [references[i] for i in rest]
            if self.refs != "mean":
                refs = shortlist_references(refs, [candidates[i] for i in rest], self.references)
            proba[rest] = self.network.predict_proba([questions[i] for i in rest], refs,
                                                     [candidates[i] for i in rest])
        return Verdicts(proba, proba >= float(self.threshold)), stage

    def judge(self, questions, references, candidates) -> Verdicts:
        return self.judge_stages(questions, references, candidates)[0]

    def predict_proba(self, questions, references, candidates) -> np.ndarray:
        return self.judge(questions, references, candidates).proba

    def first_accepted(self, questions, references, candidate_lists) -> np.ndarray:
        """Per item, the first of its candidates judged correct, or -1. A candidate the triage
        accepts answers the item at once; otherwise the network reads only the ``shortlist``
        candidates of the middle band with the most triage evidence. Each network read is one more
        chance of a false accept, so an item with many candidates (an article's paragraphs) gets as
        many chances as one with ``shortlist``, and the network runs on a few triples per item,
        over the ``references`` aliases with the most evidence for each. Under ``refs="mean"``,
        every candidate goes to the network as with any judge."""
        if self.refs == "mean":
            return super().first_accepted(questions, references, candidate_lists)
        lengths = np.array([len(texts) for texts in candidate_lists], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        owner = np.repeat(np.arange(len(candidate_lists)), lengths)
        q, r, c = check_triples([questions[i] for i in owner], [references[i] for i in owner],
                                [text for texts in candidate_lists for text in texts])
        check_encodable_triples(q, r, c)
        # the same paragraph under the same question recurs across systems: its evidence is read once
        first, inverse = unique_rows(q, [refs if isinstance(refs, str) else tuple(refs) for refs in r], c)
        features = triage_features([q[k] for k in first], [r[k] for k in first], [c[k] for k in first])[inverse]
        p = self.triage.proba(features)
        bands = self.triage.bands(p, features)
        out = np.full(len(candidate_lists), -1, dtype=np.int64)
        chosen: dict = {}  # item -> its shortlisted rows, in candidate order
        for i, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist())):
            rows = np.arange(start, start + length)
            accepted = rows[bands[rows] == 1]
            if len(accepted):
                out[i] = accepted[0] - start
                continue
            middle = rows[bands[rows] == 0]
            if len(middle):
                chosen[i] = np.sort(middle[np.argsort(-p[middle], kind="stable")[: self.shortlist]])
        # the network reads each item's shortlisted candidates in candidate order, one round per
        # place, and an item leaves at its first accepted one: the same answer as reading them all
        # (verdicts do not depend on the batch), with fewer reads
        round_ = 0
        while chosen:
            asked = np.array([rows[round_] for rows in chosen.values()], dtype=np.int64)
            refs = shortlist_references([r[k] for k in asked], [c[k] for k in asked], self.references)
            labels = self.network.judge([q[k] for k in asked], refs, [c[k] for k in asked]).labels
            for (i, rows), accepted in zip(list(chosen.items()), labels.tolist()):
                if accepted:
                    out[i] = rows[round_] - starts[i]
                if accepted or len(rows) == round_ + 1:
                    del chosen[i]
            round_ += 1
        return out
