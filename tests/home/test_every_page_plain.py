"""Every page a person can reach shows no raw identifier (issue 41): every admin model's change list,
add page and change pages of every object (a sample of the big tables), and every staff page (home,
jobs, dashboards, adjudication, teams, claims, releases, previews, the diff, the API's pages), read on a
small platform in every state (tests/home/site_data.py).

The click-only browser walk reads the pages it reaches by chance (the first link of each kind, on the
demo's data of that run); this test reads them all, in seconds, and also what a closed <details> folds."""

from __future__ import annotations

from collections.abc import Iterator

import lxml.html
import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import Model
from django.test import Client, RequestFactory
from django.urls import reverse

from accounts.models import Team
from aggregation.adjudication import adjudication_refusal
from annotation.models import Job
from corpus.models import Claim
from export.models import Release
from tests.home.site_data import build_site
from tests.home.walk import IDENTIFIERS, MACHINE_READABLE, raw_output

pytestmark = pytest.mark.django_db
# What no one reads on a page: code, styles, a form's text box (what a person types), a chart's metadata.
UNREAD = "script, style, textarea, template, metadata"
SAMPLE = 6  # objects of a big table: its first and its last few


def page_text(html: str) -> str:
    """The page's text as a person reads it, each element's apart, less what it shows for machines."""
    tree = lxml.html.fromstring(html)
    for element in tree.cssselect(f"{MACHINE_READABLE}, {UNREAD}"):
        element.drop_tree()
    return "\t".join(part.strip() for part in tree.itertext() if part.strip())


def some(model: type[Model]) -> list[object]:
    """The key in its admin's URLs (a token's is its user's) of every object of a small table, of the
    first and last few of a big one."""
    rows = model._default_manager.order_by("pk")
    chosen = list(rows) if rows.count() <= 3 * SAMPLE else [*rows[:SAMPLE], *rows.reverse()[:SAMPLE]]
    return [row.pk for row in chosen]


def admin_pages(user: User) -> Iterator[str]:
    request = RequestFactory().get("/")
    request.user = user
    yield reverse("admin:index")
    yield reverse("admin:crawler_crawlrun_start")
    for model, model_admin in admin.site._registry.items():
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        yield reverse(f"{name}_changelist")
        if model_admin.has_add_permission(request):
            yield reverse(f"{name}_add")
        yield from (reverse(f"{name}_change", args=[key]) for key in some(model))


def staff_pages() -> Iterator[str]:
    yield from ["/", "/jobs/new/", "/teams/", "/aggregation/similar-claims/", "/releases/"]
    yield from ["/releases/diff/?a=1.0&b=1.1", "/annotate/", "/annotate/mine/", "/api/docs/"]
    yield "/api/"  # the API's own answers are JSON, for programs (the walk reads them as such)
    for job in Job.objects.order_by("pk"):
        yield from [f"/jobs/{job.pk}/", f"/aggregation/jobs/{job.pk}/"]
        if not job.teams.exists():  # a team's job: its members' pages
            yield from [f"/annotate/jobs/{job.pk}/", f"/annotate/jobs/{job.pk}/quiz/"]
        if not adjudication_refusal(job):
            yield f"/aggregation/jobs/{job.pk}/adjudicate/"
    yield from (f"/teams/{team.pk}/" for team in Team.objects.all())
    claims = list(Claim.objects.order_by("pk").values_list("cid", flat=True))
    yield from (f"/aggregation/claims/{cid}/clusters/" for cid in claims)
    yield f"/aggregation/claims/{claims[0]}/compare/{claims[1]}/"
    for release in Release.objects.all():
        yield f"/releases/{release.version}/"
        yield from (f"/releases/{release.version}/preview/{file['name']}" for file in release.files)


@pytest.fixture
def site(admin_user: User, settings: object, tmp_path: object) -> list[Job]:
    settings.RELEASES_DIR = tmp_path / "releases"  # type: ignore[attr-defined,operator]
    settings.WORKER_PSEUDONYM_KEY = "every-page-pseudonym-key-0123456789"  # type: ignore[attr-defined]
    return build_site(admin_user)


def test_no_page_a_person_reaches_shows_a_raw_identifier(
    site: list[Job], admin_client: Client, admin_user: User
) -> None:
    found, read = {}, 0
    for url in [*admin_pages(admin_user), *staff_pages()]:
        response = admin_client.get(url)
        assert response.status_code == 200, url
        read += 1
        if "html" in response["Content-Type"]:
            found[url] = raw_output(page_text(response.content.decode()), IDENTIFIERS)

    shown = [f"{url}: {hit}" for url, hits in found.items() for hit in hits]
    assert read > 150 and shown == [], f"{len(shown)} raw forms:\n" + "\n".join(shown)
