"""`gradcli explain FILE --html PATH`: the page's data against `gradcli run --json` of the same
script, Graphviz's SVG and gradcli's own layout, and the page in real headless Chromium (the
system's chromium and chromedriver, driven by Selenium): stepped through with key presses, its
DOM checked at every step against the JSON report, screenshots checked for size and content,
at 1280x800 and at phone width."""
from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.record import graph as graph_snapshot
from gradcli.views import graph as graphview
from gradcli.cli.explain import explain_to_html

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
from screenshot_page import browser  # noqa: E402  (the README's screenshot tool drives the browser)

FAILING = ["examples/seed000_block1.py", "examples/gan_discriminator_frees_generator.py"]
WORKING = ["examples/accumulation.py", "examples/autograd_grad_path.py"]


def gradcli(*args):
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=120)


def page_of(script, tmp_path):
    out = tmp_path / (Path(script).stem + ".html")
    done = gradcli("explain", script, "--html", str(out))
    assert done.stderr == f"gradcli: wrote {out}\n"
    return out, done.returncode


def embedded(html):
    blob = re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S).group(1)
    return json.loads(blob.replace("<\\/", "</"))


def json_report(script):
    return json.loads(gradcli("run", script, "--json").stdout)


def ran(event):
    """The nodes a call ran, by class name (PyTorch names C++ nodes `torch::autograd::CopySlices`)."""
    return [n.rpartition("::")[2] for n in event["ran"] if n != "GraphRoot"]

# ----------------------------------------------------------------------------- the file


@pytest.mark.parametrize("script", FAILING + WORKING)
def test_page_holds_the_json_report_of_the_same_run_and_one_step_per_node_run(script, tmp_path):
    path, status = page_of(script, tmp_path)
    data = embedded(path.read_text())
    report = json_report(script)
    assert data["report"] == report
    assert status == (0 if report["ok"] else 1)
    assert data["source"] == (REPO / script).read_text().split("\n")
    for k, event in enumerate(report["events"]):
        call = data["calls"][k]
        steps = data["steps"][call["first"]:call["last"] + 1]
        assert [s["title"].split(" #")[0] if data["nodes"][s["node"]]["kind"] == "op" else "AccumulateGrad"
                for s in steps] == ran(event)
        assert (call["line"], call["failed"]) == (event["line"], event["failed"])


def test_html_is_a_view_of_its_own_and_an_unwritable_path_is_one_line(tmp_path):
    both = gradcli("explain", FAILING[0], "--html", str(tmp_path / "p.html"), "--plain")
    assert (both.returncode, both.stderr) == (2, "gradcli: --html cannot be used with --plain or --json\n")
    nowhere = gradcli("explain", FAILING[0], "--html", str(tmp_path / "missing" / "p.html"))
    assert nowhere.returncode == 2 and nowhere.stdout == ""
    assert nowhere.stderr == f"gradcli: cannot write {tmp_path / 'missing' / 'p.html'}: No such file or directory\n"


@pytest.mark.parametrize("script", FAILING)
def test_page_is_one_file_that_fetches_nothing(script, tmp_path):
    path, _ = page_of(script, tmp_path)
    html = path.read_text()
    # the only URLs are the SVG's XML namespaces: nothing to load from a network or a disk
    assert set(re.findall(r"https?://[^\s\"'<>)]+", html)) <= {"http://www.w3.org/2000/svg",
                                                               "http://www.w3.org/1999/xlink",
                                                               "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"}
    assert not re.search(r"<link\b|<img\b|<iframe\b|@import|url\(|\bsrc=", html)
    assert html.count("<svg") == 1 and "<?xml" not in html


CAUGHT = """import torch
a = torch.tensor([1., 2.], requires_grad=True)
b = (a * a).sum()
b.backward()
try:
    b.backward()
except RuntimeError:
    print("caught")
print(undefined_name)
"""


def test_a_caught_failure_keeps_its_own_explanation_and_the_later_error_ends_the_page(tmp_path):
    out = tmp_path / "page.html"
    assert explain_to_html(CAUGHT, "caught.py", str(out)) == 1
    data = embedded(out.read_text())
    first, caught = data["calls"]
    assert (first["failed"], caught["failed"], caught["fatal"]) == (False, True, False)
    assert caught["error"][0] == "RuntimeError" and caught["explanation"]["created_line"] == 3
    assert caught["explanation"]["freed_line"] == 4 and "reached MulBackward0" in caught["explanation"]["why"]
    assert data["steps"][caught["last"]]["failed"] and data["steps"][-1] == {"kind": "end"}
    assert (data["error"]["type"], data["error"]["line"]) == ("NameError", 9)


def test_without_graphviz_the_page_draws_the_graph_with_its_own_layout(tmp_path, monkeypatch):
    monkeypatch.setattr(graphview.shutil, "which", lambda name: None)
    out = tmp_path / "page.html"
    source = (REPO / FAILING[0]).read_text()
    assert explain_to_html(source, FAILING[0], str(out)) == 1
    html = out.read_text()
    assert "Generated by graphviz" not in html
    data = embedded(html)
    titles = set(re.findall(r'<g class="node"><title>([^<]+)</title>', html))
    saved = {f"{nid}_{slot}" for nid, n in data["nodes"].items() for slot in n["saved"]}
    assert titles == set(data["nodes"]) | saved


def test_a_graph_too_big_for_graphviz_gets_the_own_layout(monkeypatch):
    from gradcli.views import svg
    from gradcli.session.executor import run_traced
    trace = run_traced((REPO / FAILING[0]).read_text(), FAILING[0])
    by_tensor, by_node = trace.names()
    snap = graph_snapshot.snapshot(graph_snapshot.default_roots(trace.interp.tensors()), by_node, by_tensor)
    assert "Generated by graphviz" in svg.graph_svg(snap)
    monkeypatch.setattr(svg, "DOT_LIMIT", len(svg.boxes(snap)) - 1)
    assert svg.graph_svg(snap) == svg.to_svg(snap)


@pytest.mark.parametrize("script", FAILING + WORKING)
def test_own_layout_puts_every_input_above_its_consumer_without_overlaps(script):
    from gradcli.views import svg
    from gradcli.session.executor import run_traced
    trace = run_traced((REPO / script).read_text(), script)
    by_tensor, by_node = trace.names()
    snap = graph_snapshot.snapshot(graph_snapshot.default_roots(trace.interp.tensors()), by_node, by_tensor)
    width, height, pos, boxes, links = svg.layout(snap)
    assert set(pos) == set(boxes)
    for a, b, _ in links:                   # drawn input -> output: always downwards
        assert pos[a][1] + pos[a][3] < pos[b][1]
    for i in pos:
        for j in pos:
            if i < j and pos[i][1] == pos[j][1]:
                (x1, _, w1, _), (x2, _, w2, _) = pos[i], pos[j]
                assert x1 + w1 <= x2 or x2 + w2 <= x1
    assert all(0 <= x and x + w <= width and 0 <= y and y + h <= height for x, y, w, h in pos.values())

SHARED = """import torch
x = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
w = torch.tensor([0.5, 3.0, -2.0], requires_grad=True)
h = x * w
s = h.tanh() + x
loss = (s * s).sum()
loss.backward()
"""


def test_gradients_the_page_shows_flowing_are_pytorchs(tmp_path):
    import torch
    out = tmp_path / "page.html"
    explain_to_html(SHARED, "shared.py", str(out))
    steps = [st for st in embedded(out.read_text())["steps"] if st["kind"] == "node"]
    oracle = {"torch": torch}
    exec(SHARED.replace("loss.backward()", "for t in (h, s, loss): t.retain_grad()\nloss.backward()"), oracle)
    # as PyTorch prints each tensor's .grad (on one line)
    grad = {name: " ".join(str(oracle[name].grad).split()) for name in ("h", "s", "loss", "x", "w")}
    received = {st["name"]: st["grad_in"] for st in steps}
    assert {name: received[name] for name in grad} == grad     # what reaches a node is its tensor's .grad
    # and along each edge: TanhBackward0 sends h its gradient; the two paths into x add up
    sent = {(st["title"].split(" #")[0], o["title"]): o["grad"] for st in steps for o in st["out"]}
    h_node = next(st["title"] for st in steps if st["name"] == "h")
    assert sent[("TanhBackward0", h_node)] == grad["h"]
    into_x = [numbers(v) for (_, to), v in sent.items() if to == "x"]
    assert len(into_x) == 2 and [a + b for a, b in zip(*into_x)] == pytest.approx(numbers(grad["x"]), abs=2e-4)


# ----------------------------------------------------------------------------- in the browser


@pytest.fixture(scope="module")
def chromium():
    driver = browser(1280, 800)
    yield driver
    driver.quit()


def press(driver, key):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).send_keys(key).perform()


def dom_state(driver):
    """What the page shows now, read from its DOM only."""
    return driver.execute_script("""
        const texts = g => [...g.querySelectorAll('text')].map(t => t.textContent);
        const owner = id => document.querySelector(`#graph g.node[data-id="${id}"]`);
        const freed = [...document.querySelectorAll('#graph g.node.freed')].map(g => {
            const id = g.dataset.id, slot = texts(g)[0].split(' = ')[0];
            const node = owner(id.slice(0, id.length - slot.length - 1));
            return [texts(node)[0].split(' #')[0], Number((texts(node)[1].match(/line (\\d+)/) || [0, 0])[1]), slot];
        });
        const now = document.getElementById('now');
        const running = document.querySelector('#graph g.node.running, #graph g.node.failed');
        const error = document.getElementById('error');
        return {step: Number(document.body.dataset.step), kind: now.dataset.kind,
                running: running && texts(running)[0], failed: !!document.querySelector('#graph g.node.failed'),
                title: (now.querySelector('.running') || {}).textContent || null,
                gradIn: [...now.querySelectorAll('dt')].filter(d => d.textContent === 'gradient in')
                           .map(d => d.nextElementSibling.textContent)[0] || null,
                freed, leaves: Object.fromEntries([...document.querySelectorAll('#leaves li[data-leaf]')]
                           .map(li => [li.dataset.leaf, li.querySelector('.grad').textContent])),
                error: error && error.innerText,
                created: [...document.querySelectorAll('.ln.err-created')].map(l => Number(l.dataset.line)),
                freeing: [...document.querySelectorAll('.ln.err-freed')].map(l => Number(l.dataset.line)),
                edgeLabels: [...document.querySelectorAll('#graph text.glabel')].map(t => t.textContent)};
    """)


def numbers(text):
    return [float(x) for x in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", text.replace("tensor", ""))]


def flat(value):
    return [float(v) for v in (value if isinstance(value, list) else [value])
            for v in (flat(v) if isinstance(v, list) else [v])]


@pytest.mark.parametrize("script", FAILING)
def test_stepping_with_keys_shows_each_node_freed_buffers_and_grads_as_the_json_report(chromium, script, tmp_path):
    from selenium.webdriver.common.keys import Keys
    path, _ = page_of(script, tmp_path)
    report = json_report(script)
    chromium.get(path.as_uri())
    start = dom_state(chromium)
    assert (start["step"], start["kind"], start["running"], start["freed"]) == (0, "start", None, [])
    assert set(start["leaves"].values()) == {"None"}
    total = chromium.execute_script("return JSON.parse(document.getElementById('data').textContent).steps.length")
    seen, states = [], [start]
    for step in range(1, total):
        press(chromium, Keys.ARROW_RIGHT)
        state = dom_state(chromium)
        states.append(state)
        assert state["step"] == step
        if state["kind"] == "node":
            seen.append(state)
            assert state["title"] == state["running"]
    # the nodes shown running, call by call, are the report's `ran`
    expected = [n for ev in report["events"] for n in ran(ev)]
    shown = ["AccumulateGrad" if s["title"] in start["leaves"] else s["title"].split(" #")[0] for s in seen]
    assert shown == expected
    # after each call's last node, the freed buffers are those the report says the calls freed
    freed_so_far, k = set(), 0
    for ev in report["events"]:
        k += len(ran(ev))
        freed_so_far |= {(n["grad_fn"].rpartition("::")[2], n["line"] or 0, slot)
                         for n in ev["freed"] for slot in n["saved"]}
        assert {tuple(f) for f in seen[k - 1]["freed"]} == freed_so_far
    # each leaf's .grad at the end is the report's, and a leaf's step shows the gradient it received
    # (the report lists the script's variables: a module's parameters are not among them)
    final = states[-1]["leaves"]
    named = [name for name in final if name in report["tensors"]]
    assert named == (["x", "y"] if script == FAILING[0] else [])
    for name in named:
        grad = report["tensors"][name]["grad"]
        assert numbers(final[name]) == pytest.approx(flat(grad), rel=1e-4)
    leaf_steps = [s for s in seen if s["title"] in final]
    assert leaf_steps and all(numbers(s["gradIn"]) for s in leaf_steps)
    # the gradient a node sends is drawn on the edge, the number the next node receives
    sends = [s for s in seen if s["edgeLabels"]]
    assert sends and all(lbl.startswith(("tensor(", "shape")) for s in sends for lbl in s["edgeLabels"])
    # the last step: the call stopped on the node whose buffer was freed, with the explanation
    err, cause = report["error"], report["error"]["cause"]
    last = states[-1]
    assert last["failed"] and last["running"].split(" #")[0] == cause["grad_fn"]
    assert err["type"] in last["error"] and "Why" in last["error"] and "Fix" in last["error"]
    assert err["why"].replace("`", "") in " ".join(last["error"].split())
    assert (last["created"], last["freeing"]) == ([cause["line"]], [cause["freed_by"]])
    # keys step back and to the start
    press(chromium, Keys.ARROW_LEFT)
    assert dom_state(chromium)["step"] == total - 2
    press(chromium, Keys.HOME)
    assert dom_state(chromium) == start


def picture(driver, png):
    """(width, height, distinct colours, share of non-white pixels) of a PNG, measured by the browser."""
    return driver.execute_async_script("""
        const done = arguments[1], img = new Image();
        img.onload = () => {
            const c = document.createElement('canvas');
            c.width = img.width; c.height = img.height;
            const g = c.getContext('2d');
            g.drawImage(img, 0, 0);
            const px = g.getImageData(0, 0, c.width, c.height).data, colours = new Set();
            let ink = 0;
            for (let i = 0; i < px.length; i += 4 * 7) {
                colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
                if (px[i] < 235 || px[i + 1] < 235 || px[i + 2] < 235) ink++;
            }
            done([img.width, img.height, colours.size, ink / (px.length / 28)]);
        };
        img.src = 'data:image/png;base64,' + arguments[0];
    """, base64.b64encode(png).decode())


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_screenshots_at_the_first_step_and_at_the_error_are_full_and_not_blank(width, height, tmp_path):
    from selenium.webdriver.common.keys import Keys
    path, _ = page_of(FAILING[0], tmp_path)
    driver = browser(width, height)
    try:
        driver.get(path.as_uri())
        first = driver.get_screenshot_as_png()
        press(driver, Keys.END)
        at_error = driver.get_screenshot_as_png()
        (tmp_path / "first.png").write_bytes(first)
        (tmp_path / "error.png").write_bytes(at_error)
        ratio = driver.execute_script("return window.devicePixelRatio")
        for png in (first, at_error):
            w, h, colours, ink = picture(driver, png)
            assert (w, h) == (width * ratio, height * ratio)
            assert colours > 20 and 0.05 < ink < 0.9
        # nothing wider than the screen; at the error, its explanation is on screen
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        box = driver.execute_script("return document.getElementById('error').getBoundingClientRect().toJSON()")
        assert box["top"] >= 0 and box["top"] < height and box["width"] <= width
        if width >= 1000:       # a desktop window: the page fits it, its panes scroll
            assert driver.execute_script("return document.documentElement.scrollHeight") <= height
    finally:
        driver.quit()


def test_an_in_place_change_stops_on_the_node_with_the_changing_line_highlighted(chromium, tmp_path):
    from selenium.webdriver.common.keys import Keys
    script = "examples/step_between_forward_and_backward.py"
    path, status = page_of(script, tmp_path)
    cause = json_report(script)["error"]["cause"]
    finding = json.loads(gradcli("explain", script, "--json").stdout)["calls"][-1]["findings"][0]
    chromium.get(path.as_uri())
    press(chromium, Keys.END)
    last = dom_state(chromium)
    assert status == 1 and last["failed"] and last["running"].split(" #")[0] == cause["grad_fn"]
    assert (last["created"], last["freeing"]) == ([cause["line"]], [finding["facts"]["by_line"]])
    assert f"version {cause['version']}, saved at {cause['expected_version']}" in chromium.find_element(
        "id", "now").text
    assert chromium.find_elements("css selector", "#graph g.node.missing")
