"""Helpers of the language-server tests: a pytest-lsp client session (a real client over stdio) of `axag lsp`
in a workspace folder, documents opened as an editor opens them, and lint's JSON findings as LSP expects them."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as T
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

LANGUAGES = {".html": "html", ".htm": "html", ".tsx": "typescriptreact", ".jsx": "javascriptreact",
             ".vue": "vue", ".svelte": "svelte", ".jinja": "jinja"}


def env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp), "XDG_CACHE_HOME": str(tmp / "cache"),
            "AXAG_CACHE_DIR": str(tmp / "axag-cache")}


VERSIONS: dict[int, dict[str, int | None]] = {}  # id(client) -> uri -> version of the last publication
INITIALIZED: dict[int, T.InitializeResult] = {}  # id(client) -> the server's answer to `initialize`


def published(client: LanguageClient, uri: str) -> int | None:
    """The document version of the last diagnostics published for ``uri``."""
    return VERSIONS.get(id(client), {}).get(uri)


def _client() -> LanguageClient:
    """pytest-lsp's test client, also noting the version of each publication."""
    client = LanguageClient(converter_factory=default_converter)
    versions: dict[str, int | None] = VERSIONS.setdefault(id(client), {})

    def publish(ls: LanguageClient, params: T.PublishDiagnosticsParams) -> None:
        ls.diagnostics[params.uri] = params.diagnostics
        versions[params.uri] = params.version

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish})
    return client


async def start(root: Path, tmp: Path, *, pull: bool = False, options: Any = None) -> LanguageClient:
    """A client (VS Code's capabilities with pull diagnostics, Neovim 0.10's without) initialised in ``root``."""
    config = ClientServerConfig(server_command=[sys.executable, "-m", "axag", "lsp"], server_env=env(tmp),
                                client_factory=_client)
    client = await config.start()
    caps = client_capabilities("visual-studio-code" if pull else "neovim@v0.10.0")
    if not pull:
        assert caps.text_document is not None
        caps.text_document.diagnostic = None
    else:
        assert caps.text_document is not None
        caps.text_document.diagnostic = T.DiagnosticClientCapabilities(dynamic_registration=False,
                                                                       related_document_support=True)
    INITIALIZED[id(client)] = await client.initialize_session(T.InitializeParams(
        capabilities=caps, root_uri=root.as_uri(),
        workspace_folders=[T.WorkspaceFolder(root.as_uri(), root.name)], initialization_options=options))
    return client


async def stop(client: LanguageClient) -> None:
    await client.shutdown_session()
    await client.stop()


def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    body = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem(uri, LANGUAGES.get(path.suffix, "html"), 1, body)))
    return uri


def change_doc(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(version, uri), [T.TextDocumentContentChangeWholeDocument(text)]))


async def until(check: Callable[[], bool], timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        await asyncio.sleep(0.005)


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def lint_json(root: Path, tmp: Path, *paths: str) -> list[dict[str, Any]]:
    proc = subprocess.run([sys.executable, "-m", "axag", "lint", "--output-format", "json", "--exit-zero",
                           "--no-cache", *(paths or (".",))], cwd=root, capture_output=True, text=True, check=False,
                          env=env(tmp))
    assert proc.returncode == 0, proc.stderr
    findings: list[dict[str, Any]] = json.loads(proc.stdout)["findings"]
    return findings


def lsp_range(text: str, line: int, column: int) -> tuple[int, int]:
    """Lint's 1-based code-point (line, column) -> LSP's 0-based (line, UTF-16 character)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return line - 1, utf16(lines[line - 1][:column - 1])


def expected(finding: dict[str, Any], text: str) -> tuple[Any, ...]:
    sev = {"error": 1, "warning": 2, "info": 3}[finding["severity"]]
    return (finding["code"], sev, finding["message"], lsp_range(text, finding["line"], finding["column"]),
            lsp_range(text, finding["end_line"], finding["end_column"]), finding["url"])


def actual(diag: T.Diagnostic) -> tuple[Any, ...]:
    assert diag.source == "axag" and diag.code_description is not None
    return (diag.code, int(diag.severity or 0), diag.message, (diag.range.start.line, diag.range.start.character),
            (diag.range.end.line, diag.range.end.character), diag.code_description.href)
