"""The engine never imports Textual (only the app, its engine link and widgets/ do); widgets never
import the app, the CLI or orchestration.

``lint-imports`` (the contracts in pyproject.toml, run by ``make test``) checks the
static graph; this checks what importing each engine module really loads, in a
fresh interpreter, and that the contracts name every layer folder there is.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UI = {
    "supervisor.app",
    "supervisor.app_keys",
    "supervisor.engine_link",
    "supervisor.raw_input_driver",
}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


ENGINE = sorted(
    name
    for name in map(_module, (ROOT / "supervisor").rglob("*.py"))
    if name not in UI and not name.endswith("__main__")  # running one runs the CLI
)


def _imported(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module or "")
    return names


def test_importing_any_engine_module_loads_no_textual():
    code = (
        "import sys, importlib\n"
        f"for name in {ENGINE!r}:\n"
        "    importlib.import_module(name)\n"
        "    if 'textual' in sys.modules:\n"
        "        print(name)\n"
        "        break\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"{result.stdout.strip()} pulls in textual"


def test_no_engine_source_names_textual():
    for path in (ROOT / "supervisor").rglob("*.py"):
        if _module(path) in UI:
            continue
        names = _imported(path)
        assert not any(n == "textual" or n.startswith("textual.") for n in names), path


def test_widgets_never_import_the_app_the_cli_or_orchestration():
    banned = ("supervisor.app", "supervisor.cli", "supervisor.run")
    for path in (ROOT / "widgets").rglob("*.py"):
        for name in _imported(path):
            assert not any(name == b or name.startswith(b + ".") for b in banned), (path, name)


def test_the_layer_contract_names_every_engine_folder():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [
        c["layers"]
        for c in config["contracts"]
        if c["type"] == "layers" and c["name"].startswith("Layers:")  # the engine's own
    ]
    named = {part.strip() for layer in layers for part in layer.split("|")}
    folders = {f"supervisor.{p.parent.name}" for p in (ROOT / "supervisor").glob("*/__init__.py")}
    assert folders <= named, f"not in the layers contract: {sorted(folders - named)}"
