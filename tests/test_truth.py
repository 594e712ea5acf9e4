"""The truth test: a project with a job in every state a job can be in, and every figure its pages show
checked against this test's own queries of the database.

Jobs: a draft; one collecting answers; one paused; one answered but never aggregated; one aggregated;
one aggregated and adjudicated; one by the simulated crowd; and one each at MTurk and Prolific, paid,
rejected and given a bonus through the platform's fake markets. Pages: the home page, every job's
dashboard, an annotator's queue and My work, the release page with its datasheet, and the diff.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db.models import Sum
from django.test import Client
from django.urls import reverse

from aggregation import dashboard, services
from aggregation.adjudication import adjudicate, draw_sample
from aggregation.models import Adjudication, ItemOutcome
from annotation.ledger import payments as ledger_payments
from annotation.ledger.models import LedgerEntry, RowState
from annotation.ledger.payments import Amounts, Payments, job_payments, payments_of
from annotation.markets.prolific.fake import FakeProlific
from annotation.models import Assignment, AssignmentState, Job, JobState, Response, Worker
from annotation.work import people
from annotation.work.jobs import Progress, create_job, job_progress, pause_job, publish_job, sync_job
from config.wording import money
from corpus.models import Claim, ClusterMember, Perspective, PerspectiveCluster, Stance3, Stance5, Status
from export.models import Release
from export.provenance import contributing_jobs
from export.services import DATASHEET, build_release, diff_releases
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus
from tests.annotation.fake_markets import Guard, GuardedMTurk, GuardedProlific
from tests.annotation.market_clients import market_clients
from tests.annotation.paid_jobs import paid_mturk_job, paid_prolific_job

pytestmark = pytest.mark.django_db(transaction=True)
S, U, NV = "SUPPORT", "UNDERMINE", "NOT_VALID"


@dataclass
class Project:
    jobs: dict[str, Job]
    staff: Client
    release: str


@pytest.fixture
def project(settings: Any, tmp_path: Path) -> Iterator[Project]:
    settings.MARKET_PUBLIC_URL = "https://stancework.example"
    settings.PROLIFIC_PROJECT_ID = FakeProlific.PROJECT
    settings.PROLIFIC_WORKSPACE_ID = FakeProlific.WORKSPACE
    settings.RELEASES_DIR = tmp_path / "releases"
    settings.WORKER_PSEUDONYM_KEY = "truth-test-pseudonym-key-0123456789abcdef"
    guard = Guard()
    mturk, prolific = GuardedMTurk(guard), GuardedProlific(guard)
    with market_clients(mturk=mturk.client(attempts=1), prolific=prolific.client(attempts=1)):
        jobs = every_state(mturk, prolific)
    staff = Client()
    staff.force_login(User.objects.create_superuser("truth", "truth@example.org", "pw"))
    build_release("t-1")
    yield Project(jobs, staff, "t-1")
    assert guard.violations == []


def every_state(mturk: GuardedMTurk, prolific: GuardedProlific) -> dict[str, Job]:
    claims = [claim.cid for claim in make_corpus(claims=16, perspectives=2)]
    jobs = {"draft": stance_job(make_corpus(claims=1, perspectives=2))}
    jobs["collecting"] = _answered(claims[0:2], [[S, S]], state=JobState.COLLECTING)
    jobs["paused"] = pause_job(_answered(claims[2:4], [[S]], state=JobState.COLLECTING).pk)
    jobs["never aggregated"] = _answered(claims[4:6], [[S, S, U], [U, U, U]])
    jobs["aggregated"] = _answered(claims[6:8], [[S, S, S], [U, U, S], [S, U, NV], [U, U, U]])
    services.aggregate_job(jobs["aggregated"].pk)
    jobs["adjudicated"] = _answered(claims[8:10], [[S, S, S], [U, U, S], [S, S, NV], [U, U, U]])
    services.aggregate_job(jobs["adjudicated"].pk)
    _adjudicate_a_sample(jobs["adjudicated"])
    simulated = create_job("stance", {"claims": claims[10:12]}, market="simulated")
    jobs["simulated"] = sync_job(publish_job(simulated.pk).pk)
    jobs["mturk"] = paid_mturk_job(mturk, claims[12:14])
    jobs["prolific"] = paid_prolific_job(prolific, claims[14:16])
    return {name: Job.objects.get(pk=job.pk) for name, job in jobs.items()}


def _answered(claims: list[int], votes: list[list[str]], state: str = "") -> Job:
    job = publish_job(create_job("stance", {"claims": claims}, market="inhouse").pk)
    items = keys(job)
    answer(job, {key: votes[i % len(votes)] for i, key in enumerate(items)})
    if state:
        Job.objects.filter(pk=job.pk).update(state=state)
    return Job.objects.get(pk=job.pk)


def _adjudicate_a_sample(job: Job) -> None:
    draw_sample(job.pk, 4, seed=0)
    expert = User.objects.create_user("expert")
    for index, outcome in enumerate(ItemOutcome.objects.filter(job=job, sampled=True).order_by("pk")):
        crowd = outcome.fine_label if outcome.fine_label in (S, U, NV) else S
        adjudicate(outcome.pk, crowd if index else (U if crowd == S else S), user=expert)


# This test's own queries -----------------------------------------------------------------------------


def progress_of(job: Job) -> tuple[int, int, int]:
    done = Assignment.objects.filter(job=job, confirmed=True, state__in=AssignmentState.done()).count()
    wanted = job.hits.aggregate(n=Sum("assignments_wanted"))["n"] or 0
    return done, wanted, Response.objects.filter(job=job).count()


def paid_of(job: Job) -> str:
    """What the market confirmed paying, in words: approved rewards plus the bonus rows that move money."""
    if job.market in ("inhouse", "simulated"):
        crowd = "In-house annotators" if job.market == "inhouse" else "Simulated crowd"
        return f"{crowd}: nothing was paid through a market."
    rows = LedgerEntry.objects.filter(job=job, state=RowState.CONFIRMED)
    rewards = rows.filter(kind="approve").aggregate(s=Sum("hit__reward"))["s"] or Decimal(0)
    moving = "pay" if job.market == "prolific" else "bonus"
    bonuses = rows.filter(kind=moving).aggregate(s=Sum("amount"))["s"] or Decimal(0)
    refunded = rows.filter(kind="reject").aggregate(s=Sum("hit__reward"))["s"] or Decimal(0)
    return f"{money(rewards + bonuses, job.currency)} paid, {money(refunded, job.currency)} refunded"


def accuracy_of(job: Job) -> str:
    sampled = ItemOutcome.objects.filter(job=job, sampled=True).count()
    first: dict[int, bool] = {}
    for outcome_id, crowd, decided in (
        Adjudication.objects.filter(job=job, sampled=True)
        .order_by("decided_at", "pk")
        .values_list("outcome_id", "crowd_label", "decided_label")
    ):
        first.setdefault(outcome_id, crowd == decided)
    if not sampled:
        return "No random sample drawn yet."
    agreeing = sum(first.values())
    return f"the expert agreed with the crowd on {agreeing} of {len(first)} adjudicated items"


def text_of(page: Any) -> str:
    assert page.status_code == 200
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.content.decode())).replace("&#x27;", "'")


# The figures -------------------------------------------------------------------------------------------


def test_every_dashboard_figure_is_the_databases(project: Project) -> None:
    checked = 0
    for name, job in project.jobs.items():
        html = text_of(project.staff.get(reverse("aggregation:dashboard", args=[job.pk])))
        done, wanted, responses = progress_of(job)
        assert f"Progress: {done} of {wanted} assignment" in html, name
        assert f"{responses} response" in html, name
        assert paid_of(job) in html, name
        workers = Response.objects.filter(job=job).values("worker").distinct().order_by().count()
        assert len(re.findall(r"\b(?:inhouse|simulated|mturk|prolific) worker \d+ \d+ ", html)) == workers, (
            name
        )
        if job.item_outcomes.exists():
            assert accuracy_of(job) in html or "No random sample drawn yet." in html, name
        checked += 1
    assert checked == len(project.jobs) == 9


def test_the_home_page_lists_each_collecting_job_with_its_progress(project: Project) -> None:
    home = project.staff.get("/").content.decode()
    section = home.split('id="needs-collecting"')[1].split("</section>")[0]
    collecting = Job.objects.filter(state__in=[JobState.PUBLISHED, JobState.COLLECTING, JobState.PAUSED])
    assert f"Jobs collecting answers, or paused ({collecting.count()})" in section
    assert project.jobs["paused"] in collecting and project.jobs["draft"] not in collecting
    for job in collecting:
        done, wanted, responses = progress_of(job)
        assert (
            f"{done} of {wanted} assignment" in text_of_html(section) and f"{responses} response" in section
        )


def text_of_html(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_release_lists_the_jobs_that_gave_it_answers_and_pays_from_the_ledger(project: Project) -> None:
    page = project.staff.get(reverse("export:release", args=[project.release]))
    html = text_of(page)

    contributed = set(Response.objects.values_list("job_id", flat=True))
    listed = {int(pk) for pk in re.findall(r"job (\d+) \(", html)}
    assert listed == contributed and project.jobs["draft"].pk not in listed
    for name in ("mturk", "prolific"):
        assert paid_of(project.jobs[name]) in html, name
    assert "Simulated crowd: nothing was paid through a market." in html
    assert "In-house annotators: nothing was paid through a market." in html


def reward_times_hits(job: Job) -> Payments:
    """Pay as the old datasheet counted it: every HIT's reward, paid or not."""
    if job.market in ("inhouse", "simulated"):
        return job_payments(job)
    total = sum((hit.reward * hit.assignments_wanted for hit in job.hits.all()), Decimal(0))
    return Payments({job.currency: Amounts(confirmed=total)})


def progress_by_responses(job: Job) -> Progress:
    """Progress counted in responses where assignments are meant (one response per item of a HIT)."""
    shown = job_progress(job)
    return replace(shown, assignments_done=shown.responses)


@pytest.mark.parametrize(
    ("figure", "second_way"),
    [("job_payments", reward_times_hits), ("job_progress", progress_by_responses)],
)
def test_the_truth_test_fails_when_one_figure_is_computed_a_second_way(
    project: Project, monkeypatch: pytest.MonkeyPatch, figure: str, second_way: Any
) -> None:
    monkeypatch.setattr(dashboard, figure, second_way)

    with pytest.raises(AssertionError):
        test_every_dashboard_figure_is_the_databases(project)


# The annotator's pages ---------------------------------------------------------------------------------


def annotator_of(project: Project) -> tuple[Client, User]:
    """Worker w0 (who answered every in-house job) as a logged-in person."""
    person = User.objects.create_user("w0-person")
    Worker.objects.filter(market="inhouse", external_id="w0").update(user=person)
    client = Client()
    client.force_login(person)
    return client, person


def mine_of(job: Job, person: User) -> tuple[int, int]:
    """(submitted, assignments) of the person's own work on the job."""
    own = Assignment.objects.filter(job=job, worker__user=person)
    return own.filter(state__in=AssignmentState.done()).count(), own.count()


def check_queue(html: str, person: User) -> int:
    """Every open in-house job's row says everyone's progress and the person's own, as the database counts
    them; returns how many rows were checked."""
    rows = html.split('<section class="card">')[1:]
    open_jobs = Job.objects.filter(market="inhouse", state__in=JobState.open()).order_by("created")
    served = people.queue_rows(person, open_jobs)  # the function the page calls
    assert len(rows) == len(served) == open_jobs.count() > 0
    for row, job, figures in zip(rows, open_jobs, served, strict=True):
        text = text_of_html(row)
        done, wanted, _ = progress_of(job)
        assert (figures.everyone.assignments_done, figures.everyone.assignments_wanted) == (done, wanted)
        assert f"all annotators: {done} of {wanted} assignments done" in text, job.pk
        submitted, assignments = mine_of(job, person)
        if assignments:
            assert figures.mine is not None and (figures.mine.submitted, figures.mine.assignments) == (
                submitted,
                assignments,
            )
            assert f"You: {submitted} of {assignments} assignment" in text, job.pk
        else:
            assert "You have not started this job." in text, job.pk
    return len(rows)


def test_the_queue_counts_everyones_assignments_and_the_annotators_own(project: Project) -> None:
    client, person = annotator_of(project)
    html = client.get(reverse("annotation:queue")).content.decode()

    assert check_queue(html, person) >= 2


def test_my_work_counts_the_annotators_assignments_and_items(project: Project) -> None:
    client, person = annotator_of(project)
    html = client.get(reverse("annotation:my_work")).content.decode()

    rows = html.split('<section class="card">')[1:]
    worked = Job.objects.filter(assignments__worker__user=person).distinct().order_by("-pk")
    served = people.my_work(person)  # the function the page calls
    assert [job.pk for job, _ in served] == [job.pk for job in worked]
    assert len(rows) == worked.count() >= 5
    for row, job, (_, figures) in zip(rows, worked, served, strict=True):
        text = text_of_html(row)
        submitted, assignments = mine_of(job, person)
        items = Response.objects.filter(job=job, worker__user=person).count()
        assert (figures.submitted, figures.assignments, figures.items) == (submitted, assignments, items)
        assert f"{submitted} of {assignments} assignment" in text and f"{items} items done" in text, job.pk


def test_the_queue_check_fails_when_everyones_progress_is_counted_in_responses(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, person = annotator_of(project)
    monkeypatch.setattr(people, "job_progress", progress_by_responses)
    html = client.get(reverse("annotation:queue")).content.decode()

    with pytest.raises(AssertionError):
        check_queue(html, person)


# The datasheet ------------------------------------------------------------------------------------------


def section_of(markdown: str, heading: str) -> str:
    return markdown.split(f"## {heading}\n\n")[1].split("\n\n## ")[0].strip()


def test_the_datasheet_pays_from_the_ledger_and_counts_the_labels(project: Project, settings: Any) -> None:
    check_datasheet((settings.RELEASES_DIR / project.release / DATASHEET).read_text(), project)


def test_the_datasheet_check_fails_when_pay_is_reward_times_hits(
    project: Project, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger_payments, "job_payments", reward_times_hits)  # what payments_of adds up
    build_release("t-paid-per-hit")

    with pytest.raises(AssertionError):
        check_datasheet((settings.RELEASES_DIR / "t-paid-per-hit" / DATASHEET).read_text(), project)


def check_datasheet(sheet: str, project: Project) -> None:
    pay = section_of(sheet, "Pay")

    assert pay == payments_of(contributing_jobs()).sentence()  # the function the datasheet calls
    markets = [project.jobs["mturk"], project.jobs["prolific"]]
    assert len({job.currency for job in markets}) == 2  # so each currency's sentence is one job's pay
    for job in markets:
        assert f"{paid_of(job)} (rejected work)" in pay, job.market
    assert "In-house annotators: nothing was paid through a market." in pay
    assert "Simulated crowd: nothing was paid through a market." in pay

    workers = Response.objects.values_list("worker_id", "worker__market").distinct().order_by()
    simulated = sum(market == "simulated" for _, market in workers)
    people_and_machines = f"- distinct: {len(workers)}\n- people: {len(workers) - simulated}\n"
    assert section_of(sheet, "Workers").startswith(people_and_machines + f"- simulated: {simulated}\n")
    crowd, expert = Response.objects.count(), Adjudication.objects.count()
    share = f"{crowd / (crowd + expert):.1%}"
    assert f"labels: {crowd} from the crowd ({share}), {expert} from the expert" in sheet


# The diff of two releases -------------------------------------------------------------------------------


def corpus_now() -> dict[str, Any]:
    """What a release built now would hold, by this test's own queries: claims, perspectives, and each
    released claim–perspective pair with its (3-way, 5-way) labels."""
    pairs = ClusterMember.objects.filter(cluster__status__in=Status.released()).values_list(
        "cluster__claim__cid", "perspective__pid", "cluster__stance_3", "cluster__stance_5"
    )
    return {
        "claims": set(Claim.objects.filter(text_missing=False).values_list("cid", flat=True)),
        "perspectives": set(Perspective.objects.values_list("pid", flat=True)),
        "pairs": {(cid, pid): (three, five) for cid, pid, three, five in pairs},
    }


def changes_between(old: dict[str, Any], new: dict[str, Any]) -> dict[str, int]:
    kept = old["pairs"].keys() & new["pairs"].keys()
    return {
        "Claims added": len(new["claims"] - old["claims"]),
        "Claims removed": len(old["claims"] - new["claims"]),
        "Perspectives added": len(new["perspectives"] - old["perspectives"]),
        "Perspectives removed": len(old["perspectives"] - new["perspectives"]),
        "Claim–perspective pairs added": len(new["pairs"].keys() - old["pairs"].keys()),
        "Claim–perspective pairs removed": len(old["pairs"].keys() - new["pairs"].keys()),
        "Claim–perspective pairs relabelled": sum(old["pairs"][pair] != new["pairs"][pair] for pair in kept),
        "Claims that changed split": 0,  # neither release has a split
    }


def test_the_diff_counts_what_changed_between_two_releases(project: Project) -> None:
    before = corpus_now()
    make_corpus(claims=1, perspectives=2, status=Status.KEPT)
    released = PerspectiveCluster.objects.filter(status__in=Status.released()).order_by("pk")
    relabelled, rejected = [cluster.pk for cluster in released[:2]]
    not_valid = {"stance_3": Stance3.NOT_VALID, "stance_5": Stance5.NOT_VALID}
    PerspectiveCluster.objects.filter(pk=relabelled).update(**not_valid)
    PerspectiveCluster.objects.filter(pk=rejected).update(status=Status.REJECTED)
    build_release("t-2")
    expected = changes_between(before, corpus_now())

    page = project.staff.get(reverse("export:diff"), {"a": project.release, "b": "t-2"})
    table = page.content.decode().split("<h2>Changes</h2>")[1].split("</table>")[0]
    shown = {name: int(count) for name, count in re.findall(r"<td>([^<]+)</td><td>(\d+)</td>", table)}
    served = diff_releases(*(Release.objects.get(version=v) for v in (project.release, "t-2")))
    assert shown == dict(served.counted()) == expected
    assert expected["Claims added"] == 1 and expected["Claim–perspective pairs relabelled"] == 1
    assert expected["Claim–perspective pairs removed"] >= 1
