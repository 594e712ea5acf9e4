"""The crawl admin: staff start a crawl (queued, launched through Celery) and see its progress."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from crawler import ingest, reporting, services, summary
from crawler.models import CrawlRun, Debate, Drop
from crawler.parsing import parse_debate
from crawler.reporting import UNCHANGED
from crawler.services import STOP_SECONDS
from tests.crawler.test_ingest import SMOKERS, prepared

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client() -> Client:
    user = get_user_model().objects.create_superuser("admin", "admin@example.org", "pw-for-tests")
    client = Client()
    client.force_login(user)
    return client


def test_staff_start_a_crawl_that_is_launched_after_commit(
    staff_client: Client, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks
) -> None:
    launched: list[int] = []

    def launch(run_id: int, saved_pages: bool = False) -> int:
        launched.append(run_id)
        return 1

    # Launching spawns `manage.py crawl`; here we only check the admin asks for it, once committed.
    monkeypatch.setattr(services, "launch_crawl", launch)
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            reverse("admin:crawler_crawlrun_start"), {"site": "procon", "archive": "2015:2019", "limit": "20"}
        )
    run = CrawlRun.objects.get()
    assert response.status_code == 302
    assert (run.site, run.mode, run.archive_from, run.limit) == ("procon", "archive", "2015", 20)
    assert launched == [run.pk]


def test_a_crawl_of_the_saved_pages_serves_them_to_its_process(
    staff_client: Client, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks, tmp_path
) -> None:
    (tmp_path / "idebate" / "pages").mkdir(parents=True)
    monkeypatch.setattr(services.settings, "SHARED_FIXTURES_DIR", tmp_path)
    started: list[list[str]] = []

    def start(run_id: int, env: dict[str, str] | None = None, extra: list[str] | None = None) -> object:
        started.append(list(extra or []))
        return type("Process", (), {"pid": 1})()

    # Starting spawns `manage.py crawl`; here we check what it is started with.
    monkeypatch.setattr(services, "start_crawl_process", start)
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            reverse("admin:crawler_crawlrun_start"), {"site": "idebate", "saved_pages": "on"}
        )

    assert response.status_code == 302
    assert started == [["--serve-saved-pages", str(tmp_path / "idebate" / "pages")]]


def test_saved_pages_of_another_site_are_refused_on_the_form(staff_client: Client) -> None:
    response = staff_client.post(
        reverse("admin:crawler_crawlrun_start"), {"site": "procon", "saved_pages": "on"}
    )

    assert response.status_code == 200
    assert "saved pages exist for idebate only" in response.content.decode()
    assert not CrawlRun.objects.exists()


def test_a_bad_archive_range_is_refused_by_the_form(staff_client: Client) -> None:
    response = staff_client.post(
        reverse("admin:crawler_crawlrun_start"), {"site": "idebate", "archive": "yesterday"}
    )
    assert response.status_code == 200
    assert CrawlRun.objects.count() == 0


def test_the_run_list_shows_progress(staff_client: Client) -> None:
    run = services.create_run("idebate")
    reporting.start_run(run.pk, pid=os.getpid())  # as its crawl does on opening
    reporting.save_progress(run.pk, {"response_received_count": 31, "stancework/ingested": 9})
    page = staff_client.get(reverse("admin:crawler_crawlrun_changelist")).content.decode()
    assert "Start a crawl" in page
    assert ">31<" in page and ">9<" in page


def test_stop_states_the_bound_the_crawl_keeps(staff_client: Client) -> None:
    run = services.create_run("idebate")
    reporting.start_run(run.pk, pid=os.getpid())
    changelist = reverse("admin:crawler_crawlrun_changelist")
    response = staff_client.post(
        changelist, {"action": "stop_crawls", "_selected_action": [run.pk]}, follow=True
    )
    assert f"Asked 1 crawl(s) to stop: each stops within {STOP_SECONDS} s" in response.content.decode()
    assert not reporting.run_may_go_on(run.pk)


def test_non_staff_cannot_start_a_crawl() -> None:
    response = Client().get(reverse("admin:crawler_crawlrun_start"))
    assert response.status_code == 302
    assert "login" in response["Location"]


def test_a_second_crawl_of_an_active_site_is_refused_on_the_form_not_with_a_500(staff_client: Client) -> None:
    active = services.create_run("idebate")  # queued moments ago: not dead yet
    response = staff_client.post(reverse("admin:crawler_crawlrun_start"), {"site": "idebate"})
    assert response.status_code == 200
    assert f"already active (run {active.pk})" in response.content.decode()
    assert CrawlRun.objects.count() == 1


def test_a_crawl_of_saved_pages_says_so_and_its_statistics_are_a_folded_table(staff_client: Client) -> None:
    run = CrawlRun.objects.create(
        site="idebate",
        start_urls=["http://127.0.0.1:8765/debatabase/all"],
        pid_started=1795930610.29,
        stats={"downloader/request_count": 53, "elapsed_time_seconds": 1.234567, "finish_reason": "finished"},
    )
    live = CrawlRun.objects.create(site="debatewise", status="finished")

    page = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).content.decode()
    home = staff_client.get("/").content.decode()

    assert "saved pages" in page and "Live" not in page
    assert "1795930610.29" not in page and "2026-11-29 05:36:50 UTC" in page
    assert (
        "<details><summary>3 figures</summary>" in page
        and "<th>elapsed time seconds</th><td>1.23</td>" in page
    )
    assert "{&#x27;" not in page and "{'" not in page
    assert (
        f"crawl {run.pk}: idebate (saved pages)" in home
        and f"crawl {live.pk}: debatewise (live site)" in home
    )


def crawled_once() -> tuple[CrawlRun, str]:
    """A run that fetched and ingested one saved idebate page; the debate's URL."""
    record = parse_debate("idebate", SMOKERS.read_bytes(), "https://idebate.org/x")
    stored = services.store_page(None, "idebate", record.url, SMOKERS.read_bytes(), record.url)
    run = services.create_run("idebate")
    ingest.ingest_debate(record, prepared(record), stored.version_id, run.pk)
    return run, record.url


def test_a_runs_page_links_its_debates_their_claims_and_a_job_over_them(staff_client: Client) -> None:
    run, _ = crawled_once()
    debate = Debate.objects.get()

    page = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).content.decode()

    assert reverse("admin:crawler_debate_change", args=[debate.pk]) in page
    assert reverse("admin:corpus_claim_change", args=[debate.claim.pk]) in page
    assert f"/jobs/new/?claims={debate.claim.cid}&amp;task_type=stance" in page


def test_a_recrawls_page_lists_the_debates_it_found_unchanged(staff_client: Client) -> None:
    first, url = crawled_once()
    CrawlRun.objects.filter(pk=first.pk).update(status="finished")
    again = services.create_run("idebate")
    services.store_page(again.pk, "idebate", url, SMOKERS.read_bytes(), url)  # read again, unchanged
    debate = Debate.objects.get()

    page = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[again.pk])).content.decode()

    assert reverse("admin:corpus_claim_change", args=[debate.claim.pk]) in page
    assert services.run_claim_ids(again.pk) == []  # what a pipeline hands on: only what the run wrote


def test_a_runs_page_shows_the_lines_the_crawl_command_prints(staff_client: Client) -> None:
    before = CrawlRun.objects.create(site="idebate", status="stopped", limit=5, items=2)
    run = CrawlRun.objects.create(
        site="idebate",
        start_urls=["http://127.0.0.1:8765/debatabase/all"],
        status="finished",
        limit=5,
        resumed_from=before,
        pages=9,
        items=3,
        drops=3,
        stats={
            "stancework/pages_new": 6,
            "stancework/pages_unchanged": 2,
            UNCHANGED: 1,
            "stancework/debates_created": 2,
            "stancework/debates_updated": 1,
        },
    )
    for reason in ("no_points", "no_points", "duplicate_in_run"):
        Drop.objects.create(run=run, url="https://idebate.org/x", reason=reason)

    page = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).content.decode()

    lines = [*summary.stage_lines(run), summary.closing_line(run)]
    assert lines == [
        "fetch: 9 pages fetched: 8 stored (6 new, 2 unchanged since the last crawl), 1 not stored "
        "(robots.txt, error answers); 0 requests failed",
        "parse: 7 debate pages read: 5 debates, 2 dropped (no points 2)",
        "ingest: 3 debates ingested of at most 3 (--limit 5, 2 of them ingested by the runs it resumed): "
        "2 new, 1 changed; 1 unchanged since the last crawl; 1 dropped (duplicate in run 1)",
        f"crawl {run.pk} idebate (saved pages): finished; pages 9, debates ingested 3, unchanged 1, "
        "drops 3, errors 0",
    ]
    assert all(f"<li>{escape(line)}</li>" in page for line in lines)
