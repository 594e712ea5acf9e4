from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _seed_topics_after_flush(**kwargs: Any) -> None:
    """A flush (`manage.py flush`, and between transactional tests) empties every table, the topics
    that corpus/migrations/0002_seed_topics.py seeds with them: seed them again, as the migrated
    database had them. After a migrate (which sends its plan) nothing is seeded here: the migration
    did it once, and a topic a person removed since stays removed."""
    if "plan" in kwargs:
        return
    from corpus.models import Topic
    from corpus.topics import TOPICS

    for slug, name in TOPICS.items():
        Topic.objects.using(kwargs["using"]).get_or_create(slug=slug, defaults={"name": name})


class CorpusConfig(AppConfig):
    name = "corpus"
    verbose_name = "Corpus"

    def ready(self) -> None:
        post_migrate.connect(_seed_topics_after_flush, sender=self)
