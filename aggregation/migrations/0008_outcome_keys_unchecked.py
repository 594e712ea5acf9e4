"""The outcome's item and run keys no longer checked by the database, as its job's already was: the
checks, row by row, cost a first run of a million outcomes 5.5–6 s of the server's CPU (the item's
lock their item rows). Outcomes are written only for items found in the item table and only by the
run that writes them (aggregation/storing.py), and the ORM still cascades every deletion. Only the
constraints change: the rows, the unique index on the item and the half-filled pages stay."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('aggregation', '0007_outcome_fillfactor'),
        ('annotation', '0009_worker_pseudonym'),
    ]

    operations = [
        migrations.AlterField(
            model_name='itemoutcome',
            name='item',
            field=models.OneToOneField(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='outcome', to='annotation.item'),
        ),
        migrations.AlterField(
            model_name='itemoutcome',
            name='run',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='outcomes', to='aggregation.aggregationrun'),
        ),
    ]
