"""`axag serve --http --oauth-issuer URL --oauth-audience URL`: an OAuth 2.1 resource server.

The MCP SDK gives the protected-resource metadata route (RFC 9728), the bearer middleware (401 with
``resource_metadata``, 403 ``insufficient_scope``) and the `TokenVerifier` protocol; this module adds what it
lacks: a verifier of JWT access tokens (RFC 9068) signed with a key of the issuer's JWKS, found through the
issuer's RFC 8414 or OpenID Connect metadata, with PyJWT doing all of the JOSE work. A key set is kept for
`JWKS_TTL` seconds and fetched again early for a token whose ``kid`` it does not hold, at most once every
`REFETCH_INTERVAL` seconds, so a stream of tokens naming made-up keys cannot make serve fetch the JWKS per
request.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx

from axag.outcome.errors import InputError

__all__ = ["ALGORITHMS", "DEFAULT_ROLES_CLAIM", "JwtVerifier", "KeySet", "OAuthSettings", "discover_jwks_uri",
           "scope_tokens"]

log = logging.getLogger("axag.serve")

# Asymmetric algorithms only: a shared-secret HS* token could be forged by anyone who can read the JWKS of an
# issuer that publishes an `oct` key, and `none` is never a signature.
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
DEFAULT_ROLES_CLAIM = "roles"  # RFC 9068 §2.2.3.1 (the SCIM `roles` attribute); Microsoft Entra ID uses it too
LEEWAY = 30.0  # seconds of clock skew allowed on exp / nbf / iat
JWKS_TTL = 300.0
REFETCH_INTERVAL = 30.0
FETCH_TIMEOUT = 10.0
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
# RFC 9068 §4 asks for "at+jwt"; Keycloak and Microsoft Entra ID send "JWT" and some issuers none, so those pass
# too, while a JWT of another kind (logout+jwt, dpop+jwt, secevent+jwt ...) does not
_ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt", "jwt")
_SCOPE_TOKEN = re.compile(r"^[\x21\x23-\x5b\x5d-\x7e]+$")  # RFC 6749 §3.3 scope-token


@dataclass(frozen=True)
class OAuthSettings:
    """What `--oauth-*` and `--allow-static-tokens` say."""

    issuer: str
    audience: str  # the resource (RFC 8707): the URL clients reach this server's MCP endpoint at
    scopes: tuple[str, ...] = ()
    roles_claim: str = DEFAULT_ROLES_CLAIM
    allow_static_tokens: bool = False

    def __post_init__(self) -> None:
        _check_url("--oauth-issuer", self.issuer, query_ok=False)
        _check_url("--oauth-audience", self.audience, query_ok=False)
        for scope in self.scopes:
            if not _SCOPE_TOKEN.match(scope):
                raise InputError(f"--oauth-scopes {scope!r}: not an OAuth scope (RFC 6749 §3.3: printable ASCII "
                                 "without spaces, quotes or backslashes)")
        if not self.roles_claim.strip():
            raise InputError("--oauth-roles-claim: expected a claim name")


def _check_url(flag: str, url: str, *, query_ok: bool) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise InputError(f"{flag} {url}: expected an https:// URL")
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
        raise InputError(f"{flag} {url}: expected an https:// URL (http:// only on a loopback host)")
    if parts.fragment or (parts.query and not query_ok):
        raise InputError(f"{flag} {url}: a query or fragment is not allowed here")


def scope_tokens(values: Iterable[str]) -> tuple[str, ...]:
    """``("a b", "c")`` -> ``("a", "b", "c")``: the scopes of repeated, space-separated `--oauth-scopes`."""
    out: list[str] = []
    for value in values:
        out.extend(s for s in value.split() if s not in out)
    return tuple(out)


async def _get_json(client: httpx.AsyncClient, url: str) -> Any:
    answer = await client.get(url, headers={"Accept": "application/json"})
    if answer.status_code != 200:
        return None
    try:
        return answer.json()
    except ValueError:
        return None


async def discover_jwks_uri(issuer: str, client: httpx.AsyncClient) -> str:
    """The ``jwks_uri`` of ``issuer``'s metadata, tried at the RFC 8414 and OpenID Connect well-known URLs in the
    order the MCP SDK's own client tries them. The metadata must name ``issuer`` exactly (RFC 8414 §3.3)."""
    from mcp.client.auth.utils import build_oauth_authorization_server_metadata_discovery_urls

    tried = []
    for url in build_oauth_authorization_server_metadata_discovery_urls(issuer, issuer):
        tried.append(url)
        try:
            meta = await _get_json(client, url)
        except httpx.HTTPError as exc:
            raise InputError(f"--oauth-issuer {issuer}: cannot read {url}: {type(exc).__name__}: {exc}") from exc
        if not isinstance(meta, dict):
            continue
        if meta.get("issuer") != issuer:
            raise InputError(f"--oauth-issuer {issuer}: the metadata at {url} names another issuer "
                             f"({meta.get('issuer')!r}); RFC 8414 requires them to be equal")
        jwks_uri = meta.get("jwks_uri")
        if not isinstance(jwks_uri, str):
            raise InputError(f"--oauth-issuer {issuer}: the metadata at {url} has no jwks_uri")
        _check_url("jwks_uri", jwks_uri, query_ok=True)
        return jwks_uri
    raise InputError(f"--oauth-issuer {issuer}: no authorization-server metadata at {', '.join(tried)}")


class KeySet:
    """The issuer's JWKS, fetched on first use, kept for `JWKS_TTL` s, fetched again for an unknown ``kid`` at
    most once per `REFETCH_INTERVAL` s (one fetch at a time: concurrent callers wait for the same one)."""

    def __init__(self, issuer: str, client: httpx.AsyncClient, *, ttl: float = JWKS_TTL,
                 refetch_interval: float = REFETCH_INTERVAL) -> None:
        self.issuer = issuer
        self.client = client
        self.ttl = ttl
        self.refetch_interval = refetch_interval
        self.jwks_uri: str | None = None
        self.keys: list[dict[str, Any]] = []
        self.fetched_at: float | None = None
        self.fetches = 0
        self._lock = anyio.Lock()

    async def load(self) -> None:
        """Discover the JWKS and fetch it now (start-up: a wrong issuer fails at once)."""
        async with self._lock:
            await self._fetch()

    async def _fetch(self) -> None:
        if self.jwks_uri is None:
            self.jwks_uri = await discover_jwks_uri(self.issuer, self.client)
        self.fetches += 1
        self.fetched_at = time.monotonic()
        try:
            doc = await _get_json(self.client, self.jwks_uri)
        except httpx.HTTPError as exc:
            log.warning("axag serve: cannot fetch the JWKS %s: %s: %s", self.jwks_uri, type(exc).__name__, exc)
            return
        keys = doc.get("keys") if isinstance(doc, dict) else None
        if not isinstance(keys, list):
            log.warning("axag serve: %s is not a JWKS; keeping the keys held", self.jwks_uri)
            return
        self.keys = [k for k in keys if isinstance(k, dict) and k.get("use", "sig") == "sig"]

    async def candidates(self, kid: str | None) -> list[dict[str, Any]]:
        """The keys a token whose header names ``kid`` may be checked with (all keys when it names none)."""
        now = time.monotonic()
        if self.fetched_at is not None and now - self.fetched_at < self.ttl:
            found = self._matching(kid)
            if found:  # the common case takes no lock: it never waits behind a fetch for somebody else's kid
                return found
        async with self._lock:
            if self.fetched_at is None or now - self.fetched_at >= self.ttl:
                await self._fetch()
            found = self._matching(kid)
            if not found and self.fetched_at is not None and now - self.fetched_at >= self.refetch_interval:
                await self._fetch()  # a key the issuer has just rotated in
                found = self._matching(kid)
            return found

    def _matching(self, kid: str | None) -> list[dict[str, Any]]:
        return [k for k in self.keys if kid is None or k.get("kid") == kid]


def _claim(claims: dict[str, Any], name: str) -> Any:
    """The claim ``name``; a dotted name reaches into objects (``realm_access.roles``) when no claim has the
    dotted name itself (namespaced claims such as ``https://example.com/roles`` are looked up whole first)."""
    if name in claims:
        return claims[name]
    value: Any = claims
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _words(value: Any) -> list[str]:
    """A space-separated string or a list of strings (anything else counts as nothing)."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


class JwtVerifier:
    """The SDK's `TokenVerifier` for JWT access tokens of one issuer for one resource; with
    ``allow_static_tokens`` the tokens of `axag serve token add` are accepted too (looked up first)."""

    def __init__(self, settings: OAuthSettings, keys: KeySet, store: Any = None) -> None:
        self.settings = settings
        self.keys = keys
        self.store = store if settings.allow_static_tokens else None

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        if self.store is not None:
            found = await self.store.atoken_identity(token)
            if found is not None:
                name, roles = found
                # a static token holds every required scope and counts as issued for this resource
                return AccessToken(token=token, client_id=name, scopes=list(self.settings.scopes), subject=name,
                                   resource=self.settings.audience, claims={"roles": list(roles)})
        claims = await self.claims(token)
        if claims is None:
            return None
        sub = claims["sub"]
        if self.store is not None and any(row["name"] == sub for row in self.store.tokens()):
            log.warning("axag serve: refused a token of %s whose sub %r is also the name of a static token; "
                        "rename the static token (`axag serve token revoke`)", self.settings.issuer, sub)
            return None
        scopes = _words(claims.get("scope")) or _words(claims.get("scp"))
        roles = _words(_claim(claims, self.settings.roles_claim))
        client = claims.get("client_id") or claims.get("azp") or sub
        return AccessToken(token=token, client_id=str(client), scopes=scopes, expires_at=int(claims["exp"]),
                           resource=self.settings.audience, subject=sub,
                           claims={"roles": roles, "iss": claims["iss"]})

    async def claims(self, token: str) -> dict[str, Any] | None:
        """The claims of ``token`` when it is a JWT signed by one of the issuer's keys with an allowed
        algorithm, issued by the issuer for this resource, and current; else None (the reason is logged)."""
        import jwt

        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            log.info("axag serve: refused a bearer token: not a JWT (%s)", exc)
            return None
        alg, kid, typ = header.get("alg"), header.get("kid"), header.get("typ")
        if typ is not None and (not isinstance(typ, str) or typ.lower() not in _ACCESS_TOKEN_TYPES):
            log.info("axag serve: refused a bearer token: typ %r is not an access token's", typ)
            return None
        if alg not in ALGORITHMS:
            log.info("axag serve: refused a bearer token: algorithm %r is not allowed", alg)
            return None
        if kid is not None and not isinstance(kid, str):
            return None
        keys = await self.keys.candidates(kid)
        if not keys:
            log.info("axag serve: refused a bearer token: the issuer has no key %r", kid)
            return None
        last: Exception | None = None
        for jwk in keys:
            if jwk.get("alg") not in (None, alg):
                continue
            try:
                key = jwt.PyJWK(jwk, algorithm=alg)
            except (jwt.PyJWTError, ValueError, TypeError) as exc:  # a key of another type than alg's
                last = exc
                continue
            try:
                claims: dict[str, Any] = jwt.decode(
                    token, key, algorithms=[alg], audience=self.settings.audience, issuer=self.settings.issuer,
                    leeway=LEEWAY, options={"require": ["exp", "iss", "aud", "sub"], "strict_aud": False})
            except jwt.InvalidSignatureError as exc:
                last = exc
                continue
            except (jwt.PyJWTError, ValueError, TypeError) as exc:
                log.info("axag serve: refused a bearer token: %s", exc)
                return None
            if not isinstance(claims.get("sub"), str) or not claims["sub"]:
                log.info("axag serve: refused a bearer token: no sub")
                return None
            return claims
        log.info("axag serve: refused a bearer token: %s", last or f"no key of the issuer is for {alg}")
        return None


class _ScopeChallenges:
    """ASGI middleware: the 401 and 403 ``WWW-Authenticate: Bearer`` challenges name the scopes this server
    requires (``scope="…"``, RFC 6750 §3; the MCP SDK's middleware leaves it out)."""

    def __init__(self, app: Any, scopes: tuple[str, ...]) -> None:
        self.app = app
        self.extra = f', scope="{" ".join(scopes)}"'.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def sending(message: Any) -> None:
            if message.get("type") == "http.response.start" and message.get("status") in (401, 403):
                message = dict(message)
                message["headers"] = [(k, v + self.extra if k.lower() == b"www-authenticate" and b"scope=" not in v
                                       else v) for k, v in message.get("headers", [])]
            await send(message)

        await self.app(scope, receive, sending)


async def oauth_app(tools: Any, host: str, oauth: OAuthSettings) -> tuple[Any, httpx.AsyncClient]:
    """The streamable HTTP app of ``tools`` as a resource server of ``oauth.issuer`` (the SDK's Starlette app, so
    routes can be added beside `/mcp`; the JWKS is read now, so a wrong issuer stops serve at start-up), and the
    HTTP client its key set uses (the caller closes it)."""
    from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
    from mcp.server.auth.routes import cors_middleware
    from mcp.server.auth.settings import AuthSettings
    from mcp.shared.auth import ProtectedResourceMetadata
    from starlette.routing import Route

    client = httpx.AsyncClient(timeout=FETCH_TIMEOUT, follow_redirects=False)
    try:
        keys = KeySet(oauth.issuer, client)
        await keys.load()
        if not keys.keys:
            raise InputError(f"--oauth-issuer {oauth.issuer}: its JWKS {keys.jwks_uri} has no signing key")
    except BaseException:
        await client.aclose()
        raise
    # URLs as strings: these models keep a path-less URL as given (no trailing slash), as RFC 8414 §3.3 and the
    # clients' exact comparison of issuers require
    auth = AuthSettings(issuer_url=oauth.issuer, resource_server_url=oauth.audience,  # type: ignore[arg-type]
                        required_scopes=list(oauth.scopes), validate_token_resource=True)
    # RFC 9728 §3.1 puts the metadata of https://host/mcp at /.well-known/oauth-protected-resource/mcp (the SDK
    # serves that one); clients of earlier drafts look at the bare well-known path, served here too.
    metadata = ProtectedResourceMetadata(resource=oauth.audience,  # type: ignore[arg-type]
                                         authorization_servers=[oauth.issuer],  # type: ignore[list-item]
                                         scopes_supported=list(oauth.scopes), bearer_methods_supported=["header"])
    root = Route("/.well-known/oauth-protected-resource", methods=["GET", "OPTIONS"],
                 endpoint=cors_middleware(ProtectedResourceMetadataHandler(metadata).handle, ["GET", "OPTIONS"]))
    app = tools.server.streamable_http_app(host=host, auth=auth, token_verifier=JwtVerifier(oauth, keys, tools.store),
                                           custom_starlette_routes=[root])
    if oauth.scopes:
        app.add_middleware(_ScopeChallenges, scopes=oauth.scopes)
    return app, client
