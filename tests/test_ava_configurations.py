"""The paper's AVA configurations (Tables 3 and 4) as architectures: ids, pairs, sharing."""
import pytest

from qascore.judges.architectures import PAPER_CONFIGURATIONS, architecture, build_pairs, input_names, slots_of


def test_every_table_4_configuration_is_named():
    assert len(PAPER_CONFIGURATIONS) == 12
    families = [c[:2] for c in PAPER_CONFIGURATIONS]
    assert families.count("A0") == 4 and families.count("A1") == 7 and families.count("A2") == 1


@pytest.mark.parametrize(("name", "slots", "encoders", "peer"), [
    ("A0(q,r)", (("q", "r"),), 1, None),
    ("A0(P0)", (("q", "r"), ("q", "t"), ("r", "t")), 3, None),
    ("A1(r,q+t)", (("r", "qt"),), 1, None),
    ("A1(P1)", (("q", "rt"), ("r", "qt"), ("t", "qr")), 3, None),
    ("A1((r,q+t),(q,r+t))", (("r", "qt"), ("q", "rt")), 2, None),
    ("A2((r,q+t),(t,q+r))", (("r", "qt"), ("t", "qr")), 2, "separate"),
    ("A2( (r, q+t), (t, q+r) )", (("r", "qt"), ("t", "qr")), 2, "separate"),  # spaces are ignored
    # the shipped names: a1/a2 share one encoder (and a2 one peer block) to stay one MiniLM
    ("a0", (("q", "r"), ("q", "t"), ("r", "t")), 3, None),
    ("a1", (("r", "qt"), ("t", "qr")), 1, None),
    ("a2", (("r", "qt"), ("t", "qr")), 1, "shared"),
])
def test_architecture_of_a_name(name, slots, encoders, peer):
    spec = architecture(name)
    assert spec.slots == slots and slots_of(name) == slots
    assert spec.n_encoders == encoders and spec.peer == peer
    assert len(input_names(name)) == 3 * len(slots)


def test_pairs_join_concatenated_texts_with_a_space():
    (first, second), = build_pairs("A1(t,q+r)", ["who?"], ["Paris"], ["It is Paris."])
    assert first == ["It is Paris."] and second == ["who? Paris"]


@pytest.mark.parametrize(("name", "message"), [
    ("A3(q,t)", "unknown AVA architecture"),
    ("A0(q,r+t)", "A0 pairs single texts"),
    ("A1(q,r)", "holds q, r and t"),
    ("A1(q,q+t)", "appears twice"),
    ("A1((r,q+t),(r,q+t))", "listed twice"),
    ("A2(r,q+t)", "exactly two pairs"),
    ("A1((r,q+t)(t,q+r))", "expected ','"),
    ("A0(P1)", "cannot read a pair"),
    ("a3", "unknown AVA architecture"),
])
def test_bad_configuration_names_say_why(name, message):
    with pytest.raises(ValueError, match=message):
        architecture(name)
