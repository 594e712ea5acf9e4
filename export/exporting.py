"""`export_release`: the PERSPECTRUM files of a version, written where a researcher asks.

A released version never changes: exporting it copies the files stored when it was released, each
checked against the sha256 and size its manifest recorded, or refuses. Only a version not yet released
is written from the database as it stands now.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from config.whole_files import whole_file
from corpus.perspectrum import file_names
from export.models import Release
from export.services import check_new_version, export_perspectrum


class ReleaseCopyError(RuntimeError):
    """A released version's stored files cannot be given out as released (missing or altered)."""


@dataclass(frozen=True)
class Exported:
    """What `export_version` wrote: the files, and whether they are a released version's own."""

    version: str
    released: bool
    files: dict[str, Path]

    def sentence(self, out: Path) -> str:
        count = len(self.files)
        if self.released:
            return (
                f"Release {self.version} exists: copied its {count} stored PERSPECTRUM files into {out}, "
                "each byte-identical to the release and checked against its manifest."
            )
        return (
            f"Version {self.version} is not released: wrote the database as it stands now as "
            f"{count} PERSPECTRUM files into {out}."
        )


def export_version(version: str, out: Path, *, machine_labels: bool = True) -> Exported:
    """The released files of `version` if it exists, else the current database under a new version.
    Without `machine_labels`, a release that holds machine labels is refused: its files never change."""
    release = Release.objects.filter(version=version).first()
    if release is not None:
        if not machine_labels:
            refuse_machine_labels(release)
        return Exported(version, True, copy_released_files(release, out))
    check_new_version(version, Path(settings.RELEASES_DIR) / version)
    return Exported(version, False, export_perspectrum(version, out))


def refuse_machine_labels(release: Release) -> None:
    """A release whose labels include a machine's cannot be given out without them: it never changes."""
    machine = release.manifest.get("labels_by_origin", {}).get("machine", 0)
    if machine:
        raise ReleaseCopyError(
            f"release {release.version} holds {machine} machine labels and never changes; build a new "
            "version with build_release --without-machine-labels; nothing was written"
        )


def copy_released_files(release: Release, out: Path) -> dict[str, Path]:
    """Copy the release's stored PERSPECTRUM files into `out`, byte for byte. Every file is read and
    checked against the manifest before any is written, so a refusal writes nothing."""
    recorded = {entry["name"]: entry for entry in release.files}
    contents = {
        kind: _checked(release, name, recorded.get(name))
        for kind, name in file_names(release.version).items()
    }
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for kind, name in file_names(release.version).items():
        written[kind] = out / name
        with whole_file(written[kind], "wb") as handle:
            handle.write(contents[kind])
    return written


def _checked(release: Release, name: str, entry: dict[str, object] | None) -> bytes:
    stored = release.path / name
    if entry is None or not stored.is_file():
        raise ReleaseCopyError(
            f"release {release.version} has no stored {name} ({stored}); nothing was written"
        )
    data = stored.read_bytes()
    if hashlib.sha256(data).hexdigest() != entry["sha256"] or len(data) != entry["bytes"]:
        raise ReleaseCopyError(
            f"release {release.version}'s stored {name} differs from its manifest (sha256 or size changed "
            "since it was released); nothing was written. Run verify_release on its directory."
        )
    return data
