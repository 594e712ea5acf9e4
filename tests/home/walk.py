"""The click-only walk: from `/`, log in, then follow every link a person could click to a staff page,
by clicking it (and going back), never by typing a URL. Each page kind (URL name) is visited once.

Also the scan: what must never reach a page or a command's output (template comments, Python reprs,
vote arrays without label names, raw identifiers: label codes, slugs, JSON, long floats, True/False,
None), and every link the walk clicks that answers 4xx or 5xx."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from django.urls import Resolver404, resolve

# Pages a click does not open as a page (downloads), or that change state when opened.
NOT_CLICKED = {
    "export:zip", "export:file", "admin:logout", "annotation:logout", "admin:password_change",
    "admin:jsi18n", "api-schema", "jobs:download",
}  # fmt: skip
# Admin pages of every model that add nothing to the walk (each kind is reached on one model).
SKIPPED_SUFFIXES = ("_add", "_delete", "_history", "_live")
# What must never reach a page or command output (issue: pages that speak plainly).
RAW = {
    "template comment": re.compile(r"\{#"),
    "Python dict": re.compile(r"\{'"),
    "Python None": re.compile(r"(?<![.!?]) None\b"),  # not "… . None of them"
    "Python Decimal": re.compile(r"Decimal\("),
    # Votes per label as a bare list ("[2,0,0,0,1]"): small counts, no label names.
    "vote array": re.compile(r"\[\d{1,2}(?:,\s?\d{1,2}){1,9}\]"),
}
# Raw identifiers where a person reads words (issue 41): a page shows names, not the codes behind them.
IDENTIFIERS = {
    # A label's code where its display name belongs ("MILDLY_SUPPORT", "NO_MAJORITY_LABEL").
    "label code": re.compile(r"(?<![\w./-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w./-])"),
    # A slug where a name belongs ("vast_stance", "health_and_medicine"); not a file name or path
    # (joined to '.', '/' or '-') and not a command a page tells a person to run.
    "snake_case slug": re.compile(r"(?<![\w./-])(?<!manage\.py )[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w./-])"),
    "JSON object": re.compile(r'\{\s*"[^"\n]*"\s*:'),
    "float with more than 4 decimals": re.compile(r"(?<![\w.])\d+\.\d{5,}(?![\w.])"),
    # Not the first word of a phrase in the corpus's own text ("the True Meaning of Christmas").
    "Python bool": re.compile(r"(?<![\w-])(?:True|False)(?![\w-])(?! [A-Za-z])"),
    "None in a cell": re.compile(r"(?:^|(?<=\t)|(?<=: ))None(?=\t|$|[,;)])", re.MULTILINE),
}


# A web address, as a crawled debate's bibliography cites one: its query is the site's, not ours
# ("?id=representation_uk_1710", "&URL_DO=DO_TOPIC"), and no one reads it as a name.
URL = re.compile(r"https?://\S+")


def raw_output(text: str, patterns: dict[str, re.Pattern[str]] | None = None) -> list[str]:
    """What of `patterns` (RAW and IDENTIFIERS) the text shows outside web addresses, each with a
    little context."""
    text = URL.sub("http://…", text)
    found = []
    for name, pattern in (patterns or {**RAW, **IDENTIFIERS}).items():
        for match in pattern.finditer(text):
            found.append(f"{name}: …{text[max(0, match.start() - 60) : match.end() + 60]}…")
    return found


def url_name(url: str) -> str | None:
    """The URL's name (namespace:name), None for a page outside this site's URLs."""
    try:
        match = resolve(urlsplit(url).path)
    except Resolver404:
        return None
    return match.view_name


@dataclass
class Walk:
    base: str
    pages: dict[str, str] = field(default_factory=dict)  # URL name → URL first reached
    texts: dict[str, str] = field(default_factory=dict)  # URL → the visible text of the page
    paths: dict[str, list[str]] = field(default_factory=dict)  # URL name → the clicks that reached it
    refused: list[str] = field(default_factory=list)  # "status URL (from page)" of each link that failed

    def wanted(self, href: str) -> str | None:
        """The URL name to click through to, or None for a link the walk does not follow."""
        if not href.startswith(self.base + "/") or "_popup=1" in href:
            return None  # elsewhere, or the admin's related-object popup: a window of its own, not a page
        name = url_name(href)
        if name is None or name in self.pages or name in NOT_CLICKED or name.endswith(SKIPPED_SUFFIXES):
            return None
        return name

    def visit(self, page: Any, trail: list[str]) -> None:
        """Record this page, then click each new link on it, depth first, and come back."""
        name = url_name(page.url) or page.url
        self.pages.setdefault(name, page.url)
        self.paths.setdefault(name, trail)
        self.texts[page.url] = read_text(page)
        hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
        for index, href in enumerate(hrefs):
            target = self.wanted(href)
            if target is None:
                continue
            here = page.url
            link = page.locator("a[href]").nth(index)
            if not link.is_visible():
                continue
            with page.expect_navigation() as navigation:
                link.click()
            # Wait for the click's page, not the one still shown: on a loaded machine the load state
            # was that of this page, the walk recorded it again and clicked the same link, ever deeper.
            page.wait_for_url(lambda url, here=here: url != here)
            page.wait_for_load_state()
            answer = navigation.value
            if answer is not None and answer.status >= 400:
                self.refused.append(f"{answer.status} {href} (a link on {here})")
            self.visit(page, [*trail, link_text(href, page)])
            page.go_back()
            page.wait_for_load_state()
            if page.url != here:  # a page that redirected: the way back is one more step
                page.go_back()
                page.wait_for_load_state()


# What a page shows for machines to read, exactly as they get it: the browsable API's response (its
# JSON, in a <pre>), and a release file's records as the file holds them (the preview's rows: put in
# words they would misstate the file). The page around them is read as any other.
MACHINE_READABLE = ".response-info, #preview-rows"


def read_text(page: Any) -> str:
    """The page's visible text, less what it shows for machines to read (hidden first; the walk goes
    back from every page, so the change does not outlive the reading)."""
    page.eval_on_selector_all(MACHINE_READABLE, "found => found.forEach(e => { e.style.display = 'none'; })")
    return str(page.locator("body").inner_text())


def link_text(href: str, page: Any) -> str:
    return f"{urlsplit(href).path} ({page.title()})"
