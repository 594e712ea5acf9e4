"""Fetch the PERSPECTRUM v1.0 release files from the official CogComp/perspectrum repository."""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

# The pinned upstream commit and the sha256 of each file there (see shared/perspectrum/SOURCE.txt).
COMMIT = "b42c27b85f20f2a35c0a0895698fa242ccf160ab"
BASE_URL = f"https://raw.githubusercontent.com/CogComp/perspectrum/{COMMIT}/data/dataset/"
FILES = {
    "perspectrum_with_answers_v1.0.json": "39d0391d26ebe21efb1cc3162abcc3c4212d2eadfb07514129c3015d6f6ae1f1",
    "perspective_pool_v1.0.json": "d4d4e78c4777ea971d26546a8819aa9e02c5a68ffff45e10b40ca0cb91b43ae4",
    "dataset_split_v1.0.json": "5ba5296f6e5956c44a2fd014b15a3f7c10b9a253451162932acaf217f20cd7da",
    "topic.json": "e4ca9e96d22e0c7201709ff89314aeba4cb0e2dc57006407d864cb7a87e81920",
    # evidence_pool_v1.0.json has no pinned hash here: fetched if reachable, checked by the importer.
    "evidence_pool_v1.0.json": "",
}
TIMEOUT = 30


class DownloadError(RuntimeError):
    """The release could not be fetched (offline, unreachable, or a file did not match its hash)."""


def download_release(directory: Path, base_url: str = BASE_URL) -> Iterator[str]:
    """Download missing release files into `directory`, checking hashes; yields progress lines."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, sha256 in FILES.items():
        target = directory / name
        if target.exists():
            yield f"{name}: already present"
            continue
        try:
            with urllib.request.urlopen(base_url + name, timeout=TIMEOUT) as response:
                body = response.read()
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            if not sha256:
                yield f"{name}: not fetched ({error}); evidence text will be marked missing"
                continue
            raise DownloadError(
                f"could not fetch {base_url + name}: {error}. Are you offline? Copy the release files into "
                f"{directory} by hand, or set PERSPECTRUM_DIR to a directory that has them."
            ) from None
        if sha256 and hashlib.sha256(body).hexdigest() != sha256:
            raise DownloadError(f"{name}: downloaded file does not match its pinned sha256 {sha256}")
        target.write_bytes(body)
        yield f"{name}: downloaded ({len(body)} bytes)"
