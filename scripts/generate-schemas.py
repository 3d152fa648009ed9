"""Write the vocabulary enums of the shipped schemas (schemas/*.schema.json) from axag/vocabulary/__init__.py
(axag/compile/schema_enums.py says which enum holds which list). tests/vocabulary/test_meanings.py fails when a
checked-in schema is not what this script writes.

    python scripts/generate-schemas.py          # rewrite the files
    python scripts/generate-schemas.py --check  # exit 1 when one is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from axag.compile.schema_enums import stale  # noqa: E402


def main(argv: list[str]) -> int:
    check = "--check" in argv
    names = stale(ROOT / "schemas", write=not check)
    for name in names:
        print(f"schemas/{name} {'is stale: run python scripts/generate-schemas.py' if check else 'rewritten'}",
              file=sys.stderr)
    return 1 if check and names else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
