"""What a job's dashboard says is so: its workers, its counts, its charts, and only links that can succeed."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from aggregation import charts, services
from aggregation.adjudication import adjudicate, draw_sample
from aggregation.dashboard import worker_chart
from aggregation.models import ItemOutcome, WorkerQuality
from annotation.ledger.payments import job_payments
from annotation.task_types import get_task_type
from annotation.work.jobs import create_job
from tests.aggregation.jobdata import answer, keys, stance_job
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db

S, U, NV = "SUPPORT", "UNDERMINE", "NOT_VALID"
VOTES = [[S, S, S], [U, U, S], [S, S, NV], [U, U, U]]  # kept, rejected (low ρ), rejected, kept


def dashboard(client: Client, job_id: int) -> str:
    page = client.get(reverse("aggregation:dashboard", args=[job_id]))
    assert page.status_code == 200
    return page.content.decode()


def workers_listed(html: str) -> list[str]:
    table = html[html.index('<table id="workers">') :]
    return re.findall(r"<tr><td>(inhouse worker \d+)</td>", table[: table.index("</table>")])


@pytest.fixture
def answered():
    """A stance job with answers from twelve workers, never aggregated."""
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, {key: [S] * 12 for key in keys(job)})
    return job


def test_a_never_aggregated_job_lists_every_worker_by_id_and_offers_only_what_can_succeed(
    admin_client: Client, answered
) -> None:
    html = dashboard(admin_client, answered.pk)

    ids = sorted(set(answered.responses.values_list("worker_id", flat=True)))
    assert len(ids) == 12 and workers_listed(html) == [f"inhouse worker {pk}" for pk in ids]
    assert "Nobody has answered yet" not in html
    assert reverse("aggregation:adjudicate", args=[answered.pk]) not in html
    assert "Nothing to adjudicate yet: the job&#x27;s answers have not been aggregated." in html
    assert "Aggregate again" not in html and "Aggregate now" in html
    assert "In-house annotators: nothing was paid through a market." in html
    assert f'<p id="payments">{job_payments(answered).sentence()}</p>' in html


def test_the_adjudicate_page_of_a_never_aggregated_job_says_why_and_offers_no_bulk_form(
    admin_client: Client, answered
) -> None:
    page = admin_client.get(reverse("aggregation:adjudicate", args=[answered.pk]))

    assert page.status_code == 200
    html = page.content.decode()
    assert "have not been aggregated" in html and "Accept the model" not in html


def test_a_job_without_an_aggregation_rule_has_no_adjudicate_link_nor_aggregate_form(
    admin_client: Client,
) -> None:
    make_corpus(claims=1, perspectives=2)
    job = create_job("paraphrase_writing", {})

    html = dashboard(admin_client, job.pk)

    assert reverse("aggregation:adjudicate", args=[job.pk]) not in html
    assert 'value="aggregate"' not in html
    assert "answers are written text, not labels that are aggregated" in html


def test_the_sample_accuracy_says_how_many_were_adjudicated_and_how_many_agreed(admin_client: Client) -> None:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), VOTES, strict=True)))
    services.aggregate_job(job.pk)
    draw_sample(job.pk, 4, seed=0)
    user = admin_client.get("/").wsgi_request.user
    outcomes = list(ItemOutcome.objects.filter(job=job, sampled=True).order_by("pk"))
    for index, outcome in enumerate(outcomes):
        crowd = outcome.fine_label
        adjudicate(outcome.pk, crowd if index else (U if crowd == S else S), user=user)

    html = dashboard(admin_client, job.pk)

    assert (
        "75%: the expert agreed with the crowd on 3 of 4 adjudicated items (all 4 sampled items adjudicated)."
        in html
    )
    assert "kept 2, rejected 2</td>" in html


def test_a_chart_with_data_draws_it_and_a_chart_without_says_why(admin_client: Client) -> None:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), VOTES, strict=True)))
    services.aggregate_job(job.pk)
    unrated = [WorkerQuality(agreement=None, reliability=0.9), WorkerQuality(agreement=0.8, reliability=None)]

    figures = re.findall(r"<figure>.*?</figure>", dashboard(admin_client, job.pk), flags=re.S)

    assert len(figures) == 3 and all("<svg" in figure for figure in figures)
    assert worker_chart(unrated).svg == "" and "no reliability per worker" in worker_chart(unrated).why_not
    assert worker_chart([]).why_not == "Drawn once the job is aggregated."


def test_the_label_chart_names_labels_as_the_task_type_declares_them(
    admin_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = stance_job(make_corpus(claims=2, perspectives=2))
    answer(job, dict(zip(keys(job), [[S, S, S], [U, U, U], [S, U, NV], [U, U, U]], strict=True)))
    services.aggregate_job(job.pk)
    drawn: list[dict[str, int]] = []
    monkeypatch.setattr(charts, "label_distribution", lambda counts: drawn.append(counts) or "<svg></svg>")

    dashboard(admin_client, job.pk)

    assert drawn == [{"Opposes": 2, "Supports": 1, "No majority": 1}]
    assert get_task_type("stance").label_name("MILDLY_SUPPORT") == "Mildly supports"


def test_a_decided_label_in_capitals_reads_as_the_workers_label_and_an_unnamed_code_as_words() -> None:
    evidence = get_task_type("evidence_verification")
    assert evidence.label_name("NOT_SUPPORTED") == "Not supported" == evidence.label_name("not_supported")
    assert get_task_type("vast_stance").label_name("STRONGLY_CON") == "Strongly against"
    assert get_task_type("stance").label_name("SOMETHING_ELSE") == "Something else"
