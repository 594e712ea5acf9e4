"""A pipeline run and the state of each of its steps."""

from __future__ import annotations

from django.db import models

from pipeline.definition import STEPS


class StepState(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    WAITING = "waiting"  # a crowd job is out; run the step again to continue
    DONE = "done"
    FAILED = "failed"

    @classmethod
    def finished(cls) -> list[str]:
        return [cls.DONE]


class PipelineRun(models.Model):
    name = models.CharField(max_length=200)
    params = models.JSONField(default=dict)
    simulated = models.BooleanField(default=False, help_text="Run with the simulated crowd: demo data.")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]
        permissions = [("run_pipeline", "Can run and continue pipeline runs")]

    def __str__(self) -> str:
        return f"pipeline {self.pk}: {self.name}" + (" (simulated)" if self.simulated else "")


class StepRun(models.Model):
    run = models.ForeignKey(PipelineRun, on_delete=models.CASCADE, related_name="steps")
    name = models.CharField(max_length=64, choices=[(step.name, step.title) for step in STEPS])
    position = models.PositiveSmallIntegerField()
    state = models.CharField(max_length=16, choices=StepState.choices, default=StepState.PENDING)
    jobs = models.ManyToManyField("annotation.Job", blank=True, related_name="pipeline_steps")
    output = models.JSONField(default=dict, blank=True)
    message = models.TextField(blank=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "position"]
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="steprun_unique")]

    def __str__(self) -> str:
        return f"{self.get_name_display()} ({self.state})"
