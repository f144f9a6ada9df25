"""Long differential fuzz runs: qascore against rouge-score and sacrebleu on seeded random texts.

Each configuration scores ``--cases`` (prediction, reference) pairs in batch calls of
``--batch`` pairs (seeded generator in tests/fuzz_targets.py: ASCII words, punctuation, digits,
accented letters, CJK, emoji, whitespace variants, empty strings) and compares every pair with the
peer's own score, exact float equality; BLEU, chrF and TER also compare the corpus score of each
batch. Prints one line per configuration: cases, differences, seconds; exit 1 on any difference.

    python tools/fuzz.py                       # every ROUGE config and sacrebleu metric, 100,000 cases
    python tools/fuzz.py --cases 2000 --only rouge1-stem bleu-13a
    QASCORE_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz.py   # the hypothesis targets, longer
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the shared generator and comparisons

from fuzz_targets import (  # noqa: E402
    ROUGE_CONFIGS,
    SACREBLEU_CONFIGS,
    random_pairs,
    rouge_mismatches,
    sacrebleu_mismatches,
)


def configurations() -> dict:
    out = {}
    for rouge_type, stem in ROUGE_CONFIGS:
        out[f"{rouge_type}-{'stem' if stem else 'nostem'}"] = (
            lambda p, r, t=rouge_type, s=stem: rouge_mismatches(t, s, p, r))
    for config in SACREBLEU_CONFIGS:
        out[config] = lambda p, r, c=config: sacrebleu_mismatches(c, p, r)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000, help="pairs per configuration (default 100,000)")
    parser.add_argument("--batch", type=int, default=5_000, help="pairs per batch call (default 5,000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first batch; batch k uses seed + k")
    parser.add_argument("--max-tokens", type=int, default=30, help="longest text, in generated tokens")
    parser.add_argument("--only", nargs="*", help="configurations to run (default: all)")
    args = parser.parse_args(argv)
    configs = configurations()
    names = args.only or list(configs)
    unknown = sorted(set(names) - set(configs))
    if unknown:
        parser.error(f"unknown configurations {unknown}; known: {', '.join(configs)}")
    failed = False
    for name in names:
        start, done, diffs, first = time.perf_counter(), 0, 0, None
        for k in range(0, args.cases, args.batch):
            n = min(args.batch, args.cases - k)
            preds, refs = random_pairs(args.seed + k // args.batch, n, args.max_tokens)
            found = configs[name](preds, refs)
            diffs += len(found)
            first = first or (found[0] if found else None)
            done += n
        seconds = time.perf_counter() - start
        print(f"{name:16s} cases {done:>9,}  differences {diffs}  {seconds:8.1f} s", flush=True)
        if first is not None:
            print(f"  first difference: {first!r}", flush=True)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
