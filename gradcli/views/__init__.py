"""Views format a Report; they compute no autograd facts of their own."""
import os
import sys

from ..session.limits import FULL_VALUES


def show(report, mode, name, full_values=FULL_VALUES):
    """Print a report on standard output in mode "json", "plain" or "rich"."""
    if mode == "json":
        from . import json_view
        json_view.render(report, sys.stdout, full_values)
    elif mode == "plain":
        from . import plain
        plain.render(report, sys.stdout, sys.stderr, name)
    else:
        from . import rich_view
        rich_view.render(report, console())


def console(**kw):
    """The terminal console; NO_COLOR turns off every ANSI style, not only colours."""
    from rich.console import Console
    if os.environ.get("NO_COLOR"):
        return Console(highlight=False, color_system=None, no_color=True, **kw)
    return Console(highlight=False, **kw)
