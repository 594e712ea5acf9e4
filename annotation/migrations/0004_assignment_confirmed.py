from django.db import migrations, models
from django.db.models import Q


class Migration(migrations.Migration):
    dependencies = [("annotation", "0003_ledger_attempts")]

    operations = [
        # Assignments taken before confirmation existed were counted as they stood: keep them so.
        migrations.AddField(
            model_name="assignment",
            name="confirmed",
            field=models.BooleanField(db_index=True, default=True),
        ),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.UniqueConstraint(
                condition=~Q(external_id=""), fields=("job", "external_id"), name="assignment_external_id_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.UniqueConstraint(
                condition=Q(state="accepted"), fields=("job", "worker"), name="assignment_one_open_per_worker"
            ),
        ),
        migrations.AlterField(
            model_name="reconciliationissue",
            name="kind",
            field=models.CharField(
                choices=[
                    ("state", "assignment state differs"),
                    ("approval", "approval or rejection differs"),
                    ("bonus", "bonus payments differ"),
                    ("hit", "HIT differs"),
                    ("open_entry", "ledger row still open"),
                    ("unknown", "work the market does not know"),
                ],
                max_length=16,
            ),
        ),
    ]
