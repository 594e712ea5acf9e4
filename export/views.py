"""The releases page: list, one release with its files, downloads, and the diff of two releases."""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

import nh3
from django.contrib import admin
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from accounts.permissions import staff_permission
from export.models import Release
from export.release_pages import BuildForm, recent_builds
from export.services import DATASHEET, diff_releases, file_changes

VIEW_RELEASES = "export.view_release"
SHOWN = 200  # rows per list on the diff page; the counts are always complete

# CommonMark with tables; raw HTML in the Markdown is escaped, and nh3's allow-list then drops any
# unsafe link scheme or attribute, so a datasheet edited by hand cannot run script on this origin.
MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def datasheet_html(text: str) -> SafeString:
    return mark_safe(nh3.clean(MARKDOWN.render(text), url_schemes={"http", "https", "mailto"}))


def _context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    return {**admin.site.each_context(request), **extra}


@staff_permission(VIEW_RELEASES)
def releases(request: HttpRequest) -> HttpResponse:
    listed = list(Release.objects.order_by("-created", "-pk"))
    # Each release beside the one built before it, for its "changes since" link (the oldest has none).
    rows = [(release, older.version if older else None) for release, older in zip_longest(listed, listed[1:])]
    context = _context(
        request, title="Releases", releases=listed, rows=rows, build_form=BuildForm(), builds=recent_builds()
    )
    return render(request, "export/releases.html", context)


@staff_permission(VIEW_RELEASES)
def release(request: HttpRequest, version: str) -> HttpResponse:
    found = get_object_or_404(Release, version=version)
    sheet = found.path / DATASHEET
    datasheet = datasheet_html(sheet.read_text()) if sheet.is_file() else ""
    return render(
        request,
        "export/release.html",
        _context(request, title=f"Release {found.version}", release=found, datasheet=datasheet),
    )


@staff_permission(VIEW_RELEASES)
def release_file(request: HttpRequest, version: str, name: str) -> FileResponse:
    found = get_object_or_404(Release, version=version)
    # Only names the record lists are served, so no path from the URL ever reaches the filesystem.
    if name not in found.file_names():
        raise Http404(f"release {version} has no file {name!r}")
    return FileResponse((found.path / name).open("rb"), as_attachment=True, filename=name.rsplit("/", 1)[-1])


@staff_permission(VIEW_RELEASES)
def release_zip(request: HttpRequest, version: str) -> FileResponse:
    found = get_object_or_404(Release, version=version)
    if not found.zip_path.is_file():
        raise Http404(f"release {version} has no zip")
    return FileResponse(found.zip_path.open("rb"), as_attachment=True, filename=f"stancework-{version}.zip")


@staff_permission(VIEW_RELEASES)
def release_diff(request: HttpRequest) -> HttpResponse:
    before = get_object_or_404(Release, version=request.GET.get("a", ""))
    after = get_object_or_404(Release, version=request.GET.get("b", ""))
    changes = diff_releases(before, after)
    return render(
        request,
        "export/diff.html",
        _context(
            request,
            title=f"Release {before.version} → {after.version}",
            before=before,
            after=after,
            diff=changes,
            counts=changes.counted(),
            files=file_changes(before, after),
            shown=SHOWN,
        ),
    )
