/**
 * Credentials put in an org's stores for the OpenID4VP holder's own tests: SD-JWT VCs issued here
 * with `@sd-jwt/core` (a test issuer's Ed25519 key, `cnf` the org's agent key) and JSON-LD
 * credentials signed here (Ed25519Signature2018), written through the stores' own functions.
 */
import { SDJwtInstance } from "@sd-jwt/core";
import { sha256 } from "@noble/hashes/sha2.js";
import * as jose from "jose";
import { bytesToVerkey, verkeyToDidKey } from "../../src/crypto/mod.ts";
import type { DocumentLoader } from "../../src/credentials/mod.ts";
import { signCredential } from "../../src/credentials/jsonld/sign.ts";
import type { W3cCredentialRecord } from "../../src/credentials/mod.ts";
import { uuidv7 } from "../../src/kv/mod.ts";
import type { TestContext } from "../support/context.ts";

type Json = Record<string, unknown>;
export const VCT = "https://example.org/vct/identity";

const issuer = await jose.generateKeyPair("EdDSA", { extractable: true });
const issuerJwk = await jose.exportJWK(issuer.privateKey);
export const issuerDid = verkeyToDidKey(bytesToVerkey(jose.base64url.decode(issuerJwk.x!)));

/** The org agent's did:key and its key id. */
export async function orgDid(ctx: TestContext, orgId: string) {
  const agent = await ctx.services.wallet.identity(orgId);
  const did = verkeyToDidKey(agent!.verkey);
  return { did, kid: `${did}#${did.slice(8)}` };
}

/** Stores an SD-JWT VC of `claims` (every top-level claim and nested object disclosable). */
export async function storeSdJwt(
  ctx: TestContext,
  orgId: string,
  claims: Json,
  opts: { vct?: string; cnf?: Json; frame?: Json; status?: Json; createdAt?: string } = {},
): Promise<string> {
  const sdjwt = new SDJwtInstance({
    hasher: (d: string | ArrayBuffer) =>
      sha256(typeof d === "string" ? new TextEncoder().encode(d) : new Uint8Array(d)),
    signer: async (input: string) =>
      (await new jose.CompactSign(new TextEncoder().encode(input))
        .setProtectedHeader({ alg: "EdDSA" }).sign(issuer.privateKey)).split(".")[2]!,
    signAlg: "EdDSA",
    saltGenerator: () => jose.base64url.encode(crypto.getRandomValues(new Uint8Array(16))),
  });
  const frame = opts.frame ?? allDisclosable(claims);
  const payload = {
    iss: issuerDid,
    vct: opts.vct ?? VCT,
    iat: Math.floor(Date.now() / 1000),
    cnf: opts.cnf ?? { kid: (await orgDid(ctx, orgId)).kid },
    ...claims,
  };
  const compact = await sdjwt.issue(payload as never, frame as never, {
    header: { typ: "dc+sd-jwt", kid: `#${issuerDid.slice(8)}` },
  });
  const now = Date.now();
  const id = uuidv7(now);
  const op = ctx.kv.atomic();
  // With a status when one is given, as a check on receipt would have recorded it.
  ctx.services.credentials.add(
    op,
    orgId,
    {
      format: "dc+sd-jwt",
      record: {
        id,
        orgId,
        offerId: "00000000-0000-7000-8000-000000000000",
        vct: payload.vct,
        issuer: issuerDid,
        claims: payload,
        compact,
        createdAt: opts.createdAt ?? new Date(now).toISOString(),
      },
    },
    opts.status
      ? { state: opts.status.state, checkedAt: new Date(now).toISOString() } as never
      : undefined,
  );
  await op.commit();
  return id;
}

/** A disclosure frame making every key (recursively into objects, and array elements) disclosable. */
export function allDisclosable(claims: Json): Json {
  const frame: Json = { _sd: Object.keys(claims) };
  for (const [k, v] of Object.entries(claims)) {
    if (Array.isArray(v)) frame[k] = { _sd: v.map((_, i) => i) };
    else if (v && typeof v === "object") frame[k] = allDisclosable(v as Json);
  }
  return frame;
}

/**
 * Stores a JSON-LD credential about the org's DID with `subject` claims, signed here. By default
 * its vocabulary is an inline context; `opts.context` names a context URL instead (with its type
 * and the document loader that has it, for the signature).
 */
export async function storeW3c(
  ctx: TestContext,
  orgId: string,
  subject: Json,
  opts: { context?: string; type?: string; documentLoader?: DocumentLoader } = {},
): Promise<string> {
  const { did } = await orgDid(ctx, orgId);
  const seed = jose.base64url.decode(issuerJwk.d!);
  const publicKey = jose.base64url.decode(issuerJwk.x!);
  const type = opts.type ?? "UniversityDegreeCredential";
  const credential = await signCredential({
    "@context": [
      "https://www.w3.org/2018/credentials/v1",
      opts.context ?? {
        name: "https://schema.org/name",
        degree: "https://schema.org/award",
        UniversityDegreeCredential: "https://example.org/UniversityDegreeCredential",
      },
    ],
    type: ["VerifiableCredential", type],
    issuer: issuerDid,
    issuanceDate: new Date().toISOString(),
    credentialSubject: { id: did, ...subject },
  }, {
    keyPair: {
      id: `${issuerDid}#${issuerDid.slice(8)}`,
      controller: issuerDid,
      publicKey,
      secretKey: seed,
    },
    suite: "Ed25519Signature2018",
    ...(opts.documentLoader ? { documentLoader: opts.documentLoader } : {}),
  });
  const now = Date.now();
  const record: W3cCredentialRecord = {
    id: uuidv7(now),
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
    credential,
    credentialExchangeId: "00000000-0000-7000-8000-000000000001",
    connectionId: "00000000-0000-7000-8000-000000000002",
    _tags: {
      claimFormat: "ldp_vc",
      issuerId: issuerDid,
      subjectIds: [did],
      contexts: ["https://www.w3.org/2018/credentials/v1", ...(opts.context ? [opts.context] : [])],
      types: ["VerifiableCredential", type],
      proofTypes: ["Ed25519Signature2018"],
    },
  };
  const op = ctx.kv.atomic();
  ctx.services.credentials.add(op, orgId, { format: "ldp_vc", record });
  await op.commit();
  return record.id;
}
