"""Unpickling that admits only the classes named: what the result cache reads comes from a folder in the project,
which an untrusted checkout could fill, so no entry can make pickle call anything else."""

from __future__ import annotations

import io
import pickle
from collections.abc import Collection
from typing import Any


class _Restricted(pickle.Unpickler):
    def __init__(self, data: bytes, allowed: Collection[tuple[str, str]]) -> None:
        super().__init__(io.BytesIO(data))
        self.allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed here")
        return super().find_class(module, name)


def loads_only(data: bytes, allowed: Collection[tuple[str, str]]) -> Any:
    """``pickle.loads(data)`` for data whose globals are all in ``allowed`` ((module, name) pairs); anything else
    raises ``pickle.UnpicklingError``."""
    return _Restricted(data, allowed).load()
