"""The admin pages of an aggregated and adjudicated job speak plainly: labels by their names, task types
by name, figures rounded, params and policies as tables (the click-only walk checks every page of the
demo the same way; this one runs in seconds)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from aggregation import services
from aggregation.adjudication import adjudicate
from aggregation.models import AggregationRun, ItemOutcome, WorkerQuality
from corpus.models import ImportedRelease
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus
from tests.home.walk import IDENTIFIERS, raw_output

pytestmark = pytest.mark.django_db
S, U, NV = "SUPPORT", "UNDERMINE", "NOT_VALID"


def visible(html: str) -> str:
    """The page's text as a person reads it: no tags, scripts, styles or hidden form data."""
    html = re.sub(r"(?s)<(script|style|select|textarea)\b.*?</\1>", " ", html)
    html = re.sub(r"(?s)<[^>]*>", "\t", html)
    return re.sub(r"\t[\t\s]*", "\t", html).replace("&quot;", '"').replace("&#x27;", "'")


def test_an_aggregated_and_adjudicated_jobs_admin_pages_show_no_raw_identifiers(admin_client: Client) -> None:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), [[S, S, S], [U, U, U], [S, U, NV], [U, U, NV]], strict=True)))
    services.aggregate_job(job.pk)
    contested = ItemOutcome.objects.filter(job=job).order_by("pk").last()
    quality = WorkerQuality.objects.filter(job=job).first()
    assert contested is not None and quality is not None
    adjudicate(contested.pk, "NOT_VALID", user=None, note="")
    pages = [
        "/admin/aggregation/itemoutcome/",
        f"/admin/aggregation/itemoutcome/{contested.pk}/change/",
        "/admin/aggregation/adjudication/",
        "/admin/aggregation/aggregationrun/",
        f"/admin/aggregation/aggregationrun/{AggregationRun.objects.get(job=job).pk}/change/",
        "/admin/aggregation/workerquality/",
        f"/admin/aggregation/workerquality/{quality.pk}/change/",
        "/admin/annotation/job/",
        f"/admin/annotation/job/{job.pk}/change/",
        "/admin/annotation/item/",
        f"/admin/annotation/item/{contested.item_id}/change/",
        "/admin/annotation/response/",
        "/admin/annotation/assignment/",
        "/admin/annotation/hit/",
        f"/admin/annotation/worker/{quality.worker_id}/change/",
        "/admin/corpus/claim/",
        "/admin/corpus/topic/",
    ]

    found = {}
    for url in pages:
        response = admin_client.get(url)
        assert response.status_code == 200, url
        found[url] = raw_output(visible(response.content.decode()), IDENTIFIERS)

    assert len(found) == len(pages) == 17 and {url: hits for url, hits in found.items() if hits} == {}


def plain_page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return visible(response.content.decode())


def test_an_imported_releases_report_is_a_table_not_json(admin_client: Client) -> None:
    conflict = {
        "kind": "claims", "key": "c7", "release": "Old words", "platform": "New words",
        "changed_by": "person: admin edit by editor", "changed_at": "2025-01-02T03:04:05+00:00",
    }  # fmt: skip
    report = {
        "created": {"claims": 907, "claim clusters": 8092, "claim topics": 1200},
        "updated": {},
        "unchanged": {"evidence": 8092},
        "conflicts": [conflict],
    }
    imported = ImportedRelease.objects.create(version="1.0", checksum="ab" * 32, report=report)

    page = plain_page(admin_client, f"/admin/corpus/importedrelease/{imported.pk}/change/")

    assert raw_output(page, IDENTIFIERS) == [] and '"created"' not in page
    # PostgreSQL's jsonb keeps a mapping's keys in its own order (by length), SQLite in the order written.
    assert "created\tclaims\t907\t" in page and "\tclaim clusters\t8092\t" in page
    assert "changed by\tperson: admin edit by editor" in page and "key\tc7" in page
