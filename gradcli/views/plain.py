"""`--plain`: what Python + PyTorch would print: stdout as is, warnings and the error on stderr."""
from __future__ import annotations

import os

from ..record.report import Printed, Warned


def error_line(err) -> str:
    msg = f"{err.type}: {err.message}" if err.message else err.type
    if err.type == "NameError" and err.hint:
        msg += ". " + err.hint
    return msg


def render(report, out, err_stream, filename="<script>"):
    if os.path.isfile(filename):            # `python script.py` names its script by its absolute path
        filename = os.path.abspath(filename)
    lines = report.source.split("\n")
    for item in report.items:
        if isinstance(item, Printed):
            out.write(item.text)
        elif isinstance(item, Warned):
            line = item.line
            err_stream.write(f"{filename}:{line}: UserWarning: {item.message}\n")
            src = lines[line - 1].strip() if line and 0 < line <= len(lines) else ""
            if src:
                err_stream.write(f"  {src}\n")
    out.flush()
    if report.error is not None:
        e = report.error
        if e.type == "SystemExit":          # Python prints only an exit object that is not a number
            if e.exit_code is None:
                err_stream.write(e.message + "\n")
            return
        if report.parse_failed and e.type in ("SyntaxError", "IndentationError", "TabError"):
            err_stream.write(f'  File "{filename}", line {e.line}\n')
            if e.text is not None:
                stripped = e.text.lstrip()
                err_stream.write(f"    {stripped.rstrip()}\n")
                # as CPython's print_error_text: the offset past the stripped indentation, clipped to
                # the line; no caret when it points left of the text
                offset = min((e.col or 0) - 1 - (len(e.text) - len(stripped)), len(stripped.rstrip()))
                if e.col and offset >= 0:
                    err_stream.write("    " + " " * offset + "^\n")
        err_stream.write(error_line(e) + "\n")
