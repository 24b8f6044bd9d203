#!/usr/bin/env node
// Real Credo 0.6.3 OpenID4VCI ISSUER for interop tests, driven through a JSON control API.
// Usage: node issuer.mjs [--port N] [--control-port N]   (0 / absent = free port)
//   env: OID4VC_PORT, OID4VC_CONTROL_PORT, CREDO_LOG (warn by default)
// Prints exactly one stdout line when ready:
//   READY {"issuerBaseUrl":..,"controlUrl":..,"issuers":{..},...}
// Everything else (Credo logs, errors) goes to stderr. All sockets bind 127.0.0.1.
import { parseArgs } from "node:util";
import { ClaimFormat, RecordNotFoundError } from "@credo-ts/core";
import { OpenId4VcIssuanceSessionState } from "@credo-ts/openid4vc";
import { Oauth2ErrorCodes, Oauth2ServerErrorResponseError } from "@openid4vc/oauth2";
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import express from "express";
import { servePeer } from "../peer_lib/control_server.mjs";
import { createOid4vcAgent } from "./lib/agent.mjs";
import { createStatusLists } from "./lib/status_lists.mjs";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.OID4VC_PORT ?? "0" },
    "control-port": { type: "string", default: process.env.OID4VC_CONTROL_PORT ?? "0" },
    // The origin the issuer publishes (metadata, offers, `aud`), e.g. a relay in front of it.
    "public-origin": { type: "string", default: process.env.OID4VC_PUBLIC_ORIGIN ?? "" },
    // Lifetime of access tokens (Credo's default: 180 s).
    "access-token-seconds": { type: "string", default: "" },
  },
});

export const VCT = "https://example.org/vct/identity";
const CONFIGURATION_ID = "IdentityCredential";
/** The same credential, for holders that prove possession with ES256 only. */
const ES256_CONFIGURATION_ID = "IdentityCredentialES256";

/**
 * The issuer kinds: issuer id (= path segment) → signing key type and DID method, and the batch
 * size the issuer publishes (`batch_credential_issuance`), if any.
 */
const ISSUER_KINDS = {
  "ed25519-did-key": { method: "key", type: { kty: "OKP", crv: "Ed25519" }, alg: "EdDSA" },
  "p256-did-jwk": { method: "jwk", type: { kty: "EC", crv: "P-256" }, alg: "ES256" },
  "p256-did-key": { method: "key", type: { kty: "EC", crv: "P-256" }, alg: "ES256" },
  "ed25519-batch": {
    method: "key",
    type: { kty: "OKP", crv: "Ed25519" },
    alg: "EdDSA",
    batchSize: 2,
  },
};

// @sd-jwt/sd-jwt-vc refuses, at issuance, disclosure frames that make iss, nbf, exp, cnf, vct or
// status disclosable. This peer turns that check off so that a test can make Credo issue what a
// careless issuer would (a disclosable vct) and see the holder refuse it. The default frames
// never make those claims disclosable.
SDJwtVcInstance.prototype.validateReservedFields = () => {};

/** Deferred issuances: transaction id → what the deferred endpoint answers next. */
const deferredTransactions = new Map();

const DEFAULT_CLAIMS = {
  given_name: "Erika",
  family_name: "Mustermann",
  birthdate: "1964-08-12",
  issuing_country: "DE",
  address: {
    street_address: "Heidestrasse 17",
    locality: "Koeln",
    country: "DE",
  },
};

/** given_name, family_name, birthdate, address (itself) and address.street_address/locality
 * are selectively disclosable; issuing_country and address.country stay plain. */
const DEFAULT_DISCLOSURE_FRAME = {
  _sd: ["given_name", "family_name", "birthdate", "address"],
  address: { _sd: ["street_address", "locality"] },
};

/** Frame for caller-supplied claims: every key disclosable, recursively into plain objects. */
function allDisclosableFrame(claims) {
  const frame = { _sd: Object.keys(claims) };
  for (const [key, value] of Object.entries(claims)) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      frame[key] = allDisclosableFrame(value);
    }
  }
  return frame;
}

const CLAIMS_METADATA = [
  { path: ["given_name"], display: [{ name: "Given name", locale: "en" }] },
  { path: ["family_name"], display: [{ name: "Family name", locale: "en" }] },
  { path: ["birthdate"], display: [{ name: "Date of birth", locale: "en" }] },
  { path: ["issuing_country"], display: [{ name: "Issuing country", locale: "en" }] },
  { path: ["address"], display: [{ name: "Address", locale: "en" }] },
  { path: ["address", "street_address"], display: [{ name: "Street", locale: "en" }] },
  { path: ["address", "locality"], display: [{ name: "City", locale: "en" }] },
  { path: ["address", "country"], display: [{ name: "Country", locale: "en" }] },
];

function credentialConfiguration(alg, scope, proofAlgs) {
  return {
    format: "dc+sd-jwt",
    vct: VCT,
    scope,
    cryptographic_binding_methods_supported: ["jwk", "did:key", "did:jwk"],
    credential_signing_alg_values_supported: [alg],
    proof_types_supported: {
      jwt: { proof_signing_alg_values_supported: proofAlgs },
    },
    credential_metadata: {
      display: [{ name: "Identity Credential", locale: "en", description: "Interop test" }],
      claims: CLAIMS_METADATA,
    },
  };
}

function credentialConfigurations(alg) {
  return {
    [CONFIGURATION_ID]: credentialConfiguration(
      alg,
      "openid4vc:credential:IdentityCredential",
      ["ES256", "EdDSA"],
    ),
    [ES256_CONFIGURATION_ID]: credentialConfiguration(
      alg,
      "openid4vc:credential:IdentityCredentialES256",
      ["ES256"],
    ),
  };
}

// issuerId → { did, didUrl, alg }
const issuerKeys = new Map();

/** SD-JWT VCs of the session's claims, one bound to each proven holder key. */
function signCredentials(issuanceSession, holderBinding, vct) {
  const key = issuerKeys.get(issuanceSession.issuerId);
  if (!key) throw new Error(`no signing key for issuer ${issuanceSession.issuerId}`);
  const meta = issuanceSession.issuanceMetadata ?? {};
  const claims = meta.claims ?? DEFAULT_CLAIMS;
  const disclosureFrame = meta.disclosureFrame ?? DEFAULT_DISCLOSURE_FRAME;
  return {
    type: "credentials",
    format: ClaimFormat.SdJwtDc,
    credentials: holderBinding.keys.map((binding) => ({
      payload: {
        ...structuredClone(claims),
        vct,
        ...(meta.status ? { status: meta.status } : {}),
      },
      holder: binding,
      issuer: { method: "did", didUrl: key.didUrl },
      disclosureFrame,
    })),
  };
}

/**
 * Maps a credential request to an SD-JWT VC bound to each proven holder key, or, for an offer
 * made with `deferred`, to a deferral the control API later releases or denies.
 */
function credentialRequestToCredentialMapper(
  { issuanceSession, holderBinding, credentialConfiguration },
) {
  const meta = issuanceSession.issuanceMetadata ?? {};
  if (meta.deferred) {
    const transactionId = crypto.randomUUID();
    deferredTransactions.set(transactionId, { sessionId: issuanceSession.id, next: "pending" });
    return { type: "deferral", transactionId, interval: meta.deferred.interval ?? 1 };
  }
  return signCredentials(issuanceSession, holderBinding, credentialConfiguration.vct ?? VCT);
}

/** The deferred endpoint: still pending, the credentials, or `credential_request_denied`. */
function deferredCredentialRequestToCredentialMapper({ issuanceSession, transaction }) {
  const tx = deferredTransactions.get(transaction.transactionId);
  tx.polls = (tx.polls ?? 0) + 1;
  const interval = issuanceSession.issuanceMetadata?.deferred?.interval ?? 1;
  if (tx.next === "deny") {
    throw new Oauth2ServerErrorResponseError({
      error: Oauth2ErrorCodes.CredentialRequestDenied ?? "credential_request_denied",
      error_description: "The issuer decided not to issue this credential.",
    });
  }
  if (tx.next !== "issue") {
    return { type: "deferral", transactionId: transaction.transactionId, interval };
  }
  return signCredentials(issuanceSession, transaction.holderBinding, VCT);
}

// --- HTTP server for the OID4VCI endpoints: listen first, so the base URL (port) is known.
const app = express();
const oidServer = await new Promise((resolve, reject) => {
  const server = app.listen(Number(values.port), "127.0.0.1", (error) => {
    if (error) reject(error);
    else resolve(server);
  });
});
const port = oidServer.address().port;
const origin = values["public-origin"] || `http://127.0.0.1:${port}`;
const issuerBaseUrl = `${origin}/oid4vci`;

const agent = await createOid4vcAgent({
  app,
  issuer: {
    baseUrl: issuerBaseUrl,
    ...(values["access-token-seconds"]
      ? { accessTokenExpiresInSeconds: Number(values["access-token-seconds"]) }
      : {}),
    credentialRequestToCredentialMapper,
    deferredCredentialRequestToCredentialMapper,
  },
});

const issuers = {};
for (const [issuerId, kind] of Object.entries(ISSUER_KINDS)) {
  const { didState } = await agent.dids.create({
    method: kind.method,
    options: { createKey: { type: kind.type } },
  });
  if (didState.state !== "finished") {
    throw new Error(`${issuerId}: DID creation failed: ${JSON.stringify(didState)}`);
  }
  const did = didState.did;
  const didUrl = didState.didDocument.verificationMethod[0].id;
  issuerKeys.set(issuerId, { did, didUrl, alg: kind.alg });
  await agent.openid4vc.issuer.createIssuer({
    issuerId,
    display: [{ name: `Credo Test Issuer (${issuerId})`, locale: "en" }],
    credentialConfigurationsSupported: credentialConfigurations(kind.alg),
    ...(kind.batchSize ? { batchCredentialIssuance: { batchSize: kind.batchSize } } : {}),
  });
  const metadata = await agent.openid4vc.issuer.getIssuerMetadata(issuerId);
  const credentialIssuer = metadata.credentialIssuer.credential_issuer;
  const path = new URL(credentialIssuer).pathname;
  issuers[issuerId] = {
    did,
    didUrl,
    alg: kind.alg,
    credentialIssuer,
    issuerMetadataUrl: `${origin}/.well-known/openid-credential-issuer${path}`,
    authorizationServerMetadataUrl: `${origin}/.well-known/oauth-authorization-server${path}`,
  };
}

const statusLists = await createStatusLists({ agent, app, origin, issuerKeys });

function sessionJson(s) {
  return {
    id: s.id,
    state: s.state,
    issuerId: s.issuerId,
    credentialOfferUri: s.credentialOfferUri ?? null,
    credentialOfferPayload: s.credentialOfferPayload ?? null,
    preAuthorizedCode: s.preAuthorizedCode ?? null,
    txCode: s.userPin ?? null,
    openId4VciVersion: s.openId4VciVersion ?? null,
    issuedCredentials: s.issuedCredentials ?? [],
    errorMessage: s.errorMessage ?? null,
    createdAt: s.createdAt?.toISOString() ?? null,
    updatedAt: s.updatedAt?.toISOString() ?? null,
  };
}

async function createOffer(body) {
  const issuerId = body.issuer ?? "ed25519-did-key";
  const info = issuers[issuerId];
  if (!info) {
    return {
      status: 400,
      body: { error: `unknown issuer ${issuerId}`, issuers: Object.keys(issuers) },
    };
  }
  const claims = body.claims ?? DEFAULT_CLAIMS;
  const disclosureFrame = body.disclosureFrame ??
    (body.claims ? allDisclosableFrame(body.claims) : DEFAULT_DISCLOSURE_FRAME);
  const configurationId = body.configuration ?? CONFIGURATION_ID;
  const deferred = body.deferred ? { interval: body.deferred.interval ?? 1 } : undefined;
  const { credentialOffer, issuanceSession } = await agent.openid4vc.issuer.createCredentialOffer({
    issuerId,
    version: body.version ?? "v1",
    credentialConfigurationIds: [configurationId],
    preAuthorizedCodeFlowConfig: {
      authorizationServerUrl: info.credentialIssuer,
      txCode: body.txCode ? { input_mode: "numeric", length: 4 } : undefined,
    },
    issuanceMetadata: {
      claims,
      disclosureFrame,
      ...(deferred ? { deferred } : {}),
      ...(body.status ? { status: statusLists.claim(body.status) } : {}),
    },
    generateRefreshTokens: body.refreshTokens === true,
  });
  const offer = issuanceSession.credentialOfferPayload;
  const offerUri = body.byValue
    ? `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(offer))}`
    : credentialOffer;
  return {
    status: 200,
    body: {
      offerUri,
      offer,
      credentialOfferUri: issuanceSession.credentialOfferUri ?? null,
      issuanceSessionId: issuanceSession.id,
      issuerDid: info.did,
      issuerKid: info.didUrl,
      credentialIssuer: info.credentialIssuer,
      issuerMetadataUrl: info.issuerMetadataUrl,
      credentialConfigurationId: configurationId,
      vct: VCT,
      claims,
      disclosureFrame,
      txCode: issuanceSession.userPin ?? null,
    },
  };
}

async function handle(method, path, body) {
  if (method === "GET" && path === "/health") {
    return {
      status: 200,
      body: { issuerBaseUrl, issuers, rssMb: Math.round(process.memoryUsage().rss / 1048576) },
    };
  }
  if (method === "GET" && path === "/issuers") return { status: 200, body: issuers };
  if (method === "POST" && path === "/offers") return await createOffer(body);
  const d = /^\/sessions\/([^/]+)\/deferred$/.exec(path);
  if (d) return deferredControl(method, decodeURIComponent(d[1]), body);
  const statusAnswer = await statusLists.handle(method, path, body);
  if (statusAnswer) return statusAnswer;
  const m = /^\/sessions\/([^/]+)$/.exec(path);
  if (method === "GET" && m) {
    const session = await agent.openid4vc.issuer.getIssuanceSessionById(decodeURIComponent(m[1]));
    return { status: 200, body: sessionJson(session) };
  }
  if (method === "POST" && (path === "/stop" || path === "/shutdown")) {
    setImmediate(shutdown);
    return { status: 200, body: { ok: true } };
  }
  return { status: 404, body: { error: `no route ${method} ${path}` } };
}

/**
 * `GET /sessions/{id}/deferred` → the session's deferred transactions (`next`, `polls`);
 * `POST` `{"next": "issue" | "deny" | "pending"}` sets what their next poll gets.
 */
function deferredControl(method, sessionId, body) {
  const txs = [...deferredTransactions.entries()].filter(([, t]) => t.sessionId === sessionId);
  if (method === "POST") {
    if (!["issue", "deny", "pending"].includes(body.next)) {
      return { status: 400, body: { error: "next must be issue, deny or pending" } };
    }
    for (const [, t] of txs) t.next = body.next;
  } else if (method !== "GET") return { status: 405, body: { error: "GET or POST" } };
  return {
    status: 200,
    body: { transactions: txs.map(([transactionId, t]) => ({ transactionId, ...t })) },
  };
}

const shutdown = servePeer({
  port: Number(values["control-port"]),
  handle,
  isNotFound: (error) => error instanceof RecordNotFoundError,
  ready: (server) => ({
    issuerBaseUrl,
    controlUrl: `http://127.0.0.1:${server.address().port}`,
    port,
    controlPort: server.address().port,
    issuers,
    sessionStates: Object.values(OpenId4VcIssuanceSessionState),
  }),
  close: async () => {
    oidServer.closeAllConnections?.();
    oidServer.close();
    await agent.shutdown().catch((error) => console.error("shutdown error", error));
  },
});
