"""A researcher's own MTurk layout templates, as imported, and the batch CSVs run through them."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class MTurkTemplate(models.Model):
    """An MTurk layout template (`${column}` placeholders, form fields, crowd-html-elements), as imported.

    Its scripts run on the platform's origin only once someone with `trust_mturktemplate` marks it
    trusted; until then every page sanitises it (annotation.task_types.mturk_layout)."""

    name = models.CharField(max_length=200, unique=True)
    source = models.TextField(help_text="The template as imported; sanitised when shown, unless trusted.")
    trusted = models.BooleanField(
        default=False, help_text="Trusted: shown as written, scripts and all, on the platform's origin."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "MTurk template"
        permissions = [("trust_mturktemplate", "Can mark an MTurk template trusted: its scripts then run")]

    def __str__(self) -> str:
        return f"{self.name}{' (trusted)' if self.trusted else ''}"


class MTurkBatch(models.Model):
    """A batch CSV for a template: its columns in order and its rows. A job over it (task type
    `mturk_template`, filter `mturk_batch`) has one item per row."""

    template = models.ForeignKey(MTurkTemplate, on_delete=models.PROTECT, related_name="batches")
    source_name = models.CharField(max_length=255, blank=True, help_text="The CSV file it came from.")
    columns = models.JSONField(default=list)
    rows = models.JSONField(default=list)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = "MTurk batch"
        verbose_name_plural = "MTurk batches"

    def __str__(self) -> str:
        return f"{self.source_name or 'batch'} ({len(self.rows)} rows) for {self.template.name}"
