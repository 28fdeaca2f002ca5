"""The layers of docs/ARCHITECTURE.md, checked: a module imports only from its own layer or lower
ones (imports inside functions count too), no modules import each other in a cycle, the engine
is complete on its own import, and only the front ends and views import Rich."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gradcli"

# Bottom to top, as docs/ARCHITECTURE.md lists them.
LAYERS = [
    ("engine", ["gradcli.engine", "gradcli.version", "gradcli.lazy"]),
    ("ops", ["gradcli.ops"]),
    ("torch", ["gradcli.torch"]),
    ("lang", ["gradcli.lang"]),
    ("record", ["gradcli.record"]),
    ("explain", ["gradcli.explain"]),
    ("session", ["gradcli.session"]),
    ("views", ["gradcli.views"]),
    ("repl and testing", ["gradcli.repl", "gradcli.testing"]),
    ("cli", ["gradcli.cli"]),
    ("notebook and the package", ["gradcli.notebook", "gradcli.__main__", "gradcli"]),
]
GENERATED = {"gradcli.lang.lark_standalone"}     # Lark's own code, generated (its imports are Lark's)


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if _module_name(p) not in GENERATED}


def _layer(module):
    best = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
    assert best is not None, f"{module} is in no layer of docs/ARCHITECTURE.md"
    return best[0]


def _imports(name, path, known):
    """The gradcli modules `name` imports, each with the line of the import."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("gradcli"):
                continue
            for alias in node.names:        # `from gradcli import torch`: the submodule itself
                sub = f"{target}.{alias.name}"
                found.append((sub if sub in known else target, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.startswith("gradcli")]
    return [(t, line) for t, line in found if t in known and t != name]


def _graph():
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_every_module_has_a_layer():
    for name in _modules():
        _layer(name)


def test_no_import_points_up_a_layer():
    upward = [f"{name}:{line} imports {target} ({LAYERS[_layer(target)][0]} is above {LAYERS[_layer(name)][0]})"
              for name, targets in _graph().items() for target, line in targets
              if _layer(target) > _layer(name)]
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize("level", ["module", "package"])
def test_no_import_cycles(level):
    graph = _graph()
    if level == "package":        # one node per part of gradcli: gradcli.session, gradcli.views, gradcli.notebook
        node = {m: ".".join(m.split(".")[:2]) for m in graph}
        edges = {}
        for m, targets in graph.items():
            edges.setdefault(node[m], set()).update(node[t] for t, _ in targets if node[t] != node[m])
    else:       # (a module imports its parent packages first anyway: those edges are no cycle)
        edges = {m: {t for t, _ in targets if not m.startswith(t + ".")} for m, targets in graph.items()}
    cycles, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == "open":
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t, stack)
        stack.pop()
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m, [])
    assert not cycles, "\n".join(cycles)


ENGINE_UNTOUCHED = """
import importlib, pkgutil, sys
import gradcli.engine as E
modules = [importlib.import_module(f"gradcli.engine.{m.name}") for m in pkgutil.iter_modules(E.__path__)]

def state():
    out = {}
    for m in modules:
        for name, value in vars(m).items():
            out[(m.__name__, name)] = id(value)
            if isinstance(value, type) and value.__module__ == m.__name__:
                for attr, v in vars(value).items():
                    out[(m.__name__, name, attr)] = id(v)
    return out

calls = []
configure = E.configure
E.state.configure = E.configure = lambda **kw: (calls.append(sorted(kw)), configure(**kw))[1]
before = state()
import gradcli.torch
changed = sorted(".".join(k) for k in set(before) | set(state()) if before.get(k) != state().get(k))
print(changed, calls)
"""


def test_the_engine_is_complete_on_its_own_import_and_torch_configures_it_once():
    """Importing gradcli.torch adds no method to an engine class and fills no engine global: the
    engine's one configuration is the single configure() call."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", ENGINE_UNTOUCHED], capture_output=True, text=True,
                         cwd=PACKAGE.parent, check=True).stdout
    assert out.strip() == "[] [['fresh_view', 'make_tensor', 'numpy_math', 'tensor', 'tensor_math']]"


RENDERERS = ("gradcli.views", "gradcli.repl", "gradcli.cli", "gradcli.notebook")


def test_rich_is_imported_only_where_things_are_rendered():
    found = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(n == "rich" or n.startswith("rich.") for n in names) \
                    and not any(name == r or name.startswith(r + ".") for r in RENDERERS):
                found.append(f"{name}:{node.lineno}")
    assert found == []
