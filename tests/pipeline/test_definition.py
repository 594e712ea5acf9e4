"""The pipeline definition: every step in order, defaults that a run can change, typos refused."""

from __future__ import annotations

import pytest

from pipeline.definition import DEFAULTS, STEP_NAMES, PipelineDefinitionError, merged_params, step


def test_the_steps_run_in_the_papers_order() -> None:
    assert STEP_NAMES == (
        "crawl", "stance", "paraphrase_writing", "paraphrase_verification", "web_perspectives", "evidence",
        "counter_speech", "topics", "vast", "aggregate", "adjudicate", "split", "release",
    )  # fmt: skip


def test_overrides_merge_one_level_deep_and_leave_the_defaults_alone() -> None:
    params = merged_params({"crowd": {"size": 5}, "market": "inhouse"})
    assert params["crowd"] == {**DEFAULTS["crowd"], "size": 5}
    assert params["market"] == "inhouse"
    assert DEFAULTS["crowd"]["size"] != 5


def test_an_unknown_parameter_or_step_is_refused() -> None:
    with pytest.raises(PipelineDefinitionError, match="unknown pipeline parameter 'crowd_size'"):
        merged_params({"crowd_size": 5})
    with pytest.raises(PipelineDefinitionError, match="unknown step 'stances'"):
        step("stances")
