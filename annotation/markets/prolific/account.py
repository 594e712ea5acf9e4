"""Where our Prolific money and people live: the project studies are created in, the workspace that owns
it (and pays), and our blocklist, a participant group in that workspace.

Prolific bills a study to the project named at creation ("your first created project" when none
is). The balance that matters is that project's workspace's, so the workspace is read from the
project; PROLIFIC_WORKSPACE_ID, when set, must name the same workspace. A study's filters cannot
change once it is published, but a participant group's members can: every study is created with our
blocklist group as a `participant_group_blocklist` filter, and blocking a worker adds them to it.
"""

from __future__ import annotations

from django.conf import settings

from annotation.market_interface.errors import MarketConfigError
from annotation.markets.prolific.client import ProlificClient

BLOCKLIST_NAME = "Stancework blocklist"
BLOCKLIST_DESCRIPTION = "Participants blocked from Stancework studies (added when staff block a worker)."


def project_id() -> str:
    if not settings.PROLIFIC_PROJECT_ID:
        raise MarketConfigError(
            "PROLIFIC_PROJECT_ID is not set: Prolific would create (and bill) studies "
            "in your first created project"
        )
    return str(settings.PROLIFIC_PROJECT_ID)


def workspace_id(client: ProlificClient) -> str:
    """The workspace that owns the configured project (and whose balance pays for its studies)."""
    owner = client.get_project(project_id()).workspace_id
    configured = settings.PROLIFIC_WORKSPACE_ID
    if configured and configured != owner:
        raise MarketConfigError(
            f"PROLIFIC_WORKSPACE_ID is {configured}, but project {project_id()} belongs to "
            f"workspace {owner}: its balance is the one studies are paid from"
        )
    return owner


def blocklist_group(client: ProlificClient) -> str:
    """Our blocklist group's id in the project's workspace, created the first time it is needed."""
    workspace = workspace_id(client)
    for group in client.list_participant_groups(workspace):
        if group.name == BLOCKLIST_NAME:
            return group.group_id
    return client.create_participant_group(workspace, BLOCKLIST_NAME, BLOCKLIST_DESCRIPTION).group_id


def check_currency(client: ProlificClient, currency: str) -> None:
    """Refuse a job booked in another currency than the workspace pays in, naming both."""
    workspace = client.get_balance(workspace_id(client)).currency
    if workspace and currency and workspace.upper() != currency.upper():
        raise MarketConfigError(
            f"the job is booked in {currency}, but the Prolific workspace pays in {workspace}: refused"
        )
