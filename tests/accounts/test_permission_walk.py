"""The permission walk: every admin action and every staff page needs a named permission, and a staff
member without it gets 403 (pages) or no such action (the admin), with nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import Group, Permission, User
from django.db import models
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.roles import ROLES
from aggregation import services
from aggregation.models import ItemOutcome
from annotation.ledger.models import LedgerEntry
from annotation.models import Job
from export.services import build_release
from operations.models import Operation
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

NAMED = {"spend_money": "annotation.spend_money", "start_crawl": "crawler.start_crawl",
         "run_pipeline": "pipeline.run_pipeline",
         "trust_template": "annotation.trust_mturktemplate"}  # fmt: skip


def every_action() -> list[tuple[type[models.Model], admin.ModelAdmin, str, Any]]:
    found = []
    for model, model_admin in admin.site._registry.items():
        for func, name, _ in model_admin._get_base_actions():
            found.append((model, model_admin, name, func))
    return found


def needed(model: type[models.Model], permission: str) -> str:
    if permission in NAMED:
        return NAMED[permission]
    return f"{model._meta.app_label}.{permission}_{model._meta.model_name}"


def staff(*perms: str) -> User:
    user = User.objects.create_user(f"staff{User.objects.count()}", password="x-unused-0", is_staff=True)
    for dotted in perms:
        app_label, codename = dotted.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return User.objects.get(pk=user.pk)  # fresh: no cached permissions


def request_by(user: User) -> Any:
    request = RequestFactory().get("/admin/")
    request.user = user
    return request


def test_every_admin_action_declares_the_permissions_it_needs() -> None:
    undeclared = [
        f"{m.__name__}.{name}"
        for m, _, name, f in every_action()
        if not getattr(f, "allowed_permissions", ())
    ]
    assert undeclared == []
    assert len(every_action()) > 25  # the walk really walks: the project's actions, not only Django's


@pytest.mark.parametrize(
    ("model", "model_admin", "name", "func"), every_action(), ids=lambda v: getattr(v, "__name__", str(v))
)
def test_an_action_is_offered_only_to_staff_with_its_permission(model, model_admin, name, func) -> None:
    view = f"{model._meta.app_label}.view_{model._meta.model_name}"
    required = {needed(model, p) for p in func.allowed_permissions}
    without = staff(*({view} - required))
    assert name not in model_admin.get_actions(request_by(without))
    granted = staff(view, *(needed(model, p) for p in func.allowed_permissions))
    root = User.objects.create_superuser("root", password="x-unused-0")
    offered = name in model_admin.get_actions(request_by(root))  # e.g. no one deletes ledger rows
    assert (name in model_admin.get_actions(request_by(granted))) == offered


def test_money_actions_posted_without_the_permission_write_nothing(client: Client) -> None:
    make_corpus(claims=2, perspectives=1)
    job = stance_job(list(make_corpus(claims=1, perspectives=1)))
    Job.objects.filter(pk=job.pk).update(market="simulated")
    client.force_login(staff("annotation.view_job", "annotation.change_job"))
    changelist = reverse("admin:annotation_job_changelist")
    for action in ("publish_on_market", "extend_on_market", "expire_on_market"):
        page = client.post(
            changelist, {"action": action, "_selected_action": [job.pk], "confirm": "1", "count": "1"}
        )
        assert page.status_code in (200, 302)
    job.refresh_from_db()
    assert job.state == "draft"
    assert not LedgerEntry.objects.exists() and not Operation.objects.exists()


# Values for the URL parameters of the staff pages, filled from the objects the fixture makes.
@pytest.fixture
def objects(settings: Any, tmp_path: Path) -> dict[str, Any]:
    settings.RELEASES_DIR = tmp_path / "releases"
    settings.WORKER_PSEUDONYM_KEY = "walk-tests-pseudonym-key-0123456789"
    claims = make_corpus(claims=2, perspectives=2)
    job = stance_job(claims)
    answer(job, {key: ["SUPPORT", "UNDERMINE", "NOT_VALID"] for key in keys(job)})
    services.aggregate_job(job.pk)
    release = build_release("1.0")
    outcome = ItemOutcome.objects.filter(job=job).first()
    return {"job_id": job.pk, "cid": claims[0].cid, "other_cid": claims[1].cid, "version": release.version,
            "name": release.files[0]["name"], "outcome_id": outcome.pk if outcome else 1}  # fmt: skip


def staff_urls() -> list[tuple[str, URLPattern]]:
    """Every page under the staff apps' prefixes, and the admin's own added pages."""
    found = []

    def walk(patterns: list[Any], prefix: str, namespace: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                inner = entry.namespace or namespace
                walk(entry.url_patterns, prefix + str(entry.pattern), inner)
            elif isinstance(entry, URLPattern):
                found.append((f"{namespace}:{entry.name}", prefix + str(entry.pattern)))

    walk(get_resolver().url_patterns, "", "")
    staff_pages = [(name, route) for name, route in found if name.split(":")[0] in {"aggregation", "export"}]
    added = [(name, route) for name, route in found if name.endswith(("_start", "_live"))]
    return staff_pages + added


def test_the_walk_covers_the_staff_pages() -> None:
    names = {name for name, _ in staff_urls()}
    assert {"aggregation:dashboard", "aggregation:adjudicate", "export:releases", "export:zip",
            "admin:crawler_crawlrun_start", "admin:pipeline_pipelinerun_live"} <= names  # fmt: skip


def test_every_staff_page_refuses_staff_without_its_permission(
    client: Client, objects: dict[str, Any]
) -> None:
    client.force_login(staff())
    refused = {}
    for name, route in staff_urls():
        wanted = [part.split(">")[0].split(":")[-1] for part in route.split("<")[1:]]
        url = reverse(name, kwargs={key: objects[key] for key in wanted})
        refused[name] = (client.get(url).status_code, client.post(url, {"action": "aggregate"}).status_code)
    allowed = {
        name: codes for name, codes in refused.items() if codes[0] != 403 or codes[1] not in (403, 405)
    }
    assert allowed == {}


def test_the_roles_exist_with_their_permissions() -> None:
    for name, perms in ROLES.items():
        group = Group.objects.get(name=name)
        held = {
            f"{p.content_type.app_label}.{p.codename}"
            for p in group.permissions.select_related("content_type")
        }
        assert held == set(perms)
    assert (
        "annotation.spend_money" in ROLES["approver"] and "annotation.spend_money" not in ROLES["researcher"]
    )
    assert ROLES["annotator"] == []


def test_an_approver_may_publish_and_a_researcher_may_not() -> None:
    approver, researcher = staff(), staff()
    approver.groups.add(Group.objects.get(name="approver"))
    researcher.groups.add(Group.objects.get(name="researcher"))
    job_admin = admin.site._registry[Job]
    assert "publish_on_market" in job_admin.get_actions(request_by(User.objects.get(pk=approver.pk)))
    assert "publish_on_market" not in job_admin.get_actions(request_by(User.objects.get(pk=researcher.pk)))


def test_every_model_of_the_project_has_its_admin_permissions_and_some_role_may_view_it() -> None:
    # The installed apps that are folders of this repository (a library's app lives in site-packages).
    project = {
        app.label for app in apps.get_app_configs() if Path(app.path).resolve().parent == settings.BASE_DIR
    }
    held = {dotted for perms in ROLES.values() for dotted in perms}
    ours = [model for model in apps.get_models() if model._meta.app_label in project]
    # Every app of the project has models but those that keep nothing in the database.
    assert {model._meta.app_label for model in ours} == project - {"search", "backups", "api", "home"}
    for model in ours:
        label, name = model._meta.app_label, model._meta.model_name
        assert Permission.objects.filter(content_type__app_label=label, codename=f"view_{name}").exists()
        # Else its admin page, and the inlines that show it, are empty for every role.
        assert f"{label}.view_{name}" in held
