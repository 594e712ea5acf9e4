"""The datasheet's annotation step states its machine (issue 46, item 6): the bound and the share."""

from __future__ import annotations

from export.datasheet import machine_step

PLAN = {"annotator": "local-stance", "target_error": 0.1, "confidence": 0.95, "calibration_items": 500}


def test_a_step_without_a_machine_says_nothing_of_one() -> None:
    assert machine_step({"workers_per_item": 3}) is None


def test_a_routed_step_states_the_bound_and_the_share_the_machine_labelled() -> None:
    step = machine_step(
        {
            "machine": PLAN,
            "machine_routing": {
                "annotator": "local-stance v2",
                "threshold": 0.8,
                "share_accepted": 0.42,
                "reason": "",
            },
        }
    )
    assert step == {
        "annotator": "local-stance v2",
        "bound": (
            "error at most 0.1 against the crowd's decision, with confidence 0.95, on 500 calibration items"
        ),
        "share_by_machine": 0.42,
        "why_none": "",
    }


def test_a_step_whose_machine_was_not_trusted_says_why() -> None:
    reason = "even among the machine's most confident 24%, 35 of 119 calibration items disagree"
    step = machine_step(
        {"machine": PLAN, "machine_routing": {"threshold": None, "share_accepted": 0.0, "reason": reason}}
    )
    assert step is not None
    assert (
        step["share_by_machine"] == 0.0 and step["why_none"] == reason and step["annotator"] == "local-stance"
    )
