"""The default terminal view: the script's output interleaved with what each backward
call did, and every error in a panel with its cause and fix. Readable without colour."""
from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..explain import explained, surprises
from .narrative import flat
from ..record.report import CallEvent, ExpectPassed, GraphShown, LeavesShown, Printed, Warned


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


def fold(parts, sep, limit=12, head=6, tail=3):
    """A long list of labels as a reader takes it in: a block of up to 8 labels repeated in a
    row is one entry (`3,333 × (A → B → C)`, a simple loop's nodes); if that leaves more than
    `limit`, each label once with its count, in first-run order (`10 × AddmmBackward0 (cell
    (RNNCell), line 16)`: a loop whose branches interleave); past `limit` the middle is elided
    (a 10,000-line chain). The JSON view keeps every entry."""
    keys = [p.plain for p in parts]
    entries, i, n = [], 0, len(parts)
    while i < n:
        period, reps = 1, 1
        for p in range(1, 9):
            r = 1
            while i + (r + 1) * p <= n and keys[i + r * p:i + (r + 1) * p] == keys[i:i + p]:
                r += 1
            if r > 1 and r * p > period * reps:
                period, reps = p, r
        block = parts[i:i + period]
        entries.append(_times(reps, _join(block, sep) if period == 1 else Text("(") + _join(block, sep) + Text(")")))
        i += period * reps
    if len(entries) > limit:
        counts, first = {}, []
        for k, part in zip(keys, parts):
            if k not in counts:
                first.append((k, part))
            counts[k] = counts.get(k, 0) + 1
        entries = [_times(counts[k], part) for k, part in first]
    if len(entries) > limit:
        hidden = len(entries) - head - tail
        entries = entries[:head] + [Text(f"… {hidden:,} more …", style="dim italic")] + entries[-tail:]
    return entries


def _times(count, label):
    return label if count == 1 else Text(f"{count:,} × ", style="bold") + label


def call_block(ev):
    """A backward/grad call: the nodes it ran, the grads it changed, the buffers it freed."""
    title = Text(ev.text or ev.kind, style="bold")
    if ev.line:
        title.append(f"   line {ev.line}", style="dim")
    if ev.retain_graph:
        title.append("   (retain_graph: nothing freed)", style="green")
    head = Table.grid()                       # (a long call wraps under itself, not at column 0)
    head.add_column(no_wrap=True, style="bold magenta")
    head.add_column()
    head.add_row("  ▸ ", title)
    rows = []
    ran = [n for n in ev.executed if n.grad_fn != "AccumulateGrad"]
    if ran:
        rows.append(("ran", _join(fold([_node(n) for n in ran], " → "), " → ")))
    if ev.updates:
        parts = []
        for u in ev.updates:
            t = Text(f"{u.name or 'leaf'}.grad ", style="bold")
            t.append(flat(u.before) if u.before is not None else "None", style="dim")
            t.append(" → ")
            t.append(flat(u.after), style="green")
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
        rows.append(("freed", _join(fold(parts, "   "), "   ")))
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
    body = Text(visible(_shortened(err.message, MESSAGE_CHARS)))
    if err.hint and err.type == "NameError":
        body.append("\n" + err.hint, style="yellow")
    why = explained(err)
    if why is not None:
        body = Group(body, Text(""), why_block(why))
    elif err.why:
        body.append("\n\nWhy: ", style="bold")
        body.append(err.why)
    parse = err.type in ("SyntaxError", "IndentationError", "TabError")
    if parse and err.text is not None:
        caret = " " * max((err.col or 1) - 1, 0) + "^"
        body = Text(f"{err.text}\n{caret}\n", style="none") + body
    frames = getattr(err, "frames", None) or []
    if len(frames) > 1:                       # where the script was: its own frames, outermost first
        trail = Text("in ", style="dim")
        trail.append(" → ".join(f"{'the script' if name == '<module>' else name} (line {line})"
                                + (f" [repeated {n} more time{'s' * (n != 1)}]" if n else "")
                                for line, name, n in frames), style="dim")
        body = Group(trail, body)
    title = f"{err.type}"
    if err.line:
        title += f" ─ line {err.line}"
        if err.col and parse:
            title += f", column {err.col}"
    code = f": {visible(_shortened(err.text.strip(), 200))}" if err.line and err.text and not parse else ""
    return _TitledPanel(body, (title + code, title), title_align="left", border_style="red", expand=False)


class _TitledPanel(Panel):
    """A panel whose title is the longest of its `titles` that fits the width whole (a title
    cut mid-code would misquote the script)."""

    def __init__(self, body, titles, **kw):
        super().__init__(body, title=Text(titles[-1]), **kw)
        self.titles = titles

    def __rich_console__(self, console, options):
        room = options.max_width - 6           # (the corners, the rules beside the title, its padding)
        self.title = Text(next((t for t in self.titles if len(t) <= room), self.titles[-1]), overflow="ellipsis")
        yield from super().__rich_console__(console, options)


_CONTROL = __import__("re").compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text):
    """Text with its control characters (an ANSI escape, a carriage return) written as Python
    escapes: shown in a panel, they would move the cursor or colour the terminal."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)



_STYLES = {"why": "", "note": "dim", "fix": "green", "result": "dim green", "advice": "yellow", "rejected": "dim"}


def why_block(why):
    """The explanation's lines (explain.lines): "Why:", its notes, then "Fix:" and the fixes, each
    wrapped under its own indentation."""
    from rich.padding import Padding
    from ..explain.why import lines
    parts, fix_head = [], False
    for kind, text in lines(why):
        if kind == "why":
            parts.append(Text.assemble(("Why: ", "bold"), text))
            continue
        if kind in ("fix", "advice") and not fix_head:
            fix_head = True
            parts.append(Text.assemble(("Fix:", "bold green"), (" (most likely meant first; each tried on a copy "
                                                                "of the script)" if kind == "fix" else "", "dim")))
        parts.append(Padding(Text(text, style=_STYLES[kind]), (0, 0, 0, 5 if kind == "result" else 2)))
    return Group(*parts)


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
        i += 1
        match item:
            case Printed(first):              # what the script printed, up to the next event, at once
                text = [first]
                while i < len(items) and isinstance(items[i], Printed):
                    text.append(items[i].text)
                    i += 1
                script_output(console, "".join(text))
            case Warned(line, message):
                console.print(Text(f"UserWarning (line {line}): {message}", style="yellow"), soft_wrap=False)
            case CallEvent():
                console.print(call_block(item))
            case LeavesShown(leaves):
                console.print(leaves_line(leaves))
            case ExpectPassed(line, text):
                console.print(Text(f"  ✓ {text}   line {line}", style="green"))
            case GraphShown(_, snapshot):
                from .graph import tree
                console.print(tree(snapshot))
    for why in surprises(report):
        console.print(surprise_panel(why))
    if report.error is not None:
        console.print(error_panel(report.error))


def surprise_panel(why):
    """No error, but not what it seems (explain.surprises): the same Why and tried fixes."""
    from ..explain.why import shown_line
    title = Text(f"Note ─ line {shown_line(why)}")
    return Panel(why_block(why), title=title, title_align="left", border_style="yellow", expand=False)
