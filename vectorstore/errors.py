"""paperchat's user-facing errors. Each message names the problem and the fix in one line.

    PaperchatError
     ├── StoreError            the store cannot be opened or read (missing, corrupt, unreachable)
     │    └── ModelMismatchError  the store was built with another embedding model / chunking
     └── InputError            a paper file is invalid (names file, line and fix)
"""

from __future__ import annotations


class PaperchatError(Exception):
    """Base class: ``str(error)`` is a one-line message for the user."""


class StoreError(PaperchatError):
    """The vector store cannot be used; the message says how to rebuild or reconnect."""


class ModelMismatchError(StoreError):
    """The collection was indexed with different embedding settings."""


class InputError(PaperchatError):
    """Invalid input file or record; the message names file, line and the fix."""
