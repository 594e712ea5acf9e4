from django.db import migrations, models


def intents_from_tokens(apps, schema_editor):
    # Rows written before attempts existed are each the first attempt of their intent.
    LedgerEntry = apps.get_model("annotation", "LedgerEntry")
    LedgerEntry.objects.update(intent=models.F("token"))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0002_ledgerentry_reconciliationissue_and_more")]

    operations = [
        migrations.AddField(
            model_name="ledgerentry",
            name="intent",
            field=models.CharField(db_index=True, default="", max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ledgerentry",
            name="attempt",
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AddField(
            model_name="ledgerentry",
            name="fingerprint",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(intents_from_tokens, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="ledgerentry",
            constraint=models.UniqueConstraint(fields=("intent", "attempt"), name="ledger_one_row_per_attempt"),
        ),
    ]
