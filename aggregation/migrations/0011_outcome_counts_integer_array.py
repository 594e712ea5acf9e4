"""An outcome's counts as an integer array on PostgreSQL (they were JSON): a first run writes its
million outcomes by binary COPY straight into the table, where an array of integers is fixed-width,
and compares them on a re-run element by element without parsing JSON. A JSON array of integers,
its brackets made braces, is the array's text form. Elsewhere (SQLite) the column stays JSON text,
which the field reads and writes there (aggregation.models.LabelCounts)."""

import django.contrib.postgres.fields
from django.db import migrations, models

TABLE = "aggregation_itemoutcome"


def to_array(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"ALTER TABLE {TABLE} ALTER COLUMN counts TYPE integer[] "
            "USING translate(counts::text, '[]', '{}')::integer[]"
        )


def to_json(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {TABLE} ALTER COLUMN counts TYPE jsonb USING to_jsonb(counts)")


class Migration(migrations.Migration):

    dependencies = [
        ('aggregation', '0010_outcome_run_restricted'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(to_array, to_json)],
            state_operations=[
                migrations.AlterField(
                    model_name='itemoutcome',
                    name='counts',
                    field=django.contrib.postgres.fields.ArrayField(base_field=models.IntegerField(), default=list, help_text="Responses per label, in the task's label order.", size=None),
                ),
            ],
        ),
    ]
