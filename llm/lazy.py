"""Modules imported on first use.

A heavy SDK imported at the top of a module is paid by every process that
imports the module, used or not: the `openai` SDK was 29% of a web worker's
import time though most deployments' first requests never call a model.

Not importlib's LazyLoader: on Python 3.11 it lets a second thread read the
module while the first is still executing it (CPython gh-114763, fixed in
3.12), so a threaded worker's first concurrent model calls failed with
"module 'openai' has no attribute 'OpenAI'". Here the stand-in imports the
module with `import_module` (which holds the import lock) under a lock of its
own, and every thread reads the finished module.

Pure: no Django.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any


class _Deferred(ModuleType):
    """Stands for the module `__name__` until an attribute is first read."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # Set in __dict__ so reading them never reaches __getattr__.
        self.__dict__["_lock"] = threading.Lock()
        self.__dict__["_module"] = None

    def _load(self) -> ModuleType:
        module: ModuleType | None = self.__dict__["_module"]
        if module is None:
            with self.__dict__["_lock"]:
                module = self.__dict__["_module"]
                if module is None:
                    module = importlib.import_module(self.__name__)
                    self.__dict__["_module"] = module
        return module

    def __getattr__(self, attr: str) -> Any:
        # Only names this stand-in does not hold itself come here.
        return getattr(self._load(), attr)


def lazy_module(name: str) -> ModuleType:
    """`name`, imported when one of its attributes is first read (the real
    module at once if it is already imported)."""
    if name in sys.modules:
        return sys.modules[name]
    # Fail at import time, as `import name` would, for a module not installed.
    if importlib.util.find_spec(name) is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    return _Deferred(name)
