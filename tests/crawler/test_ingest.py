"""Ingest into the corpus: one claim per debate, a candidate cluster per point, evidence from the body."""

from __future__ import annotations

import pytest
from django.db import IntegrityError

from aggregation.trimming import merge_clusters
from corpus.models import Claim, ClusterEvidence, ClusterMember, Evidence, Perspective, PerspectiveCluster
from crawler import ingest, services
from crawler.models import Debate, Point
from crawler.parsing import DebateRecord, PointRecord, parse_debate
from crawler.parsing.cleaning import clean_evidence, headline_flag
from tests.crawler.conftest import BUILT, IDEBATE_PAGES

pytestmark = pytest.mark.django_db
SMOKERS = IDEBATE_PAGES / "addiction-health-general-healthcare-house-would-deny-smokers-access-state.html"


def prepared(record: DebateRecord, flag: bool = False) -> list[ingest.PreparedPoint]:
    return [
        ingest.PreparedPoint(p, clean_evidence(p.body), headline_flag(p.headline, p.body) if flag else "")
        for p in record.points
    ]


def ingest_page(
    html: bytes, site: str = "idebate", url: str = "https://idebate.org/x"
) -> ingest.IngestResult:
    record = parse_debate(site, html, url)
    stored = services.store_page(None, site, record.url, html, url)
    return ingest.ingest_debate(record, prepared(record, flag=site == "debatewise"), stored.version_id, None)


def test_a_debate_becomes_a_claim_with_one_candidate_cluster_per_point() -> None:
    result = ingest_page(SMOKERS.read_bytes())
    assert result.outcome == "created"
    claim = Claim.objects.get()
    assert claim.text == "This house would deny smokers access to state healthcare."
    assert (claim.source, claim.original_title) == ("idebate", claim.text)
    assert claim.source_url.endswith("/house-would-deny-smokers-access-state")
    clusters = list(PerspectiveCluster.objects.filter(claim=claim))
    assert [c.source_side for c in clusters] == ["pro"] * 5 + ["con"] * 5
    assert {c.status for c in clusters} == {"candidate"}
    first = clusters[0]
    member = ClusterMember.objects.get(cluster=first)
    assert member.position == 0
    assert member.perspective.text.startswith("The law would act as a deterrent")
    assert member.perspective.origin == "crawled"
    evidence = ClusterEvidence.objects.get(cluster=first).evidence
    assert evidence.text.startswith("There are realistic ways a policy of denying healthcare")
    assert Point.objects.filter(debate__claim=claim, current=True).count() == 10


def test_public_ids_continue_above_the_current_maximum() -> None:
    Claim.objects.create(cid=500, text="an imported claim")
    ingest_page(SMOKERS.read_bytes())
    assert Claim.objects.get(source="idebate").cid == 501
    assert sorted(Perspective.objects.values_list("pid", flat=True)) == list(range(1, 11))


def test_ingesting_the_same_debate_again_changes_nothing() -> None:
    ingest_page(SMOKERS.read_bytes())
    again = ingest_page(SMOKERS.read_bytes())
    assert again.outcome == "unchanged"
    assert (Claim.objects.count(), Perspective.objects.count(), Evidence.objects.count()) == (1, 10, 10)


def test_a_changed_point_gets_new_rows_and_the_old_ones_stay() -> None:
    html = SMOKERS.read_bytes()
    ingest_page(html)
    changed = html.replace(
        b"Smokers are a drain on economic resources", b"Smokers drain scarce public resources"
    )
    result = ingest_page(changed)
    assert (result.outcome, result.new_points, result.retired_points) == ("updated", 1, 1)
    debate = Debate.objects.get()
    assert debate.points.count() == 11
    assert debate.points.filter(current=True).count() == 10
    old = debate.points.get(current=False)
    assert old.headline == "Smokers are a drain on economic resources"
    assert Perspective.objects.filter(text="Smokers are a drain on economic resources").exists()
    assert debate.page.versions.count() == 2


def test_crawled_rows_say_which_crawl_run_wrote_them() -> None:
    record = parse_debate("idebate", SMOKERS.read_bytes(), "https://idebate.org/x")
    stored = services.store_page(None, "idebate", record.url, SMOKERS.read_bytes(), record.url)
    run = services.create_run("idebate")
    ingest.ingest_debate(record, prepared(record), stored.version_id, run.pk)

    for model in (Claim, Perspective, Evidence, PerspectiveCluster, ClusterMember, ClusterEvidence):
        assert set(model.objects.values_list("written_by", "written_ref")) == {
            ("crawl", f"crawl run {run.pk}")
        }


def test_a_recrawl_of_a_changed_debate_keeps_an_expert_merge() -> None:
    html = SMOKERS.read_bytes()
    ingest_page(html)
    first, second = PerspectiveCluster.objects.order_by("position")[:2]
    merged = merge_clusters([first.pk, second.pk], user=None)
    members = list(merged.members.values_list("perspective_id", flat=True))

    ingest_page(html.replace(b"Smokers are a drain on economic resources", b"Smokers drain resources"))

    merged.refresh_from_db()
    assert list(merged.members.values_list("perspective_id", flat=True)) == members
    assert (merged.written_by, merged.written_ref) == ("person", "merge by system")
    assert not PerspectiveCluster.objects.filter(pk=second.pk).exists()


def test_debatewise_headlines_that_repeat_the_body_are_flagged_not_deleted() -> None:
    ingest_page((BUILT / "debatewise" / "wiki-debate.html").read_bytes(), site="debatewise")
    flags = dict(Perspective.objects.values_list("text", "quality_flag"))
    assert len(flags) == 4
    assert flags["Homework"].startswith("headline has 1 token")
    assert flags["Homework builds the habit of working alone"].startswith("headline repeats")
    assert flags["Homework takes away time children need for play and rest"] == ""


def test_a_failure_midway_leaves_no_half_written_debate(monkeypatch: pytest.MonkeyPatch) -> None:
    html = SMOKERS.read_bytes()
    record = parse_debate("idebate", html, "x")
    stored = services.store_page(None, "idebate", record.url, html, "x")
    calls = {"n": 0}
    create = Point.objects.create

    def fail_on_third(**fields: object) -> Point:
        calls["n"] += 1
        if calls["n"] == 3:
            raise IntegrityError("simulated failure while writing the third point")
        return create(**fields)

    monkeypatch.setattr(Point.objects, "create", fail_on_third)
    with pytest.raises(IntegrityError):
        ingest.ingest_debate(record, prepared(record), stored.version_id, None)
    assert (
        Claim.objects.count(),
        Perspective.objects.count(),
        Debate.objects.count(),
        Point.objects.count(),
    ) == (
        0,
        0,
        0,
        0,
    )


def test_a_point_whose_body_cleans_to_nothing_has_no_evidence() -> None:
    record = DebateRecord(
        site="idebate",
        url="https://idebate.org/debatabase/t/d",
        motion="This house would test",
        points=[PointRecord("pro", "A headline long enough", ["[1] Source, 2010."])],
    )
    stored = services.store_page(None, "idebate", record.url, b"<html></html>", record.url)
    ingest.ingest_debate(record, prepared(record), stored.version_id, None)
    assert Evidence.objects.count() == 0
    assert PerspectiveCluster.objects.get().evidence.count() == 0
