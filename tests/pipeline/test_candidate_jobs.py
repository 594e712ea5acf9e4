"""Step 2c's web candidates: one candidate cluster per new web sentence, after the claim's own."""

from __future__ import annotations

import pytest

from corpus.models import Origin, PerspectiveCluster, Side, Status
from pipeline import candidate_jobs
from pipeline.candidate_jobs import add_web_candidates
from search.candidates import WebCandidate
from tests.annotation.factories import make_corpus

pytestmark = pytest.mark.django_db


def test_each_new_web_sentence_becomes_a_candidate_cluster_with_its_finders_side() -> None:
    claim = make_corpus(claims=1, perspectives=2)[0]
    pro, con = (c.members.get().perspective for c in claim.clusters.order_by("position"))
    found = [
        WebCandidate(claim.cid, con.pid, "https://example.org/" + "x" * 2100, "Taxes fall on the poor.", 0.5),
        WebCandidate(claim.cid, pro.pid, "https://example.org/b", "Schools gain from it.", 0.25),
        WebCandidate(claim.cid, 999_999, "https://example.org/c", "Nobody found this one.", 0.125),
    ]

    assert add_web_candidates(claim.cid, found) == 3

    added = list(PerspectiveCluster.objects.filter(claim=claim, position__gte=2).order_by("position"))
    assert [c.position for c in added] == [2, 3, 4]
    assert [c.source_side for c in added] == [Side.CON, Side.PRO, ""]
    assert {c.status for c in added} == {Status.CANDIDATE}
    assert added[0].rule == f"web candidate for p{con.pid} (score 0.50)"
    heads = [c.members.get(position=0).perspective for c in added]
    assert [p.text for p in heads] == [f.text for f in found]
    assert {(p.origin, p.source) for p in heads} == {(Origin.WEB, "web")}
    assert len(heads[0].source_url) == 2000


def test_a_sentence_already_heading_a_cluster_of_the_claim_is_not_added_again() -> None:
    claim = make_corpus(claims=1, perspectives=1)[0]
    head = claim.clusters.get().members.get().perspective
    found = [WebCandidate(claim.cid, head.pid, "https://example.org/a", "A new sentence.", 0.5)]
    add_web_candidates(claim.cid, found)
    again = [*found, WebCandidate(claim.cid, head.pid, "https://example.org/b", head.text, 0.5)]

    assert add_web_candidates(claim.cid, again) == 0
    assert claim.clusters.count() == 2


def test_the_web_perspectives_job_is_named_for_its_step(monkeypatch: pytest.MonkeyPatch) -> None:
    claim = make_corpus(claims=1, perspectives=1)[0]
    head = claim.clusters.get().members.get().perspective
    found = [WebCandidate(claim.cid, head.pid, "https://example.org/a", "A new sentence.", 0.5)]
    monkeypatch.setattr(candidate_jobs.search, "web_perspective_candidates", lambda *a, **k: found)
    named: list[tuple[str, str]] = []
    monkeypatch.setattr(
        candidate_jobs, "_create", lambda task_type, f, p, name, x=None: named.append((task_type, name))
    )

    candidate_jobs.web_perspective_job([claim.cid], {"web_sentences": 3}, source=object())  # type: ignore[arg-type]

    assert named == [("stance", "web perspectives: stance of web sentences")]
