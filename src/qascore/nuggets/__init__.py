"""Nugget evaluation: TREC formats, the official nugget F, Nuggeteer, Pourpre, TREC RAG nugget scores."""
from .formats import (
    AnswerKey,
    Judgements,
    Run,
    read_answer_key,
    read_judgements,
    read_rag_assignments,
    read_runs,
    write_judgements,
)
from .metric import NuggetF
from .nuggeteer import Nuggeteer, score_assignment
from .official import BETA_AFTER_2003, RunScore, score_judged_runs, score_run
from .pourpre import Pourpre
from .rag import rag_scores

__all__ = [
    "AnswerKey", "Judgements", "Run", "read_answer_key", "read_judgements", "read_rag_assignments", "read_runs",
    "write_judgements", "NuggetF", "Nuggeteer", "score_assignment", "BETA_AFTER_2003", "RunScore",
    "score_judged_runs", "score_run", "Pourpre", "rag_scores",
]
