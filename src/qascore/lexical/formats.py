"""Readers for MRC answer files: DuReader JSON lines and MS MARCO JSON lines.

Every record remembers its file and line so later errors can name them. Strings are kept as
written; normalisation belongs to the metric (:mod:`qascore.lexical.mrc`).

DuReader reference fields: ``question_id`` (required), ``question_type`` (required string:
``YES_NO``, ``ENTITY``, ``DESCRIPTION``), ``answers`` (required list of strings),
``yesno_answers`` (optional list of strings, default ``[]``), ``entity_answers`` (optional list of
lists of strings, default ``[]``); other fields such as ``source`` are ignored.
DuReader prediction fields: ``question_id``, ``answers`` (list; only the first is scored),
``yesno_answers`` (optional list; only the first is used).
MS MARCO fields: ``query_id`` and ``answers`` (list of strings); a candidate has at most one answer.
A question id appearing twice in one file is an error naming both lines. Every path may be ``-``
(standard input), named ``<stdin>`` in errors.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import InputFormatError
from ..io import can_read_twice, display_name, iter_jsonl, require_field

__all__ = ["DuReaderPrediction", "DuReaderReference", "MsMarcoRecord", "read_dureader_predictions",
           "read_dureader_references", "read_msmarco"]

@dataclass(frozen=True)
class DuReaderReference:
    """One question of a DuReader reference file, as :func:`read_dureader_references` reads it (or
    built in code, for :func:`~qascore.lexical.mrc.score_dureader`).

    Example:

        >>> from qascore.lexical.formats import DuReaderReference
        >>> reference = DuReaderReference(1, "ENTITY", ("Paris is the capital",), (), (("Paris",),), "-", 1)
        >>> reference.entity_answers[0], reference.question_type
        (('Paris',), 'ENTITY')

    :param question_id: the question's id (an int or a str).
    :param question_type: ``YES_NO``, ``ENTITY`` or ``DESCRIPTION``.
    :param answers: the reference answers.
    :param yesno_answers: the yes/no labels of the answers (``Yes``, ``No``, ``Depends``), if any.
    :param entity_answers: per answer, its entities.
    :param path: the file it was read from (named in errors).
    :param line: its 1-based line in that file.
    """

    question_id: object
    question_type: str
    answers: tuple
    yesno_answers: tuple
    entity_answers: tuple  # one tuple of entity strings per answer
    path: str
    line: int


@dataclass(frozen=True)
class DuReaderPrediction:
    """One question of a DuReader prediction file, as :func:`read_dureader_predictions` reads it.

    Example:

        >>> from qascore.lexical.formats import DuReaderPrediction
        >>> prediction = DuReaderPrediction(1, ("yes, it is",), ("Yes",), "-", 1)
        >>> prediction.answers[0], prediction.yesno_answers
        ('yes, it is', ('Yes',))

    :param question_id: the question's id (an int or a str).
    :param answers: the predicted answers (only the first is scored).
    :param yesno_answers: the predicted yes/no labels (only the first is used).
    :param path: the file it was read from (named in errors).
    :param line: its 1-based line in that file.
    """

    question_id: object
    answers: tuple
    yesno_answers: tuple
    path: str
    line: int


@dataclass(frozen=True)
class MsMarcoRecord:
    """One query of an MS MARCO references or candidates file, as :func:`read_msmarco` reads it.

    Example:

        >>> from qascore.lexical.formats import MsMarcoRecord
        >>> MsMarcoRecord(7, ("a cat", "the cat"), "references.jsonl", 3).answers
        ('a cat', 'the cat')

    :param query_id: the query's id (an int or a str).
    :param answers: the answers (a candidate has at most one).
    :param path: the file it was read from (named in errors).
    :param line: its 1-based line in that file.
    """

    query_id: object
    answers: tuple
    path: str
    line: int


def _string_list(record, field, path, lineno, *, default=None) -> tuple:
    if field not in record and default is not None:
        return default
    values = require_field(record, field, list, path, lineno)
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise InputFormatError(display_name(path), lineno,
                                   f"{field}[{i}] must be a string, got {type(value).__name__}")
    return tuple(values)


def _question_id(record, field, path, lineno):
    qid = require_field(record, field, (int, str), path, lineno)
    if isinstance(qid, bool):
        raise InputFormatError(display_name(path), lineno, f"field {field!r} must be int/str, got bool")
    return qid


class _UniqueIds:
    """The ids met so far in one file: a repeated id is an error naming both lines. Only the ids
    are kept (the line of the first is found again by reading the file up to it, once, for the
    error); from standard input or a pipe, which cannot be read again, each id keeps its line."""

    def __init__(self, path, field: str) -> None:
        self.path, self.field = path, field
        self.lines: dict | None = None if can_read_twice(path) else {}
        self.ids: set = set()

    def add(self, qid, lineno: int) -> None:
        if self.lines is not None:
            first = self.lines.setdefault(qid, lineno)
        elif qid in self.ids:
            first = next(n for n, obj in iter_jsonl(self.path) if obj.get(self.field) == qid)
        else:
            self.ids.add(qid)
            return
        if first != lineno:
            raise InputFormatError(display_name(self.path), lineno,
                                   f"duplicate {self.field} {qid!r} (first on line {first})")


def iter_dureader_references(path) -> Iterator[tuple[object, DuReaderReference]]:
    """(question_id, :class:`DuReaderReference`) in file order, read line by line."""
    ids = _UniqueIds(path, "question_id")
    for lineno, obj in iter_jsonl(path):
        qid = _question_id(obj, "question_id", path, lineno)
        qtype = require_field(obj, "question_type", str, path, lineno)
        answers = _string_list(obj, "answers", path, lineno)
        yesno = _string_list(obj, "yesno_answers", path, lineno, default=())
        entities = []
        raw_entities = obj.get("entity_answers", [])
        if not isinstance(raw_entities, list):
            raise InputFormatError(display_name(path), lineno,
                                   "field 'entity_answers' must be a list of lists of strings")
        for i, group in enumerate(raw_entities):
            if not isinstance(group, list) or not all(isinstance(e, str) for e in group):
                raise InputFormatError(display_name(path), lineno, f"entity_answers[{i}] must be a list of strings")
            entities.append(tuple(group))
        ids.add(qid, lineno)
        yield qid, DuReaderReference(qid, qtype, answers, yesno, tuple(entities), display_name(path), lineno)


def iter_dureader_predictions(path) -> Iterator[tuple[object, DuReaderPrediction]]:
    """(question_id, :class:`DuReaderPrediction`) in file order, read line by line."""
    ids = _UniqueIds(path, "question_id")
    for lineno, obj in iter_jsonl(path):
        qid = _question_id(obj, "question_id", path, lineno)
        answers = _string_list(obj, "answers", path, lineno)
        yesno = _string_list(obj, "yesno_answers", path, lineno, default=())
        ids.add(qid, lineno)
        yield qid, DuReaderPrediction(qid, answers, yesno, display_name(path), lineno)


def iter_msmarco(path, *, candidates: bool = False) -> Iterator[tuple[object, MsMarcoRecord]]:
    """(query_id, :class:`MsMarcoRecord`) in file order; with ``candidates`` more than one answer
    is an error."""
    ids = _UniqueIds(path, "query_id")
    for lineno, obj in iter_jsonl(path):
        qid = _question_id(obj, "query_id", path, lineno)
        answers = _string_list(obj, "answers", path, lineno)
        if candidates and len(answers) > 1:
            raise InputFormatError(display_name(path), lineno,
                                   f"a candidate has at most one answer, got {len(answers)}")
        ids.add(qid, lineno)
        yield qid, MsMarcoRecord(qid, answers, display_name(path), lineno)


def read_dureader_references(path) -> dict:
    """question_id -> :class:`DuReaderReference`, in file order.

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "ref.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(json.dumps({"question_id": 1, "question_type": "YES_NO",
        ...                               "answers": ["yes, it is"], "yesno_answers": ["Yes"]}))
        >>> read_dureader_references(path)[1].yesno_answers
        ('Yes',)
        >>> folder.cleanup()

    :param path: a DuReader reference JSONL file, or ``-``.
    :returns: the references by question id.
    :raises qascore.errors.InputFormatError: naming the file and line of a bad record or repeated id.
    """
    return dict(iter_dureader_references(path))


def read_dureader_predictions(path) -> dict:
    """question_id -> :class:`DuReaderPrediction`, in file order.

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "pred.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(json.dumps({"question_id": 1, "answers": ["a cat"]}))
        >>> read_dureader_predictions(path)[1].answers
        ('a cat',)
        >>> folder.cleanup()

    :param path: a DuReader prediction JSONL file, or ``-``.
    :returns: the predictions by question id.
    :raises qascore.errors.InputFormatError: naming the file and line of a bad record or repeated id.
    """
    return dict(iter_dureader_predictions(path))


def read_msmarco(path, *, candidates: bool = False) -> dict:
    """query_id -> :class:`MsMarcoRecord`; with ``candidates`` more than one answer is an error.

    Example:

        >>> import json, os, tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = os.path.join(folder.name, "references.jsonl")
        >>> with open(path, "w") as out:
        ...     _ = out.write(json.dumps({"query_id": 7, "answers": ["a cat", "the cat"]}))
        >>> read_msmarco(path)[7].answers
        ('a cat', 'the cat')
        >>> folder.cleanup()

    :param path: an MS MARCO JSONL file, or ``-``.
    :param candidates: the file holds candidates (at most one answer each).
    :returns: the records by query id.
    :raises qascore.errors.InputFormatError: naming the file and line of a bad record or repeated id.
    """
    return dict(iter_msmarco(path, candidates=candidates))
