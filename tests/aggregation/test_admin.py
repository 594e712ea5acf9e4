"""The adjudication queue in the admin, worker soft blocks, and the random-sample accuracy."""

from __future__ import annotations

import pytest
from django.urls import reverse

from aggregation import services
from aggregation.adjudication import adjudicate, adjudication_queue, draw_sample, sample_accuracy
from aggregation.models import Adjudication, AggregationRun, ItemOutcome, WorkerQuality
from annotation.models import Worker
from corpus.models import PerspectiveCluster, Status
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus
from tests.home.test_admin_plain_words import plain_page
from tests.home.walk import IDENTIFIERS, raw_output

pytestmark = pytest.mark.django_db

S, U, NV = "SUPPORT", "UNDERMINE", "NOT_VALID"


@pytest.fixture
def job():
    job = stance_job(make_corpus(claims=2, perspectives=2))
    clear, split, tied, clear_too = keys(job)
    answer(job, {clear: [S, S, S], split: [U, U, S], tied: [S, U, NV], clear_too: [U, U, U]})
    services.aggregate_job(job.pk)
    return job


def outcome_of(job, key):
    return ItemOutcome.objects.get(job=job, item__key=key)


def test_the_change_page_shows_the_item_every_response_with_reliability_and_the_aggregate(admin_client, job):
    outcome = outcome_of(job, keys(job)[2])
    page = admin_client.get(reverse("admin:aggregation_itemoutcome_change", args=[outcome.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert outcome.item.payload["perspective"] in html and outcome.item.payload["claim"] in html
    assert html.count("<td>Not a valid perspective</td>") == 1 and "reliability" in html
    assert "majority <strong>No majority</strong>" in html and "low agreement, no majority" in html
    assert 'name="final_label"' in html


def test_staff_set_the_final_label_which_is_recorded_as_adjudicated_with_who_and_when(
    admin_client, admin_user, job
):
    outcome = outcome_of(job, keys(job)[2])
    url = reverse("admin:aggregation_itemoutcome_change", args=[outcome.pk])

    page = admin_client.post(url, {"final_label": "MILDLY_UNDERMINE", "note": "argues against"})

    assert page.status_code == 302
    decision = Adjudication.objects.get()
    assert (decision.decided_by, decision.old_label, decision.new_label) == (
        admin_user,
        "NO_MAJORITY_LABEL",
        "MILDLY_UNDERMINE",
    )
    assert decision.decided_at is not None and decision.crowd_label == "NO_MAJORITY_LABEL"
    cluster = PerspectiveCluster.objects.get(pk=outcome.item.cluster_id)
    assert (cluster.stance_3, cluster.stance_5, cluster.status) == (U, "MILDLY_UNDERMINE", Status.ADJUDICATED)
    assert cluster.rule.startswith("adjudicated by admin at ")


def test_aggregating_again_keeps_the_experts_label(admin_user, job):
    outcome = outcome_of(job, keys(job)[2])
    adjudicate(outcome.pk, NV, user=admin_user)

    report = services.aggregate_job(job.pk)

    cluster = PerspectiveCluster.objects.get(pk=outcome.item.cluster_id)
    assert (cluster.stance_3, cluster.status, report.adjudicated) == (NV, Status.REJECTED, 1)
    assert Adjudication.objects.get().outcome_id == outcome_of(job, keys(job)[2]).pk


def test_the_queue_holds_contested_items_until_they_are_adjudicated(admin_client, admin_user, job):
    waiting = {o.item.key for o in adjudication_queue(job)}
    assert waiting == set(keys(job)[1:3])

    adjudicate(outcome_of(job, keys(job)[1]).pk, U, user=admin_user)
    listing = admin_client.get(reverse("admin:aggregation_itemoutcome_changelist") + "?queue=waiting")

    assert {o.item.key for o in adjudication_queue(job)} == {keys(job)[2]}
    assert keys(job)[2] in listing.content.decode() and keys(job)[1] not in listing.content.decode()


def test_an_unknown_final_label_is_refused(admin_user, job):
    with pytest.raises(ValueError, match="not one of"):
        adjudicate(outcome_of(job, keys(job)[0]).pk, "MAYBE", user=admin_user)


def test_the_random_sample_gives_the_crowd_vs_expert_accuracy(admin_user, job):
    assert draw_sample(job.pk, 3, seed=1) == 3
    assert draw_sample(job.pk, 3, seed=2) == 3  # drawing again adds nothing
    sampled = list(ItemOutcome.objects.filter(job=job, sampled=True).order_by("pk"))
    adjudicate(sampled[0].pk, sampled[0].label if sampled[0].label in (S, U, NV) else S, user=admin_user)
    adjudicate(sampled[1].pk, NV if sampled[1].label != NV else S, user=admin_user)

    accuracy = sample_accuracy(job)

    expected_agree = int(sampled[0].label in (S, U, NV))
    assert (accuracy.adjudicated, accuracy.agreeing, accuracy.sampled) == (2, expected_agree, 3)


def test_staff_soft_block_workers_from_the_quality_list(
    admin_client, job, django_capture_on_commit_callbacks
):
    quality = WorkerQuality.objects.get(worker__external_id="w2")
    url = reverse("admin:aggregation_workerquality_changelist")

    # The block reaches the worker's market, so it runs as a background operation once the request commits.
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(url, {"action": "soft_block_workers", "_selected_action": [quality.pk]})

    assert list(Worker.objects.filter(blocked=True).values_list("external_id", flat=True)) == ["w2"]
    assert Worker.objects.get(external_id="w2").blocked_reason.startswith(
        f"job {job.pk}: staff decision by admin"
    )


def test_an_older_run_cannot_be_deleted_with_the_adjudicated_outcomes_it_last_wrote(
    admin_client, admin_user, job
):
    # A re-run rewrites only the outcomes that differ: the rest keep the run that last wrote them, so
    # deleting a superseded run would cascade to those outcomes and the experts' adjudications on them.
    # The model refuses it (the outcome's run is restricted) and the admin says why.
    first_run = outcome_of(job, keys(job)[2]).run
    adjudicate(outcome_of(job, keys(job)[2]).pk, NV, user=admin_user)
    services.aggregate_job(job.pk)
    assert outcome_of(job, keys(job)[2]).run == first_run  # unchanged, so not rewritten

    page = admin_client.post(
        reverse("admin:aggregation_aggregationrun_delete", args=[first_run.pk]), {"post": "yes"}
    )

    assert page.status_code == 200 and "Cannot delete aggregation run" in page.content.decode()
    assert AggregationRun.objects.filter(pk=first_run.pk).exists()
    assert Adjudication.objects.filter(outcome__item__key=keys(job)[2]).count() == 1


def test_the_queue_list_reads_whether_each_item_is_adjudicated_in_one_query_for_all_rows(
    admin_client, admin_user, job
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = reverse("admin:aggregation_itemoutcome_changelist")
    adjudicate(outcome_of(job, keys(job)[2]).pk, S, user=admin_user)
    with CaptureQueriesContext(connection) as four_rows:
        page = admin_client.get(url).content.decode()
    assert page.count('class="field-decided"><img src="/static/admin/img/icon-yes.svg" alt="True"') == 1
    assert page.count('class="field-decided"><img src="/static/admin/img/icon-no.svg" alt="False"') == 3

    more = stance_job(make_corpus(claims=2, perspectives=2))
    answer(more, {key: [S, S, S] for key in keys(more)})
    services.aggregate_job(more.pk)
    with CaptureQueriesContext(connection) as eight_rows:
        page = admin_client.get(url).content.decode()
    assert page.count('class="field-decided">') == 8
    assert len(eight_rows) == len(four_rows)


def test_an_adjudications_page_names_its_labels(admin_client, admin_user, job):
    outcome = outcome_of(job, keys(job)[2])
    adjudicate(outcome.pk, "MILDLY_UNDERMINE", user=admin_user)
    decision = Adjudication.objects.get()

    page = plain_page(admin_client, reverse("admin:aggregation_adjudication_change", args=[decision.pk]))

    assert raw_output(page, IDENTIFIERS) == [], page
    for code in ("NO_MAJORITY_LABEL", "MILDLY_UNDERMINE"):
        assert code not in page and job.label_name(code) in page


def test_an_aggregation_runs_rule_names_its_task_type_and_labels(admin_client, job):
    run = AggregationRun.objects.filter(job=job).get()
    assert "{SUPPORT, UNDERMINE}" in run.rule  # the rule as recorded on each result

    urls = [
        reverse("admin:aggregation_aggregationrun_changelist"),
        reverse("admin:aggregation_aggregationrun_change", args=[run.pk]),
    ]
    for page in [plain_page(admin_client, url) for url in urls]:
        assert "{SUPPORT, UNDERMINE}" not in page
        assert f"{job.task_type_name}: " in page
        assert f"majority is {job.label_name(S)} or {job.label_name(U)}" in page
