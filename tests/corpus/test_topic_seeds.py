"""The topics corpus/migrations/0002_seed_topics.py seeds: back after a flush, which empties every
table; never back after a migrate once a person removed one."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from corpus.models import Topic
from corpus.topics import TOPICS


@pytest.mark.django_db(transaction=True)
def test_a_flush_leaves_the_seeded_topics_as_the_migrated_database_had_them() -> None:
    call_command("flush", interactive=False, verbosity=0)

    assert dict(Topic.objects.values_list("slug", "name")) == TOPICS


@pytest.mark.django_db(transaction=True)
def test_a_migrate_does_not_bring_back_a_topic_a_person_removed() -> None:
    removed = next(iter(TOPICS))
    Topic.objects.filter(slug=removed).delete()

    call_command("migrate", interactive=False, verbosity=0)

    assert not Topic.objects.filter(slug=removed).exists()
    assert Topic.objects.count() == len(TOPICS) - 1
