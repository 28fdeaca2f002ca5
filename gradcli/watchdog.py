"""`--timeout` that holds inside one long C call.

The executor's timer raises between bytecodes; a single call into C (`sum(range(10**12))`, a
huge matmul) never reaches the next bytecode. So `gradcli run --timeout` runs the script in a
child process. If the child is still busy GRACE seconds after its own limit, faulthandler's C
thread (it needs no GIL) writes the child's Python stack to a pipe; the parent reads from it the
script line that was running, ends the child and reports the limit as the executor would.
"""
from __future__ import annotations

import os
import re
import select
import signal
import sys

GRACE = 0.5
_FD = None          # in the child: where faulthandler writes the stack (the executor arms it)


def arm(seconds):
    """Called by the executor as the script starts (its own timer covers the script alone)."""
    if _FD is not None:
        import faulthandler
        faulthandler.dump_traceback_later(seconds + GRACE, exit=False, file=_FD)


def disarm():
    if _FD is not None:
        import faulthandler
        faulthandler.cancel_dump_traceback_later()


def supervised(timeout, filename, work, mode, source=""):
    """work() -> exit status, run under a hard time limit of timeout + GRACE seconds."""
    if not hasattr(os, "fork"):
        return work()
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                     # the child: the run itself
        os.close(r)
        global _FD
        _FD = w
        code = 3
        try:
            code = work()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code if isinstance(code, int) else 1)
    os.close(w)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C reaches the child, which ends itself
    try:
        dump = os.read(r, 1 << 16)
        if dump:                                     # the child overran: take the rest of the dump
            while select.select([r], [], [], 0.2)[0]:
                more = os.read(r, 1 << 16)
                if not more:
                    break
                dump += more
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(r)
        signal.signal(signal.SIGINT, old)
    if not dump:
        return os.waitstatus_to_exitcode(status)
    _report(timeout, _script_line(dump.decode("utf-8", "replace"), filename, source), mode)
    return 1


def _script_line(dump, filename, source=""):
    """The innermost script line in faulthandler's dump (it lists the most recent call first); a
    function stopped as it starts is on its `def` line, and then its call is named instead."""
    lines = source.split("\n")
    found = [int(m.group(2)) for m in re.finditer(r'File "(.*)", line (\d+) in ', dump) if m.group(1) == filename]
    for line in found:
        text = lines[line - 1].lstrip() if 0 < line <= len(lines) else ""
        if not text.startswith(("def ", "async def ", "@")):
            return line
    return found[0] if found else None


def _report(timeout, line, mode):
    where = f"stopped at line {line} inside one long computation; " if line else ""
    message = f"the script ran longer than the time limit of {timeout:g} s ({where}raise it with --timeout)"
    if mode == "json":
        import json
        sys.stdout.write(json.dumps({"version": 1, "ok": False, "stdout": "", "error": {
            "type": "LimitError", "message": message, "line": line, "column": None, "hint": None, "cause": None,
            "why": None, "fix": None}, "events": [], "warnings": [], "leaves": [], "tensors": {}}, indent=2) + "\n")
    else:
        sys.stderr.write(f"LimitError: {message}\n")
    sys.stdout.flush()
