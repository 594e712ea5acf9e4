"""The adjudication page made for speed: JSON items, decisions without a page load, topics, the bulk
acceptance of the model's label, the permission it needs, and lists that show the items' texts."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from aggregation import services
from aggregation.adjudication import adjudication_queue, draw_sample
from aggregation.models import Adjudication, ItemOutcome
from annotation.models import Response
from annotation.work.jobs import create_job
from corpus.models import ClaimTopic, PerspectiveCluster, Status, Topic
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, U, NV = "SUPPORT", "UNDERMINE", "NOT_VALID"


@pytest.fixture
def job() -> Any:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    clear, split, tied, clear_too = keys(job)
    answer(job, {clear: [S, S, S], split: [U, U, S], tied: [S, U, NV], clear_too: [U, U, U]})
    services.aggregate_job(job.pk)
    return job


@pytest.fixture
def adjudicator(client: Client) -> tuple[Client, User]:
    user = User.objects.create_user("expert", password="x-unused-0", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="add_adjudication"))
    client.force_login(user)
    return client, user


def url(name: str, *args: int) -> str:
    return reverse(f"aggregation:{name}", args=args)


def waiting(job: Any) -> list[int]:
    return list(adjudication_queue(job).order_by("pk").values_list("pk", flat=True))


def decision(outcome: int, **given: Any) -> dict[str, Any]:
    """A decision's form as the page posts it: with the key of the item it shows."""
    return {**given, "item": ItemOutcome.objects.get(pk=outcome).item.key}


def test_the_page_serves_the_first_waiting_item_with_everything_an_expert_weighs(adjudicator, job) -> None:
    client, _ = adjudicator
    assert client.get(url("adjudicate", job.pk)).status_code == 200
    data = client.get(url("adjudicate_item", job.pk)).json()
    outcome = ItemOutcome.objects.get(pk=waiting(job)[0])
    assert data["outcome"] == outcome.pk and data["left"] == 2
    assert ["perspective", outcome.item.payload["perspective"]] in data["texts"]
    assert ["claim", outcome.item.payload["claim"]] in data["texts"]
    assert sorted(r["label"] for r in data["responses"]) == sorted(
        Response.objects.filter(item=outcome.item).values_list("label", flat=True)
    )
    assert all(r["reliability"] is not None for r in data["responses"])
    assert data["model"] == {"label": outcome.model_label, "posterior": outcome.model_confidence}
    assert [value for value, _ in data["choices"]] == [S, "MILDLY_SUPPORT", "MILDLY_UNDERMINE", U, NV]
    assert data["multiple"] is False
    # Shown by name, sent by code: the choices and every label on the page have their names.
    assert data["choices"][1] == ["MILDLY_SUPPORT", "Mildly supports"]
    assert {data["names"][r["label"]] for r in data["responses"]} <= {name for _, name in data["choices"]}


def test_skipping_moves_on_and_wraps_around_to_the_skipped_item(adjudicator, job) -> None:
    client, _ = adjudicator
    first, second = waiting(job)
    assert client.get(url("adjudicate_item", job.pk), {"after": first}).json()["outcome"] == second
    assert client.get(url("adjudicate_item", job.pk), {"after": second}).json()["outcome"] == first


def test_a_decision_writes_the_corpus_and_the_next_item_follows(adjudicator, job) -> None:
    client, user = adjudicator
    first, second = waiting(job)
    outcome = ItemOutcome.objects.get(pk=first)

    reply = client.post(
        url("adjudicate_decide", job.pk, first), decision(first, label="MILDLY_UNDERMINE", note="sarcasm")
    )

    assert reply.status_code == 200 and reply.json() == {
        "decided": "MILDLY_UNDERMINE",
        "status": "adjudicated",
        "left": 1,
    }
    record = Adjudication.objects.get()
    assert (record.outcome_id, record.decided_by, record.note) == (first, user, "sarcasm")
    cluster = PerspectiveCluster.objects.get(pk=outcome.item.cluster_id)
    assert (cluster.stance_3, cluster.stance_5, cluster.status) == (U, "MILDLY_UNDERMINE", Status.ADJUDICATED)
    assert client.get(url("adjudicate_item", job.pk), {"after": first}).json()["outcome"] == second
    back = client.get(url("adjudicate_item", job.pk), {"outcome": first}).json()
    assert back["current"] == "MILDLY_UNDERMINE" and back["adjudicated"] is True


@pytest.mark.parametrize("labels", [[], ["SUPPORT", "UNDERMINE"], ["support"], ["NO_MAJORITY_LABEL"]])
def test_a_label_the_task_does_not_offer_is_refused_and_nothing_is_written(adjudicator, job, labels) -> None:
    client, _ = adjudicator
    reply = client.post(
        url("adjudicate_decide", job.pk, waiting(job)[0]), decision(waiting(job)[0], label=labels)
    )
    assert reply.status_code == 400 and reply.json()["error"]
    assert not Adjudication.objects.exists()


@pytest.mark.parametrize("query", [{"after": "x"}, {"after": "0"}, {"outcome": "1" * 40}, {"after": "1\x00"}])
def test_forged_ids_get_a_400(adjudicator, job, query) -> None:
    client, _ = adjudicator
    assert client.get(url("adjudicate_item", job.pk), query).status_code == 400


def test_a_page_showing_another_item_decides_nothing(adjudicator, job) -> None:
    # A page older than the ids it posts (outcomes re-keyed by migration 0012, or a stale queue).
    client, _ = adjudicator
    first, second = waiting(job)[:2]
    stale = client.post(url("adjudicate_decide", job.pk, first), decision(second, label=S))
    unnamed = client.post(url("adjudicate_decide", job.pk, first), {"label": S})
    assert (stale.status_code, unnamed.status_code) == (409, 400)
    assert "reload" in stale.json()["error"] and not Adjudication.objects.exists()


def test_an_outcome_of_another_job_is_not_found(adjudicator, job) -> None:
    client, _ = adjudicator
    other = stance_job(make_corpus(claims=1, perspectives=1))
    outcome = waiting(job)[0]
    assert client.get(url("adjudicate_item", other.pk), {"outcome": outcome}).status_code == 404
    assert (
        client.post(url("adjudicate_decide", other.pk, outcome), decision(outcome, label=S)).status_code
        == 404
    )
    assert not Adjudication.objects.exists()


def test_staff_without_the_permission_get_403_and_write_nothing(client: Client, job) -> None:
    client.force_login(User.objects.create_user("viewer", password="x-unused-0", is_staff=True))
    first = waiting(job)[0]
    assert client.get(url("adjudicate", job.pk)).status_code == 403
    assert client.get(url("adjudicate_item", job.pk)).status_code == 403
    assert client.post(url("adjudicate_decide", job.pk, first), decision(first, label=S)).status_code == 403
    assert client.post(url("adjudicate_accept_model", job.pk), {"threshold": "0.5"}).status_code == 403
    assert not Adjudication.objects.exists()


def test_anonymous_visitors_are_sent_to_the_login(client: Client, job) -> None:
    reply = client.get(url("adjudicate", job.pk))
    assert reply.status_code == 302 and "/admin/login/" in reply["Location"]


def test_the_model_label_is_accepted_in_bulk_above_a_posterior_recorded_with_the_threshold(
    adjudicator, job
) -> None:
    client, user = adjudicator
    outcomes = list(ItemOutcome.objects.filter(pk__in=waiting(job)).order_by("model_confidence"))
    low, high = outcomes[0], outcomes[-1]
    ItemOutcome.objects.filter(pk=low.pk).update(model_confidence=0.6)
    ItemOutcome.objects.filter(pk=high.pk).update(model_confidence=0.97)

    reply = client.post(url("adjudicate_accept_model", job.pk), {"threshold": "0.9"})

    assert reply.status_code == 302
    record = Adjudication.objects.get()
    assert (record.outcome_id, record.new_label, record.decided_by) == (high.pk, high.model_label, user)
    assert "posterior 0.970 ≥ 0.9" in record.note
    assert waiting(job) == [low.pk]


def test_a_threshold_below_a_half_is_refused(adjudicator, job) -> None:
    client, _ = adjudicator
    client.post(url("adjudicate_accept_model", job.pk), {"threshold": "0.1"})
    assert not Adjudication.objects.exists()


@pytest.fixture
def topic_job() -> Any:
    claims = make_corpus(claims=2, perspectives=1)
    for slug in ("politics", "economy", "law"):
        Topic.objects.get_or_create(slug=slug, defaults={"name": slug})
    job = create_job("topic_tagging", {"claims": [c.cid for c in claims]})
    first, second = keys(job)
    answer(job, {first: ["politics,law", "politics"], second: ["economy", "law"]})
    services.aggregate_job(job.pk)
    draw_sample(job.pk, 2)
    return job


def test_topic_items_are_adjudicated_by_choosing_topics_from_the_list(adjudicator, topic_job) -> None:
    client, _ = adjudicator
    first = waiting(topic_job)[0]
    data = client.get(url("adjudicate_item", topic_job.pk), {"outcome": first}).json()
    assert data["multiple"] is True and ["law", "Law"] in data["choices"]

    reply = client.post(
        url("adjudicate_decide", topic_job.pk, first), decision(first, label=["law", "economy"])
    )

    assert reply.status_code == 200
    claim = ItemOutcome.objects.get(pk=first).item.claim
    assert list(
        ClaimTopic.objects.filter(claim=claim).order_by("position").values_list("topic__slug", flat=True)
    ) == [slug for slug, _ in data["choices"] if slug in {"law", "economy"}]
    assert Adjudication.objects.get().new_status == Status.ADJUDICATED


def test_a_topic_outside_the_list_is_refused(adjudicator, topic_job) -> None:
    client, _ = adjudicator
    reply = client.post(
        url("adjudicate_decide", topic_job.pk, waiting(topic_job)[0]),
        decision(waiting(topic_job)[0], label=["astrology"]),
    )
    assert reply.status_code == 400 and not Adjudication.objects.exists()


def test_the_admin_offers_topic_outcomes_the_topic_list(admin_client, topic_job) -> None:
    outcome = ItemOutcome.objects.get(pk=waiting(topic_job)[0])
    html = admin_client.get(
        reverse("admin:aggregation_itemoutcome_change", args=[outcome.pk])
    ).content.decode()
    assert 'type="checkbox" name="final_label" value="law"' in html
    admin_client.post(
        reverse("admin:aggregation_itemoutcome_change", args=[outcome.pk]), {"final_label": ["politics"]}
    )
    assert Adjudication.objects.get().new_label == "politics"


def test_the_lists_show_the_items_texts_and_find_them_by_text(admin_client, job) -> None:
    outcome = ItemOutcome.objects.get(pk=waiting(job)[0])
    perspective = outcome.item.payload["perspective"]
    changelist = reverse("admin:aggregation_itemoutcome_changelist")
    listed = admin_client.get(changelist).content.decode()
    assert perspective[:40] in listed
    words = " ".join(perspective.split()[:3])
    found = admin_client.get(changelist, {"q": words}).content.decode()
    assert outcome.item.key in found
    assert (
        admin_client.get(changelist, {"q": "no item says this zqxj"}).content.decode().count("field-item_key")
        == 0
    )


def test_the_dashboard_and_the_change_page_link_the_fast_page(admin_client, job) -> None:
    page = url("adjudicate", job.pk)
    assert page in admin_client.get(url("dashboard", job.pk)).content.decode()
    outcome = waiting(job)[0]
    change = admin_client.get(
        reverse("admin:aggregation_itemoutcome_change", args=[outcome])
    ).content.decode()
    assert f"{page}?outcome={outcome}" in change
