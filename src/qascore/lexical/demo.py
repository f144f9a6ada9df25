"""``qascore demo``'s lexical part on small bundled data (written for qascore; no third-party data
is shipped): ROUGE of QA answers in both multi-reference conventions (rouge-score's best F, and
coco/DuReader's independent max P and max R with gamma 1.2), sacrebleu-compatible BLEU, and the
DuReader adapted metrics."""
from __future__ import annotations

from importlib.resources import as_file
from typing import cast

from ..io import iter_texts, read_json
from .bleu import BLEU
from .formats import read_dureader_predictions, read_dureader_references
from .mrc import score_dureader
from .rouge import Rouge, rouge


def run_demo(data_dir, out) -> None:
    """``qascore demo`` part: :func:`rouge_demo`, then :func:`mrc_demo`."""
    rouge_demo(data_dir, out)
    print(file=out)
    mrc_demo(data_dir, out)


def rouge_demo(data_dir, out) -> None:
    """ROUGE-1/2/L/Lsum with stemming, per answer and as means, in both multi-reference conventions."""
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


def mrc_demo(data_dir, out) -> None:
    """sacrebleu-compatible BLEU and the DuReader adapted metrics."""
    base = data_dir / "mrc"
    with as_file(base / "bleu_pairs.json") as pairs_path:
        pairs = read_json(pairs_path)
    print("BLEU (sacrebleu 2.6 semantics, 13a, exp smoothing)", file=out)
    corpus = BLEU().corpus_score(pairs["hypotheses"], pairs["references"])
    precisions = "/".join(f"{corpus[f'precision_{k}']:.1f}" for k in range(1, 5))
    print(f"  corpus: BLEU = {corpus['score']:.2f} {precisions} (BP = {corpus['bp']:.3f}) [{corpus.signature}]",
          file=out)
    sentence = BLEU(effective_order=True).sentence_scores(pairs["hypotheses"], pairs["references"])
    for hyp, score in zip(pairs["hypotheses"], sentence):
        print(f"  sentence {score:6.2f}  {hyp}", file=out)

    print("MRC adapted ROUGE-L / BLEU-4 (DuReader 2018 script semantics, character tokens)", file=out)
    with as_file(base / "pred.jsonl") as pred_path, as_file(base / "ref.jsonl") as ref_path:
        preds, refs = read_dureader_predictions(pred_path), read_dureader_references(ref_path)
    for alpha, beta in ((0.0, 0.0), (1.0, 1.0), (2.0, 1.0)):
        r = score_dureader(preds, refs, alpha=alpha, beta=beta, per_question=True)
        per_q = " ".join(f"q{row['question_id']}={row['ROUGE-L']:.3f}" for row in r.to_dict(True)["per_question"])
        print(f"  alpha={alpha:g} beta={beta:g}: ROUGE-L {100 * r.rouge_l:.2f}  BLEU-4 {100 * r.bleu4:.2f}"
              f"  ({per_q})", file=out)
    print("  q4 predicts the wrong opinion (Yes vs No): it gains no yes/no bonus.", file=out)
