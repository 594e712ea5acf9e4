"""The lab of the lab-project tests (test_lab_project.py, test_killed_worker.py): a slice of PERSPECTRUM,
saved idebate pages served from 127.0.0.1, the environment `make run` and the workers see, an expert."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from corpus.perspectrum import CLAIMS, POOL, SPLIT, TOPIC, file_names
from crawler.local_site import LocalSite
from rigs.databases import with_database
from tests.conftest import PERSPECTRUM
from tests.pipeline.lab import CRAWLED_PAGES, IMPORTED_CLAIMS


@pytest.fixture(scope="module")
def release_slice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PERSPECTRUM v1.0's first IMPORTED_CLAIMS claims with the perspectives they use: a valid release."""
    names = file_names("1.0")
    claims = sorted(json.loads((PERSPECTRUM / names[CLAIMS]).read_text()), key=lambda c: c["cId"])
    chosen = claims[:IMPORTED_CLAIMS]
    cids = {claim["cId"] for claim in chosen}
    pids = {pid for claim in chosen for cluster in claim["perspectives"] for pid in cluster["pids"]}
    pool = [p for p in json.loads((PERSPECTRUM / names[POOL]).read_text()) if p["pId"] in pids]
    split = {k: v for k, v in json.loads((PERSPECTRUM / names[SPLIT]).read_text()).items() if int(k) in cids}
    topics = [t for t in json.loads((PERSPECTRUM / names[TOPIC]).read_text()) if t["claim_id"] in cids]
    out = tmp_path_factory.mktemp("perspectrum-slice")
    for kind, records in {CLAIMS: chosen, POOL: pool, SPLIT: split, TOPIC: topics}.items():
        (out / names[kind]).write_text(json.dumps(records))
    return out


@pytest.fixture(scope="module")
def site_pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pages = tmp_path_factory.mktemp("idebate-pages")
    for stem in CRAWLED_PAGES:
        shutil.copy(Path(settings.SHARED_FIXTURES_DIR) / "idebate" / "pages" / f"{stem}.html", pages)
    return pages


@pytest.fixture
def site(site_pages: Path) -> Iterator[LocalSite]:
    with LocalSite.idebate(site_pages).serve() as serving:
        yield serving


@pytest.fixture
def lab_env(db: None, release_slice: Path, monkeypatch: pytest.MonkeyPatch, settings: Any) -> dict[str, str]:
    """The environment `make run`, the crawl and the workers see: this test's database, no delays."""
    url = with_database(os.environ["DATABASE_URL"], connection.settings_dict["NAME"])
    key = "lifecycle-tests-pseudonym-key-0123456789"
    settings.WORKER_PSEUDONYM_KEY = key
    settings.PERSPECTRUM_DIR = release_slice
    for name, value in {
        "DATABASE_URL": url,  # the crawl process inherits the pipeline's environment
        "REDIS_URL": "",  # `make run` and the crawl as a lab runs them (workers get Redis back)
        "PERSPECTRUM_DIR": str(release_slice),
        "WORKER_PSEUDONYM_KEY": key,
        "CRAWLER_DOWNLOAD_DELAY_MS": "0",
        "CRAWLER_AUTOTHROTTLE": "0",
        "CRAWLER_PROGRESS_SECONDS": "1",
        "LOG_LEVEL": "WARNING",
    }.items():
        monkeypatch.setenv(name, value)
    return dict(os.environ)


@pytest.fixture
def expert_user(db: None) -> User:
    return User.objects.create_superuser("lab-expert", "expert@lab.example", "-")


@pytest.fixture
def expert(expert_user: User) -> Client:
    client = Client()
    client.force_login(expert_user)
    return client
