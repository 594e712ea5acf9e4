"""A run's parameters name the market under `market`, no longer `provider` (the same thing, one word).

Runs saved before keep their choice: `provider` is renamed in place, both ways.
"""

from typing import Any

from django.db import migrations


def rename_key(apps: Any, old: str, new: str) -> None:
    PipelineRun = apps.get_model("pipeline", "PipelineRun")
    runs = [run for run in PipelineRun.objects.only("pk", "params") if old in (run.params or {})]
    for run in runs:
        run.params = {(new if key == old else key): value for key, value in run.params.items()}
    PipelineRun.objects.bulk_update(runs, ["params"])


def forwards(apps: Any, schema_editor: Any) -> None:
    rename_key(apps, "provider", "market")


def backwards(apps: Any, schema_editor: Any) -> None:
    rename_key(apps, "market", "provider")


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0005_step_titles_without_paper_numbers"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
