"""Reading the files gradcli is given (scripts, golden files, standard input), safely.

Only regular files are read: a FIFO would block the open or the read forever, and a device
such as /dev/zero never ends. The open itself does not block (O_NONBLOCK), and the check is
made on the opened file, so a path swapped between a check and the open changes nothing.
At most `limit` bytes are read; a longer input is refused rather than read into memory.
"""
from __future__ import annotations

import os
import stat

DEFAULT_LIMIT = 64 * 2 ** 20          # bytes: far above any script or golden file a person writes


class SourceError(Exception):
    """An input gradcli refuses to read: the message says why, in one line."""


def _size(n):
    return f"{n // 2 ** 20} MiB" if n >= 2 ** 20 else f"{n} bytes"


def read_source(path, limit=DEFAULT_LIMIT) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise SourceError(f"no such file: {path}") from None
    except OSError as e:
        raise SourceError(f"cannot read {path}: {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise SourceError(f"{path} is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise SourceError(f"{path} is not a regular file (a pipe or a device is not read)")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return _bounded(f, limit, path)
    except OSError as e:
        raise SourceError(f"cannot read {path}: {e.strerror}") from None
    finally:
        os.close(fd)


def read_stdin(stream, limit=DEFAULT_LIMIT) -> bytes:
    """Standard input (`sys.stdin`), which may be a pipe; None or closed is refused, not a traceback."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None or buffer.closed:
        raise SourceError("standard input is closed: give the script as FILE or -c TEXT")
    try:
        return _bounded(buffer, limit, "standard input")
    except (OSError, ValueError) as e:
        raise SourceError(f"cannot read standard input: {getattr(e, 'strerror', None) or e}") from None


def _bounded(f, limit, name):
    data = f.read(limit + 1)
    if len(data) > limit:
        raise SourceError(f"{name} is larger than {_size(limit)}: refused")
    return data
