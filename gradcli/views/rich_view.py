"""The default terminal view: the script's output interleaved with what each backward
call did, and every error in a panel with its cause and fix. Readable without colour."""
from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text


def _node(n, with_line=True):
    label = Text(n.grad_fn, style="bold cyan" if n.grad_fn != "AccumulateGrad" else "blue")
    if n.grad_fn == "AccumulateGrad":
        return Text(n.name or "leaf", style="bold blue")
    where = []
    if n.name:
        where.append(n.name)
    if getattr(n, "module", None):
        where.append(n.module)
    if with_line and n.line:
        where.append(f"line {n.line}")
    if where:
        label.append(f" ({', '.join(where)})", style="dim")
    return label


def _join(parts, sep):
    out = Text()
    for i, p in enumerate(parts):
        if i:
            out.append(sep, style="dim")
        out.append_text(p)
    return out


def call_block(ev):
    """A backward/grad call: the nodes it ran, the grads it changed, the buffers it freed."""
    head = Text("  ▸ ", style="bold magenta")
    head.append(ev.text or ev.kind, style="bold")
    if ev.line:
        head.append(f"   line {ev.line}", style="dim")
    if ev.retain_graph:
        head.append("   (retain_graph: nothing freed)", style="green")
    rows = []
    ran = [n for n in ev.executed if n.grad_fn != "AccumulateGrad"]
    if ran:
        rows.append(("ran", _join([_node(n) for n in ran], " → ")))
    if ev.updates:
        parts = []
        for u in ev.updates:
            t = Text(f"{u.name or 'leaf'}.grad ", style="bold")
            t.append(u.before if u.before is not None else "None", style="dim")
            t.append(" → ")
            t.append(u.after, style="green")
            parts.append(t)
        rows.append(("grads", _join(parts, "   ")))
    if ev.freed:
        parts = []
        for n in ev.freed:
            t = _node(n)
            slots = []
            for s in n.saved:
                slots.append(f"{s} = tensor({n.constants[s]})" if s in n.constants else s)
            t.append(": " + ", ".join(slots), style="yellow")
            parts.append(t)
        rows.append(("freed", _join(parts, "   ")))
    if ev.failed and ev.caught_line is not None:
        kind = ev.error[0] if ev.error else "an error"
        rows.append(("raised", Text(f"{kind}, caught by the script (line {ev.caught_line})", style="red")))
    elif ev.failed:
        rows.append(("failed", Text("stopped by the error below", style="red")))
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style="dim")
    grid.add_column()
    for i, (label, body) in enumerate(rows):
        branch = "└─" if i == len(rows) - 1 else "├─"
        grid.add_row(f"  {branch} {label:<6}", body)
    return Group(head, grid)


MESSAGE_CHARS = 4000     # of an error message in the panel; --plain and --json give all of it


def _shortened(text, limit):
    if len(text) <= limit:
        return text
    return text[:limit] + f"… ({len(text) - limit:,} more characters: --plain or --json show them all)"


def error_panel(err):
    body = Text(_shortened(err.message, MESSAGE_CHARS))
    if err.hint and err.type == "NameError":
        body.append("\n" + err.hint, style="yellow")
    if err.why:
        body.append("\n\nWhy: ", style="bold")
        body.append(err.why)
    if err.fix:
        body.append("\nFix: ", style="bold green")
        body.append(err.fix)
    if err.type == "SyntaxError" and err.text is not None:
        caret = " " * max((err.col or 1) - 1, 0) + "^"
        body = Text(f"{err.text}\n{caret}\n", style="none") + body
    frames = getattr(err, "frames", None) or []
    if len(frames) > 1:                       # where the script was: its own frames, outermost first
        trail = Text("in ", style="dim")
        trail.append(" → ".join(f"{'the script' if name == '<module>' else name} (line {line})"
                                for line, name in frames), style="dim")
        body = trail + Text("\n") + body
    title = f"{err.type}"
    if err.line:
        title += f" ─ line {err.line}"
        if err.col and err.type == "SyntaxError":
            title += f", column {err.col}"
        if err.text and err.type != "SyntaxError":
            title += f": {_shortened(err.text.strip(), 200)}"
    return Panel(body, title=Text(title), title_align="left", border_style="red", expand=False)


def leaves_line(leaves):
    t = Text("  implicit leaves ", style="dim")
    t.append(", ".join(f"{name} = {value}" for name, value in leaves), style="blue")
    return t


def script_output(console, text):
    """What the script printed, as Python prints it: straight to the terminal (Rich's layout of
    a megabyte of printed lines takes seconds and changes nothing), through Rich only when it
    records or draws the output itself."""
    if console.record or console.is_jupyter or console._buffer_index:
        console.print(Text(text), end="", soft_wrap=True, highlight=False)
    else:
        console.file.write(text)
        console.file.flush()


def render(report, console: Console):
    items = report.items
    i = 0
    while i < len(items):
        item = items[i]
        kind = item[0]
        i += 1
        if kind == "out":                     # what the script printed, up to the next event, at once
            text = [item[1]]
            while i < len(items) and items[i][0] == "out":
                text.append(items[i][1])
                i += 1
            script_output(console, "".join(text))
        elif kind == "warn":
            console.print(Text(f"UserWarning (line {item[1]}): {item[2]}", style="yellow"), soft_wrap=False)
        elif kind == "call":
            console.print(call_block(item[1]))
        elif kind == "leaves":
            console.print(leaves_line(item[1]))
        elif kind == "expect":
            console.print(Text(f"  ✓ {item[3]}   line {item[1]}", style="green"))
        elif kind == "graph":
            from ..graphview import tree
            console.print(tree(item[2]))
    if report.error is not None:
        console.print(error_panel(report.error))
