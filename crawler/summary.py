"""A crawl run in words: one line per stage (fetch, parse, ingest), then its closing line. What
`manage.py crawl` prints when it ends and what the run's page in the admin shows, from here only.

The figures are those the crawl stored on its run: its counts (crawler.reporting.progress_counts, with
its helpers'), its statistics, and its Drop rows for the reasons. In a shared crawl, the page store's
figures and the unchanged debates are those of the run's own process (a helper keeps only the counts).
"""

from __future__ import annotations

from collections import Counter

from django.db.models import Count

from config.columns import in_words
from config.wording import count
from crawler import reporting
from crawler.models import CrawlRun, RunStatus
from crawler.reporting import UNCHANGED

# Drops after a page became a debate; every other reason is a page that could not become one.
INGEST_DROPS = frozenset({"duplicate_in_run", "over_limit"})


def stage_lines(run: CrawlRun) -> list[str]:
    """What each stage of the crawl did, in plain words."""
    drops = _drops_by_reason(run)
    parse_drops = Counter({r: n for r, n in drops.items() if r not in INGEST_DROPS})
    ingest_drops = Counter({r: n for r, n in drops.items() if r in INGEST_DROPS})
    return [_fetched(run), _parsed(run, parse_drops, ingest_drops), _ingested(run, ingest_drops)]


def closing_line(run: CrawlRun, note: str = "") -> str:
    """The crawl's one closing line: where its pages came from, its state and counts."""
    return (
        f"crawl {run.pk} {run.site} ({run.mode_in_words}): {run.get_status_display().lower()}; "
        f"pages {run.pages}, debates ingested {run.items}, unchanged {unchanged(run)}, "
        f"drops {run.drops}, errors {run.errors}"
        + (f"; {note}" if note else "")
        + (f"; {run.message}" if run.status == RunStatus.FINISHED_WITH_ERRORS else "")
    )


def unchanged(run: CrawlRun) -> int:
    """Debates read again and found as they were: counted apart, never as drops."""
    return int(run.stats.get(UNCHANGED, 0))


def _fetched(run: CrawlRun) -> str:
    new, same = _stat(run, "stancework/pages_new"), _stat(run, "stancework/pages_unchanged")
    failed = sum(reporting.failed_requests(run.stats).values())
    return (
        f"fetch: {count(run.pages, 'page')} fetched: {new + same} stored ({new} new, {same} unchanged "
        f"since the last crawl), {run.pages - new - same} not stored (robots.txt, error answers); "
        f"{count(failed, 'request')} failed"
    )


def _parsed(run: CrawlRun, parse_drops: Counter[str], ingest_drops: Counter[str]) -> str:
    debates = run.items + unchanged(run) + ingest_drops.total()
    return (
        f"parse: {count(debates + parse_drops.total(), 'debate page')} read: "
        f"{count(debates, 'debate')}, {_dropped(parse_drops)}"
    )


def _ingested(run: CrawlRun, ingest_drops: Counter[str]) -> str:
    new, changed = _stat(run, "stancework/debates_created"), _stat(run, "stancework/debates_updated")
    return (
        f"ingest: {count(run.items, 'debate')} ingested{_of_at_most(run)}: {new} new, {changed} changed; "
        f"{unchanged(run)} unchanged since the last crawl; {_dropped(ingest_drops)}"
    )


def _of_at_most(run: CrawlRun) -> str:
    """What `--limit` left this run: the debates the runs it resumed ingested count too."""
    if not run.limit:
        return " (no --limit)"
    left = reporting.limit_left(run.limit, run.resumed_from_id) or 0
    resumed = f", {run.limit - left} of them ingested by the runs it resumed" if left != run.limit else ""
    return f" of at most {left} (--limit {run.limit}{resumed})"


def _dropped(drops: Counter[str]) -> str:
    if not drops:
        return "0 dropped"
    reasons = ", ".join(f"{in_words(reason)} {count}" for reason, count in sorted(drops.items()))
    return f"{drops.total()} dropped ({reasons})"


def _drops_by_reason(run: CrawlRun) -> Counter[str]:
    rows = run.drop_rows.order_by().values("reason").annotate(count=Count("pk"))
    return Counter({row["reason"]: row["count"] for row in rows})


def _stat(run: CrawlRun, name: str) -> int:
    return int(run.stats.get(name, 0))
