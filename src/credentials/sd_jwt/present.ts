import { isObject } from "../../base/mod.ts";
/**
 * An SD-JWT VC presentation (IETF SD-JWT §4.3, SD-JWT VC) with `@sd-jwt/core`: the issuer-signed
 * JWT, exactly the disclosures the requested claim paths need (a path to an object or an array
 * takes everything inside it; a nested claim takes its parents' disclosures), and a key binding
 * JWT (`typ: kb+jwt`; `nonce`, `aud`, `iat`, `sd_hash`) signed by the holder key in `cnf`.
 *
 * @module
 */

/** The libraries a presentation is made with (loaded on first use by the feature that presents). */
export interface SdJwtLibs {
  sdJwt: typeof import("@sd-jwt/core");
  /** The hash callback (sha-256). */
  hash: (data: Uint8Array, alg: string) => Uint8Array;
}

/** A claim's path in the credential (DCQL claims path: names and array indexes). */
type ClaimPath = (string | number)[];

/** Signs key binding JWTs: its JWS `alg` and a signature over the signing input (base64url). */
export interface KbSigner {
  alg: string;
  sign: (signingInput: string) => Promise<string>;
}

type Frame = { [key: string]: boolean | Frame };
/** Everything inside `value`, as a presentation frame. */
function whole(value: unknown): Frame | true {
  if (Array.isArray(value)) {
    return Object.fromEntries(value.map((v, i) => [String(i), whole(v)]));
  }
  if (isObject(value)) {
    return Object.fromEntries(Object.keys(value).map((k) => [k, whole(value[k])]));
  }
  return true;
}

/** `a` with every path of `b` added. */
function union(a: boolean | Frame | undefined, b: Frame): Frame {
  const out: Frame = typeof a === "object" ? a : {};
  for (const [k, v] of Object.entries(b)) {
    out[k] = typeof v === "object" ? union(out[k], v) : typeof out[k] === "object" ? out[k] : v;
  }
  return out;
}

/**
 * The presentation frame of `paths` over `claims` (the credential's claims with every disclosure
 * in place): each step of each path, and everything under its end.
 */
export function presentationFrame(claims: Record<string, unknown>, paths: ClaimPath[]): Frame {
  const frame: Frame = {};
  for (const path of paths) {
    let node = frame;
    let value: unknown = claims;
    for (const [i, step] of path.entries()) {
      const key = String(step);
      value = Array.isArray(value) ? value[Number(step)] : isObject(value) ? value[key] : undefined;
      if (i < path.length - 1) {
        if (typeof node[key] !== "object") node[key] = {};
        node = node[key] as Frame;
        continue;
      }
      const end = whole(value);
      if (end === true) node[key] = typeof node[key] === "object" ? node[key] : true;
      else node[key] = union(node[key], end);
    }
  }
  return frame;
}

/** The presentation of `compact` disclosing `paths`, with a key binding JWT. */
export async function presentSdJwt(
  libs: SdJwtLibs,
  compact: string,
  claims: Record<string, unknown>,
  paths: ClaimPath[],
  kb: { nonce: string; aud: string; iat: number; signer: KbSigner },
): Promise<string> {
  const sdjwt = new libs.sdJwt.SDJwtInstance({
    hasher: (data: string | ArrayBuffer, alg: string) =>
      libs.hash(
        typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data),
        alg,
      ),
    kbSigner: kb.signer.sign,
    kbSignAlg: kb.signer.alg,
  });
  return await sdjwt.present(compact, presentationFrame(claims, paths) as never, {
    kb: { payload: { nonce: kb.nonce, aud: kb.aud, iat: kb.iat } },
  } as never);
}
