/**
 * The public key that signed a JWT of a credential's issuer (a `statuslist+jwt` here, an SD-JWT VC
 * in `credentials/sd_jwt/`), from the header's `kid`: for an issuer DID, a verification method of that DID
 * (relative `#0` or absolute, in `verificationMethod` or embedded in `assertionMethod`) that is
 * listed under `assertionMethod` when the document lists any; for an https issuer, its
 * `/.well-known/jwt-vc-issuer` metadata. Where the DID document and the metadata come from is the
 * caller's ({@link IssuerKeySources}); {@link issuerKeySources} is the status feature's.
 *
 * @module
 */
import type * as jose from "jose";
import {
  type DidResolver,
  keyFromVerificationMethod,
  publicKeyToJwk,
  type VerificationMethod,
} from "../did/mod.ts";
import type { SafeFetch } from "../outbound/mod.ts";
import { obj } from "../base/mod.ts";

type Json = Record<string, unknown>;
/** Why no key: a sentence the caller puts in its own message. */
export class IssuerKeyError extends Error {}

/** Where an issuer's keys are read from. */
export interface IssuerKeySources {
  /** The DID document of `did`, or why there is none. */
  resolveDid: (did: string) => Promise<Json | string>;
  /** A JSON object from an https URL (the issuer's metadata, its JWKS), or null. */
  getJson: (url: string) => Promise<Json | null>;
}

/** What {@link issuerKeySources} uses. */
export interface IssuerKeyDeps {
  resolver: Pick<DidResolver, "resolve">;
  safeFetch: SafeFetch;
}

/** The sources over this service's resolver and safe client (a failed fetch reads as null). */
export function issuerKeySources(deps: IssuerKeyDeps): IssuerKeySources {
  return {
    resolveDid: async (did) => {
      const r = await deps.resolver.resolve(did);
      return (r.didDocument as Json | null) ?? String(r.didResolutionMetadata.error);
    },
    getJson: (url) => getJson(deps.safeFetch, url),
  };
}

/** The JWK of `kid` (from `header`) of `issuer`; throws {@link IssuerKeyError}. */
export async function issuerJwk(
  sources: IssuerKeySources,
  issuer: string,
  header: Json,
): Promise<jose.JWK> {
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const fail = (why: string): never => {
    throw new IssuerKeyError(why);
  };
  if (issuer.startsWith("did:")) {
    if (!kid) return fail("the JWT names no kid");
    const vmId = kid.startsWith("#") ? issuer + kid : kid;
    if (vmId.split("#")[0] !== issuer) {
      return fail(`kid ${kid} is not a key of the issuer ${issuer}`);
    }
    const doc = await sources.resolveDid(issuer);
    if (typeof doc === "string") return fail(`the issuer DID ${issuer} did not resolve (${doc})`);
    const matches = (id: unknown) =>
      typeof id === "string" && (id === vmId || issuer + id === vmId);
    const methods = [
      ...(Array.isArray(doc.verificationMethod) ? doc.verificationMethod : []),
      ...(Array.isArray(doc.assertionMethod) ? doc.assertionMethod : []),
    ];
    const vm = methods.map(obj).find((m) => m && matches(m.id));
    if (!vm) return fail(`the issuer DID document has no verification method ${vmId}`);
    if (Array.isArray(doc.assertionMethod)) {
      const listed = doc.assertionMethod.some((a) =>
        matches(typeof a === "string" ? a : obj(a)?.id)
      );
      if (!listed) return fail(`${vmId} is not an assertionMethod of ${issuer}`);
    }
    const jwk = obj(vm.publicKeyJwk);
    if (jwk) return jwk as jose.JWK;
    const key = keyFromVerificationMethod(vm as unknown as VerificationMethod);
    if (!key.ok) return fail(`the issuer key ${vmId} cannot be read: ${key.message}`);
    return publicKeyToJwk(key.value.keyType, key.value.publicKey) as unknown as jose.JWK;
  }
  if (!issuer.startsWith("https://")) {
    return fail(`the issuer "${issuer}" is neither a DID nor an https URL`);
  }
  const u = new URL(issuer);
  const meta = await sources.getJson(
    `${u.origin}/.well-known/jwt-vc-issuer${u.pathname.replace(/\/$/, "")}`,
  );
  if (!meta || meta.issuer !== issuer) {
    return fail(`${issuer} publishes no jwt-vc-issuer metadata for itself`);
  }
  let jwks = obj(meta.jwks);
  if (!jwks && typeof meta.jwks_uri === "string") {
    jwks = (await sources.getJson(meta.jwks_uri)) ?? undefined;
  }
  const keys = (Array.isArray(jwks?.keys) ? jwks.keys : []).map(obj).filter((k) => k);
  const key = kid ? keys.find((k) => k!.kid === kid) : keys.length === 1 ? keys[0] : undefined;
  if (!key) return fail(`the jwt-vc-issuer metadata of ${issuer} has no key ${kid ?? "(no kid)"}`);
  return key as jose.JWK;
}

async function getJson(safeFetch: SafeFetch, url: string): Promise<Json | null> {
  try {
    const res = await safeFetch(url, {
      headers: { accept: "application/json" },
      maxBytes: 256 * 1024,
    });
    if (res.status !== 200) return null;
    return obj(JSON.parse(new TextDecoder().decode(res.body))) ?? null;
  } catch {
    return null;
  }
}
