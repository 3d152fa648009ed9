#!/bin/sh
# Debian's PostgreSQL server for the tests of shared serve state (`--state postgresql://…`): the test suite starts a
# throw-away server of its own (initdb and pg_ctl from /usr/lib/postgresql/*/bin, as an unprivileged user, in a
# temporary folder: tests/pg_server.py); this only makes sure the binaries are there.
set -eu
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
