"""Re-importing a release never undoes the platform's work: a three-way merge, with conflicts reported."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from accounts.models import AuditEvent
from aggregation.trimming import merge_clusters, split_cluster
from annotation.task_types.decisions import Decision
from annotation.task_types.evidence_verification import write_evidence
from annotation.task_types.topic_tagging import write_topics
from corpus import models as corpus
from corpus import provenance
from corpus.provenance import Writer
from corpus.services import already_imported, import_perspectrum
from tests.corpus.test_import_perspectrum import FILES

pytestmark = pytest.mark.django_db


def links_of(cid: int) -> list[tuple[int, int]]:
    return list(
        corpus.ClusterEvidence.objects.filter(cluster__claim__cid=cid)
        .order_by("cluster__position", "position")
        .values_list("cluster__position", "evidence__eid")
    )


def crowd_verifies_a_new_link(eid: int = 12, pid: int = 2) -> None:
    """An evidence job keeps (e12, p2): the link joins p2's cluster of claim 7."""
    perspective, evidence = corpus.Perspective.objects.get(pid=pid), corpus.Evidence.objects.get(eid=eid)
    decision = Decision(
        item_id=1, label="supported", fine_label="supported", counts=[4, 0], agreement=1.0, kept=True,
        perspective_id=perspective.pk, evidence_id=evidence.pk,
    )  # fmt: skip
    write_evidence([decision])


def edit_release(directory: Path, change) -> None:
    path = directory / FILES[0]
    claims = json.loads(path.read_text())
    change(claims)
    path.write_text(json.dumps(claims))


@pytest.fixture
def expert():
    return get_user_model().objects.create_user("expert")


def test_a_crowd_verified_evidence_link_survives_a_second_import(small_release: Path) -> None:
    import_perspectrum(small_release)
    crowd_verifies_a_new_link()
    assert (1, 12) in links_of(7)

    report = import_perspectrum(small_release)

    assert (1, 12) in links_of(7)
    assert not report.changed and not report.conflicts


def test_an_expert_merge_survives_a_second_import(small_release: Path, expert) -> None:
    import_perspectrum(small_release)
    clusters = corpus.PerspectiveCluster.objects.filter(claim__cid=7).order_by("position")
    merged = merge_clusters([c.pk for c in clusters], user=expert)

    report = import_perspectrum(small_release)

    assert list(corpus.PerspectiveCluster.objects.filter(claim__cid=7).values_list("pk", flat=True)) == [
        merged.pk
    ]
    assert sorted(merged.members.values_list("perspective__pid", flat=True)) == [1, 2, 3]
    assert report.updated["claim clusters"] == 0 and not report.conflicts


def test_an_expert_split_survives_a_second_import(small_release: Path, expert) -> None:
    import_perspectrum(small_release)
    first = corpus.PerspectiveCluster.objects.get(claim__cid=7, position=0)
    split_cluster(first.pk, [corpus.Perspective.objects.get(pid=3).pk], user=expert)

    report = import_perspectrum(small_release)

    assert corpus.PerspectiveCluster.objects.filter(claim__cid=7).count() == 3
    assert report.updated["claim clusters"] == 0 and not report.conflicts


def test_a_job_that_retagged_topics_keeps_its_topics_on_reimport(small_release: Path) -> None:
    import_perspectrum(small_release)
    write_topics({corpus.Claim.objects.get(cid=7).pk: ["politics"]})

    report = import_perspectrum(small_release)

    assert list(corpus.Claim.objects.get(cid=7).claim_topics.values_list("topic__slug", flat=True)) == [
        "politics"
    ]
    assert report.updated["claim topics"] == 0 and not report.conflicts


def test_reimporting_the_same_release_reports_nothing_updated(small_release: Path) -> None:
    import_perspectrum(small_release)

    report = import_perspectrum(small_release)

    assert sum(report.updated.values()) == 0 and sum(report.created.values()) == 0
    assert "claim clusters: 0 created, 0 updated, 2 unchanged" in report.lines() and not report.conflicts


def test_a_new_release_updates_what_still_holds_the_old_release(small_release: Path) -> None:
    import_perspectrum(small_release)
    crowd_verifies_a_new_link()  # claim 7 is the platform's now; claim 9 is still the release's
    edit_release(
        small_release, lambda claims: claims[1]["perspectives"][0].update(stance_label_3="UNDERMINE")
    )

    report = import_perspectrum(small_release)

    assert report.updated["claim clusters"] == 1
    assert corpus.PerspectiveCluster.objects.get(claim__cid=9).stance_3 == "UNDERMINE"
    assert corpus.PerspectiveCluster.objects.get(claim__cid=9).written_ref == "PERSPECTRUM v1.0"
    assert (1, 12) in links_of(7) and not report.conflicts


def test_a_new_release_that_regroups_a_claim_rewrites_its_clusters_in_place(small_release: Path) -> None:
    import_perspectrum(small_release)
    first = list(
        corpus.PerspectiveCluster.objects.filter(claim__cid=7)
        .order_by("position")
        .values_list("pk", flat=True)
    )
    pool = json.loads((small_release / FILES[1]).read_text())
    pool[1]["text"] = "Rights come with duties"
    (small_release / FILES[1]).write_text(json.dumps(pool))
    regroup = [
        {**cluster, "pids": [pid]}
        for cluster in claims_of(small_release)[0]["perspectives"][:1]
        for pid in (1, 3)
    ]
    edit_release(
        small_release, lambda claims: claims[0].update(perspectives=[*regroup, claims[0]["perspectives"][1]])
    )

    report = import_perspectrum(small_release)

    clusters = corpus.PerspectiveCluster.objects.filter(claim__cid=7).order_by("position")
    members = [
        c.perspectives.order_by("memberships__position").values_list("pid", flat=True) for c in clusters
    ]
    assert [list(pids) for pids in members] == [[1], [3], [2]]
    assert [c.pk for c in clusters][:2] == first and [c.position for c in clusters] == [0, 1, 2]
    assert [links_of(7).count((p, 11)) for p in (0, 1, 2)] == [1, 1, 1]
    assert {c.written_ref for c in clusters} == {"PERSPECTRUM v1.0"}
    rewritten = corpus.Perspective.objects.get(pid=2)
    assert rewritten.text == "Rights come with duties" and rewritten.written_by == corpus.WrittenBy.IMPORT
    assert report.updated["perspectives"] == 1 and report.updated["claim clusters"] == 1

    edit_release(small_release, lambda claims: claims[0].update(perspectives=claims[0]["perspectives"][2:]))
    import_perspectrum(small_release)

    assert list(corpus.PerspectiveCluster.objects.filter(claim__cid=7).values_list("pk", "position")) == [
        (first[0], 0)
    ]
    assert links_of(7) == [(0, 11)]


def claims_of(directory: Path) -> list:
    return json.loads((directory / FILES[0]).read_text())


def test_a_new_release_that_changes_what_an_expert_merged_is_a_conflict_the_platform_wins(
    small_release: Path, expert
) -> None:
    import_perspectrum(small_release)
    clusters = corpus.PerspectiveCluster.objects.filter(claim__cid=7).order_by("position")
    merged = merge_clusters([c.pk for c in clusters], user=expert)
    edit_release(
        small_release, lambda claims: claims[0]["perspectives"][1].update(stance_label_5="UNDERMINE")
    )

    report = import_perspectrum(small_release)

    assert list(corpus.PerspectiveCluster.objects.filter(claim__cid=7).values_list("pk", flat=True)) == [
        merged.pk
    ]
    assert report.updated["claim clusters"] == 0
    (conflict,) = report.conflicts
    assert (conflict.kind, conflict.key) == ("claim clusters", "c7")
    assert "merge" in conflict.changed_by and "expert" in conflict.changed_by and conflict.changed_at
    assert conflict.release and conflict.platform
    assert any("conflict claim clusters c7" in line for line in report.lines())
    # Reported once: the platform's version stands from now on.
    assert not import_perspectrum(small_release).conflicts


def test_a_platform_change_equal_to_the_new_release_is_no_conflict(small_release: Path) -> None:
    import_perspectrum(small_release)
    corpus.Claim.objects.filter(cid=9).update(
        text="Homework should be abolished", written_by=corpus.WrittenBy.PERSON, written_ref="edit by someone"
    )
    edit_release(small_release, lambda claims: claims[1].update(text="Homework should be abolished"))

    report = import_perspectrum(small_release)

    assert not report.conflicts and report.updated["claims"] == 0


def test_a_person_edited_claim_text_is_kept_and_reported_when_the_release_changes_it(
    small_release: Path,
) -> None:
    import_perspectrum(small_release)
    corpus.Claim.objects.filter(cid=9).update(
        text="Homework: ban it", written_by=corpus.WrittenBy.PERSON, written_ref="x"
    )
    edit_release(small_release, lambda claims: claims[1].update(text="Homework should be abolished"))

    report = import_perspectrum(small_release)

    assert corpus.Claim.objects.get(cid=9).text == "Homework: ban it"
    (conflict,) = report.conflicts
    assert conflict.release == {"text": "Homework should be abolished"}
    assert conflict.platform == {"text": "Homework: ban it"}


def test_dry_run_reports_and_writes_nothing(small_release: Path, expert) -> None:
    import_perspectrum(small_release)
    merge_clusters(
        list(corpus.PerspectiveCluster.objects.filter(claim__cid=7).values_list("pk", flat=True)), user=expert
    )
    edit_release(small_release, lambda claims: claims[0].update(text="Animals deserve rights"))
    edit_release(
        small_release, lambda claims: claims[0]["perspectives"][1].update(stance_label_5="UNDERMINE")
    )
    before = (
        corpus.Claim.objects.get(cid=7).text,
        corpus.ImportedRelease.objects.count(),
        corpus.ClusterMember.objects.count(),
    )
    out = StringIO()

    call_command("import_perspectrum", str(small_release), dry_run=True, stdout=out)

    assert (
        corpus.Claim.objects.get(cid=7).text,
        corpus.ImportedRelease.objects.count(),
        corpus.ClusterMember.objects.count(),
    ) == before
    printed = out.getvalue()
    assert "dry run: nothing was written" in printed
    assert "claims: 0 created, 1 updated" in printed and "conflict claim clusters c7" in printed


def test_each_import_is_recorded_by_checksum(small_release: Path) -> None:
    assert already_imported(small_release) is None
    report = import_perspectrum(small_release)

    found = already_imported(small_release)

    assert found is not None and found.checksum == report.checksum and found.version == "1.0"
    edit_release(small_release, lambda claims: claims[0].update(text="Animals deserve rights"))
    assert already_imported(small_release) is None


def test_rows_from_before_provenance_differing_from_the_release_are_kept_once_reported(
    small_release: Path,
) -> None:
    import_perspectrum(small_release)
    crowd_verifies_a_new_link()
    corpus.Claim.objects.update(
        clusters_release_digest="", topics_release_digest=""
    )  # as the migration leaves them

    first, second = import_perspectrum(small_release), import_perspectrum(small_release)

    assert (1, 12) in links_of(7)
    assert [c.key for c in first.conflicts] == ["c7"] and not second.conflicts
    assert first.updated["claim clusters"] == second.updated["claim clusters"] == 0


def test_imported_rows_say_which_release_wrote_them(small_release: Path) -> None:
    import_perspectrum(small_release)

    for model in (
        corpus.Claim,
        corpus.Perspective,
        corpus.PerspectiveCluster,
        corpus.ClusterMember,
        corpus.ClusterEvidence,
    ):
        assert set(model.objects.values_list("written_by", "written_ref")) == {("import", "PERSPECTRUM v1.0")}


def an_expert_removes_a_link(expert, eid: int = 12, pid: int = 1) -> None:
    """An expert's adjudication rejects (e12, p1): the link leaves p1's cluster of claim 7."""
    decision = Decision(
        item_id=1, label="not_supported", fine_label="not_supported", counts=[0, 4], agreement=1.0,
        kept=False, perspective_id=corpus.Perspective.objects.get(pid=pid).pk,
        evidence_id=corpus.Evidence.objects.get(eid=eid).pk,
    )  # fmt: skip
    with provenance.writing(Writer.person(expert, "adjudication")):
        write_evidence([decision])


def test_a_link_an_expert_removed_is_not_added_back_by_the_same_release(small_release: Path, expert) -> None:
    import_perspectrum(small_release)
    an_expert_removes_a_link(expert)

    report = import_perspectrum(small_release)

    assert (0, 12) not in links_of(7) and (0, 11) in links_of(7)
    assert report.updated["claim clusters"] == 0 and not report.conflicts


def test_a_link_an_expert_removed_stays_removed_when_the_release_changes_the_claim(
    small_release: Path, expert
) -> None:
    import_perspectrum(small_release)
    an_expert_removes_a_link(expert)
    edit_release(
        small_release, lambda claims: claims[0]["perspectives"][1].update(stance_label_5="UNDERMINE")
    )

    report = import_perspectrum(small_release)

    assert (0, 12) not in links_of(7)
    (conflict,) = report.conflicts
    assert conflict.key == "c7" and "adjudication by expert" in conflict.changed_by


def test_each_import_and_each_of_its_conflicts_is_in_the_audit_trail(small_release: Path, expert) -> None:
    import_perspectrum(small_release)
    an_expert_removes_a_link(expert)
    edit_release(
        small_release, lambda claims: claims[0]["perspectives"][1].update(stance_label_5="UNDERMINE")
    )

    report = import_perspectrum(small_release)
    import_perspectrum(small_release, dry_run=True)

    imports = AuditEvent.objects.filter(action=AuditEvent.Action.IMPORTED).order_by("pk")
    assert [event.target for event in imports] == ["PERSPECTRUM v1.0", "PERSPECTRUM v1.0"]
    assert imports[1].detail["updated"] == dict(report.updated) and imports[1].detail["conflicts"] == 1
    (event,) = AuditEvent.objects.filter(action=AuditEvent.Action.IMPORT_CONFLICT)
    assert event.target == "PERSPECTRUM v1.0: claim clusters c7"
    assert "adjudication by expert" in event.detail["changed_by"] and event.detail["release"]
