"""The releases directory as a gzipped tar, and back. Pure: no Django import."""

from __future__ import annotations

import gzip
import tarfile
from pathlib import Path

from backups.errors import BackupCorruptError


def archive_directory(source: Path, target: Path) -> int:
    """Write every file under source (relative names, sorted) to target; how many files went in.

    A missing source gives an empty archive: a platform that never built a release still backs up.
    """
    count = 0
    with tarfile.open(target, "w:gz") as tar:
        if source.is_dir():
            for path in sorted(source.rglob("*")):
                tar.add(path, arcname=path.relative_to(source).as_posix(), recursive=False)
                count += path.is_file()
    return count


def extract_archive(source: Path, target: Path) -> None:
    """Unpack into target. The "data" filter refuses absolute paths, `..` and links leading out."""
    target.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(source, "r:gz") as tar:
            tar.extractall(target, filter="data")
    except (tarfile.TarError, EOFError, gzip.BadGzipFile) as error:
        raise BackupCorruptError(f"{source}: cannot be unpacked ({error})") from None
