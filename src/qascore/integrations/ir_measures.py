"""qascore's nugget and EXAM scores as `ir_measures <https://ir-measur.es>`_ measures, and the
TREC qrels that carry their inputs.

Importing this module registers a provider named ``qascore`` with ir_measures (in its provider
registry and its default pipeline, as third-party providers do), so ``ir_measures.calc_aggregate``,
``ir_measures.iter_calc``, ``Measure.calc`` and PyTerrier's ``pt.Experiment`` compute these measures
with qascore's own code:

=====================================  =========================================================
measure                                per query (``docs/ir-measures.md`` has the details)
=====================================  =========================================================
``NuggetVital``, ``(strict=True)``     TREC 2024 RAG vital score (strict: partial support is 0)
``NuggetWeighted``, ``(strict=True)``  TREC 2024 RAG weighted score
``NuggetAll``, ``(strict=True)``       TREC 2024 RAG all score
``NuggetF(beta=3, rel=2)``             official TREC nugget F(beta) from the run's assignments
``Nuggeteer(beta=3, threshold=0.2,     official F with Nuggeteer's assignments of the run's texts
n=2)``
``EXAM@k``                             share of the query's exam questions answered by the top k
=====================================  =========================================================

Inputs, in ir_measures' terms (rows may be namedtuples, mappings, a pandas DataFrame, or for
qrels and runs without text a dict of dicts):

* nugget measures: the qrels are the nugget key, one row per nugget: ``query_id``, ``doc_id`` the
  nugget id, ``relevance`` its importance (:data:`IMPORTANCE`: 1 vital, 0 okay, -1 any other
  label), and for Nuggeteer ``text``, the nugget's description. The run of ``Nugget*`` is the
  system's nugget assignments: ``doc_id`` the nugget id, ``score`` the grade (:data:`GRADE`: 2
  support, 1 partial support, 0 none), and for ``NuggetF`` ``text``, the query's answer (its
  length sets the allowance). The run of ``Nuggeteer`` is the system's responses: ``doc_id`` a
  response id, ``text`` the response (PyTerrier-RAG's ``qanswer`` is read as ``text``).
* EXAM: the qrels are per-question grades of paragraphs (:func:`exam_qrels`): ``doc_id`` the
  paragraph id, ``iteration`` the question id, ``relevance`` 1 when the paragraph answers the
  question correctly, else 0; the run ranks paragraphs (``doc_id``, ``score``).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from ..errors import MissingExtraError
from ..exam.workbench import GradedParagraph
from ..io import Qrel
from ..metric import ExactSum
from ..nuggets.formats import AnswerKey, Nugget, Question, RagNugget, RagTopic, Run
from ..nuggets.nuggeteer import Nuggeteer as NuggeteerModel
from ..nuggets.official import BETA_AFTER_2003, non_whitespace_length, score_question
from ..nuggets.rag import topic_scores

try:
    import ir_measures
    from ir_measures import providers
    from ir_measures.measures.base import Agg, Measure, ParamInfo
    from ir_measures.providers.base import Any as AnyValue
except ImportError:  # the one place this module needs it: name the extra
    raise MissingExtraError('ir_measures is not installed; install it with: pip install "qascore[ir]"') from None

__all__ = [
    "IMPORTANCE", "GRADE", "NuggetVital", "NuggetWeighted", "NuggetAll", "NuggetF", "Nuggeteer", "EXAM",
    "MEASURES", "QascoreProvider", "PROVIDER", "RunRow", "KeyQrel", "rag_key_qrels", "rag_assignment_qrels",
    "rag_run", "answer_key_qrels", "response_run", "exam_qrels", "exam_run", "qrels_as_run",
]

IMPORTANCE = {"vital": 1, "okay": 0}  # any other importance label: -1 (kept in the "all" denominator)
OTHER_IMPORTANCE = -1
GRADE = {"support": 2, "partial_support": 1}  # not_support and any other label: 0
_LABEL_OF_GRADE = {2: "support", 1: "partial_support", 0: "not_support"}
_LABEL_OF_IMPORTANCE = {1: "vital", 0: "okay", OTHER_IMPORTANCE: "other"}


class KeyQrel(NamedTuple):
    """A nugget of a key: ``ir_measures.Qrel``'s fields, then the nugget's description.

    Example:

        >>> from qascore.integrations.ir_measures import KeyQrel
        >>> KeyQrel("q1", "1", 1, text="capital is Paris")  # a vital nugget (IMPORTANCE["vital"])
        KeyQrel(query_id='q1', doc_id='1', relevance=1, iteration='0', text='capital is Paris')
    """

    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"
    text: str = ""


class RunRow(NamedTuple):
    """A run row: ``ir_measures.ScoredDoc``'s fields, then a text (an answer or a response).

    Example:

        >>> from qascore.integrations.ir_measures import RunRow
        >>> RunRow("q1", "1", 2.0, "Paris is the capital.")  # nugget 1 supported (GRADE["support"])
        RunRow(query_id='q1', doc_id='1', score=2.0, text='Paris is the capital.')
    """

    query_id: str
    doc_id: str
    score: float
    text: str = ""


# ---------------------------------------------------------------- qascore objects -> rows


def _nugget_id(position: int) -> str:
    return str(position)


def rag_key_qrels(topics: Iterable[RagTopic]) -> list[KeyQrel]:
    """The nugget key of TREC RAG assignment records: one row per nugget, ``doc_id`` its 1-based
    position in the record's list, ``relevance`` its importance (:data:`IMPORTANCE`).

    Example:

        >>> from qascore.integrations.ir_measures import rag_key_qrels
        >>> from qascore.nuggets.formats import RagNugget, RagTopic
        >>> topic = RagTopic("q1", "Paris is the capital.", (RagNugget("capital is Paris", "vital", "support"),
        ...                                                  RagNugget("on the Seine", "okay", "partial_support")))
        >>> rag_key_qrels([topic])  # doctest: +NORMALIZE_WHITESPACE
        [KeyQrel(query_id='q1', doc_id='1', relevance=1, iteration='0', text='capital is Paris'),
         KeyQrel(query_id='q1', doc_id='2', relevance=0, iteration='0', text='on the Seine')]

    :param topics: TREC RAG assignment records (:func:`~qascore.nuggets.formats.read_rag_assignments`).
    :returns: one :class:`KeyQrel` per nugget.
    """
    return [KeyQrel(t.qid, _nugget_id(i), IMPORTANCE.get(n.importance, OTHER_IMPORTANCE), "0", n.text)
            for t in topics for i, n in enumerate(t.nuggets, 1)]


def rag_assignment_qrels(topics: Iterable[RagTopic]) -> list[Qrel]:
    """The nugget assignments of TREC RAG records as qrels: ``query-id 0 nugget-id grade``, the
    grade 2 support, 1 partial_support, 0 not_support or any other label (:data:`GRADE`).

    Example:

        >>> from qascore.integrations.ir_measures import rag_assignment_qrels
        >>> from qascore.nuggets.formats import RagNugget, RagTopic
        >>> topic = RagTopic("q1", "Paris is the capital.", (RagNugget("capital is Paris", "vital", "support"),
        ...                                                  RagNugget("on the Seine", "okay", "partial_support")))
        >>> [(q.doc_id, q.relevance) for q in rag_assignment_qrels([topic])]
        [('1', 2), ('2', 1)]

    :param topics: TREC RAG assignment records.
    :returns: one :class:`~qascore.io.Qrel` per nugget (write them with :func:`qascore.io.write_qrels`).
    """
    return [Qrel(t.qid, _nugget_id(i), GRADE.get(n.assignment, 0)) for t in topics for i, n in enumerate(t.nuggets, 1)]


def rag_run(topics: Iterable[RagTopic]) -> list[RunRow]:
    """The run of the ``Nugget*`` measures from TREC RAG records: one row per nugget, its grade as
    the score and the record's answer as the text.

    Example:

        >>> from qascore.integrations.ir_measures import NuggetAll, NuggetVital, rag_key_qrels, rag_run
        >>> from qascore.nuggets.formats import RagNugget, RagTopic
        >>> topic = RagTopic("q1", "Paris is the capital.", (RagNugget("capital is Paris", "vital", "support"),
        ...                                                  RagNugget("on the Seine", "okay", "partial_support")))
        >>> [(r.doc_id, r.score) for r in rag_run([topic])]
        [('1', 2.0), ('2', 1.0)]
        >>> import ir_measures
        >>> means = ir_measures.calc_aggregate([NuggetVital, NuggetAll, NuggetAll(strict=True)],
        ...                                    rag_key_qrels([topic]), rag_run([topic]))
        >>> means[NuggetVital], means[NuggetAll], means[NuggetAll(strict=True)]
        (1.0, 0.75, 0.5)

    :param topics: TREC RAG assignment records.
    :returns: one :class:`RunRow` per nugget.
    """
    return [RunRow(t.qid, _nugget_id(i), float(GRADE.get(n.assignment, 0)), t.answer_text)
            for t in topics for i, n in enumerate(t.nuggets, 1)]


def answer_key_qrels(key: AnswerKey) -> list[KeyQrel]:
    """A vital/okay TREC answer key as qrels rows (nugget ids as in the key, descriptions as text);
    a pyramid key (weights, no importance) is a ValueError.

    Example:

        >>> from qascore.integrations.ir_measures import answer_key_qrels
        >>> from qascore.nuggets.formats import AnswerKey, Nugget, Question
        >>> key = AnswerKey({"1": Question("1", "Hamlet", [Nugget("1", "1", "written by Shakespeare", "vital"),
        ...                                                Nugget("1", "2", "prince of Denmark", "okay")])})
        >>> [(q.doc_id, q.relevance, q.text) for q in answer_key_qrels(key)]
        [('1', 1, 'written by Shakespeare'), ('2', 0, 'prince of Denmark')]

    :param key: a vital/okay answer key (:func:`~qascore.nuggets.formats.read_answer_key`).
    :returns: one :class:`KeyQrel` per nugget.
    :raises ValueError: for a pyramid key.
    """
    if key.pyramid:
        raise ValueError("a pyramid answer key has weights, not vital/okay importance: it has no qrels form here")
    return [KeyQrel(q.qid, n.nugget_id, IMPORTANCE[n.importance or ""], "0", n.description)
            for q in key for n in q.nuggets]


def response_run(run: Run) -> list[RunRow]:
    """The run of the ``Nuggeteer`` measure from a TREC nugget run: one row per response, ``doc_id``
    its item number, the score falling with it (so a ranking keeps the file's order).

    Example:

        >>> from qascore.integrations.ir_measures import response_run
        >>> from qascore.nuggets import Run
        >>> run = Run("sys1")
        >>> _ = run.add("1", "doc1", "Shakespeare wrote Hamlet")
        >>> _ = run.add("1", "doc7", "Hamlet is a prince of Denmark")
        >>> response_run(run)  # doctest: +NORMALIZE_WHITESPACE
        [RunRow(query_id='1', doc_id='1', score=1.0, text='Shakespeare wrote Hamlet'),
         RunRow(query_id='1', doc_id='2', score=0.5, text='Hamlet is a prince of Denmark')]

    :param run: one system's responses (:func:`~qascore.nuggets.formats.read_run`).
    :returns: one :class:`RunRow` per response.
    """
    return [RunRow(qid, str(r.item), 1.0 / r.item, r.text) for qid, items in run.responses.items() for r in items]


def exam_qrels(graded: Iterable[GradedParagraph], *, layout: str = "questions") -> list[Qrel]:
    """EXAM grades of paragraphs as qrels. ``layout="questions"`` (what the ``EXAM`` measure reads):
    one row per (paragraph, question of its query), ``query-id question-id paragraph-id 1|0`` (1:
    answered correctly), the question in the iteration column as TREC's diversity qrels hold a
    subtopic. ``layout="counts"``: the rubric grading workbench's qrels, ``query-id 0
    paragraph-id count`` with the number of questions the paragraph answered correctly.

    Example:

        >>> from qascore.exam.workbench import GradedParagraph
        >>> from qascore.integrations.ir_measures import exam_qrels
        >>> graded = [GradedParagraph("q1", "p1", "...", {"sysA": 1}, correct=["Q1"], wrong=["Q2"], answers=[]),
        ...           GradedParagraph("q1", "p2", "...", {"sysA": 2, "sysB": 1}, correct=["Q2"], wrong=[], answers=[])]
        >>> [(q.doc_id, q.iteration, q.relevance) for q in exam_qrels(graded)]
        [('p1', 'Q1', 1), ('p1', 'Q2', 0), ('p2', 'Q2', 1)]
        >>> [(q.doc_id, q.relevance) for q in exam_qrels(graded, layout="counts")]
        [('p1', 1), ('p2', 1)]

    :param graded: graded paragraphs (:func:`~qascore.exam.workbench.grade_paragraphs`).
    :param layout: ``questions`` or ``counts``.
    :returns: :class:`~qascore.io.Qrel` rows.
    :raises ValueError: for an unknown ``layout``.
    """
    if layout == "counts":
        return [Qrel(g.query_id, g.paragraph_id, len(g.correct)) for g in graded]
    if layout != "questions":
        raise ValueError(f"layout must be 'questions' or 'counts', got {layout!r}")
    rows: list[Qrel] = []
    for g in graded:
        correct = set(g.correct)
        rows.extend(Qrel(g.query_id, g.paragraph_id, int(q in correct), q) for q in sorted(correct | set(g.wrong)))
    return rows


def exam_run(graded: Iterable[GradedParagraph], system: str) -> list[RunRow]:
    """One system's paragraph ranking from graded paragraphs: score 1/rank (the workbench's).

    Example:

        >>> from qascore.exam.workbench import GradedParagraph
        >>> from qascore.integrations.ir_measures import EXAM, exam_qrels, exam_run
        >>> graded = [GradedParagraph("q1", "p1", "...", {"sysA": 1}, correct=["Q1"], wrong=["Q2"], answers=[]),
        ...           GradedParagraph("q1", "p2", "...", {"sysA": 2, "sysB": 1}, correct=["Q2"], wrong=[], answers=[])]
        >>> [(r.doc_id, r.score) for r in exam_run(graded, "sysA")]
        [('p1', 1.0), ('p2', 0.5)]
        >>> import ir_measures
        >>> means = ir_measures.calc_aggregate([EXAM@1, EXAM], exam_qrels(graded), exam_run(graded, "sysA"))
        >>> means[EXAM@1], means[EXAM]  # the top paragraph answers one of the query's two questions
        (0.5, 1.0)

    :param graded: graded paragraphs.
    :param system: the system whose ranks to read; paragraphs it did not rank are left out.
    :returns: one :class:`RunRow` per paragraph the system ranked.
    """
    return [RunRow(g.query_id, g.paragraph_id, 1.0 / g.ranks[system]) for g in graded if system in g.ranks]


def qrels_as_run(rows: Iterable) -> list[RunRow]:
    """Qrels rows (e.g. :func:`rag_assignment_qrels` read back by :func:`qascore.io.read_qrels`) as
    run rows, the relevance as the score.

    Example:

        >>> from qascore.integrations.ir_measures import qrels_as_run
        >>> from qascore.io import Qrel
        >>> qrels_as_run([Qrel("q1", "1", 2), Qrel("q1", "2", 0)])  # doctest: +NORMALIZE_WHITESPACE
        [RunRow(query_id='q1', doc_id='1', score=2.0, text=''), RunRow(query_id='q1', doc_id='2', score=0.0, text='')]

    :param rows: rows with ``query_id``, ``doc_id`` and ``relevance``.
    :returns: one :class:`RunRow` per row.
    """
    return [RunRow(r.query_id, r.doc_id, float(r.relevance)) for r in rows]


# ---------------------------------------------------------------- rows in any of ir_measures' shapes

_ALIASES = {"qid": "query_id", "docno": "doc_id", "label": "relevance", "qanswer": "text"}


def _records(data: Any, value: str) -> Iterator[dict]:
    """Records with canonical field names from a DataFrame, a dict of dicts ({qid: {doc: value}}),
    or an iterable of namedtuples / mappings. PyTerrier's names (qid, docno, label, qanswer) are
    read as ir_measures' (query_id, doc_id, relevance, text)."""
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # pandas
        data = data.to_dict("records")
    elif isinstance(data, Mapping):
        data = ({"query_id": q, "doc_id": d, value: v} for q, docs in data.items() for d, v in docs.items())
    names: dict[type, tuple[str, ...]] = {}  # per namedtuple type, its canonical field names
    for row in data:
        fields = names.get(type(row))
        if fields is not None:
            yield dict(zip(fields, row))
        elif hasattr(row, "_fields"):
            fields = names[type(row)] = tuple(_ALIASES.get(k, k) for k in row._fields)
            yield dict(zip(fields, row))
        elif isinstance(row, Mapping):
            yield {_ALIASES.get(k, k): v for k, v in row.items()}
        else:
            raise TypeError(f"expected rows with named fields (namedtuples, mappings or a DataFrame), got {row!r}")


def _field(record: dict, name: str, what: str):
    if name not in record:
        raise ValueError(f"{what} row {record!r} has no field {name!r}")
    return record[name]


def _integer(value, what: str) -> int:
    if type(value) is int:
        return value
    number = float(value)
    if not number.is_integer():
        raise ValueError(f"{what} must be an integer, got {value!r}")
    return int(number)


class _Key:
    """Qrels of a nugget key, per query in row order: (nugget id, importance code, description)."""

    def __init__(self, qrels: Any) -> None:
        self.nuggets: dict[str, list[tuple[str, int, str | None]]] = {}
        seen: set[tuple[str, str]] = set()
        self.ids = seen  # (query, nugget) of every nugget
        for r in _records(qrels, "relevance"):
            qid, nid = str(_field(r, "query_id", "qrels")), str(_field(r, "doc_id", "qrels"))
            if (qid, nid) in seen:
                raise ValueError(f"qrels: nugget {nid!r} of query {qid!r} appears twice")
            seen.add((qid, nid))
            grade = _integer(_field(r, "relevance", "qrels"), f"qrels: importance of nugget {nid!r} of query {qid!r}")
            if grade not in _LABEL_OF_IMPORTANCE:
                raise ValueError(f"qrels: nugget {nid!r} of query {qid!r} has importance {grade}; "
                                 "expected 1 (vital), 0 (okay) or -1 (another label)")
            text = r.get("text")
            self.nuggets.setdefault(qid, []).append((nid, grade, None if text is None else str(text)))

    def answer_key(self, qids) -> AnswerKey:
        """The vital/okay answer key of these queries (Nuggeteer and the official F)."""
        questions = {}
        for qid in qids:
            nuggets = []
            for nid, grade, text in self.nuggets[qid]:
                if grade == OTHER_IMPORTANCE:
                    raise ValueError(f"qrels: nugget {nid!r} of query {qid!r} has importance -1; the official nugget "
                                     "F knows vital (1) and okay (0) nuggets only")
                nuggets.append(Nugget(qid, nid, text or "", _LABEL_OF_IMPORTANCE[grade]))
            questions[qid] = Question(qid, None, nuggets)
        return AnswerKey(questions)


class _Assignments:
    """A run of nugget assignments, per query: nugget id -> grade, and the query's answer text."""

    def __init__(self, records: list[dict], key: _Key) -> None:
        self.grades: dict[str, dict[str, int]] = {}
        self.texts: dict[str, str | None] = {}
        for r in records:
            qid, nid = str(_field(r, "query_id", "run")), str(_field(r, "doc_id", "run"))
            if qid not in key.nuggets:
                continue  # a query the qrels do not judge: not evaluated (trec_eval's rule)
            grade = _integer(_field(r, "score", "run"), f"run: grade of nugget {nid!r} of query {qid!r}")
            if grade not in _LABEL_OF_GRADE:
                raise ValueError(f"run: nugget {nid!r} of query {qid!r} has grade {grade}; expected 2 (support), "
                                 "1 (partial support) or 0")
            grades = self.grades.setdefault(qid, {})
            if nid in grades:
                raise ValueError(f"run: nugget {nid!r} of query {qid!r} is assigned twice")
            if (qid, nid) not in key.ids:
                raise ValueError(f"run: query {qid!r} assigns nugget {nid!r}, which the qrels do not list")
            grades[nid] = grade
            text = r.get("text")
            text = None if text is None else str(text)
            if qid in self.texts and self.texts[qid] != text:
                raise ValueError(f"run: the rows of query {qid!r} carry different answer texts")
            self.texts[qid] = text

    def rag_topic(self, qid: str, key: _Key) -> RagTopic:
        grades = self.grades[qid]
        return RagTopic(qid, "", tuple(
            RagNugget(text or "", "vital" if imp == 1 else "okay" if imp == 0 else "other",
                      _LABEL_OF_GRADE[grades.get(nid, 0)]) for nid, imp, text in key.nuggets[qid]))


# ---------------------------------------------------------------- the measures


class _ExactMean(Agg):
    """The correctly rounded mean (``statistics.mean``'s): the ``all`` line of ``qascore nuggets
    rag`` bit for bit, where ir_measures' MeanAgg sums floats in order."""

    def __init__(self) -> None:
        self.values: list[float] = []

    def add(self, value: float) -> None:
        self.values.append(value)

    def result(self) -> float:
        if not self.values:
            return float("nan")
        return ExactSum.of(self.values).mean(len(self.values))


class _QascoreMeasure(Measure):
    PROVIDER = "qascore"

    def aggregator(self) -> Agg:
        return _ExactMean()


_STRICT = {"strict": ParamInfo(dtype=bool, default=False, desc="partial support counts 0 (TREC RAG's strict scores)")}


class _NuggetVital(_QascoreMeasure):
    """TREC 2024 RAG vital score: mean support of the query's vital nuggets (support 1, partial 0.5,
    0 under ``strict``; 0 without vital nuggets)."""

    __name__ = "NuggetVital"
    NAME = __name__
    SUPPORTED_PARAMS = _STRICT
    KEY = "vital_score"


class _NuggetWeighted(_QascoreMeasure):
    """TREC 2024 RAG weighted score: (sum vital support + 0.5 sum okay support) / (|vital| + 0.5 |okay|)."""

    __name__ = "NuggetWeighted"
    NAME = __name__
    SUPPORTED_PARAMS = _STRICT
    KEY = "weighted_score"


class _NuggetAll(_QascoreMeasure):
    """TREC 2024 RAG all score: mean support over every nugget of the query, whatever its importance."""

    __name__ = "NuggetAll"
    NAME = __name__
    SUPPORTED_PARAMS = _STRICT
    KEY = "all_score"


_BETA = ParamInfo(dtype=(int, float), default=BETA_AFTER_2003, desc="beta of F(beta): 3 after 2003, 5 in 2003")


class _NuggetF(_QascoreMeasure):
    """Official TREC nugget F(beta): recall over vital nuggets, length allowance 100 per matched
    nugget; a nugget is matched when its grade is at least ``rel``."""

    __name__ = "NuggetF"
    NAME = __name__
    SUPPORTED_PARAMS = {"beta": _BETA,
                        "rel": ParamInfo(dtype=int, default=2, desc="least grade that matches a nugget (2: support)")}


class _Nuggeteer(_QascoreMeasure):
    """Official TREC nugget F(beta) with Nuggeteer's assignments of the run's responses (description
    only, the shipped background idf)."""

    __name__ = "Nuggeteer"
    NAME = __name__
    SUPPORTED_PARAMS = {"beta": _BETA,
                        "threshold": ParamInfo(dtype=(int, float), default=0.2, desc="acceptance threshold"),
                        "n": ParamInfo(dtype=int, default=2, desc="longest n-gram (1-3)")}


class _EXAM(_QascoreMeasure):
    """EXAM (cover): the share of the query's exam questions that some paragraph among the run's top
    ``cutoff`` (all without a cutoff) answers correctly."""

    __name__ = "EXAM"
    NAME = __name__
    SUPPORTED_PARAMS = {"cutoff": ParamInfo(dtype=int, required=False, desc="paragraphs of the run read per query")}


NuggetVital = _NuggetVital()
NuggetWeighted = _NuggetWeighted()
NuggetAll = _NuggetAll()
NuggetF = _NuggetF()
Nuggeteer = _Nuggeteer()
EXAM = _EXAM()
MEASURES = (NuggetVital, NuggetWeighted, NuggetAll, NuggetF, Nuggeteer, EXAM)
_RAG = (_NuggetVital.NAME, _NuggetWeighted.NAME, _NuggetAll.NAME)


# ---------------------------------------------------------------- the provider


def _exam_grades(qrels: Any) -> dict[str, tuple[set[str], dict[str, set[str]]]]:
    """Per query: its questions, and per paragraph the questions it answers."""
    grades: dict[str, tuple[set[str], dict[str, set[str]]]] = {}
    for r in _records(qrels, "relevance"):
        qid, pid = str(_field(r, "query_id", "qrels")), str(_field(r, "doc_id", "qrels"))
        question = str(r.get("iteration", "0"))
        grade = _integer(_field(r, "relevance", "qrels"), f"qrels: grade of paragraph {pid!r}, query {qid!r}")
        if grade not in (0, 1):
            raise ValueError(f"qrels: paragraph {pid!r} of query {qid!r} has grade {grade}; EXAM reads one 0/1 grade "
                             "per question (exam_qrels(layout='questions')), not counts")
        questions, answers = grades.setdefault(qid, (set(), {}))
        questions.add(question)
        answered = answers.setdefault(pid, set())
        if grade:
            answered.add(question)
    return grades


class QascoreEvaluator(providers.Evaluator):
    """Scores runs against one set of qrels; the qrels are read once, so several runs cost one
    reading (Nuggeteer's classifiers are built once too)."""

    def __init__(self, measures, qrels) -> None:
        self.measures_of = {name: [m for m in measures if m.NAME == name] for name in {m.NAME for m in measures}}
        exam = bool(self.measures_of.get(_EXAM.NAME))
        nuggets = any(name != _EXAM.NAME for name in self.measures_of)
        if exam and nuggets:
            raise ValueError("EXAM and the nugget measures read different qrels: evaluate them in separate calls")
        if exam:
            self.exam = _exam_grades(qrels)
            qids: Iterable[str] = self.exam
        else:
            self.key = _Key(qrels)
            qids = self.key.nuggets
        super().__init__(measures, set(qids))
        self._models: dict[int, NuggeteerModel] = {}

    def _iter_calc(self, run) -> Iterator[ir_measures.Metric]:
        records = list(_records(run, "score"))  # read once: ir_measures may hand over a one-pass iterator
        if _EXAM.NAME in self.measures_of:
            yield from self._exam(records)
            return
        if any(name in self.measures_of for name in (*_RAG, _NuggetF.NAME)):
            yield from self._assignments(_Assignments(records, self.key))
        if _Nuggeteer.NAME in self.measures_of:
            yield from self._nuggeteer(records)

    def _assignments(self, run: _Assignments) -> Iterator[ir_measures.Metric]:
        rag = [m for name in _RAG for m in self.measures_of.get(name, ())]
        official = self.measures_of.get(_NuggetF.NAME, [])
        key = self.key.answer_key(run.grades) if official else None
        for qid, grades in run.grades.items():
            if rag:
                scores = topic_scores(run.rag_topic(qid, self.key))
                for m in rag:
                    yield ir_measures.Metric(qid, m, scores[("strict_" if m["strict"] else "") + m.KEY])
            for m in official:
                text = run.texts.get(qid)
                if text is None:
                    raise ValueError(f"run: NuggetF needs the answer of query {qid!r} (a 'text' or 'qanswer' field) "
                                     "for its length allowance")
                matched = [nid for nid, g in grades.items() if g >= m["rel"]]
                assert key is not None
                score = score_question(key[qid], matched, non_whitespace_length([text]), beta=float(m["beta"]))
                yield ir_measures.Metric(qid, m, score.f)

    def _nuggeteer(self, records: list[dict]) -> Iterator[ir_measures.Metric]:
        run = Run("run")
        for r in records:
            qid = str(_field(r, "query_id", "run"))
            if qid in self.key.nuggets:
                run.add(qid, str(_field(r, "doc_id", "run")), str(_field(r, "text", "run")))
        for m in self.measures_of[_Nuggeteer.NAME]:
            model = self._models.get(m["n"])
            if model is None:
                model = self._models[m["n"]] = NuggeteerModel(self.key.answer_key(self.key.nuggets), n=m["n"])
            score = model.score([run], beta=float(m["beta"]), threshold=float(m["threshold"]))[0]
            for qid in run.responses:
                yield ir_measures.Metric(qid, m, score.questions[qid].f)

    def _exam(self, records: list[dict]) -> Iterator[ir_measures.Metric]:
        ranked: dict[str, list[tuple[float, str]]] = {}
        for r in records:
            qid = str(_field(r, "query_id", "run"))
            if qid in self.exam:
                ranked.setdefault(qid, []).append((float(_field(r, "score", "run")), str(_field(r, "doc_id", "run"))))
        for qid, docs in ranked.items():
            docs.sort(reverse=True)  # score descending, ties by doc id descending: trec_eval's order
            questions, answers = self.exam[qid]
            for m in self.measures_of[_EXAM.NAME]:
                cutoff = m.params.get("cutoff")
                answered: set[str] = set()
                for _, pid in docs[:cutoff]:
                    answered |= answers.get(pid, set())  # a paragraph without grades answers nothing
                yield ir_measures.Metric(qid, m, len(answered) / len(questions))


class QascoreProvider(providers.Provider):
    """The ir_measures provider of qascore's measures (:data:`MEASURES`). Importing this module
    registers one (:data:`PROVIDER`); ir_measures then finds it by name or by measure.

    Example:

        >>> import ir_measures
        >>> from qascore.integrations.ir_measures import PROVIDER, NuggetF
        >>> PROVIDER.NAME, ir_measures.parse_measure("NuggetVital(strict=True)")
        ('qascore', NuggetVital(strict=True))
        >>> PROVIDER.run_inputs([NuggetF])  # NuggetF reads each query's answer text
        ['query_id', 'doc_id', 'score', 'text']
    """

    NAME = "qascore"
    SUPPORTED_MEASURES = [
        _NuggetVital(strict=AnyValue()), _NuggetWeighted(strict=AnyValue()), _NuggetAll(strict=AnyValue()),
        _NuggetF(beta=AnyValue(), rel=AnyValue()), _Nuggeteer(beta=AnyValue(), threshold=AnyValue(), n=AnyValue()),
        _EXAM(cutoff=AnyValue()),
    ]

    def _evaluator(self, measures, qrels) -> QascoreEvaluator:
        return QascoreEvaluator(list(measures), qrels)

    def run_inputs(self, measures) -> list[str]:
        names = {m.NAME for m in measures}
        return ["query_id", "doc_id", "score"] + (["text"] if names & {_NuggetF.NAME, _Nuggeteer.NAME} else [])

    def qrel_inputs(self, measures) -> list[str]:
        names = {m.NAME for m in measures}
        return ["query_id", "doc_id", "relevance"] + (["iteration"] if _EXAM.NAME in names else []) + (
            ["text"] if _Nuggeteer.NAME in names else [])


def _register() -> QascoreProvider:
    """Register the provider and the measure names once per process (a re-import reuses them)."""
    existing = providers.registry.get(QascoreProvider.NAME)
    if isinstance(existing, providers.Provider) and type(existing).__name__ == QascoreProvider.__name__:
        return existing  # type: ignore[return-value]
    provider = QascoreProvider()
    providers.register(provider)
    ir_measures.DefaultPipeline.providers.append(provider)
    for m in MEASURES:
        ir_measures.measures.registry.setdefault(m.NAME, m)  # parse_measure("NuggetVital(strict=True)")
    return provider


PROVIDER = _register()
