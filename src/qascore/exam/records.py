"""The data EXAM works on: exam questions grouped per query, and system articles per query.

Validation happens once here, at construction, so solvers and kernels can trust their input.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Mapping


@dataclass(frozen=True)
class ExamQuestion:
    """One exam question of one query.

    Multiple choice: ``choices`` maps a label to its text and ``key`` is the correct label.
    Free text: ``choices`` is empty and ``gold_answers`` lists the acceptable answers.

    Example:

        >>> ExamQuestion("q1", "1", "Which planet is red?", {"A": "Venus", "B": "Mars"}, "B").key
        'B'
        >>> ExamQuestion("q1", "2", "Who landed on the Moon first?", gold_answers=("Neil Armstrong",)).choices
        {}
    """

    query_id: str
    question_id: str
    text: str
    choices: Mapping[str, str] = field(default_factory=dict)
    key: str | None = None
    gold_answers: tuple[str, ...] = ()

    @property
    def is_multiple_choice(self) -> bool:
        return bool(self.choices)

    def validate(self) -> None:
        """Raise ValueError naming the question when it cannot be graded."""
        where = f"question {self.question_id!r} of query {self.query_id!r}"
        if not isinstance(self.text, str):
            raise ValueError(f"{where}: text must be a string")
        if self.choices:
            if self.key is None:
                raise ValueError(f"{where}: multiple-choice question has no answer key")
            if self.key not in self.choices:
                raise ValueError(
                    f"{where}: answer key {self.key!r} is not among the choices {sorted(self.choices)}"
                )
            for label, text in self.choices.items():
                if not isinstance(text, str):
                    raise ValueError(f"{where}: choice {label!r} must be a string")
        elif not self.gold_answers:
            raise ValueError(f"{where}: neither answer choices nor gold answers")


class QuestionBank:
    """Exam questions per query, in reading order; question ids are unique within a query.

    Example:

        >>> bank = QuestionBank([ExamQuestion("q1", "1", "Which planet is red?", {"A": "Venus", "B": "Mars"}, "B"),
        ...                      ExamQuestion("q2", "1", "Largest planet?", {"A": "Jupiter", "B": "Mercury"}, "A")])
        >>> bank.query_ids, len(bank)
        (['q1', 'q2'], 2)

    :param questions: the :class:`ExamQuestion` objects (each is validated).
    :raises ValueError: for an invalid question or a question id repeated within a query.
    """

    def __init__(self, questions: Iterable[ExamQuestion]):
        self._by_query: dict[str, list[ExamQuestion]] = {}
        seen: set[tuple[str, str]] = set()
        for q in questions:
            q.validate()
            ident = (q.query_id, q.question_id)
            if ident in seen:
                raise ValueError(f"duplicate question id {q.question_id!r} in query {q.query_id!r}")
            seen.add(ident)
            self._by_query.setdefault(q.query_id, []).append(q)

    @property
    def query_ids(self) -> list[str]:
        return list(self._by_query)

    def questions(self, query_id: str) -> list[ExamQuestion]:
        return self._by_query.get(query_id, [])

    def __iter__(self):
        for qs in self._by_query.values():
            yield from qs

    def __len__(self) -> int:
        return sum(len(qs) for qs in self._by_query.values())

    def __contains__(self, query_id) -> bool:
        return query_id in self._by_query


class Articles:
    """Articles of several systems: ``system -> query_id -> paragraphs`` (list of strings).

    An empty article (no paragraphs, or only empty paragraphs) is valid: it answers nothing.

    Example:

        >>> articles = Articles({"sys1": {"q1": ["Mars is the red planet."]}, "sys2": {"q1": []}})
        >>> articles.systems, articles.articles("sys1")
        (['sys1', 'sys2'], {'q1': ['Mars is the red planet.']})

    :param by_system: optional ``system -> query_id -> paragraphs`` to start from.
    """

    def __init__(self, by_system: Mapping[str, Mapping[str, list[str]]] | None = None):
        self._by_system: dict[str, dict[str, list[str]]] = {}
        for system, per_query in (by_system or {}).items():
            for query_id, paragraphs in per_query.items():
                self.add(system, query_id, paragraphs)

    def add(self, system: str, query_id: str, paragraphs: list[str]) -> None:
        per_query = self._by_system.setdefault(system, {})
        if query_id in per_query:
            raise ValueError(f"duplicate article for system {system!r}, query {query_id!r}")
        paragraphs = list(paragraphs)
        for i, p in enumerate(paragraphs):
            if not isinstance(p, str):
                raise TypeError(f"system {system!r}, query {query_id!r}: paragraph {i} is not a string")
        per_query[query_id] = paragraphs

    def merge(self, other: Articles) -> Articles:
        """Add every article of ``other``; a system present in both is an error (duplicate)."""
        for system in other.systems:
            if system in self._by_system:
                raise ValueError(f"duplicate system {system!r} among the article inputs")
            for query_id, paragraphs in other.articles(system).items():
                self.add(system, query_id, paragraphs)
        return self

    @property
    def systems(self) -> list[str]:
        return list(self._by_system)

    def articles(self, system: str) -> dict[str, list[str]]:
        return self._by_system[system]

    def query_ids(self) -> set[str]:
        return {q for per_query in self._by_system.values() for q in per_query}
