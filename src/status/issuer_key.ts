/**
 * The public key that signed a JWT of a credential's issuer (here: a `statuslist+jwt`), from the
 * header's `kid`: for an issuer DID, a verification method of that DID (relative `#0` or
 * absolute), resolved by this service's own resolver and listed under `assertionMethod` when the
 * document lists any; for an https issuer, its `/.well-known/jwt-vc-issuer` metadata (through the
 * outbound client).
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

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? v as Json : undefined;

/** Why no key: becomes part of an `unknown` status's message. */
export class IssuerKeyError extends Error {}

/** What the lookup uses. */
export interface IssuerKeyDeps {
  resolver: Pick<DidResolver, "resolve">;
  safeFetch: SafeFetch;
}

/** The JWK of `kid` (from `header`) of `issuer`; throws {@link IssuerKeyError}. */
export async function issuerJwk(
  deps: IssuerKeyDeps,
  issuer: string,
  header: Json,
): Promise<jose.JWK> {
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const fail = (why: string): never => {
    throw new IssuerKeyError(why);
  };
  if (issuer.startsWith("did:")) {
    if (!kid) return fail("it names no kid");
    const vmId = kid.startsWith("#") ? issuer + kid : kid;
    if (vmId.split("#")[0] !== issuer) return fail(`its kid ${kid} is not a key of ${issuer}`);
    const r = await deps.resolver.resolve(issuer);
    const doc = r.didDocument as Json | null;
    if (!doc) {
      return fail(`the issuer ${issuer} did not resolve (${r.didResolutionMetadata.error})`);
    }
    const matches = (id: unknown) =>
      typeof id === "string" && (id === vmId || issuer + id === vmId);
    const methods = [
      ...(Array.isArray(doc.verificationMethod) ? doc.verificationMethod : []),
      ...(Array.isArray(doc.assertionMethod) ? doc.assertionMethod : []),
    ];
    const vm = methods.map(obj).find((m) => m && matches(m.id));
    if (!vm) return fail(`${issuer} has no verification method ${vmId}`);
    if (Array.isArray(doc.assertionMethod)) {
      const listed = doc.assertionMethod.some((a) =>
        matches(typeof a === "string" ? a : obj(a)?.id)
      );
      if (!listed) return fail(`${vmId} is not an assertionMethod of ${issuer}`);
    }
    const jwk = obj(vm.publicKeyJwk);
    if (jwk) return jwk as jose.JWK;
    const key = keyFromVerificationMethod(vm as unknown as VerificationMethod);
    if (!key.ok) return fail(`the key ${vmId} cannot be read: ${key.message}`);
    return publicKeyToJwk(key.value.keyType, key.value.publicKey) as unknown as jose.JWK;
  }
  if (!issuer.startsWith("https://")) {
    return fail(`the issuer ${issuer} is neither a DID nor https`);
  }
  const u = new URL(issuer);
  const meta = await getJson(
    deps,
    `${u.origin}/.well-known/jwt-vc-issuer${u.pathname.replace(/\/$/, "")}`,
  );
  if (!meta || meta.issuer !== issuer) return fail(`${issuer} publishes no jwt-vc-issuer metadata`);
  let jwks = obj(meta.jwks);
  if (!jwks && typeof meta.jwks_uri === "string") jwks = await getJson(deps, meta.jwks_uri);
  const keys = (Array.isArray(jwks?.keys) ? jwks.keys : []).map(obj).filter((k) => k);
  const key = kid ? keys.find((k) => k!.kid === kid) : keys.length === 1 ? keys[0] : undefined;
  if (!key) return fail(`the jwt-vc-issuer metadata of ${issuer} has no key ${kid ?? "(no kid)"}`);
  return key as jose.JWK;
}

async function getJson(deps: IssuerKeyDeps, url: string): Promise<Json | undefined> {
  try {
    const res = await deps.safeFetch(url, {
      headers: { accept: "application/json" },
      maxBytes: 256 * 1024,
    });
    if (res.status !== 200) return undefined;
    return obj(JSON.parse(new TextDecoder().decode(res.body)));
  } catch {
    return undefined;
  }
}
