"""Crawl provenance: runs, pages (stored once, versioned by content), debates and points, drops.

The corpus holds what a debate *says* (claims, perspectives, evidence); these models hold where and
when it was read, so every corpus row can be traced to the page version it came from.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.db import models


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    # Ended, but some requests failed for good (connection refused, timeouts, ...): the message counts them.
    FINISHED_WITH_ERRORS = "finished_with_errors", "finished with errors"
    STOPPED = "stopped"
    FAILED = "failed"

    @classmethod
    def active(cls) -> list[str]:
        return [cls.QUEUED, cls.RUNNING]


class CrawlMode(models.TextChoices):
    LIVE = "live"
    ARCHIVE = "archive"


# Where saved pages are served for a crawl (crawler.crawling.serving).
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


class CrawlRun(models.Model):
    site = models.CharField(max_length=32, db_index=True)
    mode = models.CharField(max_length=16, choices=CrawlMode.choices, default=CrawlMode.LIVE)
    archive_from = models.CharField(
        max_length=14, blank=True, help_text="Wayback timestamp prefix, e.g. 2015"
    )
    archive_to = models.CharField(max_length=14, blank=True)
    limit = models.PositiveIntegerField(null=True, blank=True, help_text="Stop after this many debates.")
    start_urls = models.JSONField(default=list, blank=True)
    status = models.CharField(
        max_length=24, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True
    )
    # Which process crawls it, as that process sees itself. Crawls run in other containers and
    # machines, so Stop never goes by pid, nor liveness beyond the crawl's own pid namespace: the crawl
    # writes `heartbeat` every few seconds, and reads `stop_requested` as often.
    pid = models.PositiveIntegerField(null=True, blank=True)
    pid_started = models.FloatField(null=True, blank=True)
    # Where `pid` means something (crawler.processes.pid_namespace): a process in the same pid
    # namespace may see at once that the crawl is gone; any other waits for the heartbeat to age.
    pid_namespace = models.CharField(max_length=100, blank=True)
    host = models.CharField(max_length=255, blank=True, help_text="The machine or container crawling it.")
    heartbeat = models.DateTimeField(
        null=True, blank=True, help_text="When its crawl last reported; silent too long, it is failed."
    )
    stop_requested = models.DateTimeField(
        null=True, blank=True, help_text="When Stop was asked for; the crawl stops gracefully within seconds."
    )
    resumed_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The cleanly stopped run whose saved queue this run continued.",
    )
    # Scrapy's own stats plus ours (stancework/...), saved every few seconds while the crawl runs.
    stats = models.JSONField(default=dict, blank=True)
    pages = models.PositiveIntegerField(default=0)
    items = models.PositiveIntegerField(default=0)
    drops = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # Shared: its queue and dupefilter live in Redis, so helper processes (`crawl SITE --join`) on
    # this or other machines take requests from it (scrapy-redis); the counts include theirs.
    shared = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created"]
        permissions = [("start_crawl", "Can start, stop and repeat crawls")]
        constraints = [
            # Two crawls of one site and mode would share its saved queue (JOBDIR) and its politeness.
            models.UniqueConstraint(
                fields=["site", "mode"],
                condition=models.Q(status__in=["queued", "running"]),
                name="crawlrun_one_active_per_site_mode",
            )
        ]

    def __str__(self) -> str:
        return f"crawl {self.pk} {self.site} ({self.status})"

    @property
    def mode_in_words(self) -> str:
        """Where the pages came from, as a person says it: a saved copy served on this machine is not
        the live site, though the crawl runs in live mode."""
        if self.mode == CrawlMode.ARCHIVE:
            years = "–".join(y for y in (self.archive_from[:4], self.archive_to[:4]) if y)
            return f"web archive{f' ({years})' if years else ''}"
        if self.start_urls and all(urlsplit(url).hostname in LOCAL_HOSTS for url in self.start_urls):
            return "saved pages"
        return "live site"

    @property
    def archive_range(self) -> str:
        """The `--archive FROM:TO` this run was asked for, or "" for a live crawl."""
        return f"{self.archive_from}:{self.archive_to}" if self.archive_from else ""


class Page(models.Model):
    """One page by its canonical URL; its content lives in versions."""

    site = models.CharField(max_length=32, db_index=True)
    canonical_url = models.URLField(max_length=2000, unique=True)
    first_seen = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.canonical_url


class PageVersion(models.Model):
    """A page's content as fetched: stored once per distinct content hash."""

    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="versions")
    content_hash = models.CharField(max_length=64, help_text="sha256 of the body as fetched")
    body = models.BinaryField()
    fetched_url = models.URLField(
        max_length=2000, help_text="What was requested (an archive URL in archive mode)"
    )
    http_status = models.PositiveSmallIntegerField(default=200)
    archive_timestamp = models.CharField(max_length=14, blank=True)
    first_run = models.ForeignKey(CrawlRun, null=True, on_delete=models.SET_NULL, related_name="new_pages")
    last_run = models.ForeignKey(CrawlRun, null=True, on_delete=models.SET_NULL, related_name="+")
    fetched = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["page", "fetched"]
        constraints = [models.UniqueConstraint(fields=["page", "content_hash"], name="pageversion_unique")]

    def __str__(self) -> str:
        return f"{self.page.canonical_url} @{self.content_hash[:10]}"


class Debate(models.Model):
    """A debate as the site presented it, linked to the claim it became."""

    site = models.CharField(max_length=32, db_index=True)
    url = models.URLField(max_length=2000, unique=True)
    site_debate_id = models.CharField(max_length=64, blank=True)
    page = models.ForeignKey(Page, on_delete=models.PROTECT, related_name="debates")
    version = models.ForeignKey(PageVersion, on_delete=models.PROTECT, related_name="+")
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the extracted debate")
    layout = models.CharField(max_length=32, blank=True)
    motion = models.TextField()
    intro = models.JSONField(default=list, blank=True)
    theme = models.CharField(max_length=200, blank=True)
    published = models.CharField(max_length=64, blank=True)
    modified = models.CharField(max_length=64, blank=True)
    bibliography = models.JSONField(default=list, blank=True)
    claim = models.ForeignKey("corpus.Claim", null=True, on_delete=models.SET_NULL, related_name="debates")
    first_run = models.ForeignKey(CrawlRun, null=True, on_delete=models.SET_NULL, related_name="new_debates")
    last_run = models.ForeignKey(CrawlRun, null=True, on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["site", "url"]

    def __str__(self) -> str:
        return self.motion[:80]


class Point(models.Model):
    """One pro/con point of a debate. A changed point gets a new row; the old one stays, not current."""

    debate = models.ForeignKey(Debate, on_delete=models.CASCADE, related_name="points")
    version = models.ForeignKey(PageVersion, on_delete=models.PROTECT, related_name="+")
    side = models.CharField(max_length=8, choices=[("pro", "pro"), ("con", "con")])
    position = models.PositiveSmallIntegerField(help_text="Order on the page, from 0")
    site_point_id = models.CharField(max_length=64, blank=True)
    headline = models.TextField()
    body = models.JSONField(default=list)
    counterpoint = models.JSONField(default=list, blank=True)
    references = models.JSONField(default=list, blank=True)
    current = models.BooleanField(default=True, db_index=True)
    cluster = models.ForeignKey(
        "corpus.PerspectiveCluster", null=True, on_delete=models.SET_NULL, related_name="crawled_points"
    )
    perspective = models.ForeignKey(
        "corpus.Perspective", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    evidence = models.ForeignKey("corpus.Evidence", null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["debate", "-current", "position"]

    def __str__(self) -> str:
        return f"{self.side}: {self.headline[:80]}"


class Drop(models.Model):
    """A page or item the crawl refused, with its reason: logged, counted, never half-written."""

    run = models.ForeignKey(CrawlRun, on_delete=models.CASCADE, related_name="drop_rows")
    url = models.URLField(max_length=2000)
    reason = models.CharField(max_length=64, db_index=True)
    detail = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.reason.replace('_', ' ')}: {self.url}"  # "no points", as the admin says it


class CrawlHelper(models.Model):
    """A process that joined a shared crawl: who it is and what it fetched, counted into its run."""

    run = models.ForeignKey(CrawlRun, on_delete=models.CASCADE, related_name="helpers")
    pid = models.PositiveIntegerField()
    pid_started = models.FloatField(null=True, blank=True)
    pages = models.PositiveIntegerField(default=0)
    items = models.PositiveIntegerField(default=0)
    drops = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    started = models.DateTimeField(auto_now_add=True)
    # Its last progress report: a helper on another machine is known to be at work by this, not its pid.
    reported = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"helper {self.pid} of crawl {self.run_id}"
