// Replays the steps of gradcli's JSON (see gradcli/views/html.py) on the page.
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const $ = (sel, root = document) => root.querySelector(sel);
const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) k === "class" ? (el.className = v) : el.setAttribute(k, v);
  for (const kid of kids) if (kid !== null && kid !== undefined) el.append(kid);
  return el;
};
const code = (text) => h("code", {}, text);
// `quoted` parts of gradcli's sentences as code
const prose = (text) => h("span", {}, ...text.split("`").map((part, k) => (k % 2 ? code(part) : part)));

// The graph's elements by the ids gradcli gave them (the SVG <title> of each node and edge).
const svgNodes = {}, svgEdges = {};
for (const g of document.querySelectorAll("#graph g.node")) {
  const id = g.querySelector("title").textContent;
  g.dataset.id = id;
  svgNodes[id] = g;
}
for (const g of document.querySelectorAll("#graph g.edge")) svgEdges[g.querySelector("title").textContent] = g;
const texts = (id) => (svgNodes[id] ? [...svgNodes[id].querySelectorAll("text")] : []);

// The source, one element per line.
$("#file").textContent = D.file;
const lines = D.source.map((text, i) => {
  const el = h("div", { class: "ln", "data-line": i + 1 }, h("span", { class: "no" }, String(i + 1)),
    h("span", { class: "src" }, text || " "));
  $("#source").append(el);
  return el;
});
function mark(line, cls, tag) {
  const el = lines[line - 1];
  if (!el) return;
  el.classList.add(cls);
  if (tag) el.append(h("span", { class: "tag" }, tag));
}

// The timeline: each call, with one tick per node it ran.
const ticks = [];
D.calls.forEach((c, k) => {
  const row = h("div", { class: "ticks" });
  for (let i = c.first; i <= c.last; i++) {
    const b = h("button", { title: D.steps[i].title, "aria-label": `step ${i}: ${D.steps[i].title}` });
    b.addEventListener("click", () => show(i));
    row.append(b);
    ticks[i] = b;
  }
  const meta = `${c.kind} ${k + 1} of ${D.calls.length} · line ${c.line}` + (c.retain_graph ? " · retain_graph" : "");
  $("#timeline").append(h("li", { "data-call": k, class: c.failed ? "failed" : "" },
    h("div", { class: "what" }, c.text || c.kind), h("div", { class: "meta" }, meta), row));
});
if (!D.calls.length) {
  $("#timeline").append(h("li", {}, "No backward() or autograd.grad() call ran."));
  $("#graph").append(h("p", { class: "empty" }, "No backward graph to step through: no backward() or autograd.grad() call ran."));
}

const initialGrads = {};
for (const [id, n] of Object.entries(D.nodes)) if (n.kind === "leaf") initialGrads[id] = n.grad;

// The state of the run after step i: freed buffers, leaf grads, nodes the current call ran.
function stateAt(i) {
  const freed = {}, grads = { ...initialGrads }, ran = new Set(), carried = [];
  const now = D.steps[i];
  for (let k = 1; k <= i; k++) {
    const s = D.steps[k];
    if (s.kind !== "node") continue;
    for (const n of s.needs) if (n.freed_now) freed[`${s.node}_${n.slot}`] = D.calls[s.call].line;
    if (s.update) grads[s.node] = s.update.brief;
    if (now.kind === "node" && s.call === now.call && k < i) {
      ran.add(s.node);
      for (const o of s.out) carried.push(`${o.to}->${s.node}`);
    }
  }
  return { freed, grads, ran, carried };
}

function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }

// Each graph element's state classes and label, kept so that a step touches only what changes
// (a graph of thousands of nodes restyles in a few milliseconds).
let painted = new Map();
const labelEls = [];                 // [text element, (state) => its text]
for (const [id, n] of Object.entries(D.nodes)) {
  for (const [slot, alive] of Object.entries(n.saved)) {
    const sid = `${id}_${slot}`, t = texts(sid);
    svgNodes[sid]?.classList.add("saved");
    if (t.length) labelEls.push([t[t.length - 1], (st) => (sid in st.freed ? `freed by line ${st.freed[sid]}` : alive)]);
  }
  const grad = n.kind === "leaf" && texts(id).find((x) => x.textContent.startsWith("grad "));
  if (grad) labelEls.push([grad, (st) => `grad ${st.grads[id] ?? "None"}`]);
}

function paintGraph(i, st) {
  const s = D.steps[i], want = new Map();
  const add = (el, cls) => el && (want.get(el) || want.set(el, new Set()).get(el)).add(cls);
  for (const sid of Object.keys(st.freed)) add(svgNodes[sid], "freed");
  for (const id of st.ran) add(svgNodes[id], "ran");
  for (const e of st.carried) add(svgEdges[e], "carried");
  if (s.kind === "node") {
    add(svgNodes[s.node], s.failed ? "failed" : "running");
    for (const n of s.needs) if (n.state === "freed" || n.state === "modified") add(svgNodes[`${s.node}_${n.slot}`], "missing");
    for (const o of s.out) add(svgEdges[`${o.to}->${s.node}`], "flow");
  }
  for (const [el, cls] of painted) for (const c of cls) if (!want.get(el)?.has(c)) el.classList.remove(c);
  for (const [el, cls] of want) el.classList.add(...cls);
  painted = want;
  for (const [el, text] of labelEls) setText(el, text(st));
  document.querySelectorAll("#graph text.glabel").forEach((t) => t.remove());
  if (s.kind !== "node") return;
  for (const o of s.out) {
    const g = svgEdges[`${o.to}->${s.node}`];
    if (!g) continue;
    const path = g.querySelector("path");
    if (!path || !o.grad) continue;
    const length = path.getTotalLength(), p = path.getPointAtLength(length / 2);
    // the labelled edges all end at the running node: each label goes on the side its edge
    // comes from, so that the labels of converging edges stay apart
    const left = path.getPointAtLength(length).x > path.getPointAtLength(0).x + 1;
    const label = document.createElementNS("http://www.w3.org/2000/svg", "text");
    label.setAttribute("class", "glabel");
    label.setAttribute("text-anchor", left ? "end" : "start");
    label.setAttribute("x", p.x + (left ? -6 : 6));
    label.setAttribute("y", p.y + 4);
    label.textContent = o.grad;
    g.append(label);
  }
  const el = svgNodes[s.node], pane = $("#graph");
  if (el) {                         // scroll the graph pane (not the page) to the running node
    const r = el.getBoundingClientRect(), p = pane.getBoundingClientRect();
    if (r.top < p.top || r.bottom > p.bottom) pane.scrollTop += r.top - p.top - (p.height - r.height) / 2;
    if (r.left < p.left || r.right > p.right) pane.scrollLeft += r.left - p.left - (p.width - r.width) / 2;
  }
}

function needText(n) {
  if (n.state === "none") return [h("span", {}, `${n.slot}: None (${n.reason})`)];
  const head = `${n.slot} = ${n.what}: `;
  if (n.state === "freed") return [head, h("span", { class: "bad" }, `FREED by line ${n.freed_by_line} ✗`)];
  if (n.state === "modified")
    return [head, h("span", { class: "bad" }, `modified in place (version ${n.version}, saved at ${n.saved_version}) ✗`)];
  if (n.freed_now) return [head, "alive → ", h("span", { class: "freed-now" }, "freed by this call")];
  if (n.kept) return [head, "alive → ", h("span", { class: "kept" }, "kept (retain_graph)")];
  return [head, "alive"];
}

// A failed call's error and explanation: the report's, for the error that ended the script.
function failure(s) {
  const c = D.calls[s.call];
  return c.fatal ? D.error : { type: c.error[0], message: c.error[1], ...c.explanation };
}

function errorPanel(e) {
  // PyTorch's messages are long: the first sentence, and the rest on demand
  const cut = e.message.search(/\.\s/) + 1;
  const msg = cut > 0 && cut < e.message.length - 1
    ? h("details", { class: "msg" }, h("summary", {}, `${e.type}: ${e.message.slice(0, cut)}`), e.message.slice(cut + 1))
    : h("div", { class: "msg" }, `${e.type}: ${e.message}`);
  const box = h("div", { id: "error", role: "alert" }, msg);
  if (e.why) box.append(h("h4", {}, "Why"), h("div", { class: "why" }, prose(e.why)));
  if (e.fixes.length) box.append(h("h4", {}, e.fixes.length > 1 ? "Fixes" : "Fix"),
    h("ul", { class: "fixes" }, ...e.fixes.map((f) => h("li", {}, prose(f)))));
  return box;
}

function paintLeaves(st) {
  const ids = Object.keys(initialGrads);
  $("#leaves").replaceChildren(...ids.map((id) =>
    h("li", { "data-leaf": D.nodes[id].title }, `${D.nodes[id].title}.grad = `,
      h("span", { class: "grad" }, st.grads[id] ?? "None"))));
  if (!ids.length) $("#leaves").append(h("li", {}, "No leaf in the graph."));
}

function describe(i, st) {
  const s = D.steps[i], box = $("#now");
  box.replaceChildren();
  box.dataset.node = s.node || "";
  box.dataset.kind = s.kind;
  if (s.kind === "start") {
    box.append(h("h3", {}, "Before any backward"),
      h("div", { class: "call" }, `The forward pass built this graph. ${D.calls.length} backward/grad call(s) follow: ` +
        "step through them node by node with → or Next."));
  } else if (s.kind === "end") {
    const e = D.error;
    box.append(h("h3", {}, e ? "The script stopped" : "The script ran to its end"));
    if (e) box.append(errorPanel(e));
  } else {
    const c = D.calls[s.call];
    box.append(h("div", { class: "call" }, `${c.kind} ${s.call + 1} of ${D.calls.length}: `, code(c.text || c.kind),
      ` (line ${c.line})` + (c.retain_graph ? " · retain_graph=True: frees nothing" : "")));
    const where = s.line ? ` · line ${s.line}: ` : "";
    box.append(h("h3", {}, s.failed ? "Stopped at " : "Running ", h("span", { class: "running" }, s.title),
      s.name && !s.update ? ` (${s.name})` : "", where, s.text ? code(s.text) : null));
    const dl = h("dl");
    const row = (k, ...v) => dl.append(h("dt", {}, k), h("dd", {}, ...v));
    if (s.grad_in) row("gradient in", s.grad_in);
    if (s.out.length) row("sends", h("ul", {}, ...s.out.map((o) => h("li", {}, `→ ${o.title}: ${o.grad}`))));
    if (s.needs.length) row("saved", h("ul", {}, ...s.needs.map((n) => h("li", { "data-slot": n.slot }, ...needText(n)))));
    else if (!s.update) row("saved", "nothing: no buffer to need or free");
    if (s.update) row(`${s.update.leaf}.grad`, `${s.update.before ?? "None"} → `,
      h("span", { class: "grad-after" }, s.update.after));
    box.append(dl);
    if (s.failed) box.append(errorPanel(failure(s)));
  }
}

function paintSource(i) {
  for (const el of lines) {
    el.classList.remove("cur-node", "cur-call", "err-created", "err-freed");
    el.querySelectorAll(".tag").forEach((t) => t.remove());
  }
  const s = D.steps[i];
  if (s.kind === "node") {
    const c = D.calls[s.call];
    mark(c.line, "cur-call", s.failed ? "this call fails" : "this call");
    const e = s.failed && failure(s);
    if (e && e.created_line) {
      mark(e.created_line, "err-created", `created ${s.title}`);
      const freed = s.needs.some((n) => n.state === "freed");
      if (e.freed_line) mark(e.freed_line, "err-freed", freed ? "freed its buffer" : "modified it in place");
    } else if (s.line) mark(s.line, "cur-node", `made ${s.title}`);
  } else if (s.kind === "end" && D.error && D.error.line) mark(D.error.line, "err-created", D.error.type);
}

// Zoom: the whole graph when it fits at a readable size, else readable and scrolled to the running node.
const svgEl = $("#graph svg");
const [natW, natH] = [svgEl.width.baseVal.value, svgEl.height.baseVal.value];     // in CSS pixels
let zoom = 1;
function setZoom(z) {
  zoom = Math.max(0.1, Math.min(3, z));
  svgEl.style.width = `${natW * zoom}px`;
  svgEl.style.height = `${natH * zoom}px`;
}
const fit = () => { const p = $("#graph"); return Math.min(1, (p.clientWidth - 16) / natW, (p.clientHeight - 16) / natH); };
let zoomed = false;                 // until the reader zooms, the graph follows the pane's size
new ResizeObserver(() => zoomed || setZoom(Math.max(fit(), 0.75))).observe($("#graph"));
const zoomTo = (z) => { zoomed = true; setZoom(z); show(cur); };
$("#zoom-in").addEventListener("click", () => zoomTo(zoom * 1.25));
$("#zoom-out").addEventListener("click", () => zoomTo(zoom / 1.25));
$("#zoom-fit").addEventListener("click", () => zoomTo(fit()));

let cur = 0;
function show(i) {
  cur = Math.max(0, Math.min(D.steps.length - 1, i));
  const st = stateAt(cur);
  document.body.dataset.step = cur;
  $("#counter").textContent = `step ${cur} / ${D.steps.length - 1}`;
  $("#prev").disabled = $("#first").disabled = cur === 0;
  $("#next").disabled = $("#last").disabled = cur === D.steps.length - 1;
  ticks.forEach((b, k) => {
    const state = k === cur ? (D.steps[k].failed ? "bad" : "at") : k < cur ? "done" : "";
    if (b.className !== state) b.className = state;
  });
  document.querySelectorAll("#timeline li").forEach((li) =>
    li.classList.toggle("current", D.steps[cur].call === Number(li.dataset.call)));
  paintGraph(cur, st);
  paintSource(cur);
  describe(cur, st);
  paintLeaves(st);
}

$("#first").addEventListener("click", () => show(0));
$("#prev").addEventListener("click", () => show(cur - 1));
$("#next").addEventListener("click", () => show(cur + 1));
$("#last").addEventListener("click", () => show(D.steps.length - 1));
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const to = { ArrowRight: cur + 1, ArrowDown: cur + 1, ArrowLeft: cur - 1, ArrowUp: cur - 1,
               Home: 0, End: D.steps.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  show(to);
});
show(0);
