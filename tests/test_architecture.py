"""The layout holds: layers ``vectorstore`` -> ``ingest`` -> ``assistant`` -> ``ui``, imports only downward or
within a package, no import cycles between modules, and the offline environment set before any library loads.

Imports are read from the source with ``ast``, those inside functions included (lazy imports count).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vectorstore import OFFLINE_ENVIRONMENT

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["vectorstore", "ingest", "assistant", "ui"]  # bottom to top


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for layer in LAYERS for p in (ROOT / layer).rglob("*.py")}


def _resolve(name: str) -> str | None:
    """The paperchat module ``name`` refers to (a module, else its package), or None for other libraries."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(filter(None, (_resolve(alias.name) for alias in node.names)))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # "from ui import app" imports the module ui.app
                target = _resolve(f"{node.module}.{alias.name}")
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom) and node.level:
            pytest.fail(f"{module}: relative import; use the absolute module name")
    found.discard(module)
    return found


GRAPH = {module: _imports(module) for module in MODULES}


def _layer(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def test_every_package_is_a_layer() -> None:
    assert {m.split(".")[0] for m in MODULES} == set(LAYERS)


def test_no_upward_imports() -> None:
    upward = sorted(f"{m} -> {t}" for m, targets in GRAPH.items() for t in targets if _layer(t) > _layer(m))
    assert upward == []


def test_no_import_cycles_between_modules() -> None:
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
    assert cycles == []


def test_the_checker_sees_lazy_and_from_imports() -> None:
    assert "ui.app" in GRAPH["ui"]  # inside ``__getattr__``
    assert "ui.app" in GRAPH["ui.cli"]  # inside ``cmd_serve``
    assert "assistant.prompts" in GRAPH["assistant.engines.chat"]  # ``from assistant import prompts``


LIBRARIES = ["gradio", "chromadb", "sentence_transformers", "transformers", "huggingface_hub", "torch", "langchain_core", "numpy"]
WATCH = """
import json, os, sys
first = {}
class Watch:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in LIBRARIES and top not in first:
            first[top] = all(os.environ.get(k) == v for k, v in OFFLINE.items())
        return None
sys.meta_path.insert(0, Watch())
import MODULE
print(json.dumps(first))
"""


@pytest.mark.parametrize("module", ["ui.app", "ingest.records", "assistant.engines.local"])
def test_offline_environment_is_set_before_any_library_loads(module: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE_ENVIRONMENT}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    code = (WATCH.replace("LIBRARIES", repr(LIBRARIES)).replace("OFFLINE", repr(OFFLINE_ENVIRONMENT))
            .replace("MODULE", module))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    first = json.loads(out.stdout.strip().splitlines()[-1])
    assert first and all(first.values()), first
