"""Origins in releases (issue 46, item 6): a machine's label is released as machine, with its model and
prompt version; the datasheet gives each origin's share and the bound; a release can leave them out."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.machines.services import record_machine_labels, register_annotator
from annotation.models import Item, Job
from export.models import Release
from export.services import build_release
from export.verify import verify_release

pytestmark = pytest.mark.django_db

PLAN = {"annotator": "chat-stance", "target_error": 0.1, "confidence": 0.95, "calibration_items": 2}


@pytest.fixture
def machine_job(simulated_job: Job, releases_dir: Path) -> Job:
    """The simulated stance job with a chat machine's label on its first three items."""
    machine = register_annotator(
        "chat-stance", "stance", "openai_compatible", "llama-3-8b", prompt_version="stance-1"
    )
    items = list(Item.objects.filter(job=simulated_job).order_by("pk")[:3])
    assert record_machine_labels(machine, simulated_job, {item.pk: "SUPPORT" for item in items}) == 3
    simulated_job.params = {
        **simulated_job.params,
        "machine": PLAN,
        "machine_routing": {"annotator": "chat-stance v1", "threshold": 0.9, "share_accepted": 0.25},
    }
    simulated_job.save(update_fields=["params"])
    return simulated_job


def lines(release: Release) -> list[dict[str, object]]:
    text = (release.path / "jsonl" / "annotations.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_a_machine_label_is_released_as_machine_with_its_model_and_prompt_version(machine_job: Job) -> None:
    release = build_release("0.1")

    rows = lines(release)
    machine = [row for row in rows if row["origin"] == "machine"]
    assert [(row["model"], row["prompt_version"], row["label"]) for row in machine] == [
        ("llama-3-8b", "stance-1", "SUPPORT")
    ] * 3
    people = [row for row in rows if row["origin"] != "machine"]
    assert len(people) == machine_job.responses.count() - 3 > 0
    assert all(row["model"] is None and row["prompt_version"] is None for row in people)
    assert verify_release(release.path) == []
    assert release.manifest["labels_by_origin"] == {"crowd": len(people), "machine": 3}


def test_the_datasheet_gives_each_origins_share_and_the_bound(machine_job: Job) -> None:
    release = build_release("0.1")

    crowd = machine_job.responses.count() - 3
    sheet = (release.path / "datasheet.md").read_text()
    share = 3 / (crowd + 3)
    assert f"{crowd} from the crowd ({1 - share:.1%}), 3 from the machine ({share:.1%})" in sheet
    assert "error at most 0.1 against the crowd's decision, with confidence 0.95" in sheet
    assert "name their model and prompt version" in sheet


def test_a_release_without_machine_labels_has_none_and_says_so(machine_job: Job) -> None:
    release = build_release("0.1", machine_labels=False)

    assert Counter(row["origin"] for row in lines(release)) == {"crowd": machine_job.responses.count() - 3}
    assert release.manifest["machine_labels"] == "left out"
    assert "Machine labels were left out of this release" in (release.path / "datasheet.md").read_text()
    assert verify_release(release.path) == []


def test_export_release_refuses_to_give_a_release_with_machine_labels_out_without_them(
    machine_job: Job, tmp_path: Path
) -> None:
    build_release("0.1")

    with pytest.raises(CommandError, match="holds 3 machine labels"):
        call_command("export_release", version="0.1", out=tmp_path / "out", without_machine_labels=True)
    assert not (tmp_path / "out").exists()


def test_build_release_command_leaves_machine_labels_out_when_asked(machine_job: Job) -> None:
    call_command("build_release", version="0.2", without_machine_labels=True)

    release = Release.objects.get(version="0.2")
    assert "machine" not in {row["origin"] for row in lines(release)}
    assert release.manifest["machine_labels"] == "left out"
