from django.db import migrations


def seed_topics(apps, schema_editor):
    from corpus.topics import TOPICS

    Topic = apps.get_model("corpus", "Topic")
    for slug, name in TOPICS.items():
        Topic.objects.get_or_create(slug=slug, defaults={"name": name})


class Migration(migrations.Migration):
    dependencies = [("corpus", "0001_initial")]
    operations = [migrations.RunPython(seed_topics, migrations.RunPython.noop)]
