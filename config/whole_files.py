"""Files written whole: whoever reads a file the platform wrote finds the previous one or the new one,
never part of either.

Every file the platform writes — label outputs, exports, releases, backups — goes through `whole_file`:
the new content goes to a temporary file in the same folder (so the rename stays on one file system),
is flushed and synced to the disk, then renamed over the old name in one step. A full disk, a size
limit or a missing folder is a `WriteError` naming the file; the previous file is left as it was and
the temporary one is removed.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


class WriteError(OSError):
    """A file that could not be written whole; the previous file under its name is unchanged."""


@contextmanager
def whole_file(path: Path | str, mode: str = "w", **open_args: Any) -> Iterator[IO[Any]]:
    """An open temporary file that replaces `path` when the block ends without an error."""
    path = Path(path)
    if not path.parent.is_dir():
        raise WriteError(f"cannot write {path}: there is no folder {path.parent}")
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    try:
        # O_EXCL: never a file someone else made; 0o666 less the umask, as open() would give.
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with open(descriptor, mode, **open_args) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
        _sync_folder(path.parent)
    except OSError as error:
        partial.unlink(missing_ok=True)
        reason = error.strerror or str(error)
        raise WriteError(f"cannot write {path}: {reason}; the previous file is intact") from error
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (the folder's entry), where the platform allows it."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
