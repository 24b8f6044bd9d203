/**
 * Test support for status lists: issuers with real keys (Ed25519 did:key), status list
 * credentials signed with the service's own JSON-LD signer, `statuslist+jwt`s signed with jose,
 * a real local HTTP host serving them (counting requests, able to go down), and the set-up of the
 * list tests (the service on an injected clock, a host, an issuer).
 */
import { createList } from "@digitalbazaar/vc-bitstring-status-list";
import { createHeaderAndPayload, StatusList } from "@sd-jwt/jwt-status-list";
import * as jose from "jose";
import { b64u } from "../../src/crypto/mod.ts";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import { didKeyIdentity, type TestIdentity } from "../credentials/jsonld/test_keys.ts";
import { createTestContext } from "../support/context.ts";
import { holdPort } from "../support/ports.ts";

/** An issuer: a did:key identity with its key as a jose key for JWTs. */
export interface TestIssuer extends TestIdentity {
  /** `#z6Mk…`: the relative kid of its one key. */
  kid: string;
  jwtKey: jose.CryptoKey;
}

/** A new Ed25519 did:key issuer. */
export async function testIssuer(): Promise<TestIssuer> {
  const id = didKeyIdentity();
  const jwk = {
    kty: "OKP",
    crv: "Ed25519",
    x: b64u(id.keyPair.publicKey),
    d: b64u(id.keyPair.secretKey),
  };
  return {
    ...id,
    kid: `#${id.did.slice("did:key:".length)}`,
    jwtKey: await jose.importJWK(jwk, "EdDSA") as jose.CryptoKey,
  };
}

/** A `statuslist+jwt` for `uri` with `statuses` (index → value), signed by `signer`. */
export async function tokenListJwt(opts: {
  uri: string;
  statuses: Record<number, number>;
  signer: TestIssuer;
  /** The header kid (default the signer's relative kid). */
  kid?: string;
  bits?: 1 | 2 | 4 | 8;
  length?: number;
  iat?: number;
  ttl?: number;
  exp?: number;
  sub?: string;
  typ?: string;
}): Promise<string> {
  const list = new StatusList(new Array(opts.length ?? 1024).fill(0), opts.bits ?? 2);
  for (const [i, v] of Object.entries(opts.statuses)) list.setStatus(Number(i), v);
  const { header, payload } = createHeaderAndPayload(
    list,
    {
      sub: opts.sub ?? opts.uri,
      iat: opts.iat ?? Math.floor(Date.now() / 1000),
      ...(opts.ttl !== undefined ? { ttl: opts.ttl } : {}),
      ...(opts.exp !== undefined ? { exp: opts.exp } : {}),
    },
    { alg: "EdDSA", typ: "statuslist+jwt", kid: opts.kid ?? opts.signer.kid },
  );
  return await new jose.SignJWT(payload as jose.JWTPayload)
    .setProtectedHeader({ ...header, typ: opts.typ ?? header.typ } as jose.JWTHeaderParameters)
    .sign(opts.signer.jwtKey);
}

/** An SD-JWT VC (no disclosures) of `issuer` whose signed payload has `status`. */
export async function sdJwtWithStatus(
  issuer: TestIssuer,
  status?: unknown,
): Promise<string> {
  const jwt = await new jose.SignJWT({
    iss: issuer.did,
    vct: "https://example.org/vct/test",
    iat: Math.floor(Date.now() / 1000),
    cnf: { jwk: { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" } },
    ...(status !== undefined ? { status } : {}),
  }).setProtectedHeader({ alg: "EdDSA", typ: "dc+sd-jwt", kid: issuer.kid }).sign(issuer.jwtKey);
  return `${jwt}~`;
}

/** What a status list credential is made of. */
export interface ListOptions {
  url: string;
  purpose?: string;
  set?: number[];
  length?: number;
  ttl?: number;
  expirationDate?: string;
  type?: "BitstringStatusList" | "StatusList2021";
}

/**
 * A Bitstring Status List (or, with `type: "StatusList2021"`, a Status List 2021) credential at
 * `url`, issued by `issuer` with bits `set` on, signed by `signer` (default the issuer).
 */
export async function listCredential(
  opts: ListOptions & { issuer: TestIssuer; signer?: TestIssuer },
): Promise<Record<string, unknown>> {
  const credential = await unsignedListCredential({ ...opts, issuer: opts.issuer.did });
  const signer = opts.signer ?? opts.issuer;
  return await signCredential(credential, {
    keyPair: { ...signer.keyPair, controller: signer.did },
    suite: "Ed25519Signature2018",
  });
}

/** The same credential unsigned (VC 1.1), issued by the DID `issuer`, for another signer. */
export async function unsignedListCredential(
  opts: ListOptions & { issuer: string },
): Promise<Record<string, unknown>> {
  const list = await createList({ length: opts.length ?? 131072 });
  for (const i of opts.set ?? []) list.setStatus(i, true);
  const encoded = await list.encode() as string;
  const sl2021 = opts.type === "StatusList2021";
  return {
    "@context": [
      "https://www.w3.org/2018/credentials/v1",
      sl2021
        ? "https://w3id.org/vc/status-list/2021/v1"
        : "https://www.w3.org/ns/credentials/status/v1",
    ],
    id: opts.url,
    type: [
      "VerifiableCredential",
      sl2021 ? "StatusList2021Credential" : "BitstringStatusListCredential",
    ],
    issuer: opts.issuer,
    issuanceDate: "2024-01-01T00:00:00Z",
    ...(opts.expirationDate ? { expirationDate: opts.expirationDate } : {}),
    credentialSubject: {
      id: `${opts.url}#list`,
      type: opts.type ?? "BitstringStatusList",
      statusPurpose: opts.purpose ?? "revocation",
      encodedList: sl2021 ? encoded.slice(1) : encoded,
      ...(opts.ttl !== undefined ? { ttl: opts.ttl } : {}),
    },
  };
}

/** A status entry pointing at `url`, index `index`. */
export function entry(
  url: string,
  index: number,
  purpose = "revocation",
  type = "BitstringStatusListEntry",
): Record<string, unknown> {
  return {
    id: `${url}#${index}-${purpose}`,
    type,
    statusPurpose: purpose,
    statusListIndex: String(index),
    statusListCredential: url,
  };
}

/**
 * A real local host serving documents by path; counts requests; can go down (`down`: its server
 * stops and its port is held, every connection closed at once, so no other test takes the port
 * while the lists' URLs still name it).
 */
export function listHost() {
  const docs = new Map<string, { body: string; type: string }>();
  let hits = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
    hits++;
    const doc = docs.get(new URL(req.url).pathname);
    return doc
      ? new Response(doc.body, { headers: { "content-type": doc.type } })
      : new Response("not found", { status: 404 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  let closed = false;
  let held: { close(): Promise<void> } | undefined;
  return {
    base,
    url: (path: string) => `${base}${path}`,
    hits: () => hits,
    serveJson: (path: string, doc: unknown) =>
      docs.set(path, { body: JSON.stringify(doc), type: "application/vc+ld+json" }),
    serveJwt: (path: string, jwt: string) =>
      docs.set(path, { body: jwt, type: "application/statuslist+jwt" }),
    /** The host is down from now on: connections to its port fail. */
    down: async () => {
      if (closed) return;
      closed = true;
      await server.shutdown();
      held = holdPort(server.addr.port);
    },
    close: async () => {
      await held?.close();
      if (closed) return;
      closed = true;
      await server.shutdown();
    },
  };
}

/** Where the injected clock of {@link statusSetup} starts. */
export const T0 = Date.parse("2026-01-01T00:00:00Z");

/**
 * The service on an injected clock (from {@link T0}; lists without a `ttl` kept 300 s), a list
 * host and an issuer; `close` stops both.
 */
export async function statusSetup() {
  let t = T0;
  const ctx = await createTestContext({ now: () => t, env: { DID_CACHE_TTL_SECONDS: "300" } });
  const host = listHost();
  const issuer = await testIssuer();
  return {
    ctx,
    host,
    issuer,
    advance: (ms: number) => (t += ms),
    nowS: () => Math.floor(t / 1000),
    close: async () => {
      await host.close();
      await ctx.close();
    },
  };
}
