"""EXAM: answerability of held-out exam questions from system articles (Sander & Dietz, DESIRES 2021).

Owns question banks and article formats, the Q/A solvers (lexical kernel, sentence embeddings, any
ONNX sequence-pair model, free-text verification), EXAM / n-EXAM scores (also as the :class:`Exam`
metric), leaderboards against an official ranking and the paper's ROUGE-1 baseline. The embedding and
pair-model solvers live in ``qascore.exam.solvers.embedding`` / ``.pair`` (they need onnxruntime).
"""
from .articles import read_articles
from ..judges.matching import verify_free_text
from .leaderboard import read_leaderboard, read_leaderboard_table
from .metric import Exam
from .records import Articles, ExamQuestion, QuestionBank
from .questions import read_question_bank
from .scoring import ExamResult, QuestionRecord, SystemScore, evaluate, exam_scores, grade
from .solvers.base import Solver, SolverAnswer
from .solvers.lexical import LexicalSolver

__all__ = [
    "Articles", "Exam", "ExamQuestion", "ExamResult", "LexicalSolver", "QuestionBank", "QuestionRecord", "Solver",
    "SolverAnswer", "SystemScore", "evaluate", "exam_scores", "grade", "read_articles", "read_leaderboard",
    "read_leaderboard_table", "read_question_bank",
    "verify_free_text",
]
