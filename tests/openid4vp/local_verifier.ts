/**
 * A verifier made here, for the OpenID4VP holder's own tests: a real local HTTP server that hosts
 * request objects (signed with keys the test creates: a did:key, or an X.509 chain made with
 * `@peculiar/x509`), records what is posted to its response URIs, answers with a status the test
 * sets, and decrypts `direct_post.jwt` answers with its own key. (The interop tests use Credo's
 * verifier; this one reaches the corners Credo does not produce.)
 */
import assert from "node:assert/strict";
import * as vc from "@digitalbazaar/vc";
import { Ed25519Signature2018 } from "@digitalbazaar/ed25519-signature-2018";
import * as x509 from "@peculiar/x509";
import * as jose from "jose";
import { createDocumentLoader, type ResolveDid } from "../../src/credentials/mod.ts";
import { bytesToVerkey, verkeyToDidKey } from "../../src/crypto/mod.ts";

type Json = Record<string, unknown>;

/** A CA certificate and its keys. */
export interface TestCa {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
}

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** A self-signed P-256 CA. */
export async function makeCa(name = "Test Verifier CA"): Promise<TestCa> {
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: `CN=${name}`,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 86400_000),
    keys,
    signingAlgorithm: alg,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  return { cert, keys };
}

/** A leaf for `dnsName` issued by `ca` (default: a new CA), both P-256 (ES256). */
export async function makeChain(dnsName: string, opts: { ca?: TestCa } = {}) {
  const { cert: ca, keys: caKeys } = opts.ca ?? await makeCa();
  const leafKeys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]) as CryptoKeyPair;
  const now = Date.now();
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: `CN=${dnsName}`,
    issuer: ca.subject,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 86400_000),
    signingKey: caKeys.privateKey,
    publicKey: leafKeys.publicKey,
    signingAlgorithm: alg,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: "dns", value: dnsName }])],
  });
  return {
    caPem: ca.toString("pem"),
    ca: { cert: ca, keys: caKeys },
    x5c: [leaf.toString("base64")],
    leafKey: leafKeys.privateKey,
  };
}

/** Options of {@link LocalVerifier.request}. */
export interface RequestOptions {
  dcql?: Json;
  /** `none` (redirect_uri: client, by value), `did` (signed, by reference), `x509`. */
  signer?: "none" | "did" | "x509";
  responseMode?: "direct_post" | "direct_post.jwt";
  /** Fields over the request payload (a wrong response_uri, transaction_data…). */
  extra?: Json;
  /** x509: the chain and key (default: one made for `localhost` by {@link makeChain}). */
  chain?: Awaited<ReturnType<typeof makeChain>>;
  /** Fetch the request object with POST. */
  post?: boolean;
  /** Fields over the request object's JOSE header (a field is left out where `undefined`). */
  header?: Json;
  /** `none`: the parameters as an unsigned request object (`alg: none`) by value, not a query. */
  unsignedObject?: boolean;
  /**
   * Signed requests: makes the request object from its header and payload instead of the
   * verifier's signature (`sign` is that signature), to serve a forged, tampered or expired one.
   */
  forge?: (
    o: { header: Json; payload: Json; sign: (h: Json, p: Json) => Promise<string> },
  ) => Promise<string>;
}

/** A posted answer. */
export interface Received {
  form: Record<string, string>;
  /** `direct_post.jwt`: the decrypted payload. */
  decrypted?: Json;
}

/** Starts the verifier on a free port, reachable as `host` (127.0.0.1 or localhost). */
export async function startLocalVerifier(host = "127.0.0.1") {
  const did = await jose.generateKeyPair("EdDSA", { extractable: true });
  const didJwk = await jose.exportJWK(did.publicKey);
  const verifierDid = verkeyToDidKey(bytesToVerkey(jose.base64url.decode(didJwk.x!)));
  const enc = await jose.generateKeyPair("ECDH-ES", { crv: "P-256", extractable: true });
  const encJwk = {
    ...(await jose.exportJWK(enc.publicKey)),
    use: "enc",
    alg: "ECDH-ES",
    kid: "e1",
  };
  const objects = new Map<string, { jwt: string; method: string }>();
  const received = new Map<string, Received[]>();
  const fetched: { path: string; method: string; body: string; accept: string | null }[] = [];
  let answer: { status: number; body: Json } = { status: 200, body: {} };
  let n = 0;

  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const body = req.method === "POST" ? await req.text() : "";
    if (url.pathname.startsWith("/req/")) {
      fetched.push({
        path: url.pathname,
        method: req.method,
        body,
        accept: req.headers.get("accept"),
      });
      const o = objects.get(url.pathname.slice(5));
      if (!o || o.method !== req.method) return new Response("no such request", { status: 404 });
      return new Response(o.jwt, {
        headers: { "content-type": "application/oauth-authz-req+jwt" },
      });
    }
    if (url.pathname.startsWith("/cb/") && req.method === "POST") {
      const form = Object.fromEntries(new URLSearchParams(body));
      const r: Received = { form };
      if (form.response) {
        const { plaintext } = await jose.compactDecrypt(form.response, enc.privateKey);
        r.decrypted = JSON.parse(new TextDecoder().decode(plaintext));
      }
      const list = received.get(url.pathname.slice(4)) ?? [];
      list.push(r);
      received.set(url.pathname.slice(4), list);
      return Response.json(answer.body, { status: answer.status });
    }
    return new Response("not found", { status: 404 });
  });
  const origin = `http://${host}:${server.addr.port}`;

  return {
    origin,
    did: verifierDid,
    /** Sets what the response URIs answer from now on. */
    answerWith(status: number, body: Json = {}) {
      answer = { status, body };
    },
    /** What was posted to request `id`'s response URI. */
    received: (id: string) => received.get(id) ?? [],
    /** Every fetch of a request object. */
    fetched,
    /** A request link; `id` names its response URI (`/cb/<id>`) and request object. */
    async request(o: RequestOptions = {}) {
      const id = String(++n);
      const responseUri = `${origin}/cb/${id}`;
      const signer = o.signer ?? "none";
      const mode = o.responseMode ?? "direct_post";
      const chain = signer === "x509" ? o.chain ?? await makeChain(host) : undefined;
      const clientId = signer === "none"
        ? `redirect_uri:${responseUri}`
        : signer === "did"
        ? `decentralized_identifier:${verifierDid}`
        : `x509_san_dns:${host}`;
      const nonce = crypto.randomUUID();
      const payload: Json = {
        response_type: "vp_token",
        client_id: clientId,
        response_mode: mode,
        response_uri: responseUri,
        nonce,
        state: `state-${id}`,
        dcql_query: o.dcql ?? {
          credentials: [{
            id: "pid",
            format: "dc+sd-jwt",
            meta: { vct_values: ["https://example.org/vct/identity"] },
            claims: [{ path: ["given_name"] }],
          }],
        },
        client_metadata: {
          client_name: "Local Test Verifier",
          ...(mode === "direct_post.jwt"
            ? { jwks: { keys: [encJwk] }, encrypted_response_enc_values_supported: ["A256GCM"] }
            : {}),
        },
        ...o.extra,
      };
      const withHeader = (header: Json) => {
        for (const [k, v] of Object.entries(o.header ?? {})) {
          if (v === undefined) delete header[k];
          else header[k] = v;
        }
        return header;
      };
      if (signer === "none" && o.unsignedObject) {
        const header = withHeader({ alg: "none", typ: "oauth-authz-req+jwt" });
        const b64 = (v: Json) => jose.base64url.encode(JSON.stringify(v));
        const q = new URLSearchParams({
          client_id: clientId,
          request: `${b64(header)}.${b64(payload)}.`,
        });
        return { id, nonce, clientId, responseUri, link: `openid4vp://?${q}` };
      }
      if (signer === "none") {
        const q = new URLSearchParams();
        for (const [k, v] of Object.entries(payload)) {
          if (v !== undefined) q.set(k, typeof v === "string" ? v : JSON.stringify(v));
        }
        return { id, nonce, clientId, responseUri, link: `openid4vp://?${q}` };
      }
      const now = Math.floor(Date.now() / 1000);
      const header = withHeader(
        signer === "did"
          ? {
            alg: "EdDSA",
            typ: "oauth-authz-req+jwt",
            kid: `${verifierDid}#${verifierDid.slice(8)}`,
          }
          : { alg: "ES256", typ: "oauth-authz-req+jwt", x5c: chain!.x5c },
      );
      const sign = (h: Json, p: Json) =>
        new jose.SignJWT(p).setProtectedHeader(h as jose.JWTHeaderParameters)
          .sign(signer === "did" ? did.privateKey : chain!.leafKey);
      const signed = { ...payload, iat: now, exp: now + 300 };
      const jwt = o.forge
        ? await o.forge({ header, payload: signed, sign })
        : await sign(header, signed);
      objects.set(id, { jwt, method: o.post ? "POST" : "GET" });
      const q = new URLSearchParams({ client_id: clientId, request_uri: `${origin}/req/${id}` });
      if (o.post) q.set("request_uri_method", "post");
      return { id, nonce, clientId, responseUri, link: `openid4vp://?${q}`, jwt };
    },
    close: () => server.shutdown(),
  };
}

/**
 * Verifies a JSON-LD presentation as a verifier does (Ed25519Signature2018, its `challenge` and
 * `domain`, DIDs through `resolveDid`, `contexts` beside the bundled ones), failing the test if not.
 */
export async function assertVpVerifies(
  vp: Json,
  opts: {
    challenge: string;
    domain: string;
    resolveDid: ResolveDid;
    contexts?: ReadonlyMap<string, object>;
  },
): Promise<void> {
  const result = await vc.verify({
    presentation: vp,
    challenge: opts.challenge,
    domain: opts.domain,
    suite: new Ed25519Signature2018(),
    documentLoader: createDocumentLoader({ resolveDid: opts.resolveDid, contexts: opts.contexts }),
  });
  assert.equal(result.verified, true, JSON.stringify(result.error ?? result, null, 1));
}

/** A started {@link startLocalVerifier}. */
export type LocalVerifier = Awaited<ReturnType<typeof startLocalVerifier>>;
