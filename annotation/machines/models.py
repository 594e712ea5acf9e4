"""A machine annotator: its backend, model, prompt version and settings, and the worker it labels as.

Loaded by AnnotationConfig.import_models (annotation/apps.py) so Django sees the models, as the
ledger's are; it imports nothing above annotation.models.
"""

from __future__ import annotations

from django.db import models

from annotation.models import Worker

MACHINE_PROVIDER = "machine"  # the provider of every machine's worker row: no market has this name


class MachineBackend(models.TextChoices):
    LOCAL = "local", "Trained on the project's decided labels"
    OPENAI_COMPATIBLE = "openai_compatible", "A chat-completions server"


class MachineAnnotator(models.Model):
    """One version of a machine for one task type. A new model, prompt or setting is a new version, so
    every machine label names exactly what produced it."""

    name = models.CharField(max_length=64)
    version = models.PositiveIntegerField()
    task_type = models.CharField(max_length=64)
    backend = models.CharField(max_length=32, choices=MachineBackend.choices)
    model_name = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=32, blank=True)
    # Temperature, price per thousand tokens, requests per minute, cross-validated figures; never a key.
    settings = models.JSONField(default=dict, blank=True)
    worker = models.OneToOneField(Worker, on_delete=models.PROTECT, related_name="machine")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "annotation"
        ordering = ["name", "version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="machineannotator_unique")]

    def __str__(self) -> str:
        return f"{self.name} v{self.version} ({self.backend} {self.model_name})"
