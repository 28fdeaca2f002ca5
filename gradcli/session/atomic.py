"""Writing an output file so that a reader, or a crash, never sees half of it.

Every file gradcli writes goes through here (tests/test_outputs.py checks that no other module
opens a file for writing). `write_atomic` is behind `graph -o`, `export -o`, `explain --html`,
`explain --fix -o`, `test --update`, `test --junit-xml` and the REPL's `:save`: the data goes
to a temporary file beside the target, is flushed to disk and renamed over the target. A new file gets the mode the umask gives (as `open` would); a
replaced file keeps its mode; a symbolic link stays a link and its target is replaced. A
target that is not a regular file (/dev/stdout, a FIFO, a device) cannot be renamed over:
the data is written to it directly (a FIFO nobody reads within
FIFO_WAIT seconds is refused). On any failure the temporary file is removed and the
old file is left as it was. `append` adds to a log that other processes append to as well
(the REPL's history): in place, in one write, flushed to disk.
"""
from __future__ import annotations

import errno
import os
import secrets
import stat
import time

# A path the command line got wrong (exit status 2) rather than a failing disk (1).
_BAD_PATH = {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EACCES, errno.EPERM, errno.EROFS,
             errno.ENAMETOOLONG, errno.ENXIO, errno.ELOOP}


FIFO_WAIT = 5.0         # seconds for a reader to open a FIFO given as the output


class OutputError(OSError):
    """A file gradcli was asked to write could not be written; str() is one line naming it."""

    def __init__(self, given, e):
        reason = {errno.ENXIO: f"no process opened it for reading within {FIFO_WAIT:g} s"}.get(
            e.errno, e.strerror or str(e))
        super().__init__(e.errno, f"cannot write {given}: {reason}")
        self.status = 2 if e.errno in _BAD_PATH else 1

    def __str__(self):
        return self.strerror


def write_atomic(path, data):
    """Write `data` (str, as UTF-8, or bytes) to `path` atomically; see the module docstring.
    Any failure is an OutputError, and the old file is left as it was."""
    try:
        _write(path, data)
    except OutputError:
        raise
    except OSError as e:
        raise OutputError(path, e) from None


def append(path, data):
    """Add `data` (str, as UTF-8, or bytes) to the end of `path`, made with its folders if missing,
    in one write flushed to disk. Not replaced by a rename: another process appending to the same
    file meanwhile (a second REPL, prompt_toolkit's history) would lose its lines. Any failure is
    an OutputError."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise OutputError(path, e) from None


def _write(path, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    given = path
    path = os.path.realpath(path)                 # through symbolic links to the file they name
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(given, IsADirectoryError(errno.EISDIR, "it is a directory"))
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_directly(path, data)               # a pipe or a device: nothing to rename over
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


def _write_directly(path, data, wait=FIFO_WAIT):
    """Into a FIFO or a device as it is; a FIFO nobody opens for reading within `wait` seconds
    is refused rather than waited on forever."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            break
        except OSError as e:
            if e.errno != errno.ENXIO or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    try:
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


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


def cannot_write(e):
    """The output could not be written: exit 1 with one line on stderr (when it can take one)."""
    import sys
    try:
        sys.stderr.write(f"gradcli: cannot write the output: {e.strerror or e}\n")
    except (OSError, ValueError, AttributeError):
        pass
    return 1
