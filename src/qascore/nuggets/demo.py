"""The nugget part of ``qascore demo``: official F, Nuggeteer, Pourpre and RAG scores on bundled data."""
from __future__ import annotations

from .formats import read_answer_key, read_judgements, read_rag_assignments, read_runs
from .nuggeteer import Nuggeteer
from .official import BETA_AFTER_2003, score_judged_runs
from .pourpre import Pourpre
from .rag import rag_scores


def run_demo(data_dir, out) -> None:
    base = data_dir / "nuggets"
    key = read_answer_key(base / "answer_key.txt")
    judged = read_judgements(base / "judgements.txt")
    runs = list(read_runs(base / "run.txt").values())
    print("nuggets: official nugget F(beta=3) of the judged runs", file=out)
    for tag, score in score_judged_runs(key, judged, beta=BETA_AFTER_2003).items():
        print(f"  {tag}: {score.mean:.4f}", file=out)
    model = Nuggeteer(key, judgements=judged, threshold=0.2)
    for score in model.score(runs, beta=BETA_AFTER_2003):
        low_high = (
            "" if score.interval is None else f"  95% interval [{score.interval[0]:.4f}, {score.interval[1]:.4f}]"
        )
        print(f"nuggets: Nuggeteer F of unjudged run {score.run_tag}: {score.mean:.4f}{low_high}", file=out)
        if score.unknown_questions:
            print(
                f"  questions not in the answer key (reported, not scored): {', '.join(score.unknown_questions)}",
                file=out,
            )
        print(f"  {score.signature}", file=out)
    for score in Pourpre(key).score(runs, beta=BETA_AFTER_2003):
        print(f"nuggets: Pourpre F of run {score.run_tag}: {score.mean:.4f}", file=out)
    rag = rag_scores(read_rag_assignments(base / "rag_assignments.jsonl"))
    print("nuggets: TREC RAG nugget scores (mean over topics)", file=out)
    for name, value in rag.mean.items():
        if name != "qid":
            print(f"  {name}: {value:.4f}", file=out)
