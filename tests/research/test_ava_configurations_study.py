"""research/ava/configurations.py: its results file and table (the training itself is a study)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "research" / "ava"))
import configurations  # noqa: E402

from qascore.judges.architectures import PAPER_CONFIGURATIONS, architecture  # noqa: E402


def test_results_file_has_every_configuration_of_the_paper():
    results = json.loads(configurations.RESULTS.read_text())
    ids = [(r["id"], r["construction"]) for r in results["records"]]
    assert ids == [(c, "pairs") for c in PAPER_CONFIGURATIONS] + [(configurations.CONSTRUCTION_CHECK, "one_reference")]
    for record in results["records"]:
        architecture(record["id"])  # every id parses as a configuration
        for split in ("dev", "trecqa_test", "wikiqa_test"):
            scores = record["fp32"][split]
            assert 0.0 <= scores["f1"] <= 1.0 and scores["n"] > 0
        assert 0.0 <= record["int8"]["trecqa_test"]["f1"] <= 1.0
        assert record["paper_f1_ava_wqa"] == (configurations.PAPER_F1[record["id"]]
                                              if record["construction"] == "pairs" else None)
        assert 1 <= record["epoch_kept"] <= record["epochs_run"] == len(record["history"])
    assert results["setup"]["data"]["train"]["rows"] == results["setup"]["data"]["train_one_reference"]["rows"]


def test_table_has_one_row_per_record(tmp_path):
    record = {"id": "A0(q,t)", "construction": "pairs", "paper_f1_ava_wqa": 0.6713, "epoch_kept": 2, "epochs_run": 2,
              "train_seconds": 90.0, "fp32": {s: {"f1": 0.5} for s in ("dev", "trecqa_test", "wikiqa_test")}}
    path = tmp_path / "r.json"
    configurations.save_record(record, {"command": "x"}, path)
    configurations.save_record(dict(record, construction="one_reference", paper_f1_ava_wqa=None), {"command": "x"}, path)
    configurations.save_record(record, {"command": "y"}, path)  # a rerun replaces its record
    lines = configurations.table(path).splitlines()
    assert len(lines) == 4 and "| `A0(q,t)` | pairs | 0.6713 | 0.5000 |" in lines[2] and "one_reference" in lines[3]
    assert json.loads(path.read_text())["setup"] == {"command": "y"}


def test_slug_names_a_directory():
    assert configurations.slug("A1((r,q+t),(t,q+r))", "pairs") == "A1__r_q_t___t_q_r"
    assert configurations.slug("A0(q,t)", "one_reference").endswith("__one_reference")
