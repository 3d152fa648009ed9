// A real OAuth 2.1 authorization server for the `axag serve --oauth-issuer` tests: panva's oidc-provider
// (package.json pins it) with the client credentials grant, resource indicators (RFC 8707) and JWT access
// tokens (RFC 9068). It listens on 127.0.0.1 on an ephemeral port and prints {"issuer": URL} on stdout.
//
// node authorization_server.mjs CONFIG.json, CONFIG being
//   {"keys": [private JWK...],                      the signing keys (the tests keep one to mint bad tokens)
//    "clients": [{"client_id", "client_secret", "claims": {...}}...],  claims: added to the client's tokens
//    "resources": {"URL": "scope scope..."}}       the resources a token may be requested for, and their scopes
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import Provider, { errors } from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const claims = Object.fromEntries(config.clients.map((c) => [c.client_id, c.claims ?? {}]));
const scopes = new Set(Object.values(config.resources).flatMap((s) => s.split(' ')));

const server = createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: config.keys },
    scopes: ['openid', ...scopes],
    clients: config.clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
      scope: [...scopes].join(' '),
    })),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource) => {
          if (!(resource in config.resources)) throw new errors.InvalidTarget();
          return {
            scope: config.resources[resource],
            audience: resource,
            accessTokenTTL: 600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    extraTokenClaims: (ctx, token) => claims[token.clientId] ?? {},
  });
  server.on('request', provider.callback());
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
