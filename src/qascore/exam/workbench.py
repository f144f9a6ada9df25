"""Paragraph-level grading and the rubric grading workbench's graded format (``exam_pp``).

The workbench grades each retrieved paragraph on its own and counts a question as covered by a
system when any of that system's top paragraphs answers it correctly (its EXAM-Cover). Here each
distinct (query, paragraph) is graded once with our solver, written as workbench JSONL.gz lines
``[query_id, [FullParagraphData]]`` with ``exam_grades``, and turned into per-question records so
:func:`~qascore.exam.scoring.exam_scores` gives the workbench-compatible EXAM and n-EXAM.
:func:`read_workbench_graded` reads such a file back.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..errors import InputFormatError
from ..io import dumps, iter_jsonl, open_output, require_field
from .records import Articles, QuestionBank
from ..judges.base import Judge
from .scoring import QuestionRecord, judge_answers
from .solvers.base import Solver


@dataclass
class GradedParagraph:
    query_id: str
    paragraph_id: str
    text: str
    ranks: dict[str, int]  # system -> 1-based rank in its article
    correct: list[str]
    wrong: list[str]
    answers: list[tuple[str, str | None]]


def paragraph_id(text: str) -> str:
    """A stable id for a paragraph without one: the first 16 hex digits of its text's SHA-1."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def grade_paragraphs(bank: QuestionBank, articles: Articles, solver: Solver,
                     judge: Judge | None = None) -> list[GradedParagraph]:
    """Grade every distinct paragraph of every query (pooled over systems) against the query's questions
    (free-text answers by ``judge``, the shipped AVA model by default)."""
    pooled: dict[tuple[str, str], GradedParagraph] = {}
    for system in articles.systems:
        for query_id, paragraphs in articles.articles(system).items():
            if query_id not in bank:
                raise ValueError(
                    f"system {system!r} has an article for query {query_id!r}, which has no exam questions")
            for rank, text in enumerate(paragraphs, 1):
                g = pooled.setdefault((query_id, text),
                                      GradedParagraph(query_id, paragraph_id(text), text, {}, [], [], []))
                g.ranks.setdefault(system, rank)
    graded = list(pooled.values())
    answers = solver.solve([[g.text] for g in graded], [bank.questions(g.query_id) for g in graded])
    flat = [(g, q, ans) for g, row in zip(graded, answers) for q, ans in zip(bank.questions(g.query_id), row)]
    correct, answers_graded = judge_answers([q for _, q, _ in flat], [ans for _, _, ans in flat], judge)
    for (g, q, _), ans, right in zip(flat, answers_graded, correct):
        (g.correct if right else g.wrong).append(q.question_id)
        g.answers.append((q.question_id, ans.label if q.is_multiple_choice else ans.text))
    return graded


def cover_records(bank: QuestionBank, graded: list[GradedParagraph], systems, *,
                  top_k: int = 20) -> list[QuestionRecord]:
    """Per-question records: correct when any of the system's top ``top_k`` paragraphs answered it."""
    covered: dict[tuple[str, str], set[str]] = {}
    present: set[tuple[str, str]] = set()
    for g in graded:
        for system, rank in g.ranks.items():
            present.add((system, g.query_id))
            if rank <= top_k:
                covered.setdefault((system, g.query_id), set()).update(g.correct)
    records = []
    for system in systems:
        for query_id in bank.query_ids:
            ok = covered.get((system, query_id), set())
            for q in bank.questions(query_id):
                records.append(QuestionRecord(system, query_id, q.question_id, None, 0.0, q.question_id in ok,
                                              (system, query_id) in present))
    return records


def write_workbench_graded(graded: list[GradedParagraph], path, *, solver: Solver) -> None:
    """Write workbench JSONL(.gz): one line per query, ``[query_id, [FullParagraphData, ...]]``."""
    by_query: dict[str, list[GradedParagraph]] = {}
    for g in graded:
        by_query.setdefault(g.query_id, []).append(g)
    settings = solver.settings()
    with open_output(path) as fh:
        for query_id, paras in by_query.items():
            out = []
            for g in paras:
                out.append({
                    "paragraph_id": g.paragraph_id, "text": g.text, "paragraph": "",
                    "paragraph_data": {"judgments": [], "rankings": [
                        {"method": s, "paragraph_id": g.paragraph_id, "rank": r, "score": 1.0 / r}
                        for s, r in g.ranks.items()]},
                    "exam_grades": [{
                        "correctAnswered": g.correct, "wrongAnswered": g.wrong,
                        "answers": [[qid, ans] for qid, ans in g.answers],
                        "llm": f"qascore-{solver.name}", "llm_options": settings,
                        "exam_ratio": len(g.correct) / max(len(g.correct) + len(g.wrong), 1),
                        "prompt_info": {"prompt_class": f"qascore-{solver.name}", "is_self_rated": False},
                        "self_ratings": None, "prompt_type": "question-answering",
                    }],
                    "grades": None,
                })
            fh.write(dumps([query_id, out]) + "\n")


def _string_list(value, what: str, path, lineno: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputFormatError(path, lineno, f"{what} must be a list of question ids")
    return value


def read_workbench_graded(path) -> list[GradedParagraph]:
    """The graded paragraphs of a workbench JSONL(.gz) file (as :func:`write_workbench_graded` writes
    it): per paragraph its id, text, each ranking method's rank, and the questions its one
    ``exam_grades`` entry answered correctly and wrongly. A paragraph with no grade or several (the
    workbench keeps one per grading model) is an error naming the file and line."""
    graded = []
    for lineno, rec in iter_jsonl(path, array_document=False):  # its lines are arrays
        if not (isinstance(rec, list) and len(rec) == 2 and isinstance(rec[0], str) and isinstance(rec[1], list)):
            raise InputFormatError(path, lineno, "expected [query_id, [paragraph, ...]]")
        query_id, paras = rec
        for para in paras:
            pid = require_field(para, "paragraph_id", str, path, lineno)
            grades = para.get("exam_grades")
            if not isinstance(grades, list) or len(grades) != 1 or not isinstance(grades[0], dict):
                raise InputFormatError(path, lineno, f"paragraph {pid!r}: expected one exam_grades entry, got "
                                       f"{len(grades) if isinstance(grades, list) else 'none'}")
            ranks = {}
            for r in (para.get("paragraph_data") or {}).get("rankings") or []:
                if not (isinstance(r, dict) and isinstance(r.get("method"), str) and isinstance(r.get("rank"), int)):
                    raise InputFormatError(path, lineno, "each ranking needs a string 'method' and an int 'rank'")
                ranks[r["method"]] = r["rank"]
            answers = [(a[0], a[1]) for a in grades[0].get("answers") or []
                       if isinstance(a, list) and len(a) == 2]
            graded.append(GradedParagraph(
                query_id, pid, require_field(para, "text", str, path, lineno), ranks,
                _string_list(grades[0].get("correctAnswered"), "correctAnswered", path, lineno),
                _string_list(grades[0].get("wrongAnswered"), "wrongAnswered", path, lineno), answers))
    return graded
