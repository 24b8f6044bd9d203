#!/usr/bin/env node
// Real Credo 0.6.3 OpenID4VP VERIFIER (OpenId4VcVerifierModule) for interop tests, driven
// through a JSON control API.
// Usage: node verifier.mjs [--port N] [--control-port N] [--host 127.0.0.1|localhost]
// Prints exactly one stdout line when ready:
//   READY {"verifierBaseUrl":..,"controlUrl":..,"dids":{..},...}
// Everything else goes to stderr. All sockets bind 127.0.0.1.
//
// Besides Credo's own endpoints (request objects at /oid4vp/<verifier>/authorize/<id>, answers
// posted to /oid4vp/<verifier>/authorize?session=<id>), the peer
//   - records every request to those endpoints (method, path, form fields) for the tests;
//   - serves Credo's request object of a session at /variants/<session>/<variant>: `original`
//     (also by POST, for request_uri_method=post), or an altered copy: `tampered` (a payload
//     field changed, Credo's signature kept), `wrong-signer` (re-signed by another DID's key,
//     client_id unchanged), `expired` (re-signed by the verifier's own key with exp in the past);
//   - can go down (its port closed) and come back on the same port.
import { parseArgs } from "node:util";
import { RecordNotFoundError, TypedArrayEncoder } from "@credo-ts/core";
import { OpenId4VcVerificationSessionState } from "@credo-ts/openid4vc";
import express from "express";
import { servePeer } from "../peer_lib/control_server.mjs";
import { createOid4vcAgent, loopbackOnlyFetch } from "./lib/agent.mjs";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.OID4VP_PORT ?? "0" },
    "control-port": { type: "string", default: process.env.OID4VP_CONTROL_PORT ?? "0" },
    host: { type: "string", default: "127.0.0.1" },
  },
});

const VERIFIER_ID = "credo-verifier";
const app = express();
const exchanges = [];

// Record every call to the verifier's endpoints once Credo has answered it (its body parsed).
app.use((req, res, next) => {
  if (!req.path.startsWith("/oid4vp/") && !req.path.startsWith("/variants/")) return next();
  res.on("finish", () => {
    const body = req.body && typeof req.body === "object" ? req.body : {};
    exchanges.push({
      at: new Date().toISOString(),
      method: req.method,
      path: req.path,
      session: typeof req.query.session === "string" ? req.query.session : null,
      fields: Object.keys(body),
      error: typeof body.error === "string" ? body.error : null,
      status: res.statusCode,
    });
  });
  next();
});

let oidServer;
const listen = (port) =>
  new Promise((resolve, reject) => {
    const server = app.listen(port, "127.0.0.1", (error) => (error ? reject(error) : resolve(server)));
  });
oidServer = await listen(Number(values.port));
const port = oidServer.address().port;
const origin = `http://${values.host}:${port}`;
const verifierBaseUrl = `${origin}/oid4vp`;

const agent = await createOid4vcAgent({
  app,
  verifier: { baseUrl: verifierBaseUrl },
  fetch: loopbackOnlyFetch,
});
await agent.openid4vc.verifier.createVerifier({
  verifierId: VERIFIER_ID,
  clientMetadata: { client_name: "Credo Test Verifier" },
});

/** A did:key the verifier signs with, and its KMS key id. */
async function didKey(type) {
  const key = await agent.kms.createKey({ type });
  const { didState } = await agent.dids.create({ method: "key", options: { keyId: key.keyId } });
  if (didState.state !== "finished") throw new Error(`DID creation failed: ${JSON.stringify(didState)}`);
  return {
    did: didState.did,
    didUrl: didState.didDocument.verificationMethod[0].id,
    keyId: key.keyId,
    alg: type.kty === "OKP" ? "EdDSA" : "ES256",
  };
}
const dids = {
  verifier: await didKey({ kty: "OKP", crv: "Ed25519" }),
  other: await didKey({ kty: "OKP", crv: "Ed25519" }),
};

const b64u = (s) => TypedArrayEncoder.toBase64URL(TypedArrayEncoder.fromString(s));
const unb64u = (s) => JSON.parse(TypedArrayEncoder.toUtf8String(TypedArrayEncoder.fromBase64(s)));

/** Signs header + payload with a DID key of the peer (compact JWS). */
async function signJwt(header, payload, signer) {
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`;
  const { signature } = await agent.kms.sign({
    keyId: signer.keyId,
    algorithm: signer.alg,
    data: TypedArrayEncoder.fromString(input),
  });
  return `${input}.${TypedArrayEncoder.toBase64URL(signature)}`;
}

/** Credo's request object of a session, or an altered copy of it. */
async function variant(sessionId, name) {
  const session = await agent.openid4vc.verifier.getVerificationSessionById(sessionId);
  const jwt = session.authorizationRequestJwt;
  if (!jwt) throw new Error(`session ${sessionId} has no signed request object`);
  if (name === "original") return jwt;
  const [h, p, s] = jwt.split(".");
  const header = unb64u(h);
  const payload = unb64u(p);
  if (name === "tampered") {
    return `${h}.${b64u(JSON.stringify({ ...payload, nonce: `${payload.nonce}x` }))}.${s}`;
  }
  if (name === "wrong-signer") {
    return await signJwt({ ...header, kid: dids.other.didUrl }, payload, dids.other);
  }
  if (name === "expired") {
    const now = Math.floor(Date.now() / 1000);
    return await signJwt(header, { ...payload, iat: now - 900, exp: now - 600 }, dids.verifier);
  }
  throw new Error(`unknown variant ${name}`);
}
app.all("/variants/:session/:name", async (req, res) => {
  try {
    const jwt = await variant(req.params.session, req.params.name);
    res.type("application/oauth-authz-req+jwt").status(200).send(jwt);
  } catch (error) {
    res.status(404).json({ error: String(error?.message ?? error) });
  }
});

async function createRequest(body) {
  const signer = body.signer ?? "did";
  const { authorizationRequest, verificationSession } = await agent.openid4vc.verifier
    .createAuthorizationRequest({
      verifierId: VERIFIER_ID,
      requestSigner: signer === "none"
        ? { method: "none" }
        : { method: "did", didUrl: dids.verifier.didUrl },
      responseMode: body.responseMode ?? "direct_post",
      dcql: { query: body.dcql },
      version: "v1",
    });
  return {
    status: 200,
    body: {
      authorizationRequest,
      verificationSessionId: verificationSession.id,
      authorizationRequestId: verificationSession.authorizationRequestId,
      authorizationRequestUri: verificationSession.authorizationRequestUri ?? null,
      variantsUrl: `${origin}/variants/${verificationSession.id}`,
      clientId: signer === "none"
        ? null
        : `decentralized_identifier:${dids.verifier.did}`,
    },
  };
}

/** The session, and once verified what Credo holds: per credential query, the claims. */
async function sessionJson(id) {
  const s = await agent.openid4vc.verifier.getVerificationSessionById(id);
  const out = { id: s.id, state: s.state, errorMessage: s.errorMessage ?? null, presentations: null };
  if (s.state === OpenId4VcVerificationSessionState.ResponseVerified) {
    const verified = await agent.openid4vc.verifier.getVerifiedAuthorizationResponse(id);
    out.presentations = Object.fromEntries(
      Object.entries(verified.dcql?.presentations ?? {}).map(([queryId, list]) => [
        queryId,
        list.map((p) =>
          p.prettyClaims
            ? { format: "dc+sd-jwt", claims: p.prettyClaims, kbJwt: p.kbJwt?.payload ?? null }
            : { format: "ldp_vp", presentation: p.toJSON ? p.toJSON() : p }
        ),
      ]),
    );
  }
  return out;
}

async function handle(method, path, body) {
  if (method === "GET" && path === "/health") return { status: 200, body: { verifierBaseUrl } };
  if (method === "POST" && path === "/requests") return await createRequest(body);
  if (method === "GET" && path === "/exchanges") return { status: 200, body: exchanges };
  const m = /^\/sessions\/([^/]+)$/.exec(path);
  if (method === "GET" && m) return { status: 200, body: await sessionJson(decodeURIComponent(m[1])) };
  if (method === "POST" && path === "/down") {
    oidServer.closeAllConnections?.();
    await new Promise((resolve) => oidServer.close(resolve));
    return { status: 200, body: { down: true } };
  }
  if (method === "POST" && path === "/up") {
    oidServer = await listen(port);
    return { status: 200, body: { down: false } };
  }
  if (method === "POST" && (path === "/stop" || path === "/shutdown")) {
    setImmediate(shutdown);
    return { status: 200, body: { ok: true } };
  }
  return { status: 404, body: { error: `no route ${method} ${path}` } };
}

const shutdown = servePeer({
  port: Number(values["control-port"]),
  handle,
  isNotFound: (error) => error instanceof RecordNotFoundError,
  ready: (server) => ({
    verifierBaseUrl,
    controlUrl: `http://127.0.0.1:${server.address().port}`,
    port,
    dids: { verifier: dids.verifier.did, other: dids.other.did },
    sessionStates: Object.values(OpenId4VcVerificationSessionState),
  }),
  close: async () => {
    oidServer.closeAllConnections?.();
    oidServer.close();
    await agent.shutdown().catch((error) => console.error("shutdown error", error));
  },
});
