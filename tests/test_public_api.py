"""The public surface is what was meant: ``assistant.__all__``, and the Assistant methods the UI and the CLI use.

The UI's unit tests run against a scripted fake (``ScriptedAssistant`` in ``test_ui_api.py``); here the fake
is held to exactly the surface the browser app uses, with the real ``Assistant``'s signatures.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import assistant
from assistant import Assistant
from test_ui_api import ScriptedAssistant

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ["AbstentionPolicy", "Answer", "Assistant", "Citation", "EngineError", "FusionConfig", "Hit", "HybridRetriever",
          "ListPage", "PaperMap", "PaperRef", "PaperchatError", "Settings"]


def test_assistant_exports_exactly_the_public_api() -> None:
    assert sorted(assistant.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        assert getattr(assistant, name) is not None, name


def _assistant_uses(path: Path) -> set[str]:
    """Attributes the module reads from an Assistant: ``assistant.X``, ``self.assistant.X``, ``_assistant(...).X``."""
    used = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        if (isinstance(owner, ast.Name) and owner.id == "assistant"
                or isinstance(owner, ast.Attribute) and owner.attr == "assistant"
                or isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "_assistant"):
            used.add(node.attr)
    return used


def test_ui_and_cli_use_only_the_assistants_public_methods() -> None:
    door = {name for name in dir(Assistant) if not name.startswith("_")}  # methods and properties, not its parts
    for path in sorted((ROOT / "ui").glob("*.py")):
        used = _assistant_uses(path)
        assert used <= door, (path.name, used - door)


def test_ui_fake_implements_exactly_what_the_browser_app_uses() -> None:  # the Chat tab, its tools and the Explore tab
    used = (_assistant_uses(ROOT / "ui" / "app.py") | _assistant_uses(ROOT / "ui" / "tools.py")
            | _assistant_uses(ROOT / "ui" / "explore.py"))
    fake = {name for name in vars(ScriptedAssistant) if not name.startswith("_")}
    assert fake == used
    for name in sorted(used):
        real = inspect.getattr_static(Assistant, name)
        mine = inspect.getattr_static(ScriptedAssistant, name)
        if isinstance(real, property):
            assert not callable(mine), f"{name} is a property of Assistant"
        else:
            real_params = [(p.name, p.kind, p.default) for p in inspect.signature(real).parameters.values()]
            fake_params = [(p.name, p.kind, p.default) for p in inspect.signature(mine).parameters.values()]
            assert fake_params == real_params, name
