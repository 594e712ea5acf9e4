"""The task type registry: the built-ins, `ANNOTATION_TASK_TYPES` merged over them, clear errors for a
bad entry, and a task type added from a test module that runs end to end without touching any app."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.checks import run_checks
from django.core.management import call_command
from django.test import override_settings

from aggregation import services as aggregation
from aggregation.adjudication import adjudicate
from aggregation.models import AggregationRun, ItemOutcome, RunState
from annotation.admin import JobCreationForm
from annotation.models import Job, JobState
from annotation.task_types import get_task_type, task_type_choices, task_type_slugs
from annotation.task_types.base import TaskTypeError
from annotation.work.jobs import create_job, publish_job, sync_job
from corpus.models import Perspective, Status
from tests.annotation.factories import make_corpus
from tests.annotation.toy_task_type import FLAG

TOY = {"off_topic": "tests.annotation.toy_task_type.OffTopicTaskType"}
BUILT_IN = [
    "stance",
    "paraphrase_writing",
    "paraphrase_verification",
    "evidence_verification",
    "topic_tagging",
    "mturk_template",
    "vast_stance",
    "counter_speech",
]
# Every modelled worker answers the known label: the outcome is known before aggregating.
EXACT_CROWD = {"crowd": {"size": 6, "accuracy_low": 1.0, "accuracy_high": 1.0, "spammer_share": 0.0}}


def test_the_built_in_task_types_are_registered_under_their_slugs():
    assert task_type_slugs() == BUILT_IN
    assert [get_task_type(slug).slug for slug in BUILT_IN] == BUILT_IN


def test_an_unknown_task_type_is_refused_naming_the_known_ones():
    with pytest.raises(
        TaskTypeError, match=r"unknown task type 'nope'; known: \['counter_speech', 'evidence_verification'"
    ):
        get_task_type("nope")


@override_settings(ANNOTATION_TASK_TYPES={"gone": "tests.annotation.no_such_module.GoneTaskType"})
def test_a_path_to_a_missing_module_is_a_clear_error():
    with pytest.raises(
        TaskTypeError, match=r"task type 'tests.annotation.no_such_module.GoneTaskType' cannot"
    ):
        get_task_type("gone")


@override_settings(ANNOTATION_TASK_TYPES={"gone": "tests.annotation.no_such_module.GoneTaskType"})
def test_the_system_check_reports_a_task_type_that_cannot_be_loaded():
    errors = [message for message in run_checks() if message.id == "annotation.E001"]

    assert [error.msg for error in errors] == [
        "task type 'tests.annotation.no_such_module.GoneTaskType' cannot be loaded "
        "(No module named 'tests.annotation.no_such_module')"
    ]


@override_settings(ANNOTATION_TASK_TYPES=TOY)
def test_the_system_check_passes_the_registered_task_types():
    assert [message for message in run_checks() if message.id == "annotation.E001"] == []


@override_settings(ANNOTATION_TASK_TYPES={"odd": "tests.annotation.toy_task_type.NoSuchClass"})
def test_a_path_to_a_missing_class_is_a_clear_error():
    with pytest.raises(TaskTypeError, match="cannot be loaded"):
        get_task_type("odd")


@override_settings(ANNOTATION_TASK_TYPES={"not_a_task_type": "tests.annotation.toy_task_type.NotATaskType"})
def test_a_path_to_something_other_than_a_task_type_is_refused():
    with pytest.raises(TaskTypeError, match="is not a TaskType subclass"):
        get_task_type("not_a_task_type")


@override_settings(ANNOTATION_TASK_TYPES={"renamed": TOY["off_topic"]})
def test_a_slug_that_differs_from_the_class_slug_is_refused():
    with pytest.raises(TaskTypeError, match="whose slug is 'off_topic'"):
        get_task_type("renamed")


@override_settings(ANNOTATION_TASK_TYPES=TOY)
def test_a_task_type_from_settings_joins_the_built_ins_in_the_admin_choices():
    assert task_type_slugs() == [*BUILT_IN, "off_topic"]
    assert ("off_topic", "Off-topic check") in JobCreationForm().fields["task_type"].choices
    assert ("off_topic", "Off-topic check") in task_type_choices()


@pytest.mark.django_db
@override_settings(ANNOTATION_TASK_TYPES=TOY)
def test_the_create_job_command_creates_a_job_of_a_task_type_from_settings():
    claims = make_corpus(claims=2, perspectives=2)
    out = StringIO()

    call_command("create_job", "off_topic", "--claims", ",".join(str(c.cid) for c in claims), stdout=out)

    job = Job.objects.get()
    assert job.task_type == "off_topic" and job.items.count() == 4
    assert "4 items in 1 HIT × 3 workers" in out.getvalue()


@pytest.mark.django_db
@override_settings(ANNOTATION_TASK_TYPES=TOY)
def test_a_task_type_from_settings_is_aggregated_written_back_and_adjudicated_through_its_hooks():
    claims = make_corpus(claims=2, perspectives=2)
    weather = claims[0].clusters.get(position=0).perspectives.get()
    Perspective.objects.filter(pk=weather.pk).update(text="The weather was lovely yesterday.")
    job = create_job("off_topic", {"claims": [c.cid for c in claims]}, market="simulated", params=EXACT_CROWD)
    publish_job(job.pk)
    assert sync_job(job.pk).state == JobState.COMPLETE

    report = aggregation.aggregate_job(job.pk)

    assert (report.items, report.kept, report.rejected) == (4, 1, 3)
    assert report.rule == "off-topic: rho(off-topic) >= 0.5 and majority in {OFF_TOPIC}"
    assert set(Perspective.objects.filter(quality_flag=FLAG).values_list("pk", flat=True)) == {weather.pk}
    outcomes = {o.item.perspective_id: o for o in ItemOutcome.objects.filter(job=job).select_related("item")}
    assert outcomes[weather.pk].reference_label == "OFF_TOPIC" and not outcomes[weather.pk].contested

    on_topic = next(o for pk, o in outcomes.items() if pk != weather.pk)
    expert = get_user_model().objects.create_user("expert")
    record = adjudicate(on_topic.pk, "OFF_TOPIC", user=expert)
    aggregation.aggregate_job(job.pk)  # the crowd's "on topic" does not undo the expert's decision

    assert (record.old_status, record.new_status, record.decided_label) == (
        "rejected",
        Status.ADJUDICATED,
        "OFF_TOPIC",
    )
    flagged = set(Perspective.objects.filter(quality_flag=FLAG).values_list("pk", flat=True))
    assert flagged == {weather.pk, on_topic.item.perspective_id}


@pytest.mark.django_db
def test_a_job_whose_task_type_is_no_longer_registered_fails_to_aggregate_with_the_reason():
    with override_settings(ANNOTATION_TASK_TYPES=TOY):
        job = create_job("off_topic", {"claims": [make_corpus(claims=1)[0].cid]})

    with pytest.raises(aggregation.AggregationError, match="unknown task type 'off_topic'"):
        aggregation.aggregate_job(job.pk)

    assert AggregationRun.objects.get(job=job).state == RunState.FAILED
    assert not aggregation.has_aggregation("off_topic")


@override_settings(ANNOTATION_TASK_TYPES=TOY)
def test_only_task_types_that_declare_a_rule_are_aggregated():
    assert aggregation.has_aggregation("off_topic") and aggregation.has_aggregation("topic_tagging")
    assert not aggregation.has_aggregation("paraphrase_writing")
