"""The Prolific client's workspace: the project's workspace and its balance in cents, the participant
groups (our blocklist). Against the recorded Prolific (tests/annotation/recorded_prolific.py)."""

from __future__ import annotations

from annotation.markets.prolific.client import ProlificClient
from tests.annotation.recorded_prolific import GROUP, PROJECT, WORKSPACE, RecordedProlific


def test_the_project_names_its_workspace_and_the_balance_is_in_cents(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    market.add("GET", f"/api/v1/projects/{PROJECT}/", (200, "project.json"))
    market.add("GET", f"/api/v1/workspaces/{WORKSPACE}/balance/", (200, "balance.json"))

    project = prolific.get_project(PROJECT)
    balance = prolific.get_balance(project.workspace_id)

    assert project.workspace_id == WORKSPACE
    assert (balance.currency, balance.available_cents) == ("GBP", 21000)


def test_participant_groups_are_listed_by_workspace_created_and_added_to(
    prolific: ProlificClient, market: RecordedProlific
) -> None:
    groups, members = "/api/v1/participant-groups/", f"/api/v1/participant-groups/{GROUP}/participants/"
    market.add("GET", groups, (200, "participant_groups_empty.json"))
    market.add("POST", groups, (201, "participant_group_created.json"))
    market.add("POST", members, (200, "participant_group_members.json"))

    assert list(prolific.list_participant_groups(WORKSPACE)) == []
    created = prolific.create_participant_group(WORKSPACE, "Stancework blocklist", "blocked")
    prolific.add_to_participant_group(created.group_id, ["60bf9310e8dec401be6e9615"])

    assert market.queries("GET", groups) == [{"workspace_id": WORKSPACE, "limit": "3", "offset": "0"}]
    assert market.requests[1][2] == {
        "name": "Stancework blocklist",
        "workspace_id": WORKSPACE,
        "description": "blocked",
    }
    assert market.requests[2][2] == {"participant_ids": ["60bf9310e8dec401be6e9615"]}
