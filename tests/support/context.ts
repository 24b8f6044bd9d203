/** Test support: a real app on a fresh KV, with an identity provider key the test owns. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import * as jose from "jose";
import { createApp } from "../../src/app.ts";
import { type BuildOptions, buildServices, type Services } from "../../src/compose.ts";
import { type Config, parseConfig } from "../../src/config/config.ts";
import type { AppEnv } from "../../src/http/mod.ts";
import { readinessCheck } from "../../src/boot/readiness.ts";
import { setLogLevel } from "../../src/base/log.ts";

setLogLevel((Deno.env.get("TEST_LOG_LEVEL") as "error") ?? "error");

export const TEST_ISSUER = "https://idp.test/realms/ssi";
export const TEST_AUDIENCE = "ssi-edge";

/** A key pair acting as the identity provider. */
export interface TestIdp {
  privateKey: jose.CryptoKey;
  publicJwk: jose.JWK;
  alg: string;
}

/** Makes an identity provider key (ES256 by default). */
export async function createIdp(alg = "ES256"): Promise<TestIdp> {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await jose.exportJWK(publicKey)), kid: "k1", alg }, alg };
}

/** Signs a token with the IdP: roles per org go to `resource_access`. */
export async function signToken(
  idp: TestIdp,
  opts: {
    orgs?: Record<string, string[]>;
    sub?: string | null;
    iss?: string;
    aud?: string;
    expiresIn?: string | number;
    extra?: Record<string, unknown>;
  } = {},
): Promise<string> {
  const resource_access = Object.fromEntries(
    Object.entries(opts.orgs ?? {}).map(([o, roles]) => [o, { roles }]),
  );
  const jwt = new jose.SignJWT({ resource_access, ...opts.extra })
    .setProtectedHeader({ alg: idp.alg, kid: "k1" })
    .setIssuer(opts.iss ?? TEST_ISSUER)
    .setAudience(opts.aud ?? TEST_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(opts.expiresIn ?? "10m");
  if (opts.sub !== null) jwt.setSubject(opts.sub ?? "user-1");
  return await jwt.sign(idp.privateKey);
}

/** A test context: app, services, KV; `close()` releases everything. */
export interface TestContext {
  app: ReturnType<typeof createApp>;
  /** Every service, built by the service's own composition (`buildServices`). */
  services: Services;
  idp: TestIdp;
  kv: Deno.Kv;
  /** Token for `orgs` (default `{"org-a": ["owner"]}`). */
  token(orgs?: Record<string, string[]>, sub?: string): Promise<string>;
  /** app.request with JSON body and optional bearer token. */
  call(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** Options of a test context. */
export interface ContextOptions {
  /**
   * Environment over the test defaults (a test IdP, plain HTTP and private addresses allowed); an
   * `undefined` entry unsets a default.
   */
  env?: Record<string, string | undefined>;
  now?: () => number;
  kvPath?: string;
  idp?: TestIdp;
  /** Verify IdP tokens through this JWKS URL instead of the IdP's static key. */
  jwksUrl?: string;
  /** Overrides handed to `buildServices` (the clock is `now`). */
  build?: Omit<BuildOptions, "now">;
  /** Extra routers mounted after the features (tests of the HTTP plumbing). */
  extraRoutes?: (services: Services) => OpenAPIHono<AppEnv>[];
  /** The handle the services get, made from the real one (`ctx.kv` stays the real one). */
  wrapKv?: (kv: Deno.Kv) => Deno.Kv;
}

/** A random SECRETS_KEY. */
export function randomSecretsKey(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
}

/**
 * Builds the real app on a fresh `:memory:` KV (or `kvPath`) with the service's own composition
 * (`buildServices`), as `main.ts` does; the dispatcher polls every 50 ms.
 */
export async function createTestContext(opts: ContextOptions = {}): Promise<TestContext> {
  const idp = opts.idp ?? await createIdp();
  const config: Config = parseConfig({
    ...(opts.jwksUrl
      ? { AUTH_JWKS_URL: opts.jwksUrl }
      : { AUTH_PUBLIC_KEY: JSON.stringify(idp.publicJwk) }),
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
    SECRETS_KEY: randomSecretsKey(),
    OUTBOUND_ALLOW_PRIVATE: "true",
    OUTBOUND_REQUIRE_HTTPS: "false",
    PUBLIC_URL: "http://127.0.0.1:8000",
    ...opts.env,
  });
  const kv = await Deno.openKv(opts.kvPath ?? ":memory:");
  const now = opts.now ?? Date.now;
  let services: Services;
  try {
    services = await buildServices(config, opts.wrapKv?.(kv) ?? kv, {
      jwksTimeoutMs: 1000,
      ...opts.build,
      dispatcher: { pollMs: 50, ...opts.build?.dispatcher },
      now,
    });
  } catch (err) {
    kv.close();
    throw err;
  }
  const app = createApp(services, {
    ready: readinessCheck(services),
    extraRoutes: opts.extraRoutes?.(services),
  });
  return {
    app,
    services,
    idp,
    kv,
    token: (orgs = { "org-a": ["owner"] }, sub) => signToken(idp, { orgs, sub }),
    call: (method, path, o = {}) => {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
        headers["content-type"] ??= "application/json";
      }
      return Promise.resolve(app.request(path, { method, headers, body }));
    },
    close: async () => {
      await services.dispatcher.stop();
      kv.close();
    },
  };
}

/** Reads a JSON body after checking status and content type, in that order. */
export async function expectJson(
  res: Response,
  status: number,
): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (res.status !== status) {
    throw new Error(`expected status ${status}, got ${res.status}: ${text}`);
  }
  const ct = res.headers.get("content-type") ?? "";
  if (!ct.includes("json")) throw new Error(`expected a JSON content type, got "${ct}"`);
  return JSON.parse(text);
}

/** A real local HTTP server on 127.0.0.1 with a random port. */
export function serveLocal(handler: (req: Request) => Response | Promise<Response>): {
  url: string;
  port: number;
  close: () => Promise<void>;
} {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handler);
  const port = server.addr.port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => server.shutdown() };
}
