"""The outcomes' job indexed by block ranges (BRIN) on PostgreSQL rather than by a B-tree entry per row:
a job's outcomes are written together, so a few pages' summary finds them, and a first run of a
million outcomes no longer inserts a million index entries. New ranges are summarized as they fill
(autosummarize), so a job's fresh rows are not left to a scan until the next vacuum. SQLite builds a
plain index from the same definition (its CREATE INDEX has no USING)."""

from django.apps.registry import Apps
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

import django.contrib.postgres.indexes
import django.db.models.deletion
from django.db import migrations, models


INDEX = "itemoutcome_job"


def summarized_as_filled(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER INDEX {INDEX} SET (autosummarize = on)")


class Migration(migrations.Migration):

    dependencies = [
        ('aggregation', '0008_outcome_keys_unchecked'),
        ('annotation', '0009_worker_pseudonym'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='itemoutcome',
            index=django.contrib.postgres.indexes.BrinIndex(fields=['job'], name='itemoutcome_job'),
        ),
        migrations.AlterField(
            model_name='itemoutcome',
            name='job',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='item_outcomes', to='annotation.job'),
        ),
        # Dropped with the index on the way back.
        migrations.RunPython(summarized_as_filled, migrations.RunPython.noop),
    ]
