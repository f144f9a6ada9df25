"""Plain-Python references shared by the MRC/BLEU tests and benchmarks: the DuReader 2018 script's
algorithm written out directly (Counter n-grams, list DP for LCS), and loaders of the real pairs."""
import itertools
import json
import math
from collections import Counter

from qascore.lexical.mrc import normalize_answer


def msmarco_pairs(shared_data):
    refs = {}
    with open(shared_data / "mrc/msmarco/dev_as_references.json", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            refs[d["query_id"]] = d["answers"]
    hyps, hyp_refs = [], []
    with open(shared_data / "mrc/msmarco/dev_first_sentence_as_candidates.json", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if refs.get(d["query_id"]):
                hyps.append(d["answers"][0])
                hyp_refs.append(refs[d["query_id"]])
    return hyps, hyp_refs


def evouna_pairs(shared_data):
    with open(shared_data / "ava/evouna/NQ.json", encoding="utf-8") as f:
        rows = json.load(f)
    hyps, refs = [], []
    for row in rows:
        for system in ("fid", "gpt35", "chatgpt", "gpt4", "newbing"):
            answer = row.get(f"answer_{system}")
            if isinstance(answer, str) and isinstance(row["golden_answer"], str):
                hyps.append(answer)
                refs.append([row["golden_answer"]])
    return hyps, refs



def oracle_lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def official_numpy_lcs(a, b):
    """The script's own DP: a float numpy table indexed cell by cell (about 0.6 us a cell)."""
    import numpy as np

    if len(a) < len(b):
        a, b = b, a
    table = np.zeros((len(a) + 1, len(b) + 1))
    for j in range(1, len(b) + 1):
        for i in range(1, len(a) + 1):
            if a[i - 1] == b[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table[len(a)][len(b)]


def oracle_ngrams(s, n, label=None):
    grams = [s[i:i + n] for i in range(len(s) - n + 1)]
    return [g + "_" + label for g in grams] if label is not None else grams


def oracle_match(cand, refs):
    best = Counter()
    for r in refs:
        for g, c in Counter(r).items():
            best[g] = max(best[g], c)
    return sum(min(c, best[g]) for g, c in Counter(cand).items())


def oracle_official(preds, refs, alpha, beta, gamma, variant, lcs_function=oracle_lcs):
    match, candi = [0] * 4, [0] * 4
    c_total = r_total = 0
    rouge = []
    for qid, r in refs.items():
        answers = [normalize_answer(a, variant) for a in r.answers]
        if not answers:
            continue
        p = preds.get(qid)
        cand = normalize_answer(p.answers[0], variant) if p is not None and p.answers else ""
        label = None
        entities = None
        if r.question_type == "ENTITY":
            entities = set(normalize_answer(e, variant) for e in itertools.chain(*r.entity_answers)) or None
        if r.question_type == "YES_NO" and p is not None and p.yesno_answers:
            label = p.yesno_answers[0]
        precs, recs = [], []
        for i, a in enumerate(answers):
            lcs = float(lcs_function(cand, a))
            yn = ent = 0.0
            if label is not None:
                yn = float(lcs_function(cand, a)) if label == r.yesno_answers[i] else 0.0  # the script recomputes it
            elif entities is not None:
                ent = float(sum(len(e) for e in entities if e in cand))
            pd = len(cand) + alpha * yn + beta * ent
            rd = len(a) + alpha * yn + beta * ent
            precs.append((lcs + alpha * yn + beta * ent) / pd if pd > 0 else 0.0)
            recs.append((lcs + alpha * yn + beta * ent) / rd if rd > 0 else 0.0)
        pm, rm = max(precs), max(recs)
        rouge.append(((1 + gamma ** 2) * pm * rm) / float(rm + gamma ** 2 * pm) if pm != 0 and rm != 0 else 0.0)
        for n in range(1, 5):
            m = oracle_match(oracle_ngrams(cand, n), [oracle_ngrams(a, n) for a in answers])
            match[n - 1] += m
            candi[n - 1] += len(oracle_ngrams(cand, n))
            if label is not None:
                bonus = oracle_match(oracle_ngrams(cand, n, label),
                                     [oracle_ngrams(answers[k], n, lab) for k, lab in enumerate(r.yesno_answers)])
                match[n - 1] += alpha * bonus
                candi[n - 1] += alpha * bonus
            elif entities is not None:
                bonus = oracle_match(oracle_ngrams(cand, n, "ENTITY"),
                                     [oracle_ngrams(e, n, "ENTITY") for e in entities])
                match[n - 1] += beta * bonus
                candi[n - 1] += beta * bonus
        c_total += len(cand)
        r_total += min((abs(len(cand) - len(a)), len(a)) for a in answers)[1]
    probs = [m / float(c) if c else 0.0 for m, c in zip(match, candi)]
    cum = [probs[0]]
    for p_ in probs[1:]:
        cum.append(cum[-1] * p_)
    bp = 0.0 if c_total == 0 else math.exp(min(1 - r_total / float(c_total), 0))
    bleu = [b ** (1.0 / (n + 1)) * bp for n, b in enumerate(cum)]
    return sum(rouge) / len(rouge), bleu, match, candi
