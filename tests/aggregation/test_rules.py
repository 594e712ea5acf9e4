import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from aggregation.labels import LabelSetError
from aggregation.responses import Responses
from aggregation.rules import Comparison, apply_rule, apply_rule_to_counts
from annotation.task_types.builtin_rules import STANCE_FLIP
from tests.aggregation.builtin_rules import (
    EVIDENCE,
    EVIDENCE_RULE,
    PARAPHRASE,
    PARAPHRASE_RULE,
    STANCE_3,
    STANCE_5,
    STANCE_RULE,
    stance_outcome,
)


def flip_stance(labels: Sequence[str]) -> list[str]:
    """Labels of a perspective moved to a claim of the opposite stance."""
    return [STANCE_FLIP[label] for label in labels]


def stance_rows(votes: dict[str, list[str]]) -> Responses:
    rows = [(item, f"w{i}", label) for item, labels in votes.items() for i, label in enumerate(labels)]
    return Responses.from_rows(rows, STANCE_5)


def test_stance_outcome_gives_voter_counts_in_the_release_order():
    outcome = stance_outcome(stance_rows({"p1": ["UNDERMINE", "MILDLY_SUPPORT", "NOT_VALID", "UNDERMINE"]}))
    assert outcome.counts.tolist() == [[0, 1, 0, 2, 1]]


def test_mild_labels_collapse_into_strong_before_agreement():
    outcome = stance_outcome(stance_rows({"p1": ["SUPPORT", "MILDLY_SUPPORT", "MILDLY_SUPPORT"]}))
    row = next(outcome.rows())
    assert (row.label, row.fine_label, row.agreement) == ("SUPPORT", "MILDLY_SUPPORT", 1.0)
    assert row.status == "kept"


def test_a_five_way_tie_under_a_clear_three_way_majority_is_kept():
    row = next(stance_outcome(stance_rows({"p1": ["SUPPORT", "MILDLY_SUPPORT"]})).rows())
    assert (row.label, row.fine_label, row.status) == ("SUPPORT", "NO_MAJORITY_LABEL", "kept")


def test_a_two_to_one_split_of_three_raters_is_rejected():
    row = next(stance_outcome(stance_rows({"p1": ["SUPPORT", "SUPPORT", "UNDERMINE"]})).rows())
    assert row.agreement == pytest.approx(1 / 3)
    assert row.status == "rejected"


def test_a_not_valid_majority_is_rejected_however_strong():
    row = next(stance_outcome(stance_rows({"p1": ["NOT_VALID"] * 3})).rows())
    assert (row.label, row.agreement, row.status) == ("NOT_VALID", 1.0, "rejected")


def test_the_threshold_comparison_is_an_argument():
    # 3–1 over four raters gives ρ = 0.5 exactly: kept by the paper's ≥, rejected by the original code's >.
    votes = stance_rows({"p1": ["SUPPORT", "SUPPORT", "MILDLY_SUPPORT", "UNDERMINE"]})
    assert stance_outcome(votes).kept.tolist() == [True]
    original_code = STANCE_RULE.with_threshold(0.5, Comparison.ABOVE)
    assert stance_outcome(votes, original_code).kept.tolist() == [False]
    assert original_code.describe() == "stance: rho(stance-3) > 0.5 and majority in {SUPPORT, UNDERMINE}"


def test_summary_counts_kept_rejected_and_no_majority():
    outcome = stance_outcome(
        stance_rows({"a": ["SUPPORT"] * 3, "b": ["SUPPORT", "UNDERMINE"], "c": ["UNDERMINE", "UNDERMINE"]})
    )
    assert outcome.summary() == {"items": 3, "kept": 2, "rejected": 1, "no_majority": 1}


def test_a_rule_refuses_answers_in_another_label_set():
    responses = Responses.from_rows([("a", "w1", "SUPPORT"), ("a", "w2", "SUPPORT")], STANCE_3)
    with pytest.raises(LabelSetError):
        stance_outcome(responses)


def test_evidence_is_kept_when_supported_is_an_agreed_majority():
    rows = [("e1", f"w{i}", label) for i, label in enumerate(["SUPPORTED"] * 3 + ["NOT_SUPPORTED"])]
    rows += [("e2", f"w{i}", label) for i, label in enumerate(["SUPPORTED"] * 2 + ["NOT_SUPPORTED"] * 2)]
    rows += [("e3", f"w{i}", "NOT_SUPPORTED") for i in range(4)]
    outcome = apply_rule(Responses.from_rows(rows, EVIDENCE), EVIDENCE_RULE)
    assert outcome.kept.tolist() == [True, False, False]
    assert EVIDENCE.names_of(outcome.labels) == ["SUPPORTED", "NO_MAJORITY_LABEL", "NOT_SUPPORTED"]


def test_a_paraphrase_is_accepted_by_a_same_majority_alone():
    rows = [("x", "w1", "SAME"), ("x", "w2", "SAME"), ("x", "w3", "DIFFERENT")]
    rows += [("y", "w1", "SAME"), ("y", "w2", "DIFFERENT")]
    outcome = apply_rule(Responses.from_rows(rows, PARAPHRASE), PARAPHRASE_RULE)
    assert outcome.kept.tolist() == [True, False]


def test_rules_record_themselves_as_data():
    assert STANCE_RULE.as_dict()["threshold"] == 0.5
    assert STANCE_RULE.as_dict()["collapse"]["MILDLY_UNDERMINE"] == "UNDERMINE"
    assert PARAPHRASE_RULE.describe() == "paraphrase: majority in {SAME}"


@pytest.mark.slow
def test_the_release_labels_follow_from_its_voter_counts(perspectrum_dir: Path):
    claims = json.loads((perspectrum_dir / "perspectrum_with_answers_v1.0.json").read_text())
    clusters = [(claim["cId"], cluster) for claim in claims for cluster in claim["perspectives"]]
    counts = np.array([cluster["voter_counts"] for _, cluster in clusters])
    released = [(c["stance_label_3"], c["stance_label_5"]) for _, c in clusters]

    def labels(outcome):
        three, five = STANCE_3.names_of(outcome.labels), STANCE_5.names_of(outcome.fine_labels)
        return list(zip(three, five, strict=True))

    ids = np.arange(len(clusters))
    direct = labels(apply_rule_to_counts(ids, counts, STANCE_RULE))
    reversed_back = labels(apply_rule_to_counts(ids, counts[:, ::-1], STANCE_RULE))
    follows = [mine == theirs for mine, theirs in zip(direct, released, strict=True)]
    flipped = [tuple(flip_stance(b)) == theirs for b, theirs in zip(reversed_back, released, strict=True)]
    unexplained = [i for i in range(len(clusters)) if not follows[i] and not flipped[i]]

    assert sum(follows) == 4728
    assert sum(f and not d for f, d in zip(flipped, follows, strict=True)) == 348  # as SOURCE.txt counts
    # The rest are stance-flipped copies whose counts were copied unchanged: the same pid sits in
    # another claim's cluster with the same counts and the opposite stance.
    by_pid = defaultdict(list)
    for i, (_, cluster) in enumerate(clusters):
        for pid in cluster["pids"]:
            by_pid[pid].append(i)
    for i in unexplained:
        cid, cluster = clusters[i]
        twins = {j for pid in cluster["pids"] for j in by_pid[pid] if clusters[j][0] != cid}
        assert any(
            clusters[j][1]["voter_counts"] == cluster["voter_counts"]
            and tuple(flip_stance(released[j])) == released[i]
            for j in twins
        ), (cid, cluster)
    assert len(unexplained) == 19


def test_an_item_with_a_single_rating_has_no_agreement_and_is_rejected():
    outcome = stance_outcome(stance_rows({"a": ["SUPPORT", "SUPPORT"], "b": ["SUPPORT"]}))
    lone = list(outcome.rows())[1]
    assert (lone.item, lone.label, lone.agreement, lone.status) == ("b", "SUPPORT", None, "rejected")
