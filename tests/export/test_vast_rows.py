"""VAST's example types from answers (§3.1.2), synthetic neutral pairs (§3.1.3), and the topic cleaning."""

from __future__ import annotations

from annotation.task_types.vast_topics import lexically_disjoint, split_topic_list, topic_string, words
from export.vast_quality import StanceAnswer
from export.vast_rows import CORR, HEUR, LIST, SYNTHETIC_NEUTRAL, VastItem, item_examples, majority, vast_rows

ITEM = VastItem(1, "p7-education", "p7", "Homework teaches pupils to work alone.", "education", 3, "train")
OTHER = VastItem(2, "p8-economy", "p8", "Tariffs raise the price of food.", "economy", 4, "test")


def answer(worker: int, stance: str, correction: str = "", topics: tuple[str, ...] = (), item: int = 1):
    return StanceAnswer(item, worker, stance, correction, topics)


def test_the_majority_is_the_unique_top_side_and_a_tie_has_none() -> None:
    assert majority(["PRO", "PRO", "CON"]) == ("PRO", {"PRO": 2, "CON": 1})
    assert majority(["PRO", "CON"]) is None
    assert majority([]) is None


def test_stance_on_the_proposed_topic_is_a_heur_example_voted_on_three_way_sides() -> None:
    found = item_examples(ITEM, [answer(1, "STRONGLY_PRO"), answer(2, "PRO"), answer(3, "CON")])
    assert [(e.type_idx, e.topic, e.label, dict(e.votes)) for e in found] == [
        (HEUR, "education", "PRO", {"PRO": 2, "CON": 1})
    ]


def test_corrections_to_the_same_new_topic_are_voted_together() -> None:
    answers = [
        answer(1, "CON", "Homework"),
        answer(2, "STRONGLY_CON", "the homework"),
        answer(3, "PRO", "school days"),
        answer(4, "NEUTRAL"),
    ]
    found = item_examples(ITEM, answers)
    assert [(e.type_idx, topic_string(e.topic), e.label) for e in found] == [
        (HEUR, "education", "NEUTRAL"),
        (CORR, "homework", "CON"),
        (CORR, "school days", "PRO"),
    ]


def test_a_listed_topic_takes_the_stance_its_listers_gave_unless_it_is_already_an_example() -> None:
    answers = [
        answer(1, "PRO", topics=("independent study", "Education")),
        answer(2, "PRO", topics=("independent study",)),
        answer(3, "CON", topics=("discipline",)),
    ]
    found = item_examples(ITEM, answers)
    listed = [(e.topic, e.label, e.votes["PRO"]) for e in found if e.type_idx == LIST]
    assert listed == [("independent study", "PRO", 2), ("discipline", "CON", 0)]


def test_excluded_workers_do_not_vote_but_their_topics_still_rule_out_neutral_pairs() -> None:
    answers = [
        answer(1, "PRO"),
        answer(2, "PRO"),
        answer(9, "CON", topics=("economy",)),  # a poor worker on ITEM lists OTHER's topic
        answer(5, "CON", item=2),
    ]
    rows = vast_rows([ITEM, OTHER], answers, excluded_workers={9}, neutral_share=1.0, seed=0)

    heur = [r for r in rows if r["type_idx"] == HEUR]
    assert [(r["ori_id"], r["label"], r["Pro"], r["Con"]) for r in heur] == [
        ("p7-education", 1, 2, 0),
        ("p8-economy", 0, 0, 1),
    ]
    neutral = [(r["ori_id"], r["new_topic"]) for r in rows if r["type_idx"] == SYNTHETIC_NEUTRAL]
    # p8's comment pairs with "education"; p7's cannot take "economy", which a worker listed for it.
    assert neutral == [("p8-economy", "education")]


def test_a_row_fills_vasts_text_and_topic_columns() -> None:
    (row,) = vast_rows([ITEM], [answer(1, "PRO")], excluded_workers=set(), neutral_share=0.0, simulated=True)
    assert row["text"] == '[["homework", "teaches", "pupils", "work", "alone"]]'
    assert row["text_s"] == "homework teaches pupils work alone"
    assert row["topic"] == '["education"]' and row["topic_str"] == "education"
    assert row["seen?"] == 1 and row["contains_topic?"] == 0 and row["is_new_topic"] == 0
    assert row["arc_id"] == 3 and row["new_id"] == 1 and row["simulated"] == 1
    assert row["author"] == row["pos_text"] == row["change_lst"] == row["change_type"] == ""


def test_topics_are_cleaned_split_and_compared_by_their_non_stop_words() -> None:
    assert words("The Right to Bear Arms!") == ["right", "bear", "arms"]
    assert split_topic_list(" gun control;\n\nthe gun control , arms ") == ["gun control", "arms"]
    assert lexically_disjoint("school uniforms", ["gun control", "the economy"])
    assert not lexically_disjoint("school uniforms", ["uniforms"])
    assert not lexically_disjoint("the of", ["gun control"])  # no words of its own
