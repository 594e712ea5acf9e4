"""A crawl reaches its site's own hosts and, on loopback, only the saved-pages server the platform
started for it: the API, the admin, pipeline parameters and the command refuse any other address with
the reason, and the spider itself refuses it (crawler.targets, crawler.middlewares.CrawlTargets).

The suite lets crawls reach its own copies of sites on 127.0.0.1 (tests/conftest.py); these tests turn
that off, as in a deployment."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest
from scrapy.settings import Settings
from scrapy.statscollectors import MemoryStatsCollector

from crawler import services, targets
from crawler.local_site import LocalSite
from crawler.middlewares import CrawlTargets
from crawler.models import CrawlRun
from crawler.spiders.idebate import IdebateSpider
from pipeline import services as pipelines
from pipeline.definition import PipelineDefinitionError
from pipeline.models import PipelineRun, StepState
from pipeline.services import PipelineError
from tests.crawler.conftest import REPO
from tests.crawler.test_crawl_end_to_end import query

INTERNAL = [
    "http://127.0.0.1:{port}/internal/admin",
    "http://localhost:{port}/internal/admin",
    "http://[::1]:{port}/",
    "http://127.9.9.9/",
    "http://10.0.0.5/",
    "http://192.168.1.1/admin",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/",
    "http://metadata.localhost/",
]
ELSEWHERE = [
    "https://evil.example/debatabase/",
    "https://idebate.net.evil.example/",
    "http://2130706433/",
    "file:///etc/passwd",
    "gopher://idebate.net/",
    "not a url",
]
OWN = ["https://idebate.net/debatabase/", "https://www.idebate.org/debatabase/themes", "http://IDEBATE.NET./"]


@pytest.fixture
def deployed(settings: Any) -> None:
    """As in a deployment: no extra origins, so loopback is the platform's saved-pages server only."""
    settings.CRAWLER_EXTRA_ORIGINS = []


@pytest.fixture
def listener() -> Iterator[LocalSite]:
    """An internal service on loopback: it must receive nothing."""
    with LocalSite({"/internal/admin": b"secret", "/robots.txt": b""}).serve() as site:
        yield site


def test_every_internal_or_foreign_address_is_refused_with_its_reason_and_the_sites_own_pass() -> None:
    internal = [url.format(port=8000) for url in INTERNAL]
    refused = {url: targets.refusal(url, "idebate") for url in [*internal, *ELSEWHERE]}
    assert len(refused) == len(INTERNAL) + len(ELSEWHERE)
    assert all(refused.values()), [url for url, reason in refused.items() if not reason]
    assert all("internal address" in refused[url] for url in internal)
    assert "not one of idebate's hosts (idebate.org, idebate.net, web.archive.org)" in refused[ELSEWHERE[0]]
    assert [targets.refusal(url, "idebate") for url in OWN] == ["", "", ""]
    # Another site's hosts are not this site's.
    assert targets.refusal("https://www.procon.org/", "idebate")


def test_only_the_exact_origin_handed_to_the_crawl_passes_on_loopback() -> None:
    own = "http://127.0.0.1:24001"
    assert targets.refusal(f"{own}/debatabase/all", "idebate", [own]) == ""
    assert targets.refusal("http://127.0.0.1:24002/debatabase/all", "idebate", [own])
    assert targets.refusal("http://localhost:24001/debatabase/all", "idebate", [own])


@pytest.mark.django_db
def test_the_crawl_command_and_services_refuse_a_loopback_start_url(
    deployed: None, listener: LocalSite
) -> None:
    for url in [f"{listener.url}/internal/admin", "http://10.1.2.3/"]:
        with pytest.raises(services.StartUrlRefused, match="internal address"):
            services.create_run("idebate", start_urls=[url])
    assert CrawlRun.objects.count() == 0
    assert listener.requested == []


@pytest.mark.django_db
def test_a_pipeline_naming_a_loopback_start_url_is_refused_with_the_reason(
    deployed: None, listener: LocalSite
) -> None:
    params = {"crawl": {"site": "idebate", "start_urls": [f"{listener.url}/internal/admin"]}}
    with pytest.raises(PipelineDefinitionError, match=r"crawl\.start_urls: .*internal address"):
        pipelines.create_run("probe", params)
    # A run whose parameters were written past that check: its crawl step fails, saying why.
    run = pipelines.create_run("probe", {})
    PipelineRun.objects.filter(pk=run.pk).update(params={**run.params, **params})

    with pytest.raises(PipelineError, match="internal address"):
        pipelines.run_step(run.pk, "crawl")

    assert run.steps.get(name="crawl").state == StepState.FAILED
    assert CrawlRun.objects.count() == 0
    assert listener.requested == []


@pytest.mark.django_db
def test_the_api_refuses_a_loopback_start_url_with_a_400_and_the_reason(
    deployed: None, listener: LocalSite
) -> None:
    user = User.objects.create_user("researcher", password="x-unused-0", is_staff=True)
    user.groups.set(Group.objects.filter(name="researcher"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")

    answer = api.post(
        "/api/crawls/", {"site": "idebate", "start_urls": [f"{listener.url}/internal/admin"]}, format="json"
    )

    assert answer.status_code == 400, answer.content
    assert "internal address" in answer.json()["start_urls"][0]
    assert CrawlRun.objects.count() == 0
    assert listener.requested == []


@pytest.mark.django_db
def test_the_admin_form_refuses_a_loopback_start_url_with_the_reason(
    deployed: None, listener: LocalSite
) -> None:
    admin = get_user_model().objects.create_superuser("admin", "admin@example.org", "pw-for-tests")
    client = Client()
    client.force_login(admin)

    page = client.post(
        reverse("admin:crawler_crawlrun_start"),
        {"site": "idebate", "start_url": f"{listener.url}/internal/admin"},
    )

    assert page.status_code == 200
    assert "internal address" in page.content.decode()
    assert CrawlRun.objects.count() == 0
    assert listener.requested == []


def middleware(routes: dict[str, str] | None = None) -> CrawlTargets:
    values = {"STANCEWORK_LOCAL_ROUTES": routes or {}, "STANCEWORK_WAYBACK_URL": "https://web.archive.org"}
    crawler = SimpleNamespace(settings=Settings(values))
    crawler.stats = MemoryStatsCollector(cast(Crawler, crawler))
    return CrawlTargets.from_crawler(cast(Crawler, crawler))


def test_the_spiders_downloader_refuses_internal_addresses_except_its_own_saved_pages_server() -> None:
    spider = IdebateSpider()
    own = "http://127.0.0.1:24001"
    guard = middleware({own: "http://127.0.0.1:39999"})
    guard.process_request(Request(f"{own}/debatabase/all"), spider)
    guard.process_request(Request("https://idebate.net/debatabase/"), spider)
    for url in ["http://127.0.0.1:39999/", "http://127.0.0.1:6379/", "http://169.254.169.254/"]:
        with pytest.raises(IgnoreRequest, match="internal address"):
            guard.process_request(Request(url), spider)
    assert guard.stats.get_value("stancework/refused_targets") == 3
    assert (
        "127.0.0.1" not in IdebateSpider.allowed_domains and "localhost" not in IdebateSpider.allowed_domains
    )


CRAWL_A_RUN_THAT_SLIPPED_THROUGH = """
import sys, django
django.setup()
from crawler.crawling import run_spider
from crawler.models import CrawlRun
run_spider(CrawlRun.objects.create(site="idebate", start_urls=sys.argv[1:]))
"""


def test_a_crawl_whose_run_names_a_loopback_service_sends_it_nothing(
    crawl_env: dict[str, str], listener: LocalSite
) -> None:
    """A run row written past the checks (an old row, a bug): the crawl process itself refuses."""
    env = {**crawl_env, "CRAWLER_EXTRA_ORIGINS": ""}
    urls = [f"{listener.url}/internal/admin", f"http://localhost:{listener.url.rsplit(':', 1)[1]}/"]

    done = subprocess.run(
        [sys.executable, "-c", CRAWL_A_RUN_THAT_SLIPPED_THROUGH, *urls],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr[-3000:]
    assert listener.requested == []
    [(stats,)] = query(env, "SELECT stats FROM crawler_crawlrun")
    # Scrapy's offsite check (the spider's allowed domains) drops them as they are scheduled; a request
    # that skips it (dont_filter) meets CrawlTargets in the downloader.
    refused = json.loads(stats).get("offsite/filtered", 0) + json.loads(stats).get(
        "stancework/refused_targets", 0
    )
    assert refused == 2, done.stderr[-3000:]
