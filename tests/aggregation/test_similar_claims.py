"""Step 2d's starting point: similar claims found by retrieval, linked to the side-by-side view."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from corpus.models import Claim
from search.services import rebuild_index

pytestmark = pytest.mark.django_db

TEXTS = [
    "Vaccination should be compulsory for all children",
    "Parents should decide whether their children are vaccinated",
    "Zoos should be banned",
    "Homework should be abolished in primary schools",
]


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("expert", "e@example.org", "pw-for-tests-only"))
    return client


@pytest.fixture
def claims() -> list[Claim]:
    made = [Claim.objects.create(cid=100 + n, text=text, source="test") for n, text in enumerate(TEXTS)]
    rebuild_index()
    return made


def test_the_clusters_page_links_the_most_similar_claims(staff: Client, claims: list[Claim]) -> None:
    page = staff.get(f"/aggregation/claims/{claims[0].cid}/clusters/").content.decode()
    assert f"/aggregation/claims/{claims[0].cid}/compare/{claims[1].cid}/" in page


def test_the_pairs_page_ranks_the_vaccination_claims_first(staff: Client, claims: list[Claim]) -> None:
    response = staff.get("/aggregation/similar-claims/?n=2")
    rows = response.context["rows"]
    assert {rows[0][0].cid, rows[0][1].cid} == {claims[0].cid, claims[1].cid}
    assert len(rows) <= 2


def test_the_pairs_page_is_for_staff_only(client: Client, claims: list[Claim]) -> None:
    assert client.get("/aggregation/similar-claims/").status_code == 302
