#!/bin/sh
# Debian's Chromium for the browser tests (the HTML report, the catalogue and the approval page): Playwright
# drives it by its path, /usr/bin/chromium, and never downloads a browser of its own.
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
