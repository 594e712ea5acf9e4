"""A machine annotator: its backend, model, prompt version and settings, and the worker it labels as.

Loaded by AnnotationConfig.import_models (annotation/apps.py) so Django sees the models, as the
ledger's are; it imports nothing above annotation.models.
"""

from __future__ import annotations

from django.db import models

from annotation.models import Worker

MACHINE_MARKET = "machine"  # the market of every machine's worker row: no market has this name


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


class ReplyState(models.TextChoices):
    ASKED = "asked", "Asked, no reply yet"  # written before the call: its worst-case cost counts
    ANSWERED = "answered", "A label of the set"
    NO_ANSWER = "no_answer", "A refusal or a reply outside the label set"
    UNCLEAR = "unclear", "Lost or timed out: it may have been charged"


class MachineReply(models.Model):
    """One chat-completions call for one item's texts, cached by (model, prompt version, texts): a
    re-run reads the reply here and costs nothing. Written (ASKED, with the call's worst-case cost)
    before the call is made, so a job's spend counts every call that may have been charged."""

    model_name = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=32)
    example_key = models.CharField(max_length=64, help_text="sha256 of the item's texts")
    job = models.ForeignKey("annotation.Job", on_delete=models.CASCADE, related_name="machine_replies")
    state = models.CharField(max_length=16, choices=ReplyState.choices, default=ReplyState.ASKED)
    label = models.CharField(max_length=64, blank=True)
    text = models.TextField(blank=True, help_text="The reply as given, for the record.")
    tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "annotation"
        verbose_name_plural = "machine replies"
        constraints = [
            models.UniqueConstraint(
                fields=["model_name", "prompt_version", "example_key"], name="machinereply_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.model_name} {self.prompt_version} {self.example_key[:12]}: {self.state}"
