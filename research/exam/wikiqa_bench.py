"""A validation benchmark for EXAM solvers built from WikiQA (research use only; never shipped).

Usage: ``python research/exam/wikiqa_bench.py --wikiqa DIR --out OUTDIR [--check lexical|embedding]``.

Each Wikipedia document of WikiQA dev/test is a query. Its questions with answer phrases
(``WikiQASent.pos.ans.tsv``) become multiple-choice exam questions: the shortest annotator phrase is
the key; about half the distractors are spans of the document's own non-answer sentences (on topic,
and present in every system's article), the rest are other questions' phrases. Systems are articles
with a known share (0..100%) of the document's answer-bearing sentences; each left-out answer-
bearing sentence is replaced by an off-topic filler sentence (a non-answer sentence of another
document) so all systems' articles have the document's length. Inclusion is nested: every answer
sentence draws one uniform number shared by all systems and is included when it is below the share,
so a larger share holds a superset of the answer sentences. The known order of the systems is the
order of their shares; a good solver's EXAM recovers it. The gold article is the whole document.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qascore.errors import InputFormatError
from qascore.exam import Articles, ExamQuestion, QuestionBank, evaluate
from qascore.exam.terms import LexicalAnalyzer
from qascore.exam.articles import write_original_jsonl
from qascore.exam.leaderboard import correlation_report, exam_leaderboard, leaderboard_from_means
from qascore.exam.questions import write_simple_jsonl
from qascore.io import iter_lines, open_output

DEFAULT_SHARES = tuple(i / 10 for i in range(11))
LABELS = "abcdefghij"


@dataclass
class WikiQABenchmark:
    bank: QuestionBank
    systems: Articles
    gold: Articles
    shares: dict[str, float]  # system -> share of answer-bearing sentences (its known quality)


def _read_tsv(path, n_columns: int):
    rows = []
    for lineno, line in iter_lines(path):
        if lineno == 1 or not line:
            continue
        parts = line.split("\t")
        if len(parts) != n_columns:
            raise InputFormatError(path, lineno, f"expected {n_columns} tab-separated columns, got {len(parts)}")
        rows.append(parts)
    return rows


def _documents(wikiqa_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """DocumentID -> [(SentenceID, sentence)] in document order, from the dev and test TSVs."""
    docs: dict[str, dict[str, str]] = {}
    for split in ("dev", "test"):
        for row in _read_tsv(wikiqa_dir / f"WikiQA-{split}.tsv", 7):
            docs.setdefault(row[2], {})[row[4]] = row[5]
    return {d: sorted(s.items(), key=lambda kv: int(kv[0].rsplit("-", 1)[1])) for d, s in docs.items()}


def system_name(share: float) -> str:
    return f"share-{round(share * 100):03d}"


def build_wikiqa_benchmark(wikiqa_dir, *, shares=DEFAULT_SHARES, n_choices: int = 4, seed: int = 0,
                           max_queries: int | None = None) -> WikiQABenchmark:
    """Build the benchmark; ``max_queries`` keeps only the first documents (by id) for a quick check."""
    wikiqa_dir = Path(wikiqa_dir)
    if not 2 <= n_choices <= len(LABELS):
        raise ValueError(f"n_choices must be in 2..{len(LABELS)}, got {n_choices}")
    if any(not 0.0 <= s <= 1.0 for s in shares) or len(set(shares)) != len(shares):
        raise ValueError(f"shares must be distinct numbers in [0, 1], got {shares}")
    docs = _documents(wikiqa_dir)
    analyzer = LexicalAnalyzer()
    questions: dict[str, dict] = {}
    for row in _read_tsv(wikiqa_dir / "WikiQASent.pos.ans.tsv", 9):
        qid, text, doc, sid = row[0], row[1], row[2], row[4]
        if doc not in docs:
            continue  # a training-split document: its full text is not in the release
        phrases = [p.strip() for p in row[6:] if analyzer.terms(p)]
        q = questions.setdefault(qid, {"doc": doc, "text": text, "sentences": set(), "phrases": []})
        q["sentences"].add(sid)
        q["phrases"].extend(phrases)
    questions = {k: v for k, v in questions.items() if v["phrases"]}
    for q in questions.values():
        q["key_text"] = min(q["phrases"], key=lambda p: (len(p), p))
    pool = sorted({q["key_text"] for q in questions.values()})
    pool_terms = [frozenset(analyzer.terms(p)) for p in pool]

    if max_queries is not None:
        keep = sorted({q["doc"] for q in questions.values()}, key=lambda d: int(d[1:]))[:max_queries]
        keep = set(keep)
        questions = {k: v for k, v in questions.items() if v["doc"] in keep}

    answer_sids: dict[str, set[str]] = {}
    for q in questions.values():
        answer_sids.setdefault(q["doc"], set()).update(q["sentences"])

    rng = np.random.default_rng(seed)
    bank_items = []
    for qid in sorted(questions, key=lambda k: int(k[1:])):
        q = questions[qid]
        key_terms = frozenset(analyzer.terms(q["key_text"]))
        chosen: list[str] = []
        chosen_terms: list[frozenset] = []

        def take(text: str, terms: frozenset, key_terms=key_terms, chosen=chosen, chosen_terms=chosen_terms) -> None:
            # distractors share no term with the key or each other's term sets, so exactly one is right
            if terms and not terms & key_terms and terms not in chosen_terms and len(chosen) < n_choices - 1:
                chosen.append(text)
                chosen_terms.append(terms)

        # On-topic distractors first: a span as long as the key from the document's other sentences,
        # present in every system's article, so only the answer-bearing sentence settles the question.
        n_words = len(q["key_text"].split())
        others = [text for sid, text in docs[q["doc"]] if sid not in answer_sids[q["doc"]]]
        for i in rng.permutation(len(others)):
            words = others[i].split()
            if len(words) >= n_words:
                start = int(rng.integers(len(words) - n_words + 1))
                span = " ".join(words[start:start + n_words]).strip(" ,.;:()\"'")
                take(span, frozenset(analyzer.terms(span)))
            if len(chosen) >= (n_choices - 1) // 2 + (n_choices - 1) % 2:
                break
        for i in rng.permutation(len(pool)):
            if len(chosen) == n_choices - 1:
                break
            take(pool[i], pool_terms[i])
        texts = chosen[:]
        key_pos = int(rng.integers(n_choices))
        texts.insert(key_pos, q["key_text"])
        choices = {LABELS[i]: t for i, t in enumerate(texts)}
        bank_items.append(ExamQuestion(q["doc"], qid, q["text"], choices, LABELS[key_pos]))
    bank = QuestionBank(bank_items)

    doc_ids = sorted(bank.query_ids, key=lambda d: int(d[1:]))
    filler_pool = [(d, s) for d in sorted(docs, key=lambda d: int(d[1:]))
                   for sid, s in docs[d] if sid not in answer_sids.get(d, ())]

    systems = Articles()
    gold = Articles()
    shares = tuple(shares)
    for doc in doc_ids:
        sentences = docs[doc]
        answer_positions = [i for i, (sid, _) in enumerate(sentences) if sid in answer_sids[doc]]
        draws = rng.random(len(answer_positions))
        fillers = []
        while len(fillers) < len(answer_positions):
            other, text = filler_pool[int(rng.integers(len(filler_pool)))]
            if other != doc:
                fillers.append(text)
        gold.add("gold", doc, [s for _, s in sentences])
        for share in shares:
            article = [s for _, s in sentences]
            for pos, draw, filler in zip(answer_positions, draws, fillers):
                if not draw < share:
                    article[pos] = filler
            systems.add(system_name(share), doc, article)
    return WikiQABenchmark(bank, systems, gold, {system_name(s): s for s in shares})


def make_solver(name: str):
    """The solvers the benchmark checks: ``lexical`` or ``embedding`` (needs ``qascore[onnx]``)."""
    if name == "embedding":
        from qascore.exam.solvers.embedding import EmbeddingSolver

        return EmbeddingSolver()
    from qascore.exam import LexicalSolver

    return LexicalSolver()


def write_benchmark(bench: WikiQABenchmark, out: Path) -> None:
    """questions.jsonl, systems/<system>.jsonl, gold.jsonl and expected.txt (the known leaderboard)."""
    (out / "systems").mkdir(parents=True, exist_ok=True)
    write_simple_jsonl(bench.bank, out / "questions.jsonl")
    for system in bench.systems.systems:
        write_original_jsonl(bench.systems, system, out / "systems" / f"{system}.jsonl", prefix="wikiqa")
    write_original_jsonl(bench.gold, "gold", out / "gold.jsonl", prefix="wikiqa")
    with open_output(out / "expected.txt") as fh:
        fh.write("# system and its share of answer-bearing sentences: the known leaderboard\n")
        for system, share in bench.shares.items():
            fh.write(f"{system}\t{share}\n")


def check(bench: WikiQABenchmark, solver_name: str, seed: int = 0) -> str:
    """EXAM of every system with one solver, and its correlation with the known order of shares."""
    result = evaluate(bench.bank, bench.systems, make_solver(solver_name), gold=bench.gold)
    known = leaderboard_from_means(dict(bench.shares), name="known share")
    return "\n".join([result.table(), result.signature,
                      correlation_report(exam_leaderboard(result), known, repeats=10, ties="none", seed=seed),
                      f"solver accuracy on the gold documents: {result.gold.exam:.3f}"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Build the WikiQA-derived EXAM validation benchmark.")
    parser.add_argument("--wikiqa", required=True, help="folder of the WikiQA release (WikiQA-dev.tsv, ...)")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--choices", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--check", choices=["lexical", "embedding"], help="also evaluate with this solver and report")
    args = parser.parse_args(argv)
    bench = build_wikiqa_benchmark(args.wikiqa, n_choices=args.choices, seed=args.seed, max_queries=args.max_queries)
    out = Path(args.out)
    write_benchmark(bench, out)
    print(f"wrote {len(bench.bank)} questions for {len(bench.bank.query_ids)} queries and "
          f"{len(bench.systems.systems)} systems to {out} (WikiQA text: research use only, do not redistribute)")
    if args.check:
        print(check(bench, args.check, seed=args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
