"""How --jobs hands files to worker processes: biggest first; outcomes come back in file order whatever the order
of work (the CLI tests compare whole outputs for --jobs 1 and 2)."""

from __future__ import annotations

from axag.batch.workers import biggest_first


def test_biggest_first_keeps_file_order_among_equals() -> None:
    assert biggest_first([10, 30, 10, 30, 5]) == [1, 3, 0, 2, 4]
    assert biggest_first([]) == []


def test_the_checking_modules_are_imported_before_the_workers_are_forked() -> None:
    """`map_files` imports what checking needs in the parent (once, shared by the workers), not in each worker."""
    import subprocess
    import sys

    code = (
        "import gc, sys\n"
        "from axag.lint.engine import Request\n"
        "from axag.batch.workers import preload\n"
        "names = ('axag.parse.document', 'axag.model.actions', 'axag.compile.build')\n"
        "assert not any(n in sys.modules for n in names), [n for n in names if n in sys.modules]\n"
        "names += ('axag.rules.identity',)  # the rule declarations come with the engine (the catalogue indexes them)\n"
        "gc.disable()\n"
        "before = gc.get_freeze_count()\n"
        "preload(Request(mode='lint', want_contracts=True))\n"
        "assert all(n in sys.modules for n in names), [n for n in names if n not in sys.modules]\n"
        "assert gc.get_freeze_count() > before\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
