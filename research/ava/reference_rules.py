"""How AVA's reference rule fares on multi-alias gold answers, against human labels.

EVOUNA NQ's gold answers list alternatives separated by '/' ("Olivia/MFSK"); a user passes them as a
list of references. On the dev split (by question, never trained or calibrated on) this prints, per
judge: agreement with the human labels, and the RMSE and Kendall tau-b between the judged and the
true accuracies of the five QA systems:

- string containment of any alias (SQuAD-normalised), the baseline every judge must beat;
- the model under ``refs="max"`` (the default) and ``refs="mean"`` (the paper's rule), each at
  its own threshold tuned on the calibration split;
- for ``max``: the same with every reference scored (no early stop), and with a containment
  short-circuit (a contained alias judged correct without the model), to see what each costs.

    python research/ava/reference_rules.py NQ.json [--model default|linear|DIR] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np

from qascore.ava import load_model
from qascore.ava.data import load_evouna, split_by_question
from qascore.ava.evaluate import agreement, baseline_predictions, system_accuracies


def judged(name: str, labels, predicted, systems) -> dict:
    """Agreement with humans and the system-wise RMSE / tau-b of 0/1 judgements."""
    agree = agreement(system_accuracies(predicted, systems), system_accuracies(labels, systems))
    return {"judge": name, "agreement": float(np.mean(np.asarray(predicted) == labels)),
            "rmse": agree.rmse, "kendall_tau_b": agree.kendall_tau, "predicted": np.asarray(predicted, dtype=np.int64)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="EVOUNA NQ.json")
    parser.add_argument("--model", default="default")
    parser.add_argument("--json", help="also write the rows as JSON to this path")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    _, dev = split_by_question(load_evouna(args.data, aliases=True))
    labels, systems = dev.require_labels(), dev.systems
    rows = [judged("containment of any alias", labels,
                   baseline_predictions("containment", dev.candidates, dev.references), systems)]
    contained = rows[0]["predicted"] == 1
    for rule in ("max", "mean"):
        model = load_model(args.model, refs=rule)
        p = model.predict_proba(dev.questions, dev.references, dev.candidates)
        rows.append({**judged(f"{args.model}, refs={rule} (threshold {model.threshold:.2f})", labels,
                              p >= model.threshold, systems), "signature": model.signature()})
        if rule == "max" and hasattr(model, "early_stop"):
            model.early_stop = False
            full = model.predict_proba(dev.questions, dev.references, dev.candidates)
            rows.append({**judged(f"{args.model}, refs=max, every reference scored", labels,
                                  full >= model.threshold, systems),
                         "labels_changed_by_early_stop": int(np.sum((full >= model.threshold)
                                                                    != (p >= model.threshold))),
                         "max_probability_gap": float(np.max(full - p))})
        if rule == "max":
            # would a containment short-circuit (contained -> correct, no model) keep accuracy?
            short = np.where(contained, 1, (p >= model.threshold).astype(np.int64))
            rows.append({**judged(f"{args.model}, refs=max, contained answers judged correct unscored", labels,
                                  short, systems),
                         "contained_answers": int(contained.sum()),
                         "human_accuracy_of_contained": float(np.mean(labels[contained] == 1)),
                         "model_agreement_on_contained": float(np.mean((p[contained] >= model.threshold)
                                                                       == labels[contained]))})
    print(f"EVOUNA NQ dev, {len(dev)} judged answers, "
          f"{np.mean([len(r) for r in dev.references]):.2f} aliases per answer")
    print("| judge | agreement with humans | RMSE of system accuracy | Kendall tau-b |")
    print("|---|---|---|---|")
    for row in rows:
        print(f"| {row['judge']} | {row['agreement']:.4f} | {row['rmse']:.4f} | {row['kendall_tau_b']:.3f} |")
    for row in rows:
        notes = {k: v for k, v in row.items() if k not in ("judge", "agreement", "rmse", "kendall_tau_b", "predicted")}
        if notes:
            print(f"{row['judge']}: {notes}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump([{k: v for k, v in row.items() if k != "predicted"} for row in rows], out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
