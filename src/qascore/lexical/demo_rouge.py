"""Demo part: ROUGE of the bundled QA answers in both multi-reference conventions (rouge-score's
best F, and coco/DuReader's independent max P and max R with gamma 1.2)."""
from __future__ import annotations

from importlib.resources import as_file
from typing import cast

from ..io import iter_texts
from .rouge import Rouge, rouge


def run_demo(data_dir, out) -> None:
    """``qascore demo`` part: ROUGE-1/2/L/Lsum with stemming, per answer and as means."""
    folder = data_dir / "rouge"
    with as_file(folder / "predictions.jsonl") as pred_path, as_file(folder / "references.jsonl") as ref_path:
        predictions = cast(list[str], list(iter_texts(pred_path, "jsonl", "prediction")))  # no lists allowed
        references = list(iter_texts(ref_path, "jsonl", "reference", allow_lists=True))
    out.write(f"== ROUGE: {len(predictions)} answers, 1-2 references each (rouge-score exact, stemming) ==\n")
    types = ("rouge1", "rouge2", "rougeL", "rougeLsum")
    out.write(Rouge.table(rouge(predictions, references, types, use_stemmer=True), per_example=True))
    out.write("\ncoco/DuReader convention: max P and max R over references, F with gamma 1.2\n")
    out.write(Rouge.table(rouge(predictions, references, ("rougeL",), use_stemmer=True, multi_ref="max_pr",
                                gamma=1.2)))
