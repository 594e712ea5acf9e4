"""A small corpus with topics and a stance job done by the simulated crowd, and releases under tmp_path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotation.models import Job
from annotation.work.jobs import create_job, publish_job, sync_job
from corpus.models import Claim, ClaimTopic, Status, Topic
from tests.annotation.factories import make_corpus

TOPICS = ["law", "economy", "religion", "gender", "politics"]


@pytest.fixture(autouse=True)
def pseudonym_key(settings: Any) -> str:
    # Tests run with DEBUG off, where a release refuses to pseudonymise without a configured key.
    settings.WORKER_PSEUDONYM_KEY = "export-tests-pseudonym-key-0123456789"
    return str(settings.WORKER_PSEUDONYM_KEY)


@pytest.fixture
def releases_dir(settings: Any, tmp_path: Path) -> Path:
    settings.RELEASES_DIR = tmp_path / "releases"
    settings.STANCEWORK_CODE_VERSION = "test-code-version"
    return settings.RELEASES_DIR


def add_topics(claims: list[Claim]) -> None:
    """Primary topics in turn, politics second on every other claim, none on every fifth."""
    for index, claim in enumerate(claims):
        if index % 5 == 4:
            continue
        slugs = [TOPICS[index % 4]] + (["politics"] if index % 2 else [])
        for position, slug in enumerate(slugs):
            ClaimTopic.objects.create(claim=claim, topic=Topic.objects.get(slug=slug), position=position)


@pytest.fixture
def small_corpus(db: None) -> list[Claim]:
    claims = make_corpus(claims=10, perspectives=3, status=Status.KEPT)
    add_topics(claims)
    return claims


@pytest.fixture
def simulated_job(small_corpus: list[Claim]) -> Job:
    """A stance job over the first four claims, completed by 6 modelled workers."""
    cids = [claim.cid for claim in small_corpus[:4]]
    job = create_job("stance", {"claims": cids}, market="simulated", params={"crowd": {"size": 6}})
    publish_job(job.pk)
    return sync_job(job.pk)
