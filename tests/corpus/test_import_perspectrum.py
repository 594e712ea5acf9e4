"""Importing a PERSPECTRUM release: idempotent, faithful to the original, and all-or-nothing on bad files."""

from __future__ import annotations

import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from corpus.models import Claim, ClusterMember, Evidence, Origin, Perspective, PerspectiveCluster
from corpus.perspectrum import ReleaseFormatError
from corpus.services import allocate_ids, import_perspectrum
from tests.config.test_progress import Terminal

pytestmark = pytest.mark.django_db

FILES = (
    "perspectrum_with_answers_v1.0.json",
    "perspective_pool_v1.0.json",
    "dataset_split_v1.0.json",
    "topic.json",
)


def write_release(
    directory: Path, claims: list, pool: list, split: dict, topics: list, evidence=None
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in zip(FILES, (claims, pool, split, topics), strict=True):
        (directory / name).write_text(json.dumps(data))
    if evidence is not None:
        (directory / "evidence_pool_v1.0.json").write_text(json.dumps(evidence))
    return directory


def cluster(pids, s3="SUPPORT", s5="SUPPORT", votes=(3, 0, 0, 0, 0), evidence=()):
    return {
        "pids": list(pids),
        "stance_label_3": s3,
        "stance_label_5": s5,
        "voter_counts": list(votes),
        "evidence": list(evidence),
    }


@pytest.fixture
def small_release(tmp_path: Path) -> Path:
    claims = [
        {
            "cId": 7,
            "text": "Animals should have lawful rights",
            "source": "idebate",
            "perspectives": [
                cluster([1, 3], evidence=[11, 12]),
                cluster([2], "UNDERMINE", "MILDLY_UNDERMINE", (0, 0, 2, 1, 0), [11]),
            ],
            "topics": ["ethics", "law"],
        },
        {
            "cId": 9,
            "text": "Homework should be banned",
            "source": "debatewise",
            "perspectives": [cluster([4])],
            "topics": [],
        },
    ]
    pool = [
        {"pId": 1, "text": "Animals feel pain like humans do", "source": "idebate"},
        {"pId": 2, "text": "Rights come with duties animals cannot bear", "source": "idebate"},
        {"pId": 3, "text": "Animals suffer just as people do", "source": "paraphrase"},
        {"pId": 4, "text": "Homework crowds out play", "source": "google"},
        {"pId": 5, "text": "An unused perspective stays in the pool", "source": "procon"},
    ]
    topics = [
        {"claim_id": 7, "topics": ["ethics", "law"]},
        {"claim_id": 9, "topics": []},
        {"claim_id": 12, "topics": ["politics"]},
    ]
    return write_release(tmp_path / "release", claims, pool, {"7": "train", "9": "test"}, topics)


def test_import_creates_claims_perspectives_clusters_and_marks_unknown_text_missing(
    small_release: Path,
) -> None:
    report = import_perspectrum(small_release)

    assert report.created["claims"] == 3
    assert Claim.objects.get(cid=7).split == "train"
    assert Claim.objects.get(cid=12).text_missing  # known only from topic.json: no text is invented
    assert Claim.objects.get(cid=12).text == ""
    evidence = Evidence.objects.get(eid=11)
    assert evidence.text_missing and evidence.text == ""
    first = PerspectiveCluster.objects.get(claim__cid=7, position=0)
    assert list(first.members.values_list("perspective__pid", flat=True)) == [1, 3]
    assert list(first.evidence_links.values_list("evidence__eid", flat=True)) == [11, 12]
    assert Perspective.objects.get(pid=3).paraphrase_of == Perspective.objects.get(pid=1)
    assert Perspective.objects.get(pid=3).origin == Origin.PARAPHRASE
    assert Perspective.objects.get(pid=4).origin == Origin.WEB
    assert list(Claim.objects.get(cid=7).claim_topics.values_list("topic__slug", flat=True)) == [
        "ethics",
        "law",
    ]


def test_a_first_import_creates_paraphrase_links_and_names_empty_texts(small_release: Path) -> None:
    pool = json.loads((small_release / FILES[1]).read_text())
    pool[4]["text"] = "  "
    (small_release / FILES[1]).write_text(json.dumps(pool))

    report = import_perspectrum(small_release)

    said = "\n".join(report.lines())
    assert (report.created["paraphrase links"], report.updated["paraphrase links"]) == (1, 0)
    assert "paraphrase links: 1 created, 0 updated" in said
    assert "1 perspective with empty text in the release, imported as they are (ids 5)" in said


def test_second_import_changes_nothing(small_release: Path) -> None:
    import_perspectrum(small_release)
    stamps = {
        "claims": list(Claim.objects.values_list("pk", "updated")),
        "clusters": list(PerspectiveCluster.objects.values_list("pk", "updated")),
        "members": list(ClusterMember.objects.values_list("pk", flat=True)),
    }

    report = import_perspectrum(small_release)

    assert not report.changed
    assert stamps == {
        "claims": list(Claim.objects.values_list("pk", "updated")),
        "clusters": list(PerspectiveCluster.objects.values_list("pk", "updated")),
        "members": list(ClusterMember.objects.values_list("pk", flat=True)),
    }


def test_evidence_pool_when_present_fills_evidence_text(small_release: Path) -> None:
    import_perspectrum(small_release)
    (small_release / "evidence_pool_v1.0.json").write_text(
        json.dumps(
            [
                {"eId": 11, "text": "Pain is felt by all vertebrates.", "source": "idebate"},
                {"eId": 12, "text": "Mammals have nociceptors.", "source": "idebate"},
            ]
        )
    )

    report = import_perspectrum(small_release)

    assert report.updated["evidence"] == 2
    assert Evidence.objects.get(eid=11).text == "Pain is felt by all vertebrates."
    assert not Evidence.objects.filter(text_missing=True).exists()


def test_changed_release_updates_only_what_changed(small_release: Path) -> None:
    import_perspectrum(small_release)
    claims = json.loads((small_release / FILES[0]).read_text())
    claims[1]["perspectives"][0]["stance_label_3"] = "UNDERMINE"
    (small_release / FILES[0]).write_text(json.dumps(claims))

    report = import_perspectrum(small_release)

    assert report.updated["claim clusters"] == 1
    assert report.unchanged["claim clusters"] == 1
    assert PerspectiveCluster.objects.get(claim__cid=9).stance_3 == "UNDERMINE"


@pytest.mark.parametrize(
    ("file_index", "corrupt", "expected"),
    [
        (0, lambda data: "{not json", r"perspectrum_with_answers_v1.0.json: not valid JSON"),
        (
            0,
            lambda data: data[:1] + [{**data[1], "perspectives": [cluster([4], "SUPPORTS")]}],
            r"record 1 \(cId 9\), field perspectives/0/stance_label_3: 'SUPPORTS' is not one of",
        ),
        (
            0,
            lambda data: data[:1] + [{**data[1], "perspectives": [cluster([99])]}],
            r"record 1 \(cId 9\), perspectives/0/pids: pId 99 is not in perspective_pool_v1.0.json",
        ),
        (
            0,
            lambda data: data[:1] + [{**data[1], "cId": "9"}],
            r"record 1 \(cId '9'\), field cId: '9' is not of type",
        ),
        (
            0,
            lambda data: data[:1] + [{**data[1], "perspectives": [cluster([4], votes=(1, 2))]}],
            r"record 1 \(cId 9\), field perspectives/0/voter_counts",
        ),
        (1, lambda data: [*data, data[0]], r"perspective_pool_v1.0.json: record 5 \(pId 1\): duplicate pId"),
        (2, lambda data: {**data, "8": "train"}, r"dataset_split_v1.0.json: key '8': no claim with cId 8"),
        (
            2,
            lambda data: {**data, "7": "training"},
            r"dataset_split_v1.0.json: key '7': 'training' is not one of",
        ),
        (
            3,
            lambda data: [*data[:2], {"claim_id": 12, "topics": ["astrology"]}],
            r"topic.json: record 2 \(claim_id 12\): unknown topic 'astrology'",
        ),
    ],
    ids=[
        "bad-json",
        "unknown-label",
        "dangling-pid",
        "wrong-type",
        "short-votes",
        "duplicate-id",
        "split-dangling",
        "split-value",
        "unknown-topic",
    ],
)
def test_broken_release_is_rejected_naming_the_record_and_writes_nothing(
    small_release: Path, file_index: int, corrupt, expected: str
) -> None:
    path = small_release / FILES[file_index]
    corrupted = corrupt(json.loads(path.read_text()))
    path.write_text(corrupted if isinstance(corrupted, str) else json.dumps(corrupted))

    with pytest.raises(ReleaseFormatError, match=expected):
        import_perspectrum(small_release)

    assert not Claim.objects.exists()
    assert not Perspective.objects.exists()


def test_missing_file_is_named(small_release: Path) -> None:
    (small_release / "topic.json").unlink()
    with pytest.raises(ReleaseFormatError, match=r"topic\.json: missing"):
        import_perspectrum(small_release)


def test_command_prints_counts_and_rejects_broken_files_cleanly(small_release: Path, tmp_path: Path) -> None:
    out = StringIO()
    call_command("import_perspectrum", str(small_release), stdout=out)
    assert "claims: 3 created" in out.getvalue()
    assert "evidence without text (ids kept, text marked missing): 2" in out.getvalue()

    broken = shutil.copytree(small_release, tmp_path / "broken")
    (broken / FILES[1]).write_text("[{]")
    expected = r"perspective_pool_v1\.0\.json: not valid JSON.*nothing was written"
    with pytest.raises(CommandError, match=expected):
        call_command("import_perspectrum", str(broken), stdout=StringIO())


def test_download_offline_gives_a_clear_message(tmp_path: Path) -> None:
    from corpus.download import download_release

    with pytest.raises(Exception, match="Are you offline"):
        list(download_release(tmp_path, base_url="http://127.0.0.1:9/"))


def test_allocate_ids_continues_above_the_highest_public_id(small_release: Path) -> None:
    import_perspectrum(small_release)
    assert allocate_ids(Perspective, 3) == [6, 7, 8]
    assert allocate_ids(Claim, 1) == [13]


def test_the_import_command_shows_each_stage(small_release: Path) -> None:
    err = StringIO()
    call_command("import_perspectrum", str(small_release), stdout=StringIO(), stderr=err)
    stages = [line.split(":")[0] for line in err.getvalue().splitlines()]
    assert stages == [
        "read and validate the release", "claims", "perspectives", "evidence",
        "paraphrase links and topics", "perspective clusters",
    ]  # fmt: skip
    assert re.search(r"^claims: 3 claims in \d+\.\d s$", err.getvalue(), re.M)


def test_the_import_command_draws_bars_on_a_terminal(small_release: Path) -> None:
    err = Terminal()  # a StringIO that says it is a terminal
    call_command("import_perspectrum", str(small_release), stdout=StringIO(), stderr=err)
    assert "claims: 3 claims" in err.getvalue() and "perspective clusters: 100%" in err.getvalue()
