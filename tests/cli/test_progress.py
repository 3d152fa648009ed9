"""The progress bar is drawn only on a terminal, never with --quiet, and only for long runs."""

from __future__ import annotations

import io
import time

from axag.cli import progress as progress_mod


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(progress_mod.sys, "stderr", io.StringIO())
    bar = progress_mod.Progress(1000, quiet=False, label="linting")
    for _ in range(1000):
        bar.advance()
    bar.close()
    assert bar._bar is None and not bar.enabled


def test_no_bar_with_quiet(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(progress_mod.sys, "stderr", _Tty())
    bar = progress_mod.Progress(1000, quiet=True, label="linting")
    bar.advance()
    assert bar._bar is None


def test_bar_for_many_files_or_a_long_run(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    tty = _Tty()
    monkeypatch.setattr(progress_mod.sys, "stderr", tty)
    small = progress_mod.Progress(10, quiet=False, label="linting")
    small.advance()
    assert small._bar is None  # few files, short run: nothing drawn
    small.started = time.monotonic() - 2
    small.advance()
    assert small._bar is not None  # the run lasts more than a second
    small.close()
    big = progress_mod.Progress(250, quiet=False, label="linting")
    big.advance()
    assert big._bar is not None
    big.close()
