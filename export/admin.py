"""Releases in the admin: read-only (a release is never changed), linked to the releases page."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from annotation.models import task_type_name
from config.columns import ReadOnlyRecords
from export.models import Release


@admin.register(Release)
class ReleaseAdmin(ReadOnlyRecords, admin.ModelAdmin):
    """Releases are built by `manage.py build_release`, which validates and writes the files."""

    list_display = ["version", "created", "code_version", "file_count", "simulated", "page"]
    search_fields = ["version", "notes"]
    # The pseudonym key is deliberately absent: it is never shown, only kept.
    # The files and manifest as a person reads them (the release page renders its datasheet too).
    fields = (
        "version",
        "page",
        "created",
        "code_version",
        "directory",
        "zip_sha256",
        "notes",
        "file_list",
        "jobs",
    )
    readonly_fields = fields

    @admin.display(description="files")
    def file_count(self, release: Release) -> int:
        return len(release.files)

    @admin.display(description="simulated crowd", boolean=True)
    def simulated(self, release: Release) -> bool:
        return bool(release.manifest.get("simulated"))

    @admin.display(description="page")
    def page(self, release: Release) -> str:
        return format_html('<a href="{}">open</a>', reverse("export:release", args=[release.version]))

    @admin.display(description="files")
    def file_list(self, release: Release) -> str:
        return format_html_join(
            "",
            '<div><a href="{}">{}</a> ({} bytes)</div>',
            (
                (reverse("export:file", args=[release.version, f["name"]]), f["name"], f["bytes"])
                for f in release.files
            ),
        )

    @admin.display(description="jobs it came from")
    def jobs(self, release: Release) -> str:
        return (
            format_html_join(
                ", ",
                '<a href="{}">job {} ({})</a>',
                (
                    (
                        reverse("aggregation:dashboard", args=[job["id"]]),
                        job["id"],
                        task_type_name(job["task_type"]),
                    )
                    for job in release.manifest.get("jobs", [])
                ),
            )
            or "none"
        )
