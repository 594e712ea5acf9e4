"""Corpus saves and deletes queue an index sync (sent after commit, batched per transaction)."""

from __future__ import annotations

from typing import Any

from django.db.models import Model
from django.db.models.signals import post_delete, post_save

from corpus.models import Claim, Evidence, Perspective
from search.base import Kind

PUBLIC_ID: dict[type[Model], tuple[Kind, str]] = {
    Perspective: (Kind.PERSPECTIVE, "pid"),
    Evidence: (Kind.EVIDENCE, "eid"),
    Claim: (Kind.CLAIM, "cid"),
}


def _changed(sender: type[Model], instance: Any, **kwargs: Any) -> None:
    from search.services import schedule_sync  # loads the search index: only once a corpus row changes

    kind, field = PUBLIC_ID[sender]
    schedule_sync(kind, getattr(instance, field))


def connect() -> None:
    for model in PUBLIC_ID:
        post_save.connect(_changed, sender=model, dispatch_uid=f"search-sync-save-{model.__name__}")
        post_delete.connect(_changed, sender=model, dispatch_uid=f"search-sync-delete-{model.__name__}")
