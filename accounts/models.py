"""Teams of in-house annotators, the invitations that bring people into them, and the audit trail."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Team(models.Model):
    """In-house annotators a job can be published to (students of a course, a hired group, …)."""

    name = models.CharField(max_length=100, unique=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="teams")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Invitation(models.Model):
    """One person's way into a team: its link is signed and expires; it is used at most once."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invitations")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"invitation {self.pk} to {self.team}"


class AuditEvent(models.Model):
    """Who published, paid, adjudicated, merged or released what, and when. Written, never edited."""

    class Action(models.TextChoices):
        PUBLISHED = "published"
        EXTENDED = "extended"
        EXPIRED = "expired"
        APPROVED = "approved"
        REJECTED = "rejected"
        BONUS = "bonus"
        ADJUDICATED = "adjudicated"
        ACCEPTED_MODEL = "accepted_model"
        MERGED = "merged"
        SPLIT = "split"
        COPIED = "copied"
        RELEASED = "released"
        CRAWL = "crawl"
        INVITED = "invited"
        JOINED = "joined"
        # A re-run or write-back that rewrote rows others wrote last, or left a person's rows alone.
        WROTE_OVER = "wrote_over", "wrote over others' rows"
        # A release import, and each row of it where the platform's version was kept over the release's.
        IMPORTED = "imported", "imported a release"
        IMPORT_CONFLICT = "import_conflict", "kept the platform's version over a release's"
        # A worker stopped in a job by the live quality check, with its evidence; a person letting them back.
        WORKER_STOPPED = "worker_stopped", "stopped a worker in a job"
        WORKER_STOP_REVERSED = "worker_stop_reversed", "let a stopped worker work again"
        WRITING_ACCEPTED = "writing_accepted", "accepted flagged free-text answers"
        # A call about a job's blocklist at its market (made, a stopped worker put on or taken off).
        MARKET_BLOCKLIST = "market_blocklist", "told a job's market about a stopped worker"

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150, help_text="Kept when the account is deleted.")
    action = models.CharField(max_length=32, choices=Action.choices, db_index=True)
    target = models.CharField(max_length=200, help_text='What it acted on, e.g. "job 12".')
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.get_action_display().lower()} {self.target}"
