"""The corpus admin on the full release: every page renders, list pages run a fixed number of queries."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from corpus.models import Claim, PerspectiveCluster

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def staff(client: Client) -> Client:
    user = User.objects.create_superuser("admin", "admin@example.org", "pw-for-tests-only")
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "url",
    [
        "/admin/corpus/claim/",
        "/admin/corpus/claim/?split__exact=train&source__exact=idebate",
        "/admin/corpus/claim/?topics__id__exact=1",
        "/admin/corpus/claim/?q=vaccination",
        "/admin/corpus/perspectivecluster/",
        "/admin/corpus/perspectivecluster/?status__exact=kept",
        "/admin/corpus/perspective/",
        "/admin/corpus/perspective/?q=children",
        "/admin/corpus/evidence/",
        "/admin/corpus/topic/",
    ],
)
def test_list_pages_render_in_a_fixed_number_of_queries(
    perspectrum_db: Path, staff: Client, url: str
) -> None:
    with CaptureQueriesContext(connection) as queries:
        response = staff.get(url)
    assert response.status_code == 200
    assert len(queries) <= 12, [q["sql"][:120] for q in queries]


def test_claim_page_shows_its_clusters_inline(perspectrum_db: Path, staff: Client) -> None:
    claim = Claim.objects.get(cid=499)
    with CaptureQueriesContext(connection) as queries:
        response = staff.get(f"/admin/corpus/claim/{claim.pk}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Vaccination must be made compulsory" in page
    assert "p3695:" in page and "e3692" in page
    assert len(queries) <= 25


def test_claim_list_shows_the_whole_release(perspectrum_db: Path, staff: Client) -> None:
    response = staff.get("/admin/corpus/claim/?text_missing__exact=0")
    assert response.context["cl"].result_count == 907


def test_cluster_page_renders(perspectrum_db: Path, staff: Client) -> None:
    cluster = PerspectiveCluster.objects.filter(claim__cid=499).first()
    assert cluster is not None
    assert staff.get(f"/admin/corpus/perspectivecluster/{cluster.pk}/change/").status_code == 200
