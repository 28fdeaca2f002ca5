"""Limits that hold whatever the script is doing: a hard `--timeout` and an address-space cap.

The executor's timer raises between bytecodes; a single call into C (`sum(range(10**12))`, a
huge matmul) never reaches the next bytecode. So `gradcli run --timeout`, `gradcli test` and
the pytest plugin run each script in a child process. If the child is still busy GRACE seconds
after its own limit, faulthandler's C thread (it needs no GIL) writes the child's Python stack
to a pipe; the parent reads from it the script line that was running, ends the child and
reports the limit as the executor would. A child that neither finishes nor dumps (stuck before
the executor armed the dump) is ended at a hard deadline.

The address-space cap (RLIMIT_AS) backs the engine's tensor accounting: memory a script takes
with plain Python objects (a list of 10**9 ints) ends in the script's own MemoryError.
"""
from __future__ import annotations

import os
import sys
import time

GRACE = 0.5
_FD = None          # in the child: where faulthandler writes the stack (the executor arms it)
_DEADLINE = None    # in the child: when all its work (the script, then its report) must be done
ADDRESS_SLACK = 2 ** 30       # bytes above the cap: NumPy's and the allocator's own reservations


def arm(seconds):
    """Called by the executor as the script starts (its own timer covers the script alone)."""
    if _FD is not None:
        import faulthandler
        faulthandler.dump_traceback_later(seconds + GRACE, exit=False, file=_FD)


def disarm():
    """The script is over: what the child does next (a report, a graph) has until _DEADLINE."""
    if _FD is not None:
        import faulthandler
        faulthandler.dump_traceback_later(max(_DEADLINE - time.monotonic(), 0.05), exit=False, file=_FD)


def limit_address_space(max_bytes):
    """Cap this process's address space at what it maps now plus `max_bytes` (the soft limit
    only, never above the hard one). Only for a process that exists to run one script."""
    try:
        import resource
        with open("/proc/self/statm") as f:
            mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = mapped + max_bytes + ADDRESS_SLACK
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    if soft == resource.RLIM_INFINITY or want < soft:
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))


def in_child(timeout, work, max_memory=None):
    """Run work() in a forked child with a hard limit of about timeout + GRACE seconds.

    Returns ("done", what work() returned: it must pickle), ("stopped", faulthandler's dump of
    where the script was, "" when there was none) or ("died", a description of how the child
    ended without a result). A KeyboardInterrupt in the child is raised here; another exception
    from work() is raised here as a RuntimeError with its traceback."""
    import signal
    sys.stdout.flush()
    sys.stderr.flush()
    dump_r, dump_w = os.pipe()
    result_r, result_w = os.pipe()
    pid = os.fork()
    if pid == 0:                                     # the child: the run itself
        os.close(dump_r)
        os.close(result_r)
        _child(work, dump_w, result_w, timeout, max_memory)
    os.close(dump_w)
    os.close(result_w)
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C reaches the child, which ends itself
    except ValueError:                                       # not the main thread
        old = None
    try:
        dump, result, status = _collect(pid, dump_r, result_r, time.monotonic() + 2 * timeout + GRACE + 5)
    finally:
        os.close(dump_r)
        os.close(result_r)
        if old is not None:
            signal.signal(signal.SIGINT, old)
    if dump is not None:
        return "stopped", dump.decode("utf-8", "replace")
    import pickle
    try:
        kind, value = pickle.loads(result)
    except Exception:                                # the child died (killed, out of memory in C)
        code = os.waitstatus_to_exitcode(status)
        return "died", f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    if kind == "interrupted":
        raise KeyboardInterrupt
    if kind == "raised":
        raise RuntimeError(value)
    return "done", value


def _child(work, dump_w, result_w, timeout, max_memory):
    global _FD, _DEADLINE
    _FD = dump_w
    _DEADLINE = time.monotonic() + 2 * timeout + GRACE
    code = 3
    try:
        if max_memory is not None:
            limit_address_space(max_memory)
        arm(timeout)                                 # until the executor arms it for the script itself
        try:
            out = ("done", work())
        except KeyboardInterrupt:
            out = ("interrupted", None)
        except BaseException:
            import traceback
            out = ("raised", traceback.format_exc())
        import faulthandler
        import pickle
        faulthandler.cancel_dump_traceback_later()
        data = pickle.dumps(out)
        with os.fdopen(result_w, "wb") as f:
            f.write(data)
        code = 0
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _collect(pid, dump_r, result_r, deadline):
    """(dump or None, result bytes, wait status) from the child; it is killed if it overran."""
    import select
    import signal
    chunks = {dump_r: [], result_r: []}
    live = {dump_r, result_r}
    overran = False
    while live:
        left = deadline - time.monotonic()
        if left <= 0:
            overran = True
            break
        ready = select.select(list(live), [], [], left)[0]
        for fd in ready:
            data = os.read(fd, 1 << 16)
            if data:
                chunks[fd].append(data)
            else:
                live.discard(fd)
        if chunks[dump_r]:                           # the child overran: take the rest of the dump
            while select.select([dump_r], [], [], 0.2)[0]:
                more = os.read(dump_r, 1 << 16)
                if not more:
                    break
                chunks[dump_r].append(more)
            overran = True
            break
    if overran:
        os.kill(pid, signal.SIGKILL)
    status = os.waitpid(pid, 0)[1]
    return (b"".join(chunks[dump_r]) if overran else None), b"".join(chunks[result_r]), status


def supervised(timeout, filename, work, mode, source="", max_memory=None):
    """work() -> exit status, run under a hard time limit (`gradcli run --timeout`)."""
    if not hasattr(os, "fork"):
        return work()
    kind, value = in_child(timeout, work, max_memory)
    if kind == "done":
        return value
    if kind == "died":
        sys.stderr.write(f"gradcli: the process running the script ended without a result ({value})\n")
        return 3
    _report(timeout, script_line(value, filename, source), mode, value)
    return 1


def script_line(dump, filename, source=""):
    """The innermost script line in faulthandler's dump (it lists the most recent call first); a
    function stopped as it starts is on its `def` line, and then its call is named instead."""
    import re
    lines = source.split("\n")
    found = [int(m.group(2)) for m in re.finditer(r'File "(.*)", line (\d+) in ', dump) if m.group(1) == filename]
    for line in found:
        text = lines[line - 1].lstrip() if 0 < line <= len(lines) else ""
        if not text.startswith(("def ", "async def ", "@")):
            return line
    return found[0] if found else None


def message(timeout, line, dump=""):
    """The LimitError's text for a script stopped inside one long call (the executor's own says
    `stopped at line N`), or while it was being parsed."""
    import re
    # (the parser's modules run only while parsing; a deep parse can push the outer frames past
    # the 100 that faulthandler writes, so any of their frames counts)
    if line is None and re.search(r'File ".*gradcli/(lang/[a-z_]+\.py"|session/executor\.py", line \d+ in parse)',
                                  dump):
        return f"parsing the script took longer than the time limit of {timeout:g} s (raise it with --timeout)"
    if line is None and re.search(r'File ".*gradcli/(record/graph\.py|views/)', dump):
        return f"showing what the script did took longer than the time limit of {timeout:g} s allows (raise it " \
               "with --timeout)"
    where = f"stopped at line {line} inside one long computation; " if line else ""
    return f"the script ran longer than the time limit of {timeout:g} s ({where}raise it with --timeout)"


def _report(timeout, line, mode, dump):
    text = message(timeout, line, dump)
    if mode == "json":
        import json
        sys.stdout.write(json.dumps({"version": 1, "ok": False, "stdout": "", "error": {
            "type": "LimitError", "message": text, "line": line, "column": None, "hint": None, "cause": None,
            "why": None, "fix": None, "frames": []}, "events": [], "warnings": [], "leaves": [], "tensors": {}},
            indent=2) + "\n")
    else:
        sys.stderr.write(f"LimitError: {text}\n")
    sys.stdout.flush()
