"""paperchat's user-facing errors. Each one reads as one line naming the problem and the fix.

    PaperchatError                 str(error) is the one-line message for the user
     ├── StoreError                the store cannot be opened or read (missing, corrupt, unreachable)
     │    └── ModelMismatchError   the store was built with another embedding model or chunking
     ├── InputError                a paper or question file is invalid: path, where, problem, fix, skippable
     └── EngineError               the answer engine failed: engine, kind (timeout, unreachable, missing, failed)
          └── ModelError           a local GGUF model is not installed or corrupt: model, hint
               ├── ModelNotInstalledError
               └── ModelCorruptError

Surfaces read the fields rather than the text: the browser app names the uploaded file and its
own "Skip invalid records" option through ``InputError.describe``.
"""

from __future__ import annotations

SKIP_INVALID = "use --skip-invalid"


class PaperchatError(Exception):
    """Base class: ``str(error)`` is a one-line message for the user."""


class StoreError(PaperchatError):
    """The vector store cannot be used; the message says how to rebuild or reconnect."""


class ModelMismatchError(StoreError):
    """The collection was indexed with different embedding settings."""


class InputError(PaperchatError):
    """Invalid input file or record.

    ``path`` and ``where`` (``":12"``, ``": element 3"``) locate it, ``problem`` says what is wrong,
    ``fix`` what to do; ``skippable`` when skipping invalid records would pass over it.
    """

    def __init__(self, problem: str, fix: str = "", *, path: object = "", where: str = "", skippable: bool = False) -> None:
        self.path = str(path)
        self.where = where
        self.problem = problem
        self.fix = fix
        self.skippable = skippable
        super().__init__(self.describe())

    @property
    def source(self) -> str:
        """``file:line`` (or the file, or nothing) as the message starts."""
        return f"{self.path}{self.where}"

    def reason(self, skip_hint: str = SKIP_INVALID) -> str:
        """The message without its source: problem and fix."""
        fix = f"{self.fix} or {skip_hint}" if self.skippable and self.fix else (skip_hint if self.skippable else self.fix)
        return f"{self.problem}; {fix}" if fix else self.problem

    def describe(self, path: str | None = None, skip_hint: str = SKIP_INVALID) -> str:
        """The one-line message, optionally naming the file as ``path`` and the skip option as ``skip_hint``."""
        source = f"{self.path if path is None else path}{self.where}"
        return f"{source}: {self.reason(skip_hint)}" if source else self.reason(skip_hint)


class EngineError(PaperchatError):
    """The answer engine failed (server down, timeout, model missing); the message says what to do."""

    def __init__(self, message: str, *, engine: str = "", kind: str = "failed") -> None:
        super().__init__(message)
        self.engine = engine
        self.kind = kind  # "timeout", "unreachable", "missing" or "failed"


class ModelError(EngineError, RuntimeError):
    """A local GGUF model cannot be used; ``hint`` is the command or step that fixes it."""

    def __init__(self, message: str, *, model: str = "", hint: str = "") -> None:
        super().__init__(message, engine="local", kind="missing")
        self.model = model
        self.hint = hint


class ModelNotInstalledError(ModelError):
    """Some part packages of a registry model are not installed (``hint``: the pip command)."""


class ModelCorruptError(ModelError):
    """An assembled model file (or its parts) does not match the expected sha256."""
