"""Writing an output file so that a reader, or a crash, never sees half of it.

The one helper behind `graph -o`, `export -o`, `test --update`, `test --junit-xml` and the
REPL's `:save`: the data goes to a temporary file beside the target, is flushed to disk and
renamed over the target. A new file gets the mode the umask gives (as `open` would); a
replaced file keeps its mode; a symbolic link stays a link and its target is replaced. A
target that is not a regular file (/dev/stdout, a FIFO, a device) cannot be renamed over:
the data is written to it directly. On any failure the temporary file is removed and the
old file is left as it was.
"""
from __future__ import annotations

import os
import secrets
import stat


def write_atomic(path, data):
    """Write `data` (str, as UTF-8, or bytes) to `path` atomically; see the module docstring."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path = os.path.realpath(path)                 # through symbolic links to the file they name
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(21, "Is a directory", path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(path, "wb") as f:               # a pipe or a device: nothing to rename over
            f.write(data)
        return
    tmp, fd = _create_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(os.path.dirname(path))


def _create_beside(path):
    """A new hidden file in path's folder, created with mode 0o666 so that the umask applies."""
    folder, name = os.path.split(path)
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue


def _fsync_directory(folder):
    """Make the rename itself durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
