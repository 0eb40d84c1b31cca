// An OpenID-certified authorization server (npm oidc-provider) for
// hubsnap's OAuth tests, configured from the environment by oauthtest:
//
//   OIDC_PROVIDER_DIR  the npm prefix oidc-provider is installed in
//   OIDC_PORT          the loopback port to listen on (0: any free one)
//   OIDC_KEYS          a JSON file of private JWKs, the signing key first;
//                      created when missing
//   OIDC_ROTATE        "1": put a new generation of keys in front (the old
//                      ones stay published, as in a graceful rotation)
//   OIDC_REDIRECT      the loopback redirect URI of the public clients
//
// Public clients hubsnap-es256, hubsnap-rs256 and hubsnap-eddsa use the
// authorization code flow with PKCE (S256). With resource indicators (RFC
// 8707), an access token for any http(s) resource is a JWT (RFC 9068, typ
// at+jwt) with aud = that resource, scope table:read logic:read
// release:read (as requested), signed with the client's algorithm. The
// account "alice" signs in and consents without a human: /interaction/:uid
// finishes every prompt at once. It prints "listening <issuer>" when ready.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const env = (name) => {
  const v = process.env[name];
  if (v === undefined) throw new Error(`${name} is not set`);
  return v;
};
const require = createRequire(join(env('OIDC_PROVIDER_DIR'), 'package.json'));
const { default: Provider, errors } = await import(pathToFileURL(require.resolve('oidc-provider')).href);

const SCOPES = 'table:read logic:read release:read';
const ACCOUNT = 'alice';
const ALGS = { es256: 'ES256', rs256: 'RS256', eddsa: 'EdDSA' };

// Keys: one generation is an RSA, a P-256 and an Ed25519 key.
function generation(n) {
  const make = (type, options, alg) => {
    const { privateKey } = generateKeyPairSync(type, options);
    return { ...privateKey.export({ format: 'jwk' }), kid: `g${n}-${alg}`, alg, use: 'sig' };
  };
  return [
    make('ec', { namedCurve: 'P-256' }, 'ES256'),
    make('rsa', { modulusLength: 2048 }, 'RS256'),
    make('ed25519', {}, 'EdDSA'),
  ];
}
const keysFile = env('OIDC_KEYS');
let keys = existsSync(keysFile) ? JSON.parse(readFileSync(keysFile, 'utf8')) : [];
if (keys.length === 0 || process.env.OIDC_ROTATE === '1') {
  const n = keys.length / 3 + 1;
  keys = [...generation(n), ...keys];
  writeFileSync(keysFile, JSON.stringify(keys));
}

const server = createServer();
await new Promise((resolve) => server.listen(Number(env('OIDC_PORT')), '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: { keys },
  cookies: { keys: ['hubsnap-oauth-test'] },
  clients: Object.keys(ALGS).map((name) => ({
    client_id: `hubsnap-${name}`,
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    redirect_uris: [env('OIDC_REDIRECT')],
    grant_types: ['authorization_code'],
    response_types: ['code'],
  })),
  findAccount: (ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: (ctx, client, oneOf) => oneOf,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource, client) => {
        if (!/^https?:\/\//.test(resource)) throw new errors.InvalidTarget();
        return {
          scope: SCOPES,
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: ALGS[client.clientId.replace('hubsnap-', '')] } },
        };
      },
    },
  },
});

// The headless sign-in: every prompt (login, then consent) is answered
// for ACCOUNT, granting what the client asked for.
provider.use(async (ctx, next) => {
  if (ctx.method !== 'GET' || !/^\/interaction\/[^/]+$/.test(ctx.path)) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const { prompt, params, session } = details;
  let result;
  if (prompt.name === 'login') {
    result = { login: { accountId: ACCOUNT } };
  } else if (prompt.name === 'consent') {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    const missing = prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    result = { consent: { grantId: await grant.save() } };
  } else {
    ctx.throw(400, `unexpected prompt ${prompt.name}`);
  }
  await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
  ctx.respond = false;
});

server.on('request', provider.callback());
process.on('SIGTERM', () => process.exit(0));
console.log(`listening ${issuer}`);
