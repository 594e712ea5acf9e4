"""Small corpora for annotation tests."""

from __future__ import annotations

from pathlib import Path

import factory

from corpus.models import (
    Claim,
    ClaimTopic,
    ClusterEvidence,
    Evidence,
    Perspective,
    PerspectiveCluster,
    Status,
    Topic,
)
from rigs.corpus import STANCES, one_member_cluster

SMOKERS_PAGE = "addiction-health-general-healthcare-house-would-deny-smokers-access-state.html"


class ClaimFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Claim

    cid = factory.Sequence(lambda n: n + 1)
    text = factory.Sequence(lambda n: f"Claim number {n} should be debated")
    source = "idebate"


class PerspectiveFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Perspective

    pid = factory.Sequence(lambda n: n + 1)
    text = factory.Sequence(lambda n: f"Perspective number {n} gives a reason")
    source = "idebate"


def make_cluster(
    claim: Claim, position: int, stance: str, status: str = Status.CANDIDATE
) -> PerspectiveCluster:
    return one_member_cluster(claim, position, stance, PerspectiveFactory(), status)


def make_corpus(claims: int = 3, perspectives: int = 4, status: str = Status.CANDIDATE) -> list[Claim]:
    """`claims` claims with `perspectives` one-member clusters each, stances known."""
    made = []
    for _ in range(claims):
        claim = ClaimFactory()
        for position in range(perspectives):
            make_cluster(claim, position, STANCES[position % len(STANCES)], status)
        made.append(claim)
    return made


def tag(claim: Claim, *names: str) -> None:
    """Give the claim these topics, in order."""
    for position, name in enumerate(names):
        slug = name.replace(" ", "_")
        topic, _ = Topic.objects.get_or_create(slug=slug, defaults={"name": name.capitalize()})
        ClaimTopic.objects.create(claim=claim, topic=topic, position=position)


def make_vast_corpus() -> list[Claim]:
    """Three kept claims with two perspectives each; the first two have topics and the first an
    evidence paragraph (linked to its first cluster)."""
    claims = make_corpus(claims=3, perspectives=2, status=Status.KEPT)
    tag(claims[0], "education", "economy")
    tag(claims[1], "health and medicine")
    evidence = Evidence.objects.create(eid=900, text="Pupils in uniform were bullied less.")
    cluster = claims[0].clusters.order_by("position")[0]
    ClusterEvidence.objects.create(cluster=cluster, evidence=evidence, position=0)
    return claims


def crawled_counter_speech_questions(limit: int = 4, page: str = SMOKERS_PAGE) -> list[dict]:
    """Counter-speech questions from a saved idebate page (real data), ingested as the crawl would."""
    from django.conf import settings

    from crawler import ingest, services
    from crawler.parsing import parse_debate
    from crawler.parsing.cleaning import clean_evidence
    from pipeline.counter_speeches import counter_speech_questions

    html = (Path(settings.SHARED_FIXTURES_DIR) / "idebate" / "pages" / page).read_bytes()
    record = parse_debate("idebate", html, "https://idebate.org/debatabase/x")
    stored = services.store_page(None, "idebate", record.url, html, record.url)
    prepared = [ingest.PreparedPoint(p, clean_evidence(p.body)) for p in record.points]
    result = ingest.ingest_debate(record, prepared, stored.version_id, None)
    cid = Claim.objects.get(pk=result.claim_id).cid
    return counter_speech_questions([cid], limit, seed=0)
