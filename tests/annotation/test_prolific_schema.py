"""The schema written down from Prolific's published API (annotation/markets/prolific/schema.json) holds:
every recorded fixture matches it, the adapter's own tables agree with it, and drift is caught."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from annotation.markets.prolific.rejections import MIN_REJECTION_MESSAGE, REJECTION_CATEGORIES
from annotation.markets.prolific.schema import (
    SchemaViolation,
    by_operation,
    check_request,
    endpoint,
    response_problems,
    schema,
    transitions,
)
from annotation.markets.prolific.states import ASSIGNMENT_STATES, submission_state
from annotation.markets.prolific.studies import TRANSITIONS, StudySpec
from tests.annotation.recorded_prolific import FIXTURES

API = "https://api.prolific.com"
FIXTURE_FILES = sorted(path.name for path in FIXTURES.glob("*.json"))


def test_every_fixture_says_which_answer_it_records() -> None:
    listed = {name for name in schema()["fixtures"] if name != "$comment"}
    assert listed == set(FIXTURE_FILES)


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_every_recorded_fixture_matches_prolifics_schema(name: str) -> None:
    operation, status = schema()["fixtures"][name]
    body = json.loads((FIXTURES / name).read_text())

    assert response_problems(by_operation(operation), status, body) == []


def test_the_schema_is_valid_json_schema_and_cites_a_source_for_every_endpoint() -> None:
    Draft202012Validator.check_schema({"$defs": schema()["$defs"]})
    assert schema()["endpoints"]
    for found in schema()["endpoints"]:
        assert found["x-source"] in schema()["sources"], found["operation"]
        for fragment in [found.get("request", {}), *found["responses"].values()]:
            Draft202012Validator.check_schema(fragment)


def money_fields(node: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in {
                "reward",
                "amount",
                "fees",
                "vat",
                "total_amount",
                "available_balance",
                "total_balance",
            }:
                yield f"{path}/{key}", value
            yield from money_fields(value, f"{path}/{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            yield from money_fields(value, f"{path}/{n}")


def test_every_money_field_names_its_unit() -> None:
    cents = schema()["$defs"]["Cents"]
    for where, field in money_fields(schema()["$defs"]):
        assert "x-unit" in field or field.get("$ref") == "#/$defs/Cents", where
    assert "cents" in cents["x-unit"]


def test_the_adapters_tables_agree_with_the_schema() -> None:
    defs = schema()["$defs"]
    assert {a: sorted(r.send_from) for a, r in TRANSITIONS.items()} == {
        a: sorted(rule["from"]) for a, rule in transitions().items()
    }
    assert set(defs["RejectionCategory"]["enum"]) == REJECTION_CATEGORIES
    assert defs["SubmissionTransition"]["properties"]["message"]["minLength"] == MIN_REJECTION_MESSAGE
    # Every documented status but UNKNOWN has our state; UNKNOWN is left as it was, never accepted work.
    assert set(ASSIGNMENT_STATES) | {"UNKNOWN"} == set(defs["SubmissionStatus"]["enum"])
    assert submission_state("UNKNOWN") is None and submission_state("A STATUS ADDED LATER") is None


def test_the_study_the_adapter_builds_is_a_valid_create_study_request() -> None:
    spec = StudySpec(
        "n", "d", "https://sw.example/w/1/", 2, 150, 10, "CODE1234", "project-1", blocklist_group="g1"
    )

    assert check_request("POST", f"{API}/api/v1/studies/", spec.as_request()).operation == "create-study"


@pytest.mark.parametrize(
    ("method", "url", "body", "why"),
    [
        ("DELETE", "/api/v1/studies/s1/", None, "no such endpoint"),
        ("GET", "/api/v1/studies/s1/submissions/?page=2", None, "'page' is not documented"),
        ("POST", "/api/v1/studies/s1/transition/", {"action": "RESUME"}, "is not one of"),
        ("POST", "/api/v1/submissions/x/transition/", {"action": "REJECT", "message": "bad"}, "too short"),
        ("POST", "/api/v1/submissions/bonus-payments/", {"study_id": "s", "csv_bonuses": "sub,25"}, "match"),
        ("POST", "/api/v1/participant-groups/", {"name": "g", "project_id": "p"}, "workspace_id"),
    ],
)
def test_a_request_prolific_does_not_document_is_caught(method: str, url: str, body: Any, why: str) -> None:
    with pytest.raises(SchemaViolation, match=why):
        check_request(method, API + url, body)


def test_a_study_created_without_a_project_is_caught() -> None:
    body = StudySpec("n", "d", "https://sw.example/w/1/", 2, 150, 10, "CODE1234", "p").as_request()
    del body["project"]

    with pytest.raises(SchemaViolation, match="'project' is a required property"):
        check_request("POST", f"{API}/api/v1/studies/", body)


@pytest.mark.parametrize(
    ("operation", "status", "body", "why"),
    [
        # Currency strings where Prolific answers cents (numbers).
        (
            "create-bonus-payments",
            201,
            {"id": "b", "amount": "0.50", "fees": "0", "total_amount": "0.50"},
            "number",
        ),
        # A study status Prolific does not have (a stopped study is COMPLETED).
        ("transition-study", 200, {"id": "s", "status": "STOPPED", "total_available_places": 1}, "STOPPED"),
        # The list of submissions without its count.
        ("get-study-submissions", 200, {"results": []}, "'meta' is a required property"),
        ("get-submission", 200, {"id": "x", "participant": "p", "status": "DONE", "study_id": "s"}, "DONE"),
        ("pay-bonus-payments", 200, "ok", "does not answer 200"),
        ("get-submission", 429, {"detail": "slow down"}, "'error' is a required property"),
    ],
)
def test_an_answer_off_prolifics_schema_is_caught(operation: str, status: int, body: Any, why: str) -> None:
    problems = response_problems(by_operation(operation), status, body)

    assert any(why in problem for problem in problems), problems


def test_only_prolifics_own_host_is_accepted() -> None:
    with pytest.raises(SchemaViolation, match="not Prolific's API host"):
        endpoint("GET", "https://api.example.com/api/v1/studies/s1/")
