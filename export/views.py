"""The releases page: list, one release with its files, downloads, and the diff of two releases."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from export.models import Release
from export.services import DATASHEET, diff_releases

SHOWN = 200  # rows per list on the diff page; the counts are always complete


def _context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    return {**admin.site.each_context(request), **extra}


@staff_member_required
def releases(request: HttpRequest) -> HttpResponse:
    listed = Release.objects.order_by("-created", "-pk")
    return render(request, "export/releases.html", _context(request, title="Releases", releases=listed))


@staff_member_required
def release(request: HttpRequest, version: str) -> HttpResponse:
    found = get_object_or_404(Release, version=version)
    sheet = found.path / DATASHEET
    datasheet = sheet.read_text() if sheet.is_file() else ""
    return render(
        request,
        "export/release.html",
        _context(request, title=f"Release {found.version}", release=found, datasheet=datasheet),
    )


@staff_member_required
def release_file(request: HttpRequest, version: str, name: str) -> FileResponse:
    found = get_object_or_404(Release, version=version)
    # Only names the record lists are served, so no path from the URL ever reaches the filesystem.
    if name not in found.file_names():
        raise Http404(f"release {version} has no file {name!r}")
    return FileResponse((found.path / name).open("rb"), as_attachment=True, filename=name.rsplit("/", 1)[-1])


@staff_member_required
def release_zip(request: HttpRequest, version: str) -> FileResponse:
    found = get_object_or_404(Release, version=version)
    if not found.zip_path.is_file():
        raise Http404(f"release {version} has no zip")
    return FileResponse(found.zip_path.open("rb"), as_attachment=True, filename=f"stancework-{version}.zip")


@staff_member_required
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
            counts=changes.counts(),
            shown=SHOWN,
        ),
    )
