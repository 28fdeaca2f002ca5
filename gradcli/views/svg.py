"""The backward graph as SVG without Graphviz: a layered layout computed here.

Graphviz's `dot` draws the best pictures (graphview.render), but it is not always installed.
This module lays a GraphSnapshot out itself, in the spirit of dot: inputs at the top, outputs
at the bottom (edges point the way the forward pass went, as in torchviz), each node on the
layer just above its nearest consumer, nodes in a layer ordered by the mean position of their
neighbours. The SVG has dot's structure (`<g class="node"><title>id</title>...`, `<g
class="edge"><title>a->b</title>...`), so the notebook and the HTML page treat both alike.
"""
from __future__ import annotations

import subprocess
from html import escape

from . import graph as G

CHAR_W = 6.6            # monospace 11px, one character
LINE_H = 14
PAD_X, PAD_Y = 8, 6
GAP_X, GAP_Y = 18, 34
MARGIN = 8
# dot's time grows faster than the graph: 1,500 boxes take it 1.5 s, 4,500 boxes 15 s
DOT_LIMIT = 2000
DASHED, DOTTED, GREY = ' stroke-dasharray="5,2"', ' stroke-dasharray="2,2"', ' fill="gray"'

_FILL = {"op": G.COLOR_OP, "leaf": G.COLOR_LEAF, "output": G.COLOR_OUTPUT, "chain": "white", "more": "white"}


def boxes(snap):
    """{id: (lines, fill, style)} for every box drawn: the nodes, and each node's saved tensors."""
    out = {}
    for nid, n in snap.nodes.items():
        out[nid] = (G._label(n).split("\n"), _FILL[n.kind], "dotted" if n.kind == "more" else "")
        if n.kind == "op":
            for s in n.tensor_slots():
                freed = s.state == "freed"
                out[f"{nid}_{s.slot}"] = (G._saved_label(s).split("\n"), "white" if freed else G.COLOR_SAVED,
                                          "dashed" if freed else "")
    return out


def links(snap):
    """(from, to, dashed) in drawing direction: input -> output, saved tensor -> its node."""
    out = [(b, a, False) for a, b in snap.edges]
    for nid, n in snap.nodes.items():
        if n.kind == "op":
            out += [(f"{nid}_{s.slot}", nid, True) for s in n.tensor_slots()]
    return list(dict.fromkeys(out))


def layers(ids, edges):
    """Each box's layer, 0 at the top: one above its nearest consumer (outputs at the bottom)."""
    consumers = {i: [] for i in ids}
    producers = {i: [] for i in ids}
    for a, b, _ in edges:
        consumers[a].append(b)
        producers[b].append(a)
    # height above the bottom: longest path down to a sink, so every edge points down
    height, pending = {}, {i: len(set(consumers[i])) for i in ids}
    ready = [i for i in ids if pending[i] == 0]
    while ready:
        n = ready.pop()
        height[n] = max((height[c] + 1 for c in consumers[n]), default=0)
        for p in set(producers[n]):
            pending[p] -= 1
            if pending[p] == 0:
                ready.append(p)
    top = max(height.values(), default=0)
    layer = {i: top - height[i] for i in ids}
    # a box feeding only lower layers moves down to just above its nearest consumer
    for i in sorted(ids, key=lambda i: -layer[i]):
        if consumers[i]:
            layer[i] = min(layer[c] for c in consumers[i]) - 1
    return layer


def order(rows, edges, sweeps=4):
    """Order each layer by the mean position of its neighbours in the layer before (barycentres)."""
    up, down = {}, {}
    for a, b, _ in edges:
        down.setdefault(a, []).append(b)
        up.setdefault(b, []).append(a)
    for k in range(sweeps):
        seq = range(1, len(rows)) if k % 2 == 0 else range(len(rows) - 2, -1, -1)
        near = up if k % 2 == 0 else down
        for r in seq:
            prev = {n: i for i, n in enumerate(rows[r - 1 if k % 2 == 0 else r + 1])}
            here = {n: i for i, n in enumerate(rows[r])}

            def key(n):
                ps = [prev[p] for p in near.get(n, ()) if p in prev]
                return sum(ps) / len(ps) if ps else here[n]
            rows[r].sort(key=key)
    return rows


def layout(snap):
    """(width, height, {id: (x, y, w, h)}, boxes, links) with x, y the top-left corner."""
    bx = boxes(snap)
    ln = links(snap)
    layer = layers(list(bx), ln)
    rows = [[] for _ in range(max(layer.values(), default=-1) + 1)]
    for i in bx:                                 # walk order first: a readable start for the sweeps
        rows[layer[i]].append(i)
    rows = order(rows, ln)
    size = {i: (max(len(t) for t in lines) * CHAR_W + 2 * PAD_X, len(lines) * LINE_H + 2 * PAD_Y)
            for i, (lines, _, _) in bx.items()}
    widths = [sum(size[i][0] for i in row) + GAP_X * (len(row) - 1) for row in rows]
    width = max(widths, default=0) + 2 * MARGIN
    pos, y = {}, MARGIN
    for row, w in zip(rows, widths):
        x = (width - w) / 2
        h = max((size[i][1] for i in row), default=0)
        for i in row:
            pos[i] = (x, y + (h - size[i][1]) / 2, *size[i])
            x += size[i][0] + GAP_X
        y += h + GAP_Y
    return width, max(y - GAP_Y + MARGIN, 2 * MARGIN), pos, bx, ln


def to_svg(snap):
    """SVG text of the snapshot, laid out here (no Graphviz needed)."""
    width, height, pos, bx, ln = layout(snap)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="monospace" font-size="11">',
           '<g class="graph">']
    for a, b, dashed in ln:
        ax, ay, aw, ah = pos[a]
        bx_, by, bw, _ = pos[b]
        x1, y1, x2, y2 = ax + aw / 2, ay + ah, bx_ + bw / 2, by
        mid = (y1 + y2) / 2
        path = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{mid:.1f} {x2:.1f},{mid:.1f} {x2:.1f},{y2 - (0 if dashed else 6):.1f}"
        out.append(f'<g class="edge"><title>{escape(a)}-&gt;{escape(b)}</title>'
                   f'<path fill="none" stroke="black"{DASHED if dashed else ""} d="{path}"/>')
        if not dashed:
            out.append(f'<polygon fill="black" stroke="black" points="{x2 - 4:.1f},{y2 - 7:.1f} {x2 + 4:.1f},'
                       f'{y2 - 7:.1f} {x2:.1f},{y2:.1f}"/>')
        out.append("</g>")
    for i, (lines, fill, style) in bx.items():
        x, y, w, h = pos[i]
        dash = DASHED if style == "dashed" else DOTTED if style else ""
        stroke = "gray" if style == "dashed" else "black"
        out.append(f'<g class="node"><title>{escape(i)}</title>'
                   f'<polygon fill="{fill}" stroke="{stroke}"{dash} '
                   f'points="{x:.1f},{y:.1f} {x + w:.1f},{y:.1f} {x + w:.1f},{y + h:.1f} {x:.1f},{y + h:.1f}"/>')
        for k, text in enumerate(lines):
            out.append(f'<text text-anchor="middle" x="{x + w / 2:.1f}" y="{y + PAD_Y + (k + 0.8) * LINE_H:.1f}"'
                       f'{GREY if style == "dashed" else ""}>{escape(text)}</text>')
        out.append("</g>")
    out.append("</g></svg>")
    return "\n".join(out)


def graph_svg(snap, legend=False):
    """The graph as SVG text: Graphviz's when `dot` is installed and the graph is not too big
    for it, else this module's layout."""
    if len(boxes(snap)) <= DOT_LIMIT:
        try:
            return G.render(snap, "svg", legend=legend).decode()
        except (G.GraphvizMissing, subprocess.TimeoutExpired):
            pass
    return to_svg(snap)
