"""The models and their migrations agree: a change without its migration fails here, not on deploy.
And each migration stands alone: it imports none of the project's code, so a later change of that
code cannot change what an old migration does on the next fresh database."""

from __future__ import annotations

import ast
import importlib
import io
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import IntegrityError
from django.db.migrations.state import StateApps

from annotation.ledger.models import LedgerEntry
from annotation.models import Job, Worker
from annotation.work.records import worker_pseudonym
from corpus.models import Topic
from corpus.topics import TOPICS
from pipeline.models import PipelineRun
from tests.migration_states import latest, migrated

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = frozenset(
    tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
)


@pytest.mark.django_db
def test_no_model_change_is_missing_its_migration() -> None:
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out)
    except SystemExit as exit_:  # makemigrations --check exits 1 when a migration is missing
        pytest.fail(f"missing migrations (exit {exit_.code}):\n{out.getvalue()}")


def project_imports(root: Path) -> list[str]:
    """Every import of one of the project's packages in a migration below `root`, at any depth
    (a function-level import too), as "path:line module"."""
    found: list[str] = []
    for path in sorted(root.glob("*/migrations/*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            found += [
                f"{path.relative_to(root)}:{node.lineno} {name}"
                for name in modules
                if name.split(".")[0] in PACKAGES
            ]
    return found


def test_no_migration_imports_the_projects_own_code() -> None:
    assert project_imports(ROOT) == []


def test_an_import_of_the_project_in_a_migration_is_found(tmp_path: Path) -> None:
    (tmp_path / "corpus" / "migrations").mkdir(parents=True)
    (tmp_path / "corpus" / "migrations" / "0002_seed.py").write_text(
        "from django.db import migrations\nimport json\n\n"
        "def seed(apps, schema_editor):\n    from corpus.topics import TOPICS\n    import accounts.roles\n"
    )
    (tmp_path / "corpus" / "topics.py").write_text("from corpus import models\n")  # not a migration
    assert project_imports(tmp_path) == [
        "corpus/migrations/0002_seed.py:5 corpus.topics",
        "corpus/migrations/0002_seed.py:6 accounts.roles",
    ]


def migration(app_label: str, name: str) -> Any:
    return importlib.import_module(f"{app_label}.migrations.{name}")


@pytest.mark.django_db
def test_the_seeded_topics_are_those_corpus_topics_lists() -> None:
    """A migrate seeds the topics once; a topic added to corpus/topics.py needs a migration of its own."""
    Topic.objects.all().delete()

    migration("corpus", "0002_seed_topics").seed_topics(apps, None)

    assert dict(Topic.objects.values_list("slug", "name")) == TOPICS


# The last migration before the market's columns lost their old name (`provider`): migration 0009
# reads that name, so it runs on the database and models as they were then.
BEFORE_MARKET = ("annotation", "0013_alter_machinereply_options")


@pytest.fixture
def before_market() -> Iterator[StateApps]:
    yield migrated(BEFORE_MARKET)
    migrated(latest("annotation"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("key", ["migration-pseudonym-key-0123456789", ""])
def test_the_pseudonym_migration_fills_the_pseudonyms_the_live_code_gives(
    settings: Any, key: str, before_market: StateApps
) -> None:
    """Keyed, or in development keyed from SECRET_KEY. Should the live naming change, this fails:
    existing databases then need the column cleared and `fill_worker_pseudonyms` run again."""
    settings.WORKER_PSEUDONYM_KEY, settings.DEBUG = key, True
    Old = before_market.get_model("annotation", "Worker")
    for n in range(3):
        Old.objects.create(provider="mturk", external_id=f"A{n:013d}")
    Old.objects.create(provider="prolific", external_id="5f1e0c0d0b0a090807060504")
    Old.objects.update(pseudonym=None)  # as before the column existed

    migration("annotation", "0009_worker_pseudonym").fill(before_market, None)
    migrated(latest("annotation"))

    workers = list(Worker.objects.all())
    assert len(workers) == 4 and {w.market for w in workers} == {"mturk", "prolific"}
    assert dict(Worker.objects.values_list("pk", "pseudonym")) == {w.pk: worker_pseudonym(w) for w in workers}


@pytest.mark.django_db(transaction=True)
def test_the_pseudonym_migration_refuses_to_name_workers_without_a_key(
    settings: Any, before_market: StateApps
) -> None:
    settings.WORKER_PSEUDONYM_KEY, settings.DEBUG = "", False
    before_market.get_model("annotation", "Worker").objects.create(
        provider="mturk", external_id="A0000000000001"
    )
    module = migration("annotation", "0009_worker_pseudonym")

    with pytest.raises(module.PseudonymKeyError, match="set WORKER_PSEUDONYM_KEY"):
        module.fill(before_market, None)
    assert before_market.get_model("annotation", "Worker").objects.get().pseudonym is None


@pytest.mark.django_db(transaction=True)
def test_the_market_keeps_its_rows_their_tokens_and_pseudonyms_when_it_loses_its_old_name(
    before_market: StateApps,
) -> None:
    Old = before_market.get_model("annotation", "Worker")
    old = Old.objects.create(provider="prolific", external_id="P1", pseudonym="w_70f08d3ed0689c6e8113")
    job = before_market.get_model("annotation", "Job").objects.create(task_type="stance", provider="mturk")
    entry = before_market.get_model("annotation", "LedgerEntry").objects.create(
        job=job,
        provider="mturk",
        kind="bonus",
        token="sw1-bonus-212a40231d9164ced6058dd2961223bd0d8baaa8739aef1210a18d",
    )

    migrated(latest("annotation"))

    assert Worker.objects.filter(pk=old.pk).values_list("market", "external_id", "pseudonym").get() == (
        "prolific",
        "P1",
        "w_70f08d3ed0689c6e8113",
    )
    assert Job.objects.get(pk=job.pk).market == "mturk"
    assert LedgerEntry.objects.filter(pk=entry.pk).values_list("market", "token").get() == (
        "mturk",
        entry.token,
    )
    with pytest.raises(IntegrityError):  # the pair is still unique under its new name
        Worker.objects.create(market="prolific", external_id="P1")


@pytest.mark.django_db
def test_a_saved_runs_provider_parameter_becomes_its_market_and_back() -> None:
    run = PipelineRun.objects.create(name="saved", params={"provider": "inhouse", "claims": [1007]})
    other = PipelineRun.objects.create(name="newer", params={"market": "simulated"})
    module = migration("pipeline", "0006_params_market")

    module.forwards(apps, None)
    assert PipelineRun.objects.get(pk=run.pk).params == {"market": "inhouse", "claims": [1007]}
    assert PipelineRun.objects.get(pk=other.pk).params == {"market": "simulated"}

    module.backwards(apps, None)
    assert PipelineRun.objects.get(pk=run.pk).params == {"provider": "inhouse", "claims": [1007]}
