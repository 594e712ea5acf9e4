"""Item outcomes' pages filled again on PostgreSQL (migration 0007 half filled them). Half-filled pages
let a re-run rewrite a row on its own page, but a first run then wrote twice the pages: its million
rows took the server 2.9 s rather than 2.35 s, against a 10 s goal for the whole run. Dawid–Skene
after majority vote, which rewrites every posterior, went from 20.8 s to 33–35 s, within its minute.
Rows already written keep their pages until rewritten."""

from importlib import import_module

from django.db import migrations

# This migration undoes 0007: its steps, the other way round.
half_filling = import_module("aggregation.migrations.0007_outcome_fillfactor")


class Migration(migrations.Migration):
    dependencies = [("aggregation", "0012_outcome_keyed_by_item")]

    operations = [migrations.RunPython(half_filling.filled, half_filling.half_filled)]
