"""The engine never imports Textual (only supervisor/app.py composes the UI); widgets never
import the app. Each engine module is imported in a fresh interpreter and checked."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = sorted(
    path.stem for path in (ROOT / "supervisor").glob("*.py") if path.stem not in ("app", "__main__")
)


@pytest.mark.parametrize("module", ENGINE)
def test_engine_module_imports_no_textual(module):
    code = (
        "import sys, importlib\n"
        f"importlib.import_module('supervisor.{module}')\n"
        "loaded = [m for m in sys.modules if m == 'textual' or m.startswith('textual.')]\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"supervisor.{module} pulls in {result.stdout.strip()}"


def test_no_engine_source_names_textual():
    for module in ENGINE:
        tree = ast.parse((ROOT / "supervisor" / f"{module}.py").read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n == "textual" or n.startswith("textual.") for n in names), module


def test_widgets_never_import_the_app():
    for path in (ROOT / "widgets").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "supervisor.app", path.name
            if isinstance(node, ast.Import):
                assert all(alias.name != "supervisor.app" for alias in node.names), path.name
