"""A release directory as one zip, byte-identical for identical directories. Pure.

Zip entries carry a date and permissions; both are fixed here (the date from the release's state
time), and entries are added in name order, so the archive depends on the files alone.
"""

from __future__ import annotations

import zipfile
from datetime import datetime
from pathlib import Path

from config.whole_files import whole_file
from export.manifest import MANIFEST, release_paths

EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can hold


def zip_date(state_time: str | None) -> tuple[int, int, int, int, int, int]:
    if not state_time:
        return EPOCH
    moment = datetime.fromisoformat(state_time)
    if moment.year < EPOCH[0]:
        return EPOCH
    return (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)


def write_zip(directory: Path, target: Path, top: str, state_time: str | None) -> None:
    """Zip every file of `directory` (manifest last) under the folder `top`/ into `target`, written whole."""
    date = zip_date(state_time)
    with (
        whole_file(target, "wb") as handle,
        zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive,
    ):
        for name in [*release_paths(directory), MANIFEST]:
            info = zipfile.ZipInfo(f"{top}/{name}", date_time=date)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, (directory / name).read_bytes())
