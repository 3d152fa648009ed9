"""Regenerate axag/webmcp/runtime.min.js: the TypeScript guards' runtime.ts compiled by the project's tsc (the
WebMCP module runs the generated guards' own code, never a hand-kept copy), its exports dropped, followed by the
driver (axag/webmcp/driver.js), minified by terser (`npm install` first). `axag webmcp` puts the site's tools in
front of it (`AXAG_TOOLS`, `AXAG_MAX_RESULT_BYTES`, free names that terser leaves alone).
tests/webmcp/test_module.py fails when the checked-in file is not what this script writes.

    python scripts/webmcp-runtime.py          # rewrite the file
    python scripts/webmcp-runtime.py --check  # exit 1 when it is stale
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "axag" / "guards" / "templates" / "typescript" / "runtime.ts"
DRIVER = ROOT / "axag" / "webmcp" / "driver.js"
TARGET = ROOT / "axag" / "webmcp" / "runtime.min.js"
TSC = ROOT / "node_modules" / ".bin" / "tsc"
TERSER = ROOT / "node_modules" / ".bin" / "terser"
EXPORT = re.compile(r"^export (?=(?:async )?function |class |const )", re.MULTILINE)
FLAGS = ["--strict", "--target", "ES2022", "--module", "ES2022", "--moduleResolution", "bundler", "--lib", "ES2022,DOM",
         "--removeComments", "--skipLibCheck"]
HEADER = ("// Generated from axag/guards/templates/typescript/runtime.ts and axag/webmcp/driver.js by "
          "scripts/webmcp-runtime.py (tsc, terser). Do not edit.\n")


def compiled() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "runtime.ts"
        src.write_text(SOURCE.read_text(encoding="utf-8"), encoding="utf-8")
        subprocess.run([str(TSC), *FLAGS, "--outDir", str(Path(tmp) / "out"), str(src)], check=True)
        runtime = EXPORT.sub("", (Path(tmp) / "out" / "runtime.js").read_text(encoding="utf-8"))
        both = Path(tmp) / "both.js"
        both.write_text(runtime + "\n" + DRIVER.read_text(encoding="utf-8"), encoding="utf-8")
        done = subprocess.run([str(TERSER), str(both), "--module", "--compress", "passes=2", "--mangle",
                               "--comments", "false"], check=True, capture_output=True, text=True)
        return HEADER + done.stdout.rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    text = compiled()
    if "--check" in argv:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is stale: run python scripts/webmcp-runtime.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
