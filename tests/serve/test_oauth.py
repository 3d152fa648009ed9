"""`axag serve --http --oauth-issuer URL --oauth-audience URL`: an OAuth 2.1 resource server.

The authorization server is real: panva's oidc-provider (package.json pins it; tests/data/oauth/
authorization_server.mjs) on loopback, issuing RFC 9068 JWT access tokens for RFC 8707 resources through the client
credentials grant. The client is the MCP SDK's own `ClientCredentialsOAuthProvider`: it finds the metadata from
the 401, gets a token from the authorization server and calls a tool. The test keeps the authorization server's
signing key, so that it can also sign the tokens a real server would never issue (expired, for another audience or
issuer) with the very key serve trusts; `alg: none`, an unknown key and another key under the trusted `kid` are
made with PyJWT too. Each refused token answers 401 with the `resource_metadata` challenge; a token without the
required scope 403 `insufficient_scope`."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

try:
    import jwt
    import mcp  # noqa: F401 - the `serve` extra
except ImportError:  # pragma: no cover - a clone without the oauth extra; CI installs it (.[test])
    if os.environ.get("CI"):
        raise
    pytest.skip("axag[serve,oauth] is not installed", allow_module_level=True)

import httpx2
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from hypothesis import given, settings
from hypothesis import strategies as st
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from axag.serve.state import SqliteStore
from tests.conftest import run_axag
from tests.serve.test_serve import _wait_port, add_token
from tests.serve_backend import free_port

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "oauth"
SITE = DATA / "site"
SCOPE = "mcp:call"
SECRETS = {"agent": "agent-secret-1", "visitor": "visitor-secret-2", "ann": "ann-secret-3"}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(DATA), env.get("PYTHONPATH", "")])
    return env


def _ec_key(kid: str) -> tuple[Any, dict[str, Any]]:
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(ECAlgorithm.to_jwk(key))
    jwk.update(kid=kid, alg="ES256", use="sig")
    return key, jwk


@dataclass
class AuthServer:
    issuer: str
    audience: str  # the resource of the serve under test
    other: str  # another resource the same authorization server issues tokens for
    key: Any  # the private key behind kid "k1", which the authorization server signs with
    serve_port: int

    def token(self, client: str, resource: str, scope: str | None = SCOPE) -> str:
        data = {"grant_type": "client_credentials", "resource": resource}
        if scope is not None:
            data["scope"] = scope
        answer = httpx2.post(f"{self.issuer}/token", data=data, auth=(client, SECRETS[client]), timeout=10)
        assert answer.status_code == 200, answer.text
        return str(answer.json()["access_token"])

    def claims(self, **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        claims: dict[str, Any] = {"iss": self.issuer, "aud": self.audience, "sub": "minted", "client_id": "minted",
                                  "iat": now, "exp": now + 300, "scope": SCOPE, "roles": ["clerk"]}
        claims.update(changes)
        return {k: v for k, v in claims.items() if v is not None}

    def mint(self, key: Any = None, kid: str = "k1", alg: str = "ES256", typ: str = "at+jwt", **changes: Any) -> str:
        return jwt.encode(self.claims(**changes), key if key is not None else self.key, algorithm=alg,
                          headers={"kid": kid, "typ": typ})


def _read_line(proc: subprocess.Popen[str], seconds: float) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    if not ready:
        raise RuntimeError("the authorization server did not start")
    return proc.stdout.readline()


@pytest.fixture(scope="module")
def authz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthServer]:
    folder = tmp_path_factory.mktemp("authz")
    serve_port = free_port()
    audience, other = f"http://127.0.0.1:{serve_port}/mcp", f"http://127.0.0.1:{free_port()}/mcp"
    key, jwk = _ec_key("k1")
    config = {
        "keys": [jwk],
        "clients": [
            {"client_id": "agent", "client_secret": SECRETS["agent"], "claims": {"roles": ["clerk"]}},
            {"client_id": "visitor", "client_secret": SECRETS["visitor"], "claims": {"org": {"axag": ["clerk"]}}},
            {"client_id": "ann", "client_secret": SECRETS["ann"], "claims": {"roles": ["clerk"]}},
        ],
        "resources": {audience: f"{SCOPE} other", other: f"{SCOPE} other"},
    }
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    proc = subprocess.Popen(["node", str(DATA / "authorization_server.mjs"), str(folder / "config.json")],
                            cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        issuer = json.loads(_read_line(proc, 30))["issuer"]
        yield AuthServer(issuer=issuer, audience=audience, other=other, key=key, serve_port=serve_port)
    finally:
        proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def serve_cmd(state: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "axag", "serve", str(SITE), "--handlers", "oauth_handlers:HANDLERS",
            "--state", str(state), *extra]


@contextmanager
def serving(port: int, args: list[str], cwd: Path = ROOT) -> Iterator[str]:
    """`axag serve … --http 127.0.0.1:PORT` as a subprocess; yields the MCP endpoint URL; always stopped."""
    proc = subprocess.Popen([*args, "--http", f"127.0.0.1:{port}"], env=_env(), cwd=str(cwd),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.fixture(scope="module")
def oauth_serve(authz: AuthServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, str]]:
    """serve as a resource server of ``authz`` requiring scope mcp:call; its database also holds a static token
    (refused: no --allow-static-tokens)."""
    state = tmp_path_factory.mktemp("serve") / "state.sqlite"
    static = add_token(state, "ann", "clerk")
    args = serve_cmd(state, "--oauth-issuer", authz.issuer, "--oauth-audience", authz.audience,
                     "--oauth-scopes", SCOPE)
    with serving(authz.serve_port, args) as url:
        yield url, state, static


def _list(url: str, token: str | None) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    headers["Accept"] = "application/json, text/event-stream"
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "0"}}}
    return httpx2.post(url, json=body, headers=headers, timeout=10)


def _challenge(port: int) -> str:
    return (f'Bearer error="invalid_token", error_description="Authentication required", '
            f'resource_metadata="http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp", '
            f'scope="{SCOPE}"')


# ---------------------------------------------------------------------------------------------- discovery
def test_protected_resource_metadata_and_the_401_challenge(authz: AuthServer,
                                                           oauth_serve: tuple[str, Path, str]) -> None:
    url, _, _ = oauth_serve
    origin = url.removesuffix("/mcp")
    expected = {"resource": authz.audience, "authorization_servers": [authz.issuer], "scopes_supported": [SCOPE],
                "bearer_methods_supported": ["header"]}
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        answer = httpx2.get(origin + path, timeout=10)
        assert answer.status_code == 200, path
        assert answer.json() == expected, path
    answer = _list(url, None)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == _challenge(authz.serve_port)


class Memory:
    """The SDK client's `TokenStorage`, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def _sdk_call(url: str, issuer: str, client_id: str, text: str) -> tuple[Any, Memory]:
    """The SDK's client-credentials OAuth client: 401 → metadata → token → initialize and call note_add."""
    storage = Memory()
    provider = ClientCredentialsOAuthProvider(server_url=url, storage=storage, client_id=client_id,
                                              client_secret=SECRETS[client_id], issuer=issuer)
    async with httpx2.AsyncClient(auth=provider, timeout=30) as hc, Client(
            streamable_http_client(url, http_client=hc)) as client:
        result = await client.call_tool("note_add", {"text": text})
    return result, storage


def test_the_sdk_oauth_client_discovers_gets_a_token_and_calls(authz: AuthServer,
                                                               oauth_serve: tuple[str, Path, str]) -> None:
    url, state, _ = oauth_serve
    result, storage = asyncio.run(_sdk_call(url, authz.issuer, "agent", "from the agent"))
    assert not result.is_error, result.structured_content
    assert result.structured_content["result"] == {"stored": "from the agent"}
    assert storage.tokens is not None and storage.tokens.scope == SCOPE
    token_claims = jwt.decode(storage.tokens.access_token, options={"verify_signature": False})
    assert (token_claims["aud"], token_claims["iss"], token_claims["sub"]) == (authz.audience, authz.issuer, "agent")
    # the roles come from the `roles` claim: visitor's token has its roles elsewhere, so it lacks clerk here
    result, _ = asyncio.run(_sdk_call(url, authz.issuer, "visitor", "from the visitor"))
    assert result.is_error and result.structured_content["permission"] == "denied", result.structured_content
    assert "the caller lacks the role clerk" in result.structured_content["guidance"]
    rows = SqliteStore(state).audit_rows()
    assert [(r["actor"], r["tool"], r["permission"]) for r in rows if r["tool"] == "note_add"][-2:] == [
        ("agent", "note_add", "not_required"), ("visitor", "note_add", "denied")]


# ---------------------------------------------------------------------------------------------- refused tokens
def _refusals(authz: AuthServer, static: str) -> dict[str, str]:
    other_key, _ = _ec_key("k1")
    unknown_key, _ = _ec_key("k9")
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_jwk = json.loads(ECAlgorithm.to_jwk(authz.key.public_key()))
    now = int(time.time())
    return {
        "wrong audience": authz.mint(aud="http://127.0.0.1:1/mcp"),
        "audience missing": authz.mint(aud=None),
        "expired": authz.mint(iat=now - 900, exp=now - 120),
        "not yet valid": authz.mint(nbf=now + 300),
        "no exp": authz.mint(exp=None),
        "wrong issuer": authz.mint(iss=authz.issuer + "/other"),
        "no sub": authz.mint(sub=None),
        "unknown key": authz.mint(key=unknown_key, kid="k9"),
        "another key under the trusted kid": authz.mint(key=other_key),
        "no kid, another key": jwt.encode(authz.claims(), other_key, algorithm="ES256"),
        "alg none": jwt.encode(authz.claims(), None, algorithm="none", headers={"kid": "k1"}),
        "HS256 keyed with the public JWK": _hs256(authz.claims(), json.dumps(public_jwk).encode()),
        "RS256 under the EC kid": authz.mint(key=rsa_key, alg="RS256"),
        "a real token for another resource": authz.token("agent", authz.other),
        "a static token (no --allow-static-tokens)": static,
        "not a JWT": "axag_not_a_token",
        "a JWT with a tampered payload": _tampered(authz.mint()),
        "typ logout+jwt (not an access token)": authz.mint(typ="logout+jwt"),
    }


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _hs256(claims: dict[str, Any], secret: bytes) -> str:
    """An HS256 token whose secret is public (the issuer's JWK): the algorithm-confusion forgery. Made by hand,
    since PyJWT rightly refuses to use a JWK as an HMAC secret."""
    signing_input = f"{_b64(json.dumps({'alg': 'HS256', 'kid': 'k1'}).encode())}.{_b64(json.dumps(claims).encode())}"
    return f"{signing_input}.{_b64(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())}"


def _tampered(token: str) -> str:
    head, payload, sig = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "admin"
    return f"{head}.{_b64(json.dumps(claims).encode())}.{sig}"


def test_bad_tokens_are_refused_with_401(authz: AuthServer, oauth_serve: tuple[str, Path, str]) -> None:
    url, _, static = oauth_serve
    good = _list(url, authz.mint())
    assert good.status_code == 200, good.text  # the control: a well-formed token signed with the issuer's key
    assert _list(url, authz.token("agent", authz.audience)).status_code == 200
    assert _list(url, authz.mint(typ="JWT")).status_code == 200  # Keycloak's and Entra ID's typ
    answers = {name: _list(url, token) for name, token in _refusals(authz, static).items()}
    assert {name: a.status_code for name, a in answers.items()} == dict.fromkeys(answers, 401)
    assert {a.headers["www-authenticate"] for a in answers.values()} == {_challenge(authz.serve_port)}


def test_a_token_without_the_required_scope_is_403_insufficient_scope(
        authz: AuthServer, oauth_serve: tuple[str, Path, str]) -> None:
    url, _, _ = oauth_serve
    for token in (authz.token("agent", authz.audience, scope="other"), authz.mint(scope="other"),
                  authz.mint(scope=None)):
        answer = _list(url, token)
        assert answer.status_code == 403
        assert answer.headers["www-authenticate"] == (
            f'Bearer error="insufficient_scope", error_description="Required scope: {SCOPE}", '
            f'resource_metadata="http://127.0.0.1:{authz.serve_port}/.well-known/oauth-protected-resource/mcp", '
            f'scope="{SCOPE}"')
        assert answer.json()["error"] == "insufficient_scope"
    assert _list(url, authz.mint(scope=None, scp=[SCOPE, "other"])).status_code == 200  # `scp`, as a list


# ---------------------------------------------------------------------------------------------- static tokens
def test_static_tokens_beside_oauth_with_allow_static_tokens_from_the_configuration(
        authz: AuthServer, oauth_serve: tuple[str, Path, str], tmp_path: Path) -> None:
    """[tool.axag.serve] keys instead of flags: a second serve for the same resource (the first one stopped
    first: the audience names its port), static tokens allowed, roles from a nested claim. A token whose sub is
    the name of a static token is refused: it would act as the static token's holder."""
    _, state, static = oauth_serve
    (tmp_path / "pyproject.toml").write_text(
        "[tool.axag.serve]\n"
        f'oauth-issuer = "{authz.issuer}"\n'
        f'oauth-audience = "{authz.audience}"\n'
        f'oauth-scopes = ["{SCOPE}"]\n'
        'oauth-roles-claim = "org.axag"\n'
        "allow-static-tokens = true\n", encoding="utf-8")
    port = free_port()
    # the audience names the first serve's port: this one listens elsewhere but is the same resource
    with serving(port, serve_cmd(state, "--desk"), cwd=tmp_path) as url:
        answer = _list(url, static)
        assert answer.status_code == 200, answer.text
        # the approval page is not behind OAuth: approvers keep their axag tokens (no bearer challenge here)
        page = httpx2.get(url.removesuffix("/mcp") + "/approvals/no-such-request", timeout=10)
        assert page.status_code == 403 and page.headers["content-type"].startswith("text/html")
        assert "www-authenticate" not in page.headers

        async def calls() -> list[Any]:
            headers = {"Authorization": f"Bearer {static}"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as hc, Client(
                    streamable_http_client(url, http_client=hc)) as client:
                by_static = await client.call_tool("note_add", {"text": "static"})
            headers = {"Authorization": f"Bearer {authz.token('visitor', authz.audience)}"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as hc, Client(
                    streamable_http_client(url, http_client=hc)) as client:
                by_visitor = await client.call_tool("note_add", {"text": "visitor"})
            return [by_static, by_visitor]

        by_static, by_visitor = asyncio.run(calls())
        assert by_static.structured_content["result"] == {"stored": "static"}
        assert by_visitor.structured_content["result"] == {"stored": "visitor"}  # clerk from org.axag
        assert _list(url, authz.token("ann", authz.audience)).status_code == 401  # sub "ann" is a static token
        assert _list(url, "axag_not_a_token").status_code == 401
    rows = [(r["actor"], r["permission"]) for r in SqliteStore(state).audit_rows() if r["tool"] == "note_add"]
    assert rows[-2:] == [("ann", "not_required"), ("visitor", "not_required")]


# ---------------------------------------------------------------------------------------------- options
@pytest.mark.parametrize(("extra", "message"), [
    (["--http", "127.0.0.1:9", "--oauth-issuer", "https://as.example"],
     "--oauth-issuer needs --oauth-audience URL"),
    (["--oauth-issuer", "https://as.example", "--oauth-audience", "https://mcp.example/mcp"],
     "--oauth-issuer is for HTTP mode"),
    (["--http", "127.0.0.1:9", "--oauth-audience", "https://mcp.example/mcp"],
     "--oauth-audience: only with --oauth-issuer"),
    (["--http", "127.0.0.1:9", "--oauth-issuer", "http://as.example", "--oauth-audience", "https://m.example/mcp"],
     "--oauth-issuer http://as.example: expected an https:// URL (http:// only on a loopback host)"),
    (["--http", "127.0.0.1:9", "--oauth-issuer", "https://as.example", "--oauth-audience", "mcp"],
     "--oauth-audience mcp: expected an https:// URL"),
    (["--http", "127.0.0.1:9", "--oauth-issuer", "https://as.example", "--oauth-audience", "https://m.example/#x"],
     "a query or fragment is not allowed here"),
    (["--http", "127.0.0.1:9", "--oauth-issuer", "https://as.example", "--oauth-audience", "https://m.example/mcp",
      "--oauth-scopes", 'a"b'], "--oauth-scopes 'a\"b': not an OAuth scope"),
])
def test_bad_oauth_options_are_refused(extra: list[str], message: str, tmp_path: Path) -> None:
    res = run_axag(["serve", str(SITE), "--allow-unbound", "--state", str(tmp_path / "s.sqlite"), "--isolated",
                    *extra])
    assert res.exit_code == 2 and message in res.stderr, res.stderr


@pytest.mark.parametrize(("line", "message"), [
    ('oauth-scopes = "mcp:call"', '"serve.oauth-scopes" must be an array of strings, not a string'),
    ("oauth-issuer = 1", '"serve.oauth-issuer" must be a string, not an integer'),
    ('allow-static-tokens = "yes"', '"serve.allow-static-tokens" must be a boolean, not a string'),
    ("oauth-roles-claim = []", '"serve.oauth-roles-claim" must be a string, not an array'),
    ('oauth-audience = "https://m.example/mcp"', "--oauth-audience: only with --oauth-issuer"),
])
def test_bad_oauth_configuration_is_refused(line: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "axag.toml").write_text(f"[serve]\n{line}\n", encoding="utf-8")
    res = run_axag(["serve", str(SITE), "--allow-unbound", "--state", str(tmp_path / "s.sqlite"), "--http",
                    "127.0.0.1:9"], cwd=tmp_path)
    assert res.exit_code == 2 and message in res.stderr, res.stderr


def test_an_issuer_without_metadata_stops_serve_at_start(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    res = run_axag(["serve", str(SITE), "--allow-unbound", "--state", str(tmp_path / "s.sqlite"), "--isolated",
                    "--http", f"127.0.0.1:{free_port()}", "--oauth-issuer", dead,
                    "--oauth-audience", "http://127.0.0.1:9/mcp"])
    assert res.exit_code == 2, res.stderr
    assert f"--oauth-issuer {dead}: cannot read {dead}/.well-known/oauth-authorization-server: ConnectError" in (
        res.stderr)


# ---------------------------------------------------------------------------------------------- the key set
class _Issuer(BaseHTTPRequestHandler):
    """An issuer's metadata and JWKS on loopback, counting the JWKS fetches (the key-set tests)."""

    jwks: ClassVar[dict[str, Any]] = {"keys": []}
    fetches: ClassVar[int] = 0
    gate: ClassVar[threading.Event | None] = None  # when set, a JWKS fetch waits for it

    def do_GET(self) -> None:
        issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        if self.path == "/.well-known/oauth-authorization-server":
            body: Any = {"issuer": issuer, "jwks_uri": issuer + "/jwks", "token_endpoint": issuer + "/token"}
        elif self.path == "/jwks":
            type(self).fetches += 1
            if self.gate is not None:
                self.gate.wait(10)
            body = self.jwks
        else:
            self.send_error(404)
            return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def jwks_issuer(keys: list[dict[str, Any]]) -> Iterator[tuple[str, type[_Issuer]]]:
    handler = type("Issuer", (_Issuer,), {"jwks": {"keys": keys}, "fetches": 0, "gate": None})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def _verifier(issuer: str, audience: str, refetch: float) -> Any:
    import httpx

    from axag.serve.oauth import JwtVerifier, KeySet, OAuthSettings

    client = httpx.AsyncClient(timeout=5)
    keys = KeySet(issuer, client, ttl=3600, refetch_interval=refetch)
    return JwtVerifier(OAuthSettings(issuer=issuer, audience=audience, scopes=(SCOPE,)), keys), client


def test_an_unknown_kid_refetches_the_jwks_at_most_once_per_interval_and_a_rotated_key_is_accepted() -> None:
    k1, jwk1 = _ec_key("k1")
    k2, jwk2 = _ec_key("k2")
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk3 = json.loads(RSAAlgorithm.to_jwk(rsa_key.public_key()))
    jwk3.update(kid="k3")  # no alg: the token's PS256 is used (it is on the allow-list)
    audience = "http://127.0.0.1:9/mcp"
    with jwks_issuer([jwk1]) as (issuer, handler):
        def token(key: Any, kid: str, alg: str = "ES256") -> str:
            now = int(time.time())
            return jwt.encode({"iss": issuer, "aud": audience, "sub": "s", "exp": now + 60, "scope": SCOPE}, key,
                              algorithm=alg, headers={"kid": kid})

        async def go() -> None:
            verifier, client = _verifier(issuer, audience, refetch=0.5)
            try:
                await verifier.keys.load()
                assert handler.fetches == 1
                assert (await verifier.verify_token(token(k1, "k1"))).subject == "s"
                handler.jwks = {"keys": [jwk1, jwk2, jwk3]}  # the issuer rotates a key in
                # within the interval: 50 tokens naming keys serve does not hold, one fetch at most
                bogus = [verifier.verify_token(token(k2, f"made-up-{i}")) for i in range(50)]
                assert await asyncio.gather(*bogus) == [None] * 50
                assert await verifier.verify_token(token(k2, "k2")) is None
                assert handler.fetches == 1
                await asyncio.sleep(0.6)
                assert (await verifier.verify_token(token(k2, "k2"))).subject == "s"  # fetched again, accepted
                assert handler.fetches == 2
                assert (await verifier.verify_token(token(rsa_key, "k3", "PS256"))).subject == "s"
                assert handler.fetches == 2
                await asyncio.sleep(0.6)
                await asyncio.gather(*[verifier.verify_token(token(k2, f"again-{i}")) for i in range(20)])
                assert handler.fetches == 3  # the interval had passed once more: one fetch for all twenty
            finally:
                await client.aclose()

        asyncio.run(go())


def test_a_known_key_is_not_held_up_by_a_fetch_for_an_unknown_kid() -> None:
    k1, jwk1 = _ec_key("k1")
    audience = "http://127.0.0.1:9/mcp"
    with jwks_issuer([jwk1]) as (issuer, handler):
        def token(kid: str) -> str:
            return jwt.encode({"iss": issuer, "aud": audience, "sub": "s", "exp": int(time.time()) + 60}, k1,
                              algorithm="ES256", headers={"kid": kid})

        async def go() -> None:
            verifier, client = _verifier(issuer, audience, refetch=0)
            try:
                await verifier.keys.load()
                handler.gate = threading.Event()
                stuck = asyncio.ensure_future(verifier.verify_token(token("rotated-in")))
                while handler.fetches < 2:  # the fetch for the unknown kid is now in flight, and held
                    await asyncio.sleep(0.01)
                assert (await verifier.verify_token(token("k1"))).subject == "s"
                assert not stuck.done()
                handler.gate.set()
                assert await stuck is None
            finally:
                if handler.gate is not None:
                    handler.gate.set()
                await client.aclose()

        asyncio.run(go())


_CHANGES = st.fixed_dictionaries({}, optional={
    "aud": st.sampled_from(["other", "list-with", "list-without", "missing"]),
    "iss": st.sampled_from(["other", "missing", "trailing-slash"]),
    "exp": st.sampled_from([-3600, -40, -20, 20, 3600, None]),
    "nbf": st.sampled_from([-3600, 20, 40, 3600]),
    "scope": st.sampled_from(["none", "other", "both"]),
    "signer": st.sampled_from(["unknown-key", "stranger-under-kid", "none-alg"]),
})


_K1, _JWK1 = _ec_key("k1")
_STRANGER, _ = _ec_key("k1")


@pytest.fixture(scope="module")
def k1_issuer() -> Iterator[str]:
    with jwks_issuer([_JWK1]) as (issuer, _):
        yield issuer


@settings(max_examples=40, deadline=None)
@given(changes=_CHANGES)
def test_property_a_token_is_accepted_exactly_when_every_check_passes(changes: dict[str, Any],
                                                                      k1_issuer: str) -> None:
    """Any mix of the faults is refused; a token with none is accepted (leeway 30 s on exp and nbf; the times
    are 10 s from the edge either side, so that a slow machine, or a second that ends between signing and
    checking, cannot move a token across it)."""
    k1, stranger, issuer = _K1, _STRANGER, k1_issuer
    audience = "http://127.0.0.1:9/mcp"
    now = int(time.time())
    claims: dict[str, Any] = {"iss": issuer, "aud": audience, "sub": "s", "exp": now + 300, "scope": SCOPE}
    aud = changes.get("aud")
    if aud is not None:
        claims["aud"] = {"other": "http://127.0.0.1:9/other", "list-with": ["x", audience],
                         "list-without": ["x", "y"], "missing": None}[aud]
    iss = changes.get("iss")
    if iss is not None:
        claims["iss"] = {"other": "https://evil.example", "missing": None, "trailing-slash": issuer + "/"}[iss]
    if "exp" in changes:
        claims["exp"] = None if changes["exp"] is None else now + changes["exp"]
    if "nbf" in changes:
        claims["nbf"] = now + changes["nbf"]
    if "scope" in changes:
        claims["scope"] = {"none": None, "other": "other", "both": f"other {SCOPE}"}[changes["scope"]]
    claims = {k: v for k, v in claims.items() if v is not None}
    signer = changes.get("signer")
    if signer == "none-alg":
        token = jwt.encode(claims, None, algorithm="none", headers={"kid": "k1"})
    else:
        key, kid = {None: (k1, "k1"), "unknown-key": (stranger, "k7"),
                    "stranger-under-kid": (stranger, "k1")}[signer]
        token = jwt.encode(claims, key, algorithm="ES256", headers={"kid": kid})
    accepted = (aud in (None, "list-with") and iss is None and changes.get("exp", 20) not in (-3600, -40, None)
                and changes.get("nbf", -3600) in (-3600, 20) and signer is None)

    async def go() -> Any:
        verifier, client = _verifier(issuer, audience, refetch=3600)
        try:
            return await verifier.verify_token(token)
        finally:
            await client.aclose()

    found = asyncio.run(go())
    assert (found is not None) == accepted, (changes, found)
    if found is not None:  # the scopes are the middleware's to check (403): reported as the token has them
        scopes = {"none": [], "other": ["other"], "both": ["other", SCOPE]}.get(changes.get("scope", ""), [SCOPE])
        assert (found.subject, found.resource, found.scopes) == ("s", audience, scopes)
