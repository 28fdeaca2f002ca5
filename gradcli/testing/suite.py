"""`gradcli test`: a folder of scripts as a regression suite (the CLI and the pytest plugin share this).

What makes a script pass
------------------------
A script runs on a fresh interpreter (``executor.run_source``) and passes when all of these hold:

* no ``expect`` statement failed and no ``assert`` failed (these are never excused, not even
  by a golden file, and ``--update`` never records them);
* it was not stopped by a limit (``--timeout``, ``--max-elements``);
* every golden file beside it matches: ``NAME.out`` (what ``gradcli run --plain`` prints,
  stdout and stderr as one stream, exact text) and ``NAME.json`` (the ``--json`` object; numbers
  compared with rtol 1e-5 / atol 1e-8, keys missing from the golden file not compared);
* an error that ends the script is allowed only when a golden file records it (the error is
  then part of the expected output); otherwise the script must run to its end;
* with ``--oracle torch``, a ``.py`` script that is valid Python behaves the same under PyTorch.

Object addresses (`` at 0x7f...``) are written and compared as `` at 0x...``.

``--update`` rewrites (atomically: a temporary file in the same folder, then os.replace) the
golden files that exist, and creates ``NAME.out`` for a script named on the command line that
has none; it never writes for a script whose expectation, assert or limit failed. A normal
run never creates a golden file. (``foo.py`` and ``foo.grad`` in one folder cannot both have
golden files: that is reported.)

Header comments (in the comment block at the top of the script, before its first statement):
``# gradcli: --set x=2 --strict --timeout 5`` (options for this script; its limits may only
lower those of the command line, never raise them), ``# xfail: reason``
(a known failure: reported as xfailed, or xpassed when it passes), ``# skip: reason``.

Nothing here raises for a script's sake: every problem of a script becomes its Result.
"""
from __future__ import annotations

import difflib
import io
import json
import math
import os
import re
import shlex
import time
import traceback
from dataclasses import dataclass, field, asdict
from typing import Callable, List, Optional

from ..explain import explained
from ..session import limits
from ..session.atomic import write_atomic

SUFFIXES = (".grad", ".py")
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
ADDRESS_MASK = " at 0x..."
RTOL, ATOL = 1e-5, 1e-8          # numbers in NAME.json, as `expect A == B`
DEFAULT_TIMEOUT = 60.0           # seconds per script, unless the command line or a header says otherwise
OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed")
# Errors that always fail a script: a golden file cannot make them expected.
_NEVER_EXPECTED = {"ExpectationFailed": "expectation", "AssertionError": "assertion", "LimitError": "limit"}


class UsageError(Exception):
    """A bad command line (exit status 2)."""


class HeaderError(Exception):
    def __init__(self, message, line):
        super().__init__(message)
        self.message = message
        self.line = line


# ----------------------------------------------------------------------------- data


@dataclass
class Script:
    path: str                  # absolute path of the script
    id: str                    # how it is shown: relative to the working directory, with /
    explicit: bool = False     # named on the command line (then --update may create NAME.out)
    index: int = 0             # position in discovery order


@dataclass
class Options:
    update: bool = False
    oracle: Optional[str] = None          # None or "torch"
    timeout: Optional[float] = DEFAULT_TIMEOUT
    max_elements: Optional[int] = None
    max_memory_gb: Optional[float] = None


@dataclass
class Header:
    values: dict = field(default_factory=dict)
    strict: bool = False
    timeout: Optional[float] = None
    max_elements: Optional[int] = None
    max_memory_gb: Optional[float] = None
    xfail: Optional[str] = None
    skip: Optional[str] = None
    marked: bool = False                  # has a `# gradcli:` line (the pytest plugin's marker)


@dataclass
class Problem:
    kind: str          # expectation | assertion | error | limit | golden | oracle | header | read | internal
    message: str       # one line
    line: Optional[int] = None
    excerpt: str = ""  # the script lines around `line`, the failing one marked with >
    diff: str = ""     # a unified diff or a list of differences
    hint: str = ""     # what to do about it


@dataclass
class Result:
    id: str
    path: str
    index: int = 0
    outcome: str = "passed"
    problems: List[Problem] = field(default_factory=list)
    reason: Optional[str] = None          # of a skip or an xfail
    duration: float = 0.0
    updated: List[str] = field(default_factory=list)   # golden files written by --update
    notes: List[str] = field(default_factory=list)
    oracle: Optional[tuple] = None        # (source, gradcli's facts) until PyTorch's run is compared

    @property
    def line(self):
        for p in self.problems:
            if p.line is not None:
                return p.line
        return None

    def as_json(self):
        return {"script": self.id, "path": self.path, "outcome": self.outcome, "line": self.line,
                "reason": self.reason, "duration": round(self.duration, 4),
                "problems": [asdict(p) for p in self.problems], "updated": list(self.updated),
                "notes": list(self.notes)}


# ----------------------------------------------------------------------------- discovery


def discover(paths, cwd=None) -> List[Script]:
    """The scripts under PATHS, in a stable order: each path in turn, a directory walked in
    sorted order (files of a folder before its subfolders), hidden folders skipped."""
    cwd = os.path.abspath(cwd or os.getcwd())
    scripts, seen = [], {}
    for given in paths:
        p = given if os.path.isabs(given) else os.path.join(cwd, given)
        if os.path.isdir(p):
            found = []
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                found.extend(os.path.join(root, f) for f in sorted(files)
                             if f.endswith(SUFFIXES) and not f.startswith(".")
                             and f not in ("conftest.py", "__init__.py"))
            explicit = False
        elif os.path.exists(p):
            if not p.endswith(SUFFIXES):
                raise UsageError(f"{given} is not a script (.grad or .py)")
            found, explicit = [p], True
        else:
            raise UsageError(f"no such file or directory: {given}")
        for f in found:
            key = os.path.realpath(f)
            if key in seen:
                seen[key].explicit |= explicit
                continue
            rel = os.path.relpath(os.path.abspath(f), cwd)
            sid = (rel if not rel.startswith("..") else os.path.abspath(f)).replace(os.sep, "/")
            seen[key] = s = Script(os.path.abspath(f), sid, explicit, len(scripts))
            scripts.append(s)
    return scripts


def keyword_matcher(expression: Optional[str]) -> Callable[[str], bool]:
    """`-k`: like pytest's, words (case-insensitive substrings of the script's path) joined
    with and / or / not and parentheses."""
    if not expression or not expression.strip():
        return lambda name: True
    tokens = re.findall(r"\(|\)|[^\s()]+", expression)
    pos = 0

    def bad(msg):
        raise UsageError(f"-k {expression!r}: {msg}")

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def or_():
        left = and_()
        while peek() == "or":
            take()
            a, b = left, and_()
            left = lambda n, a=a, b=b: a(n) or b(n)
        return left

    def and_():
        left = not_()
        while peek() == "and":
            take()
            a, b = left, not_()
            left = lambda n, a=a, b=b: a(n) and b(n)
        return left

    def not_():
        tok = peek()
        if tok is None:
            bad("expected a word at the end")
        if tok == "not":
            take()
            inner = not_()
            return lambda n: not inner(n)
        if tok == "(":
            take()
            inner = or_()
            if peek() != ")":
                bad("missing )")
            take()
            return inner
        if tok in (")", "and", "or"):
            bad(f"unexpected {tok!r}")
        word = take().lower()
        return lambda n: word in n.lower()

    match = or_()
    if pos != len(tokens):
        bad(f"unexpected {tokens[pos]!r}")
    return match


# ----------------------------------------------------------------------------- header

_HEADER_GRADCLI = re.compile(r"#\s*gradcli:(.*)$")
_HEADER_XFAIL = re.compile(r"#\s*xfail\s*(?::(.*))?$")
_HEADER_SKIP = re.compile(r"#\s*skip\s*(?::(.*))?$")


def header_lines(source):
    """(line number, text) of the comment block at the top of a script."""
    for n, raw in enumerate(source.replace("\r\n", "\n").split("\n"), 1):
        text = raw.strip()
        if text and not text.startswith("#"):
            return
        if text:
            yield n, text


def is_marked(source) -> bool:
    return any(_HEADER_GRADCLI.match(t) for _, t in header_lines(source))


def parse_header(source) -> Header:
    from ..session.set_values import parse_set, UsageError as SetError
    h = Header()
    sets = []
    for n, text in header_lines(source):
        m = _HEADER_GRADCLI.match(text)
        if m:
            h.marked = True
            try:
                words = shlex.split(m.group(1))
            except ValueError as e:
                raise HeaderError(f"cannot read the `# gradcli:` options: {e}", n) from None
            _parse_options(words, h, sets, n)
            continue
        m = _HEADER_XFAIL.match(text)
        if m:
            h.xfail = (m.group(1) or "").strip() or "marked xfail"
            continue
        m = _HEADER_SKIP.match(text)
        if m:
            h.skip = (m.group(1) or "").strip() or "marked skip"
    try:
        h.values = parse_set(sets)
    except SetError as e:
        raise HeaderError(str(e), _line_of(source, "--set")) from None
    return h


def _line_of(source, needle):
    for n, text in header_lines(source):
        if needle in text:
            return n
    return None


def _parse_options(words, h, sets, line):
    known = "--set NAME=VALUE, --strict, --timeout SECONDS, --max-elements N, --max-memory GB"
    i = 0

    def value(opt):
        nonlocal i
        if i + 1 >= len(words):
            raise HeaderError(f"`# gradcli:` option {opt} needs a value", line)
        i += 1
        return words[i]

    def number(opt, text, kind):
        try:
            v = kind(text)
        except ValueError:
            v = None
        if v is None or not v > 0 or (isinstance(v, float) and not math.isfinite(v)):
            raise HeaderError(f"`# gradcli:` option {opt} needs a positive number, not {text!r}", line)
        return v

    while i < len(words):
        w = words[i]
        opt, eq, inline = w.partition("=")
        if opt == "--set":
            v = inline if eq else value(opt)
            while v.count("[") > v.count("]") and i + 1 < len(words):   # `w=[1.0, 2.0]` unquoted: the
                i += 1                                                   # list's words belong together
                v += " " + words[i]
            sets.append(v)
        elif w == "--strict":
            h.strict = True
        elif opt == "--timeout":
            h.timeout = number(opt, inline if eq else value(opt), float)
        elif opt == "--max-elements":
            h.max_elements = number(opt, inline if eq else value(opt), int)
        elif opt == "--max-memory":
            h.max_memory_gb = number(opt, inline if eq else value(opt), float)
        else:
            raise HeaderError(f"unknown option {w!r} in the `# gradcli:` header (known: {known})", line)
        i += 1


# ----------------------------------------------------------------------------- golden files


def golden_paths(script_path):
    base = os.path.splitext(script_path)[0]
    return base + ".out", base + ".json"


def mask(text: str) -> str:
    return ADDRESS.sub(ADDRESS_MASK, text)


def _mask_json(v):
    if isinstance(v, str):
        return mask(v)
    if isinstance(v, list):
        return [_mask_json(x) for x in v]
    if isinstance(v, dict):
        return {k: _mask_json(x) for k, x in v.items()}
    return v


def plain_output(report, name) -> str:
    """What `gradcli run --plain NAME` prints, stdout and stderr in the order they are written."""
    from ..views import plain
    buf = io.StringIO()
    plain.render(report, buf, buf, name)
    return mask(buf.getvalue())


def json_output(report) -> dict:
    from ..views import json_view
    return _mask_json(json.loads(json.dumps(json_view.as_dict(report), allow_nan=False)))


def json_text(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _read_text(path):
    from ..session.sourcefile import SourceError, read_source
    try:
        data = read_source(path)
    except SourceError as e:
        raise OSError(str(e)) from None
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline=None).read()


def text_diff(expected, actual, expected_name, actual_name):
    a, b = expected.splitlines(), actual.splitlines()
    if a == b:
        return (f"the texts differ only in line endings or the final newline "
                f"({'expected' if expected.endswith(chr(10)) else 'no'} final newline in {expected_name})")
    return "\n".join(difflib.unified_diff(a, b, f"{expected_name} (expected)", f"{actual_name} (actual)",
                                          lineterm="", n=3))


def json_diff(expected, actual, where="$", out=None):
    """Differences between a golden JSON value and the actual one, as "path: ..." strings.

    Dicts: every key of the golden dict must match (keys only in `actual` are not compared,
    so new keys in gradcli's output do not break old golden files). Lists: same length,
    item by item. Numbers: ints exactly, floats with rtol/atol. Strings, booleans, null: exactly.
    """
    if out is None:
        out = []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            out.append(f"{where}: expected an object, got {_short(actual)}")
            return out
        for k, v in expected.items():
            sub = f"{where}.{k}" if re.fullmatch(r"[A-Za-z_]\w*", k) else f"{where}[{json.dumps(k)}]"
            if k not in actual:
                out.append(f"{sub}: missing (expected {_short(v)})")
            else:
                json_diff(v, actual[k], sub, out)
    elif isinstance(expected, list):
        if not isinstance(actual, list):
            out.append(f"{where}: expected a list, got {_short(actual)}")
            return out
        if len(expected) != len(actual):
            out.append(f"{where}: expected {len(expected)} items, got {len(actual)}: "
                       f"expected {_short(expected)}, got {_short(actual)}")
            return out
        same = _same_numbers(expected, actual)
        if same is not None:
            if not same.all():
                _number_diffs(expected, actual, same, where, out)
            return out
        for i, (e, a) in enumerate(zip(expected, actual)):
            json_diff(e, a, f"{where}[{i}]", out)
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        if type(expected) is not type(actual) or expected != actual:
            out.append(f"{where}: expected {_short(expected)}, got {_short(actual)}")
    elif isinstance(expected, (int, float)):
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            out.append(f"{where}: expected {_short(expected)}, got {_short(actual)}")
        elif isinstance(expected, int) and isinstance(actual, int):
            if expected != actual:
                out.append(f"{where}: expected {expected}, got {actual}")
        elif not math.isclose(actual, expected, rel_tol=RTOL, abs_tol=ATOL) \
                and not abs(actual - expected) <= ATOL + RTOL * abs(expected):
            out.append(f"{where}: expected {expected!r}, got {actual!r}")
    elif expected != actual:
        out.append(f"{where}: expected {_short(expected)}, got {_short(actual)}")
    return out


def _same_numbers(expected, actual):
    """For two nested lists of plain numbers of one shape (a tensor's values): an array of
    where they match, compared as arrays; None for anything else."""
    import numpy as np
    try:
        e = np.array(expected, dtype=float)
        a = np.array(actual, dtype=float)
    except (TypeError, ValueError):
        return None
    if e.shape != a.shape or e.dtype != float or a.dtype != float:
        return None
    kinds = _kinds(expected)
    if kinds != _kinds(actual) or len(kinds) != 1:
        return None              # an int against a float or a bool: the element-wise path says where
    with np.errstate(all="ignore"):
        return (e == a) if float not in kinds else np.isclose(a, e, rtol=RTOL, atol=ATOL)


def _kinds(v, found=None):
    """The types of the numbers in a nested list."""
    found = set() if found is None else found
    for x in v:
        if isinstance(x, list):
            _kinds(x, found)
        else:
            found.add(type(x))
    return found


def _number_diffs(expected, actual, same, where, out):
    import numpy as np
    for at in np.argwhere(~same)[:20]:
        path = "".join(f"[{int(i)}]" for i in at)
        e, a = expected, actual
        for i in at:
            e, a = e[int(i)], a[int(i)]
        out.append(f"{where}{path}: expected {e!r}, got {a!r}")
    left = int((~same).sum()) - 20
    if left > 0:
        out.append(f"{where}: ... and {left} more numbers differ")


def _short(v, limit=120):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= limit else s[:limit - 5] + " ..."


# ----------------------------------------------------------------------------- one script


def excerpt(source, line, before=2, after=0):
    if not line:
        return ""
    lines = source.replace("\r\n", "\n").split("\n")
    if not 0 < line <= len(lines):
        return ""
    width = len(str(min(len(lines), line + after)))
    out = []
    for n in range(max(1, line - before), min(len(lines), line + after) + 1):
        out.append(f"{'>' if n == line else ' '} {n:>{width}} | {lines[n - 1]}")
    return "\n".join(out)


def run_script(script: Script, options: Options, apply_xfail=True) -> Result:
    """Run one script and judge it; never raises (a gradcli crash becomes an `internal` problem).

    Where the platform can fork, the script runs in a child process (watchdog.py): the time
    limit then holds inside one long C call, and the memory the script takes is its own. The
    PyTorch side of --oracle runs here, where PyTorch is imported once for every script."""
    start = time.perf_counter()
    if options.timeout is None or not hasattr(os, "fork"):
        result = _judged(script, options)
    else:
        result = _judged_in_child(script, options)
    if result.outcome != "skipped":
        _compare_with_pytorch(result)
        failed = bool(result.problems)
        if result.reason is not None and apply_xfail and not _unexcusable(result):
            result.outcome = "xfailed" if failed else "xpassed"
        else:
            result.outcome = "failed" if failed else "passed"
    result.duration = time.perf_counter() - start
    return result


def _judged(script, options):
    result = Result(script.id, script.path, script.index)
    try:
        _judge(script, options, result)
    except KeyboardInterrupt:
        raise
    except BaseException:
        result.problems.append(Problem("internal", "gradcli crashed while running this script "
                                                   "(a bug in gradcli: please report it)",
                                       diff=traceback.format_exc()))
    return result


def _judged_in_child(script, options):
    from ..session import watchdog
    _load_once()
    gb = options.max_memory_gb or limits.DEFAULT_MAX_MEMORY_GB
    kind, value = watchdog.in_child(options.timeout, lambda: _judged(script, options), int(gb * 2 ** 30))
    if kind == "done":
        return value
    result = Result(script.id, script.path, script.index)
    try:
        source = _read_text(script.path)
        result.reason = parse_header(source).xfail
    except (OSError, UnicodeDecodeError, HeaderError):
        source = ""
    if kind == "stopped":
        line = watchdog.script_line(value, os.path.basename(script.path), source)
        result.problems.append(Problem("limit", f"LimitError: {watchdog.message(options.timeout, line, value)}", line,
                                       excerpt(source, line)))
    else:
        result.problems.append(Problem("internal", f"the process running this script ended without a result "
                                                   f"({value}): out of memory, or a crash in C code"))
    return result


def _compare_with_pytorch(result):
    """--oracle torch: the script under real PyTorch against the facts of gradcli's run."""
    if result.oracle is None:
        return
    from . import oracle
    source, facts = result.oracle
    result.oracle = None
    diffs = oracle.compare(source, result.path, facts)
    if diffs:
        result.problems.append(Problem("oracle", "gradcli and PyTorch differ on this script (--oracle torch)",
                                       None, "", "\n".join(diffs)))


def _load_once():
    """Import what every script's run needs here, before the child is forked: each child then
    starts with it loaded, instead of importing it again and throwing it away."""
    import importlib
    for name in ("torch.nn.functional", "torch.optim", "session.executor", "lang.grammar", "lang.statements",
                 "session.set_values", "views.json_view", "views.plain"):
        importlib.import_module(f"gradcli.{name}")


def _unexcusable(result):
    # a broken header or an unreadable file is never "the known failure"
    return any(p.kind in ("header", "read") for p in result.problems)


def _judge(script, options, result):
    name = os.path.basename(script.path)
    from ..session.sourcefile import SourceError, read_source
    try:
        try:
            data = read_source(script.path)
        except SourceError as e:
            raise ValueError(str(e)) from None
        if b"\x00" in data:
            raise ValueError("it is a binary file, not a script")
        source = data.decode("utf-8-sig")
    except (OSError, ValueError) as e:
        msg = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        if isinstance(e, UnicodeDecodeError):
            msg = f"it is not UTF-8 text (byte {e.start} cannot be decoded)"
        result.problems.append(Problem("read", f"cannot read the script: {msg}"))
        return
    try:
        header = parse_header(source)
    except HeaderError as e:
        result.problems.append(Problem("header", e.message, e.line, excerpt(source, e.line, 0)))
        return
    if header.skip is not None:
        result.outcome, result.reason = "skipped", header.skip
        return
    result.reason = header.xfail

    report = _run(source, name, header, options)
    err = report.error
    out_path, json_path = golden_paths(script.path)
    out_id, json_id = (os.path.splitext(script.id)[0] + ext for ext in (".out", ".json"))
    never = err is not None and err.type in _NEVER_EXPECTED
    if err is not None and never:
        result.problems.append(Problem(_NEVER_EXPECTED[err.type], f"{err.type}: {err.message}", err.line,
                                       excerpt(source, err.line)))

    sibling = _sibling(script.path)
    has_golden = os.path.exists(out_path) or os.path.exists(json_path)
    if sibling and (has_golden or options.update):
        result.problems.append(Problem(
            "golden", f"{name} and {os.path.basename(sibling)} would share the golden files "
                      f"{os.path.basename(out_path)} and {os.path.basename(json_path)}: rename one of the scripts"))
        return

    plain_text = plain_output(report, name)
    if options.update and not never:
        targets = [p for p in (out_path, json_path) if os.path.exists(p)]
        if not targets and script.explicit:
            targets = [out_path]
        for p in targets:
            text = plain_text if p == out_path else json_text(json_output(report))
            try:
                old = _read_text(p) if os.path.exists(p) else None
            except (OSError, UnicodeDecodeError):
                old = None
            if old != text:
                try:
                    write_atomic(p, text)
                except OSError as e:
                    result.problems.append(Problem("golden", str(e)))
                    return
                result.updated.append(out_id if p == out_path else json_id)
        has_golden = bool(targets)

    if os.path.exists(out_path):
        try:
            expected = mask(_read_text(out_path))
        except (OSError, UnicodeDecodeError) as e:
            result.problems.append(Problem("golden", f"cannot read {out_id}: {e}"))
        else:
            if expected != plain_text:
                # point at the script line only when the difference is in the error that ended it
                last = (expected.splitlines() or [""])[-1] != (plain_text.splitlines() or [""])[-1]
                line = err.line if err is not None and last else None
                result.problems.append(Problem(
                    "golden", f"the output differs from {out_id}", line, excerpt(source, line),
                    text_diff(expected, plain_text, out_id, name),
                    hint=f"if the new output is right: gradcli test --update {script.id}"))
    if os.path.exists(json_path):
        try:
            expected = json.loads(_read_text(json_path))
        except OSError as e:
            result.problems.append(Problem("golden", f"cannot read {json_id}: {e}"))
        except (UnicodeDecodeError, ValueError) as e:
            result.problems.append(Problem("golden", f"{json_id} is not valid JSON ({e}); "
                                                     f"write it with --update"))
        else:
            diffs = json_diff(_mask_json(expected), json_output(report))
            if diffs:
                shown = diffs[:20] + ([f"... and {len(diffs) - 20} more"] if len(diffs) > 20 else [])
                result.problems.append(Problem(
                    "golden", f"the --json output differs from {json_id} "
                              f"(numbers compared with rtol {RTOL:g}, atol {ATOL:g})",
                    err.line if err else None, excerpt(source, err.line) if err else "",
                    "\n".join(shown), hint=f"if the new output is right: gradcli test --update {script.id}"))

    if err is not None and not never and not has_golden:
        hint = "" if report.parse_failed else (
            f"an error ended the script. If it is expected, say so: `expect error \"...\"` on the line before "
            f"it (try/except in a .py script), or record it in {out_id}: gradcli test --update {script.id}")
        result.problems.append(Problem("error", f"{err.type}: {err.message}" + _why(err), err.line,
                                       excerpt(source, err.line), hint=hint))

    if options.oracle == "torch" and script.path.endswith(".py"):
        from . import oracle
        if not oracle.is_python(source, script.path):
            result.notes.append("oracle: not valid Python (gradcli statements?), not compared")
        else:
            result.oracle = (source, oracle.gradcli_facts(report))      # compared by run_script


def _sibling(path):
    base, ext = os.path.splitext(path)
    other = base + (".grad" if ext == ".py" else ".py")
    return other if os.path.exists(other) else None


def _run(source, name, header, options):
    import inspect
    from ..session.executor import run_source
    # The command line's limits (or their defaults) are ceilings: a header may only lower them,
    # so that a script cannot lift the limits CI runs it under.
    max_elements = options.max_elements or limits.DEFAULT_MAX_ELEMENTS
    kwargs = {"values": header.values, "strict": header.strict,
              "timeout": _lowered(options.timeout, header.timeout),
              "max_elements": _lowered(max_elements, header.max_elements)}
    params = inspect.signature(run_source).parameters
    if "max_memory" in params:
        gb = _lowered(options.max_memory_gb or limits.DEFAULT_MAX_MEMORY_GB, header.max_memory_gb)
        kwargs["max_memory"] = int(gb * 2 ** 30)
    return run_source(source, name, **kwargs)


def _lowered(limit, requested):
    """A header's request against the run's limit (None: no limit)."""
    if requested is None:
        return limit
    return requested if limit is None else min(limit, requested)



# ----------------------------------------------------------------------------- many scripts


def run_all(scripts, options, jobs=1, exitfirst=False, on_result=None, on_start=None):
    """Run scripts and return their Results in discovery order; `on_result` sees each Result in
    that order too, as soon as it and every script before it are done.  With `exitfirst`, the
    results end at the first failure, exactly as a serial run would (also with jobs > 1)."""
    if jobs <= 1 or len(scripts) <= 1:
        results = []
        for s in scripts:
            if on_start:
                on_start(s)
            r = run_script(s, options)
            results.append(r)
            if on_result:
                on_result(r)
            if exitfirst and r.outcome == "failed":
                break
        return results
    return _run_parallel(scripts, options, jobs, exitfirst, on_result)


def _run_parallel(scripts, options, jobs, exitfirst, on_result):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, wait, FIRST_COMPLETED
    from concurrent.futures.process import BrokenProcessPool
    n = len(scripts)
    done = {}
    emitted = 0
    stop_at = n                 # with -x: the index of the first failure; later results are dropped
    ctx = multiprocessing.get_context("spawn")   # not fork: the parent may hold threads (torch, Rich)
    pool = ProcessPoolExecutor(max_workers=min(jobs, n), mp_context=ctx)
    try:
        futures = {pool.submit(run_script, s, options): s for s in scripts}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                if fut.cancelled():
                    continue
                s = futures[fut]
                try:
                    r = fut.result()
                except BrokenProcessPool:
                    r = Result(s.id, s.path, s.index, "failed", [Problem(
                        "internal", "the worker process died while this script was running or waiting "
                                    "(out of memory? its own message, if any, is above); run it with -j 1 "
                                    "to see more")])
                done[s.index] = r
                if exitfirst and r.outcome == "failed" and s.index < stop_at:
                    stop_at = s.index
            if stop_at < n:
                # what comes before the first failure must finish; what comes after is not reported
                keep = set()
                for fut in pending:
                    if futures[fut].index < stop_at:
                        keep.add(fut)
                    else:
                        fut.cancel()
                pending = keep
            while emitted < min(stop_at + 1, n) and emitted in done:
                if on_result:
                    on_result(done[emitted])
                emitted += 1
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True, cancel_futures=True)
    return [done[i] for i in range(min(stop_at + 1, n))]


def counts(results):
    c = {k: 0 for k in OUTCOMES}
    for r in results:
        c[r.outcome] += 1
    return c


def summary_line(results):
    c = counts(results)
    line = f"{c['passed']} passed, {c['failed']} failed"
    for k in ("skipped", "xfailed", "xpassed"):
        if c[k]:
            line += f", {c[k]} {k}"
    return line


# ----------------------------------------------------------------------------- reporting

WORD = {"passed": "PASSED", "failed": "FAILED", "skipped": "SKIPPED", "xfailed": "XFAIL", "xpassed": "XPASS"}


def progress_line(r: Result) -> str:
    where = r.id + (f":{r.line}" if r.outcome in ("failed", "xfailed") and r.line else "")
    line = f"{WORD[r.outcome]:<8} {where}"
    if r.outcome in ("failed", "xfailed") and r.problems:
        first = r.problems[0].message.split("\n")[0]
        line += "  " + (first if len(first) <= 80 else first[:77] + "...")
    elif r.reason and r.outcome in ("skipped", "xpassed"):
        line += f"  ({r.reason})"
    if r.outcome == "xfailed" and r.reason:
        line += f"  [xfail: {r.reason}]"
    if r.updated:
        line += "  (wrote " + ", ".join(r.updated) + ")"
    return line


def _why(err):
    """The error's explanation (explain/why.py) under its message, when it has one."""
    why = explained(err)
    if why is None:
        return ""
    from ..explain.why import text_lines
    return "".join("\n    " + line for line in text_lines(why))


def failure_lines(r: Result, title=True):
    """The report of one failed script as (style, text) lines: a title, then per problem
    `path:line: message`, the script lines around it and the diff."""
    out = [("title", f"{'_' * 10} {r.id} {'_' * max(10, 60 - len(r.id))}")] if title else []
    for p in r.problems:
        loc = f"{r.id}:{p.line}" if p.line else r.id
        msg = p.message.split("\n")
        out.append(("head", f"{loc}: {msg[0]}"))
        out.extend(("text", m) for m in msg[1:])
        if p.excerpt:
            out.extend(("source", "    " + ln) for ln in p.excerpt.split("\n"))
        if p.diff:
            for ln in p.diff.split("\n"):
                style = ("add" if ln.startswith("+") and not ln.startswith("+++") else
                         "del" if ln.startswith("-") and not ln.startswith("---") else
                         "hunk" if ln.startswith("@@") else "text")
                out.append((style, "    " + ln))
        if p.hint:
            out.append(("hint", f"    ({p.hint})"))
    if r.reason:
        out.append(("text", f"    (xfail: {r.reason})"))
    return out


def failure_text(r: Result, title=True) -> str:
    return "\n".join(t for _, t in failure_lines(r, title))


def results_json(results, stopped=False, deselected=0):
    c = counts(results)
    return {"version": 1, "ok": c["failed"] == 0, "summary": dict(c, total=len(results)),
            "stopped_early": stopped, "deselected": deselected,
            "results": [r.as_json() for r in results]}


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def junit_xml(results, suite_name="gradcli") -> str:
    import xml.etree.ElementTree as ET

    def clean(s):
        return _XML_BAD.sub("?", s or "")

    errors = sum(1 for r in results if r.outcome == "failed" and _is_error(r))
    failures = sum(1 for r in results if r.outcome == "failed" and not _is_error(r))
    skipped = sum(1 for r in results if r.outcome in ("skipped", "xfailed"))
    total_time = sum(r.duration for r in results)
    root = ET.Element("testsuites", name="gradcli test", tests=str(len(results)), failures=str(failures),
                      errors=str(errors), skipped=str(skipped), time=f"{total_time:.3f}")
    suite = ET.SubElement(root, "testsuite", name=suite_name, tests=str(len(results)), failures=str(failures),
                          errors=str(errors), skipped=str(skipped), time=f"{total_time:.3f}",
                          timestamp=time.strftime("%Y-%m-%dT%H:%M:%S"))
    for r in results:
        folder, base = r.id.rpartition("/")[::2]
        attrs = {"classname": folder.replace("/", ".") or "gradcli", "name": base, "file": r.id,
                 "time": f"{r.duration:.3f}"}
        if r.line:
            attrs["line"] = str(r.line)
        case = ET.SubElement(suite, "testcase", attrs)
        if r.outcome == "failed":
            first = r.problems[0] if r.problems else Problem("internal", "failed")
            tag = "error" if _is_error(r) else "failure"
            el = ET.SubElement(case, tag, message=clean(first.message.split("\n")[0]), type=first.kind)
            el.text = clean(failure_text(r, title=False))
        elif r.outcome == "skipped":
            ET.SubElement(case, "skipped", type="skip", message=clean(r.reason))
        elif r.outcome == "xfailed":
            el = ET.SubElement(case, "skipped", type="xfail", message=clean(r.reason))
            el.text = clean(failure_text(r, title=False))
        elif r.outcome == "xpassed" or r.updated or r.notes:
            notes = ([f"XPASS ({r.reason})"] if r.outcome == "xpassed" else []) \
                + [f"wrote {u}" for u in r.updated] + r.notes
            ET.SubElement(case, "system-out").text = clean("\n".join(notes))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _is_error(r):
    """JUnit's `error` (the script or gradcli broke) as opposed to `failure` (a check did not hold)."""
    return bool(r.problems) and r.problems[0].kind in ("error", "internal", "read", "header", "limit")
