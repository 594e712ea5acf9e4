"""A release: an immutable record of a versioned set of files written under `settings.RELEASES_DIR`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import models


class ReleaseImmutableError(RuntimeError):
    """A release record or its files would be changed after the release was made."""


class Release(models.Model):
    version = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    code_version = models.CharField(max_length=80, blank=True, help_text="The git commit that built it.")
    # The directory name under settings.RELEASES_DIR (kept relative so the var/ tree can move).
    directory = models.CharField(max_length=200)
    # [{"name", "sha256", "bytes"}] for every file including manifest.json, in name order.
    files = models.JSONField(default=list)
    manifest = models.JSONField(default=dict)
    zip_sha256 = models.CharField(max_length=64, blank=True)
    # The HMAC key behind this release's worker pseudonyms. It never goes into the release
    # directory: whoever holds it can test guesses of worker ids against the pseudonyms.
    pseudonym_key = models.CharField(max_length=64, editable=False)
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"release {self.version}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ReleaseImmutableError(f"release {self.version} exists; releases are never changed")
        super().save(*args, **kwargs)

    @property
    def path(self) -> Path:
        return Path(settings.RELEASES_DIR) / self.directory

    @property
    def zip_path(self) -> Path:
        return Path(settings.RELEASES_DIR) / f"{self.directory}.zip"

    def file_names(self) -> list[str]:
        return [entry["name"] for entry in self.files]
