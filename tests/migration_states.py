"""A test database moved to one migration, and the models as they are there (for migration tests,
which run with `django_db(transaction=True)`: a schema change is not rolled back with a test)."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.state import StateApps


def migrated(target: tuple[str, str]) -> StateApps:
    """Migrate to `target` (forwards or backwards) and return the models as the database now has them.

    The state of every applied migration, not only of `target`'s ancestors: another app's tables stay
    as its later migrations left them (aggregation moved back still sees annotation's latest columns)."""
    MigrationExecutor(connection).migrate([target])
    loader = MigrationLoader(connection)
    return loader.project_state(list(loader.applied_migrations)).apps


def latest(app_label: str) -> tuple[str, str]:
    """The app's last migration."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes(app_label)[0]
