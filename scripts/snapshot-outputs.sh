#!/bin/sh
# Write what axag makes of the example site and of ../shared/corpus into OUT, so that two versions can be
# compared byte for byte (a refactor must change nothing):
#
#   sh scripts/snapshot-outputs.sh AXAG OUT       e.g. .venv/bin/axag /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Outputs: lint (json, sarif, full text) of fixtures/site and the corpus, compile of both, the Python and
# TypeScript guards of the site's tools.json and the corpus's, and the corpus after `lint --fix` (a copy).
set -eu
AXAG=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
cd "$(dirname "$0")/.."
CORPUS=../shared/corpus
rm -rf "$OUT"
mkdir -p "$OUT"
"$AXAG" lint fixtures/site --isolated --no-cache --output-format json > "$OUT/site-lint.json" || true
"$AXAG" lint fixtures/site --isolated --no-cache --output-format sarif > "$OUT/site-lint.sarif" || true
"$AXAG" compile fixtures/site --isolated --no-cache -o "$OUT/site-tools.json" > /dev/null
"$AXAG" guards "$OUT/site-tools.json" -o "$OUT/guards-py" --isolated > /dev/null
"$AXAG" guards "$OUT/site-tools.json" -o "$OUT/guards-ts" --lang typescript --isolated > /dev/null
if [ -d "$CORPUS" ]; then
    "$AXAG" lint "$CORPUS" --isolated --no-cache --exit-zero --output-format json > "$OUT/corpus-lint.json"
    "$AXAG" lint "$CORPUS" --isolated --no-cache --exit-zero --output-format full > "$OUT/corpus-lint.txt" 2>&1
    "$AXAG" compile "$CORPUS" --root ../shared --isolated --no-cache --keep-going -o "$OUT/corpus-tools.json" \
        2>&1 | sed "s#$OUT#OUT#g" > "$OUT/corpus-compile.txt" || true
    "$AXAG" guards "$OUT/corpus-tools.json" -o "$OUT/guards-corpus" --isolated > /dev/null
    cp -r "$CORPUS" "$OUT/corpus-fixed"
    (cd "$OUT/corpus-fixed" && "$AXAG" lint . --isolated --no-cache --fix --exit-zero > /dev/null 2>&1 || true)
fi
echo "axag: outputs written to $OUT"
