"""Real rows for the Ray and Spark tests: MS MARCO (prediction, references) pairs and EVOUNA-NQ
(question, aliases, answer) triples from ../shared/data, with the in-process scores to compare."""
from qascore.ava.data import load_evouna

from mrc_reference import msmarco_pairs

N_PAIRS = 3000
N_TRIPLES = 2000


def pair_rows(shared_data, n=N_PAIRS):
    predictions, references = msmarco_pairs(shared_data)
    # one reference column type per table: a string where a pair has one reference would need its own column
    return {"id": list(range(n)), "prediction": predictions[:n], "reference": references[:n]}


def triple_rows(shared_data, n=N_TRIPLES):
    triples = load_evouna(shared_data / "ava/evouna/NQ.json", aliases=True)
    return {"id": list(range(n)), "question": triples.questions[:n], "reference": triples.references[:n],
            "prediction": triples.candidates[:n]}
