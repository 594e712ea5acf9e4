"""The production stack (tests/deploy/production_stack.py) checked over https: TLS and its redirects,
health checks, the admin's cookies, framing, hostile ids, release downloads, Flower behind its login,
and the proxy's body limit.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlencode

import pytest
import requests

from annotation.markets.mturk.identity import PREVIEW_ASSIGNMENT
from tests.deploy.production_stack import Stack, logged_in

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.caddy]

MAX_REQUEST_BYTES = 2_621_440  # Django's default, which the Caddyfile's default repeats


def test_the_health_check_answers_over_https_with_hsts(stack: Stack) -> None:
    response = stack.session().get(f"{stack.https}/healthz", timeout=10)

    assert response.status_code == 200 and response.text == "ok"
    # Django only sends HSTS on a request it believes is secure: it trusted the proxy's header.
    assert "max-age=" in response.headers["Strict-Transport-Security"]


def test_plain_http_is_redirected_to_https_whatever_the_client_claims(stack: Stack) -> None:
    response = stack.session().get(
        f"{stack.http}/admin/?next=1",
        headers={"X-Forwarded-Proto": "https"},
        allow_redirects=False,
        timeout=10,
    )

    assert response.status_code == 308
    # Caddy redirects to the https site; with the test's non-standard https port the port is not
    # repeated (on 443 there is none to repeat), so only scheme, host and path are checked.
    assert response.headers["Location"].startswith("https://localhost")
    assert response.headers["Location"].endswith("/admin/?next=1")


def test_a_client_cannot_talk_django_out_of_https(stack: Stack) -> None:
    # Were the client's header passed on, Django would redirect this request to https.
    response = stack.session().get(
        f"{stack.https}/healthz", headers={"X-Forwarded-Proto": "http"}, allow_redirects=False, timeout=10
    )

    assert response.status_code == 200


def test_gunicorn_answers_the_compose_health_check_as_the_proxy_is_answered(stack: Stack) -> None:
    session = stack.session()
    as_the_proxy_asks = session.get(
        f"{stack.web}/healthz",
        headers={"Host": "localhost", "X-Forwarded-Proto": "https"},
        allow_redirects=False,
        timeout=10,
    )
    plain = session.get(
        f"{stack.web}/healthz", headers={"Host": "localhost"}, allow_redirects=False, timeout=10
    )

    assert as_the_proxy_asks.status_code == 200 and as_the_proxy_asks.text == "ok"
    assert plain.status_code == 301 and plain.headers["Location"] == "https://localhost/healthz"


def test_staff_log_in_to_the_admin_with_secure_cookies(stack: Stack) -> None:
    session = logged_in(stack)

    cookies = {cookie.name: cookie for cookie in session.cookies}
    assert cookies["sessionid"].secure and cookies["csrftoken"].secure
    assert cookies["sessionid"].has_nonstandard_attr("HttpOnly")
    page = session.get(f"{stack.https}/admin/", timeout=10)
    assert page.status_code == 200 and "<title>Admin | Stancework</title>" in page.text
    assert "/static/admin/css/" in page.text  # collected static files, served by whitenoise
    assert session.get(f"{stack.https}/static/admin/css/base.css", timeout=10).status_code == 200


def test_a_market_worker_page_may_be_framed_by_the_market_and_nothing_else_may(stack: Stack) -> None:
    session = stack.session()
    page = session.get(
        f"{stack.https}/annotate/jobs/{stack.job}/",
        params={"assignmentId": PREVIEW_ASSIGNMENT, "hitId": stack.hit},
        timeout=10,
    )
    other = session.get(f"{stack.https}/admin/login/", timeout=10)

    assert page.status_code == 200 and "Nothing you do here is saved" in page.text
    assert page.headers["Content-Security-Policy"].startswith("frame-ancestors 'self' ")
    assert "https://worker.mturk.com" in page.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in page.headers
    assert other.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in other.headers["Content-Security-Policy"]


def test_hostile_market_ids_are_refused_by_the_production_stack(stack: Stack) -> None:
    """The crowd-integrity probes, re-run against gunicorn on PostgreSQL with DEBUG off."""
    session = stack.session()
    page = f"{stack.https}/annotate/jobs/{stack.job}/"
    worker = {"assignmentId": "3" + "A" * 29, "hitId": stack.hit, "turkSubmitTo": "https://www.mturk.com"}

    nul = session.get(page, params={**worker, "workerId": "A\x00B"}, timeout=10)
    too_long = session.get(page, params={**worker, "workerId": "A" * 129}, timeout=10)
    other_hit = session.get(
        page, params={**worker, "workerId": "AWORKER1", "hitId": "3" + "B" * 29}, timeout=10
    )
    forged = session.post(
        f"{page}start/", params={**worker, "workerId": "AWORKER1"}, data={"page_token": "x"}
    )

    assert (nul.status_code, too_long.status_code, other_hit.status_code) == (400, 400, 403)
    assert forged.status_code == 403  # no token we signed: Django's CSRF check applies, and refuses


def test_staff_download_a_release_file_and_anonymous_visitors_cannot(stack: Stack) -> None:
    url = f"{stack.https}/releases/{stack.release}/files/manifest.json"
    anonymous = stack.session().get(url, allow_redirects=False, timeout=10)
    download = logged_in(stack).get(url, timeout=10)

    assert anonymous.status_code == 302 and "/admin/login/" in anonymous.headers["Location"]
    assert download.status_code == 200
    assert download.headers["Content-Disposition"].startswith("attachment")
    assert download.json()["version"] == stack.release


SECURITY_HEADERS = ("Strict-Transport-Security", "X-Content-Type-Options", "Referrer-Policy",
                    "Cross-Origin-Opener-Policy", "X-Frame-Options")  # fmt: skip


def test_flower_refuses_a_request_without_its_login(stack: Stack) -> None:
    session = stack.session()
    user, password = stack.flower_login

    assert session.get(f"{stack.https}/flower/", timeout=10).status_code == 401
    assert session.get(f"{stack.https}/flower/", auth=(user, "wrong"), timeout=10).status_code == 401
    assert session.get(f"{stack.https}/flower/api/workers", timeout=10).status_code == 401
    assert session.get(f"{stack.https}/flower/", auth=(user, password), timeout=10).status_code == 200


@pytest.mark.parametrize(
    "path", ["metrics", "healthcheck", "api/tasks", "dashboard", "static/css/flower.css"]
)
def test_every_flower_path_asks_for_the_login_at_the_proxy(stack: Stack, path: str) -> None:
    """Flower's own login leaves /flower/metrics and /flower/healthcheck open; the proxy's does not."""
    session = stack.session()

    refused = session.get(f"{stack.https}/flower/{path}", allow_redirects=False, timeout=10)
    wrong = session.get(
        f"{stack.https}/flower/{path}", auth=("ops", "wrong"), allow_redirects=False, timeout=10
    )

    assert refused.status_code == wrong.status_code == 401
    assert "celery" not in refused.text.lower()
    app = session.get(f"{stack.https}/admin/login/", timeout=10)
    for name in SECURITY_HEADERS:  # the refusal carries the headers every other response does
        assert refused.headers.get(name) == wrong.headers.get(name) == app.headers[name], name
    assert "Server" not in refused.headers


def test_flower_answers_with_the_apps_security_headers_and_secure_cookies(stack: Stack) -> None:
    session = stack.session()
    app = session.get(f"{stack.https}/admin/login/", timeout=10)
    metrics = session.get(f"{stack.https}/flower/metrics", auth=stack.flower_login, timeout=10)
    page = session.get(f"{stack.https}/flower/", auth=stack.flower_login, timeout=10)

    assert metrics.status_code == page.status_code == 200
    for name in SECURITY_HEADERS:
        assert metrics.headers.get(name) == page.headers.get(name) == app.headers[name], name
    for response in (app, metrics, page):  # no Server header names a version (Tornado's did)
        assert not re.search(r"\d", response.headers.get("Server", "")), response.headers["Server"]
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.cookies and all(cookie.secure for cookie in page.cookies), page.headers.get("Set-Cookie")


def test_flower_sees_the_celery_worker_through_redis(stack: Stack) -> None:
    session = stack.session()
    session.auth = stack.flower_login

    def worker_listed() -> bool:
        response = session.get(f"{stack.https}/flower/api/workers", params={"refresh": "1"}, timeout=15)
        return response.status_code == 200 and stack.worker_name in response.json()

    deadline = time.monotonic() + 30
    while not worker_listed():
        assert time.monotonic() < deadline, "the worker never answered Flower's inspect"
        time.sleep(1)


def login_form_of_exactly(stack: Stack, size: int) -> tuple[requests.Session, bytes]:
    """A session with a CSRF cookie, and a login form body padded to `size` bytes that Django reads whole."""
    session = stack.session()
    session.get(f"{stack.https}/admin/login/", timeout=10).raise_for_status()
    token = session.cookies["csrftoken"]
    form = urlencode({"csrfmiddlewaretoken": token, "username": "x", "password": "y", "pad": ""})
    return session, (form + "a" * (size - len(form))).encode()


def test_the_proxy_refuses_a_body_larger_than_django_accepts(stack: Stack) -> None:
    url = f"{stack.https}/admin/login/"
    session, at_the_limit = login_form_of_exactly(stack, MAX_REQUEST_BYTES)
    headers = {"Referer": url, "Content-Type": "application/x-www-form-urlencoded"}

    too_large = session.post(url, data=at_the_limit + b"a", headers=headers, timeout=30)
    accepted = session.post(url, data=at_the_limit, headers=headers, timeout=30)

    assert too_large.status_code == 413 and too_large.text == "request body too large"
    # Through the proxy, past the CSRF check (which reads the whole form), to the login form's errors.
    assert accepted.status_code == 200 and "Please enter the correct" in accepted.text
