"""A progress bar on stderr for long runs (lint options): only when stderr is a terminal, --quiet is not
given, and the run has at least 200 files or lasts more than one second. Drawn with rich, imported only
when the bar is actually shown."""

from __future__ import annotations

import sys
import time
from typing import Any


class Progress:
    drawn = 0  # bars drawn in this process (a run that drew one leaves no run record)

    def __init__(self, total: int, *, quiet: bool, label: str) -> None:
        self.total = total
        self.done = 0
        self.label = label
        self.enabled = not quiet and _is_tty(sys.stderr)
        self.started = time.monotonic()
        self._bar: Any = None
        self._task: Any = None

    def advance(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self._bar is None:
            if self.total < 200 and time.monotonic() - self.started <= 1.0:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(f"[bold]{self.label}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                     console=Console(file=sys.stderr), transient=True)
            self._bar.start()
            Progress.drawn += 1
            self._task = self._bar.add_task(self.label, total=self.total, completed=self.done)
            return
        self._bar.update(self._task, completed=self.done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
