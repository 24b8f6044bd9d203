import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../src/config/config.ts";

const base = {
  AUTH_PUBLIC_KEY:
    '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}',
  AUTH_ISSUER: "https://idp.example/realms/x",
  AUTH_AUDIENCE: "ssi-edge",
  SECRETS_KEY: btoa("x".repeat(32)),
};

function refuses(env: Record<string, string | undefined>, names: string) {
  assert.throws(() => parseConfig(env), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
    assert.match(err.message, new RegExp(names));
    return true;
  });
}

Deno.test("parseConfig accepts a complete production environment with defaults", () => {
  const c = parseConfig(base);
  assert.equal(c.port, 8000);
  assert.equal(c.kvPath, undefined);
  assert.equal(c.publicUrl, "http://localhost:8000");
  assert.deepEqual(c.auth.algorithms, ["RS256", "ES256", "EdDSA"]);
  assert.deepEqual(c.auth.audience, ["ssi-edge"]);
  assert.equal(c.outbound.requireHttps, true);
  assert.equal(c.outbound.allowPrivate, false);
  assert.equal(c.didCacheTtlSeconds, 300);
  assert.equal(c.didCacheMaxStaleSeconds, 86400);
  assert.equal(c.didResolutionPublic, false);
  assert.equal(c.secretsKey?.length, 32);
});

Deno.test("parseConfig refuses to start without an auth key, issuer, audience or secrets key outside dev", () => {
  refuses({ ...base, AUTH_PUBLIC_KEY: undefined }, "AUTH_JWKS_URL or AUTH_PUBLIC_KEY");
  refuses({ ...base, AUTH_ISSUER: undefined }, "AUTH_ISSUER");
  refuses({ ...base, AUTH_AUDIENCE: undefined }, "AUTH_AUDIENCE");
  refuses({ ...base, SECRETS_KEY: undefined }, "SECRETS_KEY");
});

Deno.test("parseConfig names the malformed variable", () => {
  refuses({ ...base, PORT: "eighty" }, "PORT");
  refuses({ ...base, PORT: "70000" }, "PORT");
  refuses({ ...base, DEV_MODE: "maybe" }, "DEV_MODE");
  refuses({ ...base, OUTBOUND_ALLOW_PRIVATE: "yes please" }, "OUTBOUND_ALLOW_PRIVATE");
  refuses({ ...base, SECRETS_KEY: btoa("short") }, "SECRETS_KEY");
  refuses({ ...base, SECRETS_KEY: "!!!not base64" }, "SECRETS_KEY");
  refuses({ ...base, AUTH_JWKS_URL: "ftp://idp/certs" }, "AUTH_JWKS_URL");
  refuses({ ...base, PUBLIC_URL: "not a url" }, "PUBLIC_URL");
  refuses({ ...base, AUTH_ALGORITHMS: "HS256" }, "AUTH_ALGORITHMS");
  refuses({ ...base, AUTH_ALGORITHMS: "none" }, "AUTH_ALGORITHMS");
  refuses({ ...base, AUTH_PUBLIC_KEY: "hello" }, "AUTH_PUBLIC_KEY");
  refuses({ ...base, AUTH_PUBLIC_KEY: '{"kty":"OKP","d":"secret","x":"a"}' }, "AUTH_PUBLIC_KEY");
  refuses({ ...base, DID_CACHE_TTL_SECONDS: "-1" }, "DID_CACHE_TTL_SECONDS");
  refuses({ ...base, DID_CACHE_MAX_STALE_SECONDS: "a day" }, "DID_CACHE_MAX_STALE_SECONDS");
  refuses({ ...base, DID_CACHE_MAX_STALE_SECONDS: "-5" }, "DID_CACHE_MAX_STALE_SECONDS");
  refuses({ ...base, UNIVERSAL_RESOLVER_URL: "resolver" }, "UNIVERSAL_RESOLVER_URL");
});

Deno.test("parseConfig relaxes defaults in DEV_MODE but never turns auth off", () => {
  const c = parseConfig({ DEV_MODE: "true" });
  assert.equal(c.devMode, true);
  assert.equal(c.kvPath, ".data/kv.sqlite3");
  assert.equal(c.outbound.requireHttps, false);
  assert.equal(c.secretsKey, undefined); // filled from .data/ by main.ts
  assert.equal(c.auth.issuer, "urn:ssi-edge:dev");
});

Deno.test("DEV_MODE lets outbound calls reach private addresses; an explicit OUTBOUND_ALLOW_PRIVATE wins", () => {
  const allow = (env: Record<string, string>) => parseConfig(env).outbound.allowPrivate;
  assert.equal(allow({ DEV_MODE: "true" }), true);
  assert.equal(allow({ DEV_MODE: "true", OUTBOUND_ALLOW_PRIVATE: "false" }), false);
  assert.equal(allow(base), false);
  assert.equal(allow({ ...base, DEV_MODE: "false" }), false);
  assert.equal(allow({ ...base, OUTBOUND_ALLOW_PRIVATE: "true" }), true);
});

Deno.test("the service process exits 1 with a message naming the variable", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "src/main.ts"],
    env: { ...base, AUTH_ISSUER: "", PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  assert.match(new TextDecoder().decode(out.stderr), /AUTH_ISSUER is required/);
});

Deno.test("parseConfig reads the listen address from LISTEN_HOST (never HOSTNAME) and the outbox lease", () => {
  const c = parseConfig({ ...base, HOSTNAME: "my-container-7f9c" });
  assert.equal(c.listenHost, "0.0.0.0");
  assert.equal(c.outboxLeaseSeconds, 30);
  assert.equal(parseConfig({ ...base, DEV_MODE: "true" }).listenHost, "127.0.0.1");
  assert.equal(parseConfig({ ...base, LISTEN_HOST: "::" }).listenHost, "::");
  assert.equal(parseConfig({ ...base, LISTEN_HOST: "[::1]" }).listenHost, "::1");
  assert.equal(parseConfig({ ...base, LISTEN_HOST: "localhost" }).listenHost, "localhost");
  assert.equal(parseConfig({ ...base, OUTBOX_LEASE_SECONDS: "5" }).outboxLeaseSeconds, 5);
  refuses({ ...base, LISTEN_HOST: "not a host!" }, "LISTEN_HOST");
  refuses({ ...base, OUTBOX_LEASE_SECONDS: "abc" }, "OUTBOX_LEASE_SECONDS must be an integer");
  refuses({ ...base, OUTBOX_LEASE_SECONDS: "0" }, "OUTBOX_LEASE_SECONDS");
});

Deno.test("KV_PATH may be a KV Connect URL, which needs DENO_KV_ACCESS_TOKEN", () => {
  const url = "https://kv.internal.example:4512";
  assert.equal(parseConfig({ ...base, KV_PATH: url, DENO_KV_ACCESS_TOKEN: "t0k" }).kvPath, url);
  refuses({ ...base, KV_PATH: url }, "DENO_KV_ACCESS_TOKEN");
  refuses(
    { ...base, KV_PATH: "ftp://kv.example", DENO_KV_ACCESS_TOKEN: "t" },
    "not a KV Connect URL",
  );
  refuses(
    { ...base, KV_PATH: "https://u:p@kv.example", DENO_KV_ACCESS_TOKEN: "t" },
    "no user info",
  );
  assert.equal(
    parseConfig({ ...base, KV_PATH: "/var/lib/ssi/kv.sqlite3" }).kvPath,
    "/var/lib/ssi/kv.sqlite3",
  );
});

Deno.test("parseConfig reads JSONLD_CONTEXT_ALLOW (http(s) prefixes) and CREDENTIAL_STATUS_RECHECK_SECONDS", () => {
  const d = parseConfig(base);
  assert.deepEqual(d.jsonldContextAllow, []);
  assert.equal(d.credentialStatusRecheckSeconds, 86400);
  const c = parseConfig({
    ...base,
    JSONLD_CONTEXT_ALLOW: "https://contexts.example.org/, http://127.0.0.1:4000/ctx/",
    CREDENTIAL_STATUS_RECHECK_SECONDS: "0",
  });
  assert.deepEqual(c.jsonldContextAllow, [
    "https://contexts.example.org/",
    "http://127.0.0.1:4000/ctx/",
  ]);
  assert.equal(c.credentialStatusRecheckSeconds, 0);
  refuses({ ...base, JSONLD_CONTEXT_ALLOW: "contexts.example.org" }, "JSONLD_CONTEXT_ALLOW");
  refuses({ ...base, JSONLD_CONTEXT_ALLOW: "ftp://example.org/" }, "JSONLD_CONTEXT_ALLOW");
  refuses({ ...base, JSONLD_CONTEXT_ALLOW: "https://example.org" }, 'end the prefix .* with "/"');
  refuses(
    { ...base, CREDENTIAL_STATUS_RECHECK_SECONDS: "-1" },
    "CREDENTIAL_STATUS_RECHECK_SECONDS",
  );
  refuses(
    { ...base, CREDENTIAL_STATUS_RECHECK_SECONDS: "soon" },
    "CREDENTIAL_STATUS_RECHECK_SECONDS",
  );
});

Deno.test("parseConfig reads CORS_ORIGINS as web origins, as browsers send them", () => {
  assert.deepEqual(parseConfig(base).corsOrigins, []);
  const c = parseConfig({
    ...base,
    CORS_ORIGINS: "https://Wallet.Example, http://localhost:5173/, https://app.example:8443",
  });
  assert.deepEqual(c.corsOrigins, [
    "https://wallet.example",
    "http://localhost:5173",
    "https://app.example:8443",
  ]);
  refuses({ ...base, CORS_ORIGINS: "wallet.example" }, "CORS_ORIGINS must be .* web origins");
  refuses({ ...base, CORS_ORIGINS: "*" }, "CORS_ORIGINS must be .* web origins");
  refuses({ ...base, CORS_ORIGINS: "ftp://wallet.example" }, "CORS_ORIGINS");
  refuses(
    { ...base, CORS_ORIGINS: "https://wallet.example/app" },
    'not an origin .* write "https://wallet.example"',
  );
  refuses({ ...base, CORS_ORIGINS: "https://u@wallet.example" }, "CORS_ORIGINS: .* not an origin");
});
