"""Worker-page identity: market parameters, signed page tokens, turkSubmitTo, and framing headers."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from annotation.market_interface.base import MarketIds, MissingParamsError, SubmitOriginError
from annotation.market_interface.registry import market_ids
from annotation.markets.mturk.identity import PREVIEW_ASSIGNMENT, external_submit_url
from annotation.models import Assignment, Worker
from annotation.web.framing import frame_ancestors, worker_page
from annotation.web.page_tokens import (
    ExpiredTokenError,
    ForgedTokenError,
    PreviewError,
    TokenMismatchError,
    issue_token,
    verify_token,
)

T0 = 1_800_000_000.0
MTURK_PARAMS = {
    "assignmentId": "3PWWM24LHSX369EBUXKO681UQPO82A",
    "hitId": "3AQN9REUTFGXCRWFMS2HA7Y9KHNDYV",
    "workerId": "A2Z8QB6XQFTQ1D",
    "turkSubmitTo": "https://workersandbox.mturk.com",
}
PROLIFIC_PARAMS = {
    "PROLIFIC_PID": "60bf9310e8dec401be6e9615",
    "STUDY_ID": "60f6acb180a7b59ac0621f9e",
    "SESSION_ID": "60d9aadeb86739de712faee0",
}


def mturk_ids(**changes: str) -> MarketIds:
    ids = market_ids({**MTURK_PARAMS, **changes})
    assert ids is not None
    return ids


def test_mturk_parameters_name_worker_hit_and_assignment() -> None:
    ids = mturk_ids()

    assert (ids.market, ids.worker_id, ids.preview) == ("mturk", "A2Z8QB6XQFTQ1D", False)
    assert external_submit_url(ids) == "https://workersandbox.mturk.com/mturk/externalSubmit"


def test_prolific_parameters_name_participant_study_and_session() -> None:
    ids = market_ids(PROLIFIC_PARAMS)

    assert ids == MarketIds("prolific", PROLIFIC_PARAMS["PROLIFIC_PID"], PROLIFIC_PARAMS["STUDY_ID"],
                            PROLIFIC_PARAMS["SESSION_ID"])  # fmt: skip


def test_no_market_parameters_is_no_market_identity() -> None:
    assert market_ids({"preview": "1"}) is None


def test_mturk_preview_is_detected_and_gets_no_token() -> None:
    ids = market_ids({"assignmentId": PREVIEW_ASSIGNMENT, "hitId": MTURK_PARAMS["hitId"]})

    assert ids is not None and ids.preview
    with pytest.raises(PreviewError):
        issue_token(ids, job_id=1, item_ids=[1, 2])


def test_partial_market_parameters_are_refused() -> None:
    with pytest.raises(MissingParamsError, match="workerId"):
        market_ids({k: v for k, v in MTURK_PARAMS.items() if k != "workerId"})
    with pytest.raises(MissingParamsError, match="SESSION_ID"):
        market_ids({k: v for k, v in PROLIFIC_PARAMS.items() if k != "SESSION_ID"})


@pytest.mark.parametrize(
    "submit_to",
    [
        "https://evil.example",
        "http://www.mturk.com",
        "https://www.mturk.com.evil.example",
        "https://www.mturk.com@evil.example",
        "https://www.mturk.com/redirect?to=https://evil.example",
        "https://www.mturk.com:8443",
    ],
)
def test_turk_submit_to_outside_the_allowlist_is_refused(submit_to: str) -> None:
    with pytest.raises(SubmitOriginError):
        mturk_ids(turkSubmitTo=submit_to)


def test_production_submit_origin_is_allowed() -> None:
    assert external_submit_url(mturk_ids(turkSubmitTo="https://www.mturk.com/")) == (
        "https://www.mturk.com/mturk/externalSubmit"
    )


def test_a_token_verifies_for_the_same_ids_and_items() -> None:
    ids = mturk_ids()
    token = issue_token(ids, job_id=7, item_ids=[3, 1, 2], now=T0)

    grant = verify_token(token, ids, 7, [1, 2, 3], now=T0 + 600)

    assert (grant.ids, grant.item_ids, grant.issued_at) == (ids, (1, 2, 3), T0)
    assert grant.nonce


def test_a_forged_token_is_refused() -> None:
    token = issue_token(mturk_ids(), job_id=7, item_ids=[1], now=T0)
    body, _, signature = token.rpartition(":")

    with pytest.raises(ForgedTokenError):
        verify_token(f"{body}:{signature[::-1]}", mturk_ids(), 7, [1], now=T0)
    with pytest.raises(ForgedTokenError):
        verify_token("not-a-token", mturk_ids(), 7, [1], now=T0)


def test_an_expired_token_is_refused() -> None:
    token = issue_token(mturk_ids(), job_id=7, item_ids=[1], now=T0)

    with pytest.raises(ExpiredTokenError):
        verify_token(token, mturk_ids(), 7, [1], max_age=3600, now=T0 + 3601)


def test_a_token_replayed_with_other_items_is_refused() -> None:
    token = issue_token(mturk_ids(), job_id=7, item_ids=[1, 2], now=T0)

    with pytest.raises(TokenMismatchError, match="other items"):
        verify_token(token, mturk_ids(), 7, [1, 2, 99], now=T0)


def test_a_token_replayed_by_another_worker_or_assignment_is_refused() -> None:
    token = issue_token(mturk_ids(), job_id=7, item_ids=[1], now=T0)

    with pytest.raises(TokenMismatchError):
        verify_token(token, mturk_ids(workerId="AOTHERWORKER1"), 7, [1], now=T0)
    with pytest.raises(TokenMismatchError):
        verify_token(token, mturk_ids(assignmentId="3OTHERASSIGNMENT0000000000000A"), 7, [1], now=T0)
    with pytest.raises(TokenMismatchError):
        verify_token(token, mturk_ids(), 8, [1], now=T0)


def test_a_prolific_token_does_not_verify_as_mturk() -> None:
    prolific = market_ids(PROLIFIC_PARAMS)
    assert prolific is not None
    token = issue_token(prolific, job_id=7, item_ids=[1], now=T0)

    with pytest.raises(TokenMismatchError):
        verify_token(token, mturk_ids(), 7, [1], now=T0)


def page(request: HttpRequest) -> HttpResponse:
    return HttpResponse("task")


def test_a_worker_page_may_be_framed_by_the_markets_only() -> None:
    # A market visitor's page (nobody logged in): framable by the markets' worker sites, by nobody else.
    request = RequestFactory().get("/annotate/jobs/1/", MTURK_PARAMS)
    request.user = AnonymousUser()
    response = worker_page(page)(request)

    policy = response["Content-Security-Policy"]
    assert policy.startswith("frame-ancestors 'self' ")
    assert "https://workersandbox.mturk.com" in policy and "https://worker.mturk.com" in policy
    assert "*" not in policy


def test_a_worker_page_keeps_the_task_types_script_policy_when_framed() -> None:
    # An untrusted MTurk template's page forbids script; framing for the markets is added, not swapped in.
    def scriptless(request: HttpRequest) -> HttpResponse:
        response = HttpResponse("task")
        response["Content-Security-Policy"] = "script-src 'none'"
        return response

    request = RequestFactory().get("/annotate/jobs/1/", MTURK_PARAMS)
    request.user = AnonymousUser()
    policy = worker_page(scriptless)(request)["Content-Security-Policy"]

    assert policy.startswith("script-src 'none'; frame-ancestors 'self' ")
    assert "https://worker.mturk.com" in policy


def all_routes(patterns: list[URLPattern | URLResolver], prefix: str = "") -> list[tuple[str, Any]]:
    """Every URL of the project as (path with {pk} for a path argument, view)."""
    routes: list[tuple[str, Any]] = []
    for entry in patterns:
        route = prefix + str(entry.pattern)
        for converter in ("<int:pk>", "<int:id>", "<int:job_id>", "<pk>"):
            route = route.replace(converter, "{pk}")
        if isinstance(entry, URLResolver):
            routes += all_routes(list(entry.url_patterns), route)
        elif "<" not in route and "(?P" not in route and "^" not in route:
            routes.append(("/" + route, entry.callback))
    return routes


def assert_denied(response: HttpResponse, path: str) -> None:
    assert response["X-Frame-Options"] == "DENY", path
    assert "frame-ancestors 'none'" in response.get("Content-Security-Policy", ""), path


@pytest.mark.django_db
def test_worker_pages_may_be_framed_by_the_markets_and_every_other_url_denies_framing() -> None:
    from tests.annotation.test_market_pages import HIT_ID, market_job

    job = market_job("mturk", HIT_ID)
    worker = Worker.objects.create(market="mturk", external_id=MTURK_PARAMS["workerId"])
    assignment = Assignment.objects.create(
        job=job,
        hit=job.hits.get(),
        worker=worker,
        external_id=MTURK_PARAMS["assignmentId"],
        accepted_at=timezone.now(),
    )
    client = Client()
    framable, denied = [], []
    for route, view in all_routes(list(get_resolver().url_patterns)):
        if not getattr(view, "worker_page", False):
            path = route.format(pk=1)
            assert_denied(client.get(path), path)
            denied.append(path)
            continue
        path = route.format(pk=assignment.pk if "assignments" in route else job.pk)
        # Without the market's parameters a worker page is an in-house page: never framed.
        assert_denied(client.get(path), path)
        response = client.get(path + "?" + urlencode({**MTURK_PARAMS, "hitId": HIT_ID}))
        assert response["Content-Security-Policy"] == frame_ancestors(), path
        assert "X-Frame-Options" not in response, path
        assert "*" not in response["Content-Security-Policy"], path
        framable.append((path, response.status_code))

    assert len(denied) >= 5
    assert sorted(code for _, code in framable) == [200, 200, 200, 405]  # start is POST only
