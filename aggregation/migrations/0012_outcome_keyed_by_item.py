"""An item's outcome keyed by its item: the item's id is the outcome's primary key, and the outcome's
own id (a sequence number, and an index entry per row beside the item's) is gone. A first run of a
million outcomes no longer draws a million sequence numbers nor keeps a second index of them. An
adjudication names its outcome by the item's id from now on: its key is rewritten to the item's id
of the outcome it named (and back, the other way), between the key's check dropped and made again.
"""

import django.db.models.deletion
from django.apps.registry import Apps
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

OUTCOMES, ADJUDICATIONS = "aggregation_itemoutcome", "aggregation_adjudication"


def _renamed(schema_editor: BaseDatabaseSchemaEditor, old: str, new: str) -> None:
    """Each adjudication's outcome key from the outcome's ``old`` column to its ``new`` one."""
    schema_editor.execute(
        f"UPDATE {ADJUDICATIONS} SET outcome_id = "
        f"(SELECT o.{new} FROM {OUTCOMES} o WHERE o.{old} = {ADJUDICATIONS}.outcome_id)"
    )


def by_item(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    _renamed(schema_editor, "id", "item_id")


def by_id(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    _renamed(schema_editor, "item_id", "id")


def adjudication_outcome(*, checked: bool) -> migrations.AlterField:
    return migrations.AlterField(
        model_name="adjudication",
        name="outcome",
        field=models.ForeignKey(
            db_constraint=checked,
            on_delete=django.db.models.deletion.CASCADE,
            related_name="adjudications",
            to="aggregation.itemoutcome",
        ),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("aggregation", "0011_outcome_counts_integer_array"),
        ("annotation", "0009_worker_pseudonym"),
    ]

    operations = [
        adjudication_outcome(checked=False),
        migrations.RunPython(by_item, by_id),
        migrations.RemoveField(model_name="itemoutcome", name="id"),
        migrations.AlterField(
            model_name="itemoutcome",
            name="item",
            field=models.OneToOneField(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                primary_key=True,
                related_name="outcome",
                serialize=False,
                to="annotation.item",
            ),
        ),
        adjudication_outcome(checked=True),
    ]
