"""The pipeline's crawl step: a crawl that ended with some requests failed still hands on what it crawled."""

from __future__ import annotations

import pytest

from crawler.models import CrawlRun, RunStatus
from pipeline import services
from pipeline.models import StepState

pytestmark = pytest.mark.django_db


def _run_with_crawl(status: str, message: str) -> int:
    run = services.create_run("test", {"crawl": {"site": "idebate", "start_urls": ["http://127.0.0.1:9/"]}})
    crawl = CrawlRun.objects.create(site="idebate", status=status, message=message)
    step = run.steps.get(name="crawl")
    step.output = {"crawl_run": crawl.pk}
    step.save()
    return run.pk


def test_a_crawl_finished_with_errors_is_done_and_says_its_errors() -> None:
    run_id = _run_with_crawl(RunStatus.FINISHED_WITH_ERRORS, "2 requests failed for good (2 TimeoutError)")

    step = services.run_step(run_id, "crawl")

    assert step.state == StepState.DONE
    assert "2 requests failed for good" in step.message
    assert CrawlRun.objects.count() == 1  # no second crawl started


def test_a_crawl_finished_cleanly_is_done_without_an_error_count() -> None:
    run_id = _run_with_crawl(RunStatus.FINISHED, "")

    step = services.run_step(run_id, "crawl")

    assert step.state == StepState.DONE
    assert "errors" in step.message and "failed for good" not in step.message
