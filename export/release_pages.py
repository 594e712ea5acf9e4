"""The releases page's own actions: build a release (a background operation whose stages the page
shows), and preview a release file (its first records and how many) without downloading it."""

from __future__ import annotations

from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from accounts.permissions import staff_permission
from export.models import Release
from export.previews import preview_file
from export.release_builds import BUILD_RELEASE
from export.services import ReleaseExistsError, ReleaseVersionError, check_new_version
from operations.models import Operation
from operations.services import start_operation

VIEW_RELEASES, BUILD_RELEASES = "export.view_release", "export.add_release"
BUILDS_SHOWN = 5


class BuildForm(forms.Form):
    version = forms.CharField(max_length=64, help_text="e.g. 1.0; a version is built once, never again")
    notes = forms.CharField(required=False, max_length=500, help_text="kept with the release")
    split_seed = forms.IntegerField(
        required=False, help_text="re-split the claims with this seed first (empty: keep the stored split)"
    )

    def clean_version(self) -> str:
        version = self.cleaned_data["version"].strip()
        try:
            check_new_version(version, Path(settings.RELEASES_DIR) / version)
        except (ReleaseExistsError, ReleaseVersionError) as error:
            raise forms.ValidationError(str(error)) from None
        return version


def recent_builds() -> list[Operation]:
    return list(Operation.objects.filter(kind=BUILD_RELEASE).order_by("-created", "-pk")[:BUILDS_SHOWN])


@staff_permission(VIEW_RELEASES, BUILD_RELEASES)
def build(request: HttpRequest) -> HttpResponse:
    """POST: start building the release the form names; the releases page then follows it."""
    form = BuildForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        params = {"version": data["version"], "notes": data["notes"], "split_seed": data["split_seed"]}
        start_operation(BUILD_RELEASE, f"build release {data['version']}", params, total=0, user=request.user)
        messages.info(request, f"Building release {data['version']}: its stages show below as they end.")
        return redirect("export:releases")
    context = {**admin.site.each_context(request), "title": "Build a release", "form": form}
    return render(request, "export/build.html", context)


@staff_permission(VIEW_RELEASES)
def preview(request: HttpRequest, version: str, name: str) -> HttpResponse:
    found = get_object_or_404(Release, version=version)
    # Only names the record lists are read, so no path from the URL ever reaches the filesystem.
    if name not in found.file_names():
        raise Http404(f"release {version} has no file {name!r}")
    shown = preview_file(found.path / name)
    context = {
        **admin.site.each_context(request),
        "title": f"{name} in release {version}",
        "release": found,
        "name": name,
        "preview": shown,
    }
    return render(request, "export/preview.html", context)
