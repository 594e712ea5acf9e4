"""Crawl admin: start a crawl (through Celery, as its own process), watch its progress, browse provenance."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from accounts.permissions import NamedPermissions
from config.columns import InWordsFilter, PlainFields, in_words, readable_fields, words_column
from config.live import LiveCountsAdmin, cell
from crawler import services, summary
from crawler.models import CrawlHelper, CrawlRun, Debate, Drop, Page, PageVersion, Point, RunStatus


def site_choices() -> list[tuple[str, str]]:
    """The sites a parser reads, asked when the form is shown: the parsers load lxml."""
    from crawler.parsing import SITES

    return [(site, site) for site in SITES]


class StartCrawlForm(forms.Form):
    site = forms.ChoiceField(choices=site_choices)
    archive = forms.CharField(
        required=False, help_text="FROM:TO Wayback timestamps (e.g. 2012:2019) to crawl archived snapshots"
    )
    limit = forms.IntegerField(required=False, min_value=1, help_text="stop after this many debates")
    start_url = forms.CharField(
        required=False,
        max_length=2000,
        label="Start URL",
        help_text="a listing or debate page on the site's own hosts; empty: the site's own start page",
    )
    shared = forms.BooleanField(
        required=False,
        help_text="keep the queue in Redis so helper processes (crawl SITE --join) share the work",
    )
    saved_pages = forms.BooleanField(
        required=False,
        label="Saved pages",
        help_text="crawl the saved idebate pages served on this machine, not the live site (a first try)",
    )

    def clean_archive(self) -> str:
        value = self.cleaned_data["archive"].strip()
        if value:
            try:
                services.parse_archive_range(value)
            except services.CrawlRequestError as error:
                raise forms.ValidationError(str(error)) from None
        return value


LIVE_COUNTS = ("pages", "items", "drops", "errors")
DEBATES_SHOWN = 100  # on a run's page; the counts and the job link cover them all


class HelperInline(admin.TabularInline):
    """The processes that joined a shared crawl."""

    model = CrawlHelper
    fields = readonly_fields = ("pid", "pages", "items", "drops", "errors", "started", "finished")
    extra = 0
    can_delete = False
    max_num = 0


class DropInline(admin.TabularInline):
    model = Drop
    fields = ("reason_words", "url", "detail", "created")
    readonly_fields = fields
    reason_words = words_column("reason", "reason")
    extra = 0
    can_delete = False
    max_num = 0


# A run's fields its page shows in words instead (below), not as stored.
SHOWN_IN_WORDS = ("mode", "pid_started", "stats")


@admin.register(CrawlRun)
class CrawlRunAdmin(NamedPermissions, LiveCountsAdmin):
    list_display = (
        "id",
        "site",
        "mode_in_words",
        "status",
        "pages",
        "items",
        "drops",
        "errors",
        "created",
        "finished",
    )
    list_filter = ("site", "status", "mode")
    # Shown in words instead: the mode (saved pages are not the live site), the process's start as a
    # time, Scrapy's statistics as a table.
    exclude = SHOWN_IN_WORDS
    readonly_fields = [
        *(f.name for f in CrawlRun._meta.fields if f.name not in SHOWN_IN_WORDS),
        "crawl_summary",
        "mode_in_words",
        "process_started",
        "statistics",
    ]
    inlines = [HelperInline, DropInline]
    actions = ["stop_crawls", "crawl_again"]
    change_list_template = "crawler/crawlrun_change_list.html"
    change_form_template = "crawler/crawlrun_change_form.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="mode")
    def mode_in_words(self, run: CrawlRun) -> str:
        return run.mode_in_words

    @admin.display(description="summary")
    def crawl_summary(self, run: CrawlRun) -> str:
        """One line per stage and the closing line, as `manage.py crawl` prints them when it ends."""
        lines = [*summary.stage_lines(run), summary.closing_line(run)]
        return format_html(
            '<ul class="crawl-summary">{}</ul>',
            format_html_join("", "<li>{}</li>", ((line,) for line in lines)),
        )

    @admin.display(description="process started")
    def process_started(self, run: CrawlRun) -> str:
        if run.pid_started is None:
            return "-"
        return dt.datetime.fromtimestamp(run.pid_started, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

    @admin.display(description="statistics")
    def statistics(self, run: CrawlRun) -> str:
        """Scrapy's and our counts as a table, folded: a finished crawl has dozens."""
        if not run.stats:
            return "none yet"
        rows = format_html_join(
            "",
            "<tr><th>{}</th><td>{}</td></tr>",
            (
                (name.replace("_", " ").replace("/", " / "), _stat(value))
                for name, value in sorted(run.stats.items())
            ),
        )
        return format_html(
            "<details><summary>{} figures</summary><table>{}</table></details>", len(run.stats), rows
        )

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        """The run's page lists the debates it crawled and the claims they became, with a way to a job."""
        context = dict(extra_context or {})
        if object_id.isdigit():
            debates = services.crawled_debates(int(object_id)).select_related("claim")
            cids = sorted(set(debates.filter(claim__isnull=False).values_list("claim__cid", flat=True)))
            context.update(
                debates=debates[:DEBATES_SHOWN],
                debates_total=debates.count(),
                claim_ids=",".join(map(str, cids)),
                claims_total=len(cids),
            )
        return super().change_view(request, object_id, form_url, context)

    def get_urls(self) -> list[URLPattern]:
        start = path("start/", self.admin_site.admin_view(self.start_view), name="crawler_crawlrun_start")
        return [start, *super().get_urls()]

    def live_cells(self, shown: list[CrawlRun]) -> tuple[dict[str, str], bool]:
        """The shown runs' status and counts as they are now (the change list and a run's page poll)."""
        cells = {}
        for run in shown:
            cells[cell(run.pk, "status")] = run.get_status_display()
            cells.update({cell(run.pk, name): str(getattr(run, name)) for name in LIVE_COUNTS})
        return cells, any(run.status in RunStatus.active() for run in shown)

    def start_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_start_crawl_permission(request):
            raise PermissionDenied
        form = StartCrawlForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                run = services.request_crawl(
                    form.cleaned_data["site"],
                    archive=form.cleaned_data["archive"],
                    limit=form.cleaned_data["limit"],
                    start_urls=[form.cleaned_data["start_url"].strip()]
                    if form.cleaned_data["start_url"]
                    else [],
                    user_id=request.user.pk,
                    shared=form.cleaned_data["shared"],
                    saved_pages=form.cleaned_data["saved_pages"],
                )
            except services.CrawlRequestError as error:
                form.add_error(None, str(error))
            else:
                self.message_user(
                    request, f"Crawl {run.pk} of {run.site} queued; it runs in its own process."
                )
                return HttpResponseRedirect(reverse("admin:crawler_crawlrun_change", args=[run.pk]))
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "form": form,
            "title": "Start a crawl",
        }
        return TemplateResponse(request, "crawler/start_crawl.html", context)

    @admin.action(
        description="Stop the selected crawls (gracefully; they can resume)",
        permissions=["start_crawl"],
    )
    def stop_crawls(self, request: HttpRequest, queryset: QuerySet[CrawlRun]) -> None:
        stopped = sum(services.stop_crawl(run.pk) for run in queryset)
        self.message_user(
            request,
            f"Asked {stopped} crawl(s) to stop: each stops within {services.STOP_SECONDS} s, wherever it "
            "runs, and a later crawl of its site resumes it.",
        )

    @admin.action(description="Crawl the selected sites again", permissions=["start_crawl"])
    def crawl_again(self, request: HttpRequest, queryset: QuerySet[CrawlRun]) -> None:
        for run in queryset:
            try:
                new = services.request_crawl(
                    run.site, archive=run.archive_range, limit=run.limit, user_id=request.user.pk
                )
            except services.CrawlRequestError as error:
                self.message_user(request, str(error), messages.ERROR)
            else:
                self.message_user(request, f"Crawl {new.pk} of {new.site} queued.", messages.SUCCESS)


class PointInline(admin.TabularInline):
    model = Point
    fields = (
        "current",
        "side",
        "position",
        "site_point_id",
        "headline",
        "cluster",
        "perspective",
        "evidence",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    max_num = 0


@admin.register(Debate)
class DebateAdmin(PlainFields, admin.ModelAdmin):
    list_display = ("motion", "site", "theme", "claim", "updated")
    list_filter = ("site", "layout")
    search_fields = ("motion", "url")
    fields = readonly_fields = tuple(readable_fields(Debate))  # its intro and bibliography as lists, not JSON
    inlines = [PointInline]


class PageVersionInline(admin.TabularInline):
    model = PageVersion
    fields = ("content_hash", "fetched_url", "http_status", "archive_timestamp", "fetched", "last_seen")
    readonly_fields = fields
    extra = 0
    can_delete = False
    max_num = 0


@admin.register(Page)
class PageAdmin(admin.ModelAdmin):
    list_display = ("canonical_url", "site", "first_seen", "last_seen")
    list_filter = ("site",)
    search_fields = ("canonical_url",)
    readonly_fields = ("canonical_url", "site", "first_seen", "last_seen")
    inlines = [PageVersionInline]


@admin.register(Drop)
class DropAdmin(admin.ModelAdmin):
    list_display = ("reason_words", "url", "run", "created")
    list_filter = (("reason", InWordsFilter),)
    fields = readonly_fields = ("run", "url", "reason_words", "detail", "created")
    reason_words = words_column("reason", "reason")


def _stat(value: Any) -> str:
    """A statistic's value as a person reads it: whole numbers grouped, fractions to 2 places, a moment
    to the minute."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return in_words(value)
