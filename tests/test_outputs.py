"""Files gradcli writes and the statuses it exits with: one atomic-write helper (modes, links,
pipes, failures) behind every output file, `graph -o`'s format from the extension, the exit
rule of commands that make a product, `test --oracle torch` without PyTorch, and help texts."""
from __future__ import annotations

import ast
import os
import re
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gradcli.session.atomic import append, write_atomic

REPO = Path(__file__).resolve().parents[1]
RAISES = "f = x+y; z = 2*f; y1 = z**2; y2 = z**3; backward y1; backward y2"


def gradcli(*args, cwd, env=None, umask=None):
    e = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1", **(env or {}))
    preexec = (lambda: os.umask(umask)) if umask is not None else None
    p = subprocess.run([sys.executable, "-m", "gradcli", *map(str, args)], cwd=cwd, env=e, capture_output=True,
                       text=True, timeout=120, preexec_fn=preexec)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


# ----------------------------------------------------------------------------- the helper

def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.txt", "text\n")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new.txt") == 0o640


def test_a_replaced_file_keeps_its_mode_and_no_temporary_file_is_left(tmp_path):
    target = tmp_path / "kept.txt"
    target.write_text("old\n")
    target.chmod(0o604)
    write_atomic(target, b"new\n")
    assert target.read_text() == "new\n" and _mode(target) == 0o604
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


def test_a_symbolic_link_stays_a_link_and_its_target_is_replaced(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target.name)
    write_atomic(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"


def test_a_fifo_is_written_to_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_atomic(fifo, "through the pipe\n")
    reader.join(10)
    assert got == ["through the pipe\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "x.txt"
    target.write_text("old\n")

    def full_disk(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        write_atomic(target, "new\n")
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["x.txt"]


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(OSError, match=f"cannot write {tmp_path}: it is a directory"):
        write_atomic(tmp_path, "x")


def test_append_extends_the_same_file_in_place_and_keeps_its_mode(tmp_path):
    log = tmp_path / "made" / "history"
    append(str(log), "one\n")                               # the folder is made too
    log.chmod(0o600)
    inode = os.stat(log).st_ino
    append(str(log), b"two\n")
    assert log.read_text() == "one\ntwo\n" and _mode(log) == 0o600 and os.stat(log).st_ino == inode
    with pytest.raises(OSError, match=f"cannot write {tmp_path}"):
        append(str(tmp_path), "x")


# Calls that put bytes in a file besides open(): every one in gradcli/ must be in session/atomic.py.
_WRITERS = {"write_text", "write_bytes", "tofile", "os.replace", "os.rename", "os.renames", "os.truncate",
            "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.move",
            "np.save", "np.savez", "np.savetxt"}
# Writes that are not gradcli's files: the pipe a supervised child sends its result back through,
# and the checkpoint a script's torch.save writes where the script says (as its own open() would).
_NOT_FILES = {("watchdog.py", "fdopen"), ("serialization.py", "open")}


def _mode_text(call, position):
    mode = call.args[position] if len(call.args) > position else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    if mode is None:
        return "r"
    return mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else "?"


def _file_writes(tree):
    """(name, line) of each call in the tree that may write a file."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name in ("open", "fdopen"):
            if isinstance(f, ast.Attribute) and f.attr == "open" and getattr(f.value, "id", None) == "os":
                flags = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
                if any(w in flags for w in ("O_CREAT", "O_TRUNC", "O_APPEND")):
                    yield name, node.lineno
            else:           # open(path, mode), io.open(path, mode), os.fdopen(fd, mode); a Path's .open(mode)
                path_first = isinstance(f, ast.Name) or name == "fdopen" or getattr(f.value, "id", None) == "io"
                if set(_mode_text(node, 1 if path_first else 0)) & set("wax+?"):
                    yield name, node.lineno
        elif isinstance(f, ast.Attribute) and (name in _WRITERS or ast.unparse(f) in _WRITERS):
            yield name, node.lineno


def test_every_file_gradcli_writes_goes_through_the_atomic_helper():
    found = []
    for path in sorted((REPO / "gradcli").rglob("*.py")):
        if path.name in ("atomic.py", "lark_standalone.py"):       # (the helper; the generated parser)
            continue
        for name, line in _file_writes(ast.parse(path.read_text(encoding="utf-8"))):
            if (path.name, name) not in _NOT_FILES:
                found.append(f"{path.relative_to(REPO)}:{line}: {name}(...)")
    assert found == [], "files written without gradcli/session/atomic.py:\n" + "\n".join(found)


def test_the_write_scan_sees_each_way_of_writing_a_file():
    source = """
open(p, "w"); open(p, mode="ab"); io.open(p, "x"); Path(p).open("r+"); os.fdopen(fd, "wb")
os.open(p, os.O_WRONLY | os.O_CREAT); Path(p).write_text("x"); os.replace(a, b); shutil.copy(a, b)
open(p); open(p, "rb"); io.open(p); Path(p).open(); os.open(p, os.O_RDONLY); Path(p).read_text(); os.fdopen(fd)
"""
    assert [line for _, line in _file_writes(ast.parse(source))] == [2] * 5 + [3] * 4


# ----------------------------------------------------------------------------- the commands that write files

def test_graph_export_and_junit_files_get_umask_modes_and_keep_replaced_modes(tmp_path):
    script = tmp_path / "s.grad"
    script.write_text("f = x+y; z = 2*f; backward z\n")
    runs = [("graph", script, "-o", "g.dot"), ("export", script, "-o", "e.py"),
            ("test", script, "--junit-xml", "j.xml")]
    for args in runs:
        assert gradcli(*args, cwd=tmp_path, umask=0o022).returncode == 0
    assert {n: _mode(tmp_path / n) for n in ("g.dot", "e.py", "j.xml")} == dict.fromkeys(("g.dot", "e.py", "j.xml"),
                                                                                           0o644)
    for n in ("g.dot", "e.py", "j.xml"):
        (tmp_path / n).chmod(0o660)
    for args in runs:
        assert gradcli(*args, cwd=tmp_path, umask=0o077).returncode == 0
    assert {n: _mode(tmp_path / n) for n in ("g.dot", "e.py", "j.xml")} == dict.fromkeys(("g.dot", "e.py", "j.xml"),
                                                                                           0o660)


@pytest.mark.parametrize("name, starts", [("g.dot", "digraph gradcli {"), ("g.gv", "digraph gradcli {"),
                                          ("g.mmd", "flowchart"), ("g.txt", "graph of")])
def test_graph_output_format_follows_the_extension(tmp_path, name, starts):
    p = gradcli("graph", "-c", "f = x+y; z = 2*f", "-o", name, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / name).read_text().lstrip().startswith(starts)


def test_graph_refuses_a_format_the_extension_contradicts(tmp_path):
    p = gradcli("graph", "-c", "f = x+y; z = 2*f", "--format", "tree", "-o", "x.svg", cwd=tmp_path)
    assert p.returncode == 2 and "--format tree does not match -o x.svg" in p.stderr
    assert not (tmp_path / "x.svg").exists()


def test_graph_and_export_exit_0_with_a_note_when_the_script_raises(tmp_path):
    graph = gradcli("graph", "-c", RAISES, "-o", "g.dot", cwd=tmp_path)
    export = gradcli("export", "-c", RAISES, "-o", "e.py", cwd=tmp_path)
    run = gradcli("run", "-c", RAISES, cwd=tmp_path)
    assert (graph.returncode, export.returncode, run.returncode) == (0, 0, 1)
    assert "note: the script stopped at line 1 with RuntimeError" in graph.stderr
    assert "note: under gradcli the script stops at line 1 with RuntimeError" in export.stderr
    assert (tmp_path / "g.dot").exists() and (tmp_path / "e.py").exists()


def test_oracle_torch_without_torch_is_a_usage_error(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import torch\nprint(torch.ones(2))\n")
    code = ("import sys; sys.modules['torch'] = None; "          # torch cannot be imported
            "sys.argv = ['gradcli', 'test', '--oracle', 'torch', 's.py']; from gradcli.cli.app import main; main()")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "PyTorch is not importable" in p.stderr and "passed" not in p.stdout


# ----------------------------------------------------------------------------- help

def test_dash_h_is_help_everywhere(tmp_path):
    for args in ([], ["run"], ["graph"], ["export"], ["explain"], ["test"], ["repl"]):
        p = gradcli(*args, "-h", cwd=tmp_path)
        assert p.returncode == 0 and p.stdout.startswith("Usage: gradcli"), (args, p.stderr)


def test_help_placeholders_name_what_to_give(tmp_path):
    for command in ("run", "graph", "export", "explain", "test", "repl"):
        text = gradcli(command, "--help", cwd=tmp_path).stdout
        assert not re.search(r"<\w+(\[\w+\])?>", text), f"a Python type in `gradcli {command} --help`:\n{text}"
    run = gradcli("run", "--help", cwd=tmp_path).stdout
    for placeholder in ("--set NAME=VALUE", "--timeout SECONDS", "-c TEXT", "FILE"):
        assert placeholder in run
    assert "-o, --output PATH" in gradcli("graph", "--help", cwd=tmp_path).stdout


def test_explain_plain_wraps_as_its_help_says(tmp_path):
    help_text = " ".join(gradcli("explain", "--help", cwd=tmp_path).stdout.split())
    assert "wrap at 100 columns" in help_text
    p = gradcli("explain", REPO / "examples" / "seed000_block2.py", "--plain", cwd=tmp_path)
    lines = p.stdout.splitlines()
    assert max(map(len, lines)) <= 100 and any(len(line) > 90 for line in lines)


def test_python_dash_m_starts_like_the_console_script(tmp_path):
    """Both go through gradcli.cli.entry: the same modules, no Typer or Rich for `run --plain`."""
    script = REPO / "examples" / "seed000_block2.py"
    entry = ("import sys; sys.argv = ['gradcli', 'run', '--plain', %r]; "
             "from gradcli.cli.entry import main; main()" % str(script))
    env = dict(os.environ, PYTHONPATH=str(REPO))

    def modules(cmd):
        p = subprocess.run([sys.executable, "-X", "importtime", *cmd], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    as_module = modules(["-m", "gradcli", "run", "--plain", str(script)])
    as_script = modules(["-c", entry])
    # running a module as __main__ takes runpy and what it imports, nothing of gradcli's own
    extra = {m for m in as_module - as_script if not m.startswith(("runpy", "pkgutil", "importlib"))}
    assert extra == set()
    assert not {"typer", "rich", "click"} & as_module
