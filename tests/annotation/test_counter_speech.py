"""Counter-speech selection on real idebate points: the true counterpoint among 3–5, picked with reasons,
graded per worker and per job, each correct answer bonused once through the ledger, exported as CSV."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from annotation.ledger.models import LedgerEntry, RowKind, RowState
from annotation.models import Assignment, Item, Job, Response
from annotation.task_types import get_task_type
from annotation.task_types.base import Answer, TaskTypeError
from annotation.task_types.counter_speech import GUESS, OTHER, REASON_VALUES, SIMILAR
from annotation.web.forms import HitForm
from annotation.work.accuracy import bonus_correct_answers, item_shares, job_accuracy
from annotation.work.assignments import items_of, next_assignment
from annotation.work.jobs import create_job, publish_job, sync_job
from annotation.work.submitting import submit_assignment
from crawler.models import Point
from tests.annotation.doing_work import qualified
from tests.annotation.factories import crawled_counter_speech_questions

pytestmark = pytest.mark.django_db
TOY = "tests.annotation.test_market_contract.ToyMarket"
HIT_INLINE = {"hits-TOTAL_FORMS": "0", "hits-INITIAL_FORMS": "0"}  # the job form's HIT inline, empty


@pytest.fixture
def questions() -> list[dict[str, Any]]:
    return crawled_counter_speech_questions(limit=4)


def counter_speech_job(questions: list[dict[str, Any]], market: str = "inhouse", **params: Any) -> Job:
    job = create_job("counter_speech", {"questions": questions}, market=market, params=params)
    return publish_job(job.pk)


def pick(item: Item, right: bool) -> Answer:
    letters = [candidate["label"] for candidate in item.payload["candidates"]]
    label = item.known_answer if right else next(letter for letter in letters if letter != item.known_answer)
    return Answer(label=label, value={"reasons": [SIMILAR], "other": ""})


def submit(job: Job, worker_name: str, right: dict[str, bool]) -> Assignment:
    """One worker's HIT, right or wrong per item key."""
    assignment = next_assignment(job, qualified(job, worker_name))
    assert assignment is not None
    answers = {item.pk: pick(item, right[item.key]) for item in items_of(assignment)}
    submit_assignment(assignment.pk, answers)
    return Assignment.objects.get(pk=assignment.pk)


# -- the questions ----------------------------------------------------------------------------------


def test_each_item_offers_three_to_five_counterpoints_of_which_the_known_answer_is_its_own(
    questions: list[dict[str, Any]],
) -> None:
    job = counter_speech_job(questions)
    items = list(job.items.order_by("pk"))
    assert len(items) == len(questions)
    for item in items:
        candidates = {c["label"]: c["text"] for c in item.payload["candidates"]}
        assert 3 <= len(candidates) <= 5
        side, position = item.key.rsplit("-", 1)[1][:3], int(item.key.rsplit("-", 1)[1][3:])
        point = Point.objects.get(side=side, position=position, current=True)
        assert candidates[item.known_answer] == "\n\n".join(point.counterpoint)
        assert item.payload["point"].startswith(point.headline)


def test_the_true_counterpoint_is_not_always_in_the_same_place() -> None:
    job = counter_speech_job(crawled_counter_speech_questions(limit=10))
    assert len(set(job.items.values_list("known_answer", flat=True))) > 1


def question(**changes: Any) -> dict[str, Any]:
    return {"key": "k", "motion": "m", "point": "p", "candidates": ["a", "b", "c"], "answer": 0, **changes}


@pytest.mark.parametrize(
    "broken",
    [
        {"questions": "not a list"},
        {"questions": [question(candidates=["a", "b"])]},
        {"questions": [question(candidates=list("abcdef"))]},
        {"questions": [question(answer=3)]},
        {"questions": [question(answer=True)]},
        {"questions": [question(key="")]},
        {"questions": [question(key="k" * 201)]},
        {"questions": [question(point=7)]},
        {"questions": [question(cid="1")]},
        {"questions": [question(), question()]},
        {"questions": [], "claims": "1"},
    ],
)
def test_malformed_questions_are_refused_with_a_clear_error(broken: dict[str, Any]) -> None:
    with pytest.raises(TaskTypeError):
        list(get_task_type("counter_speech").select_items(broken, get_task_type("counter_speech").params()))


# -- the form ---------------------------------------------------------------------------------------


def form_for(item: Item, **fields: Any) -> HitForm:
    data = {f"item-{item.pk}" + (f"-{suffix}" if suffix else ""): value for suffix, value in fields.items()}
    return HitForm(get_task_type("counter_speech"), [item], data)


def test_a_pick_with_reasons_from_the_papers_list_is_an_answer(questions: list[dict[str, Any]]) -> None:
    item = counter_speech_job(questions).items.first()
    assert item is not None
    form = form_for(item, **{"": item.known_answer, "reasons": [SIMILAR, GUESS]})
    assert form.is_valid(), form.errors
    assert form.answers()[item.pk] == Answer(
        label=item.known_answer, value={"reasons": [SIMILAR, GUESS], "other": ""}
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"reasons": [SIMILAR]},  # no pick
        {"": "A"},  # no reason
        {"": "A", "reasons": [OTHER]},  # "other" without words
        {"": "Z", "reasons": [SIMILAR]},  # no such candidate
        {"": "A", "reasons": ["because"]},  # not a reason of the list
    ],
)
def test_a_pick_needs_a_candidate_and_a_reason_and_other_needs_words(
    questions: list[dict[str, Any]], fields: dict[str, Any]
) -> None:
    item = counter_speech_job(questions).items.first()
    assert item is not None
    assert not form_for(item, **fields).is_valid()


def test_other_with_words_is_kept_as_the_workers_reason(questions: list[dict[str, Any]]) -> None:
    item = counter_speech_job(questions).items.first()
    assert item is not None
    form = form_for(item, **{"": "A", "reasons": [OTHER], "other": "  It answers the cost argument.  "})
    assert form.is_valid(), form.errors
    assert form.answers()[item.pk].value == {"reasons": [OTHER], "other": "It answers the cost argument."}


# -- accuracy ---------------------------------------------------------------------------------------


def test_accuracy_is_reported_per_worker_and_per_job_against_the_known_answers(
    questions: list[dict[str, Any]],
) -> None:
    job = counter_speech_job(questions, groups_per_hit=4, workers_per_item=2)
    keys = sorted(job.items.values_list("key", flat=True))
    first = submit(job, "w1", dict.fromkeys(keys, True))
    second = submit(job, "w2", {key: n == 0 for n, key in enumerate(keys)})

    found = job_accuracy(job.pk)

    assert (found.workers[first.worker_id].correct, found.workers[first.worker_id].answered) == (4, 4)
    assert (found.workers[second.worker_id].correct, found.workers[second.worker_id].answered) == (1, 4)
    assert (found.overall.correct, found.overall.answered) == (5, 8)
    assert found.mean_worker_accuracy == pytest.approx((1.0 + 0.25) / 2)
    assert sorted(tally.correct for tally in found.items.values()) == [1, 1, 1, 2]


def test_the_simulated_crowd_is_graded_like_anybody(questions: list[dict[str, Any]]) -> None:
    job = sync_job(counter_speech_job(questions, market="simulated").pk)

    found = job_accuracy(job.pk)

    responses = list(Response.objects.filter(job=job).select_related("item"))
    assert responses and all(response.simulated for response in responses)
    assert found.overall.answered == len(responses)
    assert found.overall.correct == sum(r.label == r.item.known_answer for r in responses)
    assert all(set(r.value["reasons"]) <= set(REASON_VALUES) and r.value["reasons"] for r in responses)


def test_the_job_admin_page_shows_the_accuracy(client: Client, questions: list[dict[str, Any]]) -> None:
    job = counter_speech_job(questions, groups_per_hit=4, workers_per_item=1)
    submit(job, "w1", {key: True for key in job.items.values_list("key", flat=True)})
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))

    page = client.get(f"/admin/annotation/job/{job.pk}/change/").content.decode()

    assert "4/4 answers correct (100%)" in page


# -- bonuses ----------------------------------------------------------------------------------------


@pytest.fixture
def toy_market(settings: Any) -> None:
    settings.ANNOTATION_MARKETS = {**settings.ANNOTATION_MARKETS, "toy": TOY}


def bonus_rows(job: Job) -> list[LedgerEntry]:
    return list(LedgerEntry.objects.filter(job=job, kind=RowKind.BONUS).order_by("pk"))


@pytest.mark.usefixtures("toy_market")
def test_a_correct_answer_yields_exactly_one_bonus_intent_of_its_share_and_a_wrong_one_none(
    questions: list[dict[str, Any]],
) -> None:
    job = counter_speech_job(questions, market="toy", groups_per_hit=4, workers_per_item=1, bonus_cap=10)
    keys = sorted(job.items.values_list("key", flat=True))
    assignment = submit(job, "w1", {key: key == keys[0] for key in keys})

    report = bonus_correct_answers(job.pk)

    rows = bonus_rows(job)
    share = item_shares(job)[assignment.hit_id]
    assert share == assignment.hit.reward / 4  # the bonus doubles the pay of the one right answer
    assert [(r.assignment_id, r.amount, r.state) for r in rows] == [
        (assignment.pk, share, RowState.CONFIRMED)
    ]
    assert keys[0] in rows[0].params["reason"]
    assert (report.paid, report.amount, report.refused) == (1, share, [])


@pytest.mark.usefixtures("toy_market")
def test_running_the_bonuses_again_grants_nothing_twice(questions: list[dict[str, Any]]) -> None:
    from tests.annotation.test_market_contract import TOY_CALLS

    job = counter_speech_job(questions, market="toy", groups_per_hit=2, workers_per_item=1, bonus_cap=20)
    keys = list(job.items.values_list("key", flat=True))
    submit(job, "w1", dict.fromkeys(keys, True))
    submit(job, "w1", dict.fromkeys(keys, True))
    bonus_correct_answers(job.pk)
    rows, calls = bonus_rows(job), len(TOY_CALLS)

    again = bonus_correct_answers(job.pk)

    assert len(rows) == len(keys) == again.paid
    assert bonus_rows(job) == rows
    assert len(TOY_CALLS) == calls  # no second market call either


@pytest.mark.usefixtures("toy_market")
def test_bonuses_stop_at_the_jobs_bonus_cap(questions: list[dict[str, Any]]) -> None:
    job = counter_speech_job(questions, market="toy", groups_per_hit=4, workers_per_item=1, bonus_cap=5)
    submit(job, "w1", {key: True for key in job.items.values_list("key", flat=True)})

    report = bonus_correct_answers(job.pk)

    assert report.paid == 2 and len(report.refused) == 2
    assert sum(row.amount for row in bonus_rows(job)) <= Decimal(5)


def test_a_market_that_pays_no_bonuses_records_none_and_says_so(questions: list[dict[str, Any]]) -> None:
    job = sync_job(counter_speech_job(questions, market="simulated").pk)

    report = bonus_correct_answers(job.pk)

    assert "pays no bonuses" in report.note
    assert not LedgerEntry.objects.filter(job=job).exists()


# -- the export -------------------------------------------------------------------------------------


def test_the_export_has_one_row_per_question_and_loads_with_pandas(
    tmp_path: Path, questions: list[dict[str, Any]]
) -> None:
    job = sync_job(counter_speech_job(questions, market="simulated").pk)
    out = tmp_path / "counter.csv"

    call_command("export_counter_speech", str(job.pk), "--out", str(out))

    frame = pd.read_csv(out)
    items = {item.key: item for item in job.items.all()}
    assert sorted(frame["item"]) == sorted(items)
    found = job_accuracy(job.pk)
    for row in frame.itertuples():
        item = items[row.item]
        assert row.true_answer == item.known_answer
        assert row.point == item.payload["point"]
        assert json.loads(row.candidates) == item.payload["candidates"]
        chosen = json.loads(row.chosen_answers)
        assert len(chosen) == row.answered == found.items[item.pk].answered
        assert row.correct == chosen.count(item.known_answer)
        assert row.accuracy == pytest.approx(row.correct / row.answered)
        assert sum(json.loads(row.reasons).values()) >= row.answered
    assert frame["simulated"].all()


def test_the_export_refuses_an_unknown_job_or_another_task_type(tmp_path: Path) -> None:
    from tests.annotation.factories import make_corpus

    make_corpus(claims=1, perspectives=1)
    stance = create_job("stance", {}, market="inhouse")
    with pytest.raises(CommandError, match="no job"):
        call_command("export_counter_speech", "999999", "--out", str(tmp_path / "x.csv"))
    with pytest.raises(CommandError, match="not counter_speech"):
        call_command("export_counter_speech", str(stance.pk), "--out", str(tmp_path / "x.csv"))


@pytest.mark.usefixtures("toy_market")
def test_a_task_type_whose_known_answers_are_only_hints_earns_no_bonus_for_matching_them() -> None:
    from tests.annotation.doing_work import answers_for
    from tests.annotation.factories import make_corpus

    make_corpus(claims=1, perspectives=2)
    job = publish_job(create_job("stance", {}, market="toy", params={"bonus_cap": 5}).pk)
    assignment = next_assignment(job, qualified(job, "w1"))
    assert assignment is not None
    submit_assignment(assignment.pk, answers_for(assignment))
    assert job_accuracy(job.pk).overall.correct > 0

    report = bonus_correct_answers(job.pk)

    assert "earn no bonus" in report.note
    assert not bonus_rows(job)


@pytest.mark.usefixtures("toy_market")
def test_staff_pay_the_correct_answer_bonuses_from_the_job_admin_after_a_confirmation(
    client: Client, questions: list[dict[str, Any]]
) -> None:
    from tests.annotation.test_market_admin import JOBS, act

    job = counter_speech_job(questions, market="toy", groups_per_hit=4, workers_per_item=1, bonus_cap=10)
    keys = sorted(job.items.values_list("key", flat=True))
    submit(job, "w1", {key: key in keys[:3] for key in keys})
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))

    asked = act(client, JOBS, "bonus_correct_answers", [job.pk])
    assert "Pay a bonus for each correct answer?" in asked.content.decode()
    assert not bonus_rows(job)

    done = act(client, JOBS, "bonus_correct_answers", [job.pk], confirm="Pay the bonuses")

    assert "3 correct answers bonused" in done.content.decode()
    assert len(bonus_rows(job)) == 3


def test_malformed_questions_in_the_job_admin_are_a_form_error_not_a_server_error(client: Client) -> None:
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))
    form = {
        "task_type": "counter_speech",
        "market": "inhouse",
        "filters": json.dumps({"questions": [question(answer=9)]}),
        "params": "{}",
        **HIT_INLINE,
    }

    response = client.post("/admin/annotation/job/add/", form)

    assert response.status_code == 200
    assert "answer must be the index of the true candidate" in response.content.decode()
    assert not Job.objects.exists()


def test_staff_create_a_counter_speech_job_in_the_admin_from_questions(
    client: Client, questions: list[dict[str, Any]]
) -> None:
    client.force_login(User.objects.create_superuser("lead", "lead@example.org", "pw-for-tests-only"))
    filters = json.dumps({"questions": questions})
    form = {
        "task_type": "counter_speech",
        "market": "inhouse",
        "filters": filters,
        "params": "{}",
        **HIT_INLINE,
    }

    response = client.post("/admin/annotation/job/add/", {**form, "params": "{}", "name": "cs"})

    assert response.status_code == 302
    assert Job.objects.get(name="cs").items.count() == len(questions)
