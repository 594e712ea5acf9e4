from django.db import migrations

# The 18 topics of PERSPECTRUM's topic-tagging step as they were when this migration was written,
# frozen here: a migration must do the same on every database, whatever corpus/topics.py says later.
TOPICS = {
    "culture": "Culture",
    "digital_freedom": "Digital freedom",
    "economy": "Economy",
    "education": "Education",
    "environment": "Environment",
    "ethics": "Ethics",
    "freedom_of_speech": "Freedom of speech",
    "gender": "Gender",
    "health_and_medicine": "Health and medicine",
    "human_rights": "Human rights",
    "law": "Law",
    "philosophy": "Philosophy",
    "politics": "Politics",
    "religion": "Religion",
    "science_and_technology": "Science and technology",
    "society": "Society",
    "sports_and_entertainments": "Sports and entertainments",
    "world_international": "World and international",
}


def seed_topics(apps, schema_editor):
    Topic = apps.get_model("corpus", "Topic")
    for slug, name in TOPICS.items():
        Topic.objects.get_or_create(slug=slug, defaults={"name": name})


class Migration(migrations.Migration):
    dependencies = [("corpus", "0001_initial")]
    operations = [migrations.RunPython(seed_topics, migrations.RunPython.noop)]
