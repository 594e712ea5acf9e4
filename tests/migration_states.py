"""A test database moved to one migration, and the models as they were there (for migration tests,
which run with `django_db(transaction=True)`: a schema change is not rolled back with a test)."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import StateApps


def migrated(target: tuple[str, str]) -> StateApps:
    """Migrate to `target` (forwards or backwards) and return the models as they are there."""
    executor = MigrationExecutor(connection)
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


def latest(app_label: str) -> tuple[str, str]:
    """The app's last migration."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes(app_label)[0]
