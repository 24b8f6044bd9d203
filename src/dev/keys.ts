import * as jose from "jose";
import { DEV_AUDIENCE, DEV_ISSUER } from "../config/mod.ts";

/** Dev-only material kept under `.data/` (git-ignored): SECRETS_KEY and the dev IdP signing key. */
export interface DevSecrets {
  secretsKey: string;
  signingKey: jose.JWK;
}

/** Loads `.data/dev_secrets.json`, creating it once (mode 0600) when missing. */
export async function loadDevSecrets(dir = ".data"): Promise<DevSecrets> {
  const path = `${dir}/dev_secrets.json`;
  try {
    return JSON.parse(await Deno.readTextFile(path)) as DevSecrets;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  await Deno.mkdir(dir, { recursive: true });
  const { privateKey } = await jose.generateKeyPair("EdDSA", { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  const secretsKey = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  const secrets: DevSecrets = { secretsKey, signingKey: { ...jwk, alg: "EdDSA", kid: "dev-1" } };
  await Deno.writeTextFile(path, JSON.stringify(secrets, null, 2), {
    mode: 0o600,
    createNew: true,
  });
  return secrets;
}

/** The public half of the dev signing key as JWK JSON (used as AUTH_PUBLIC_KEY in dev). */
export function devPublicJwk(s: DevSecrets): string {
  const { d: _d, ...pub } = s.signingKey;
  return JSON.stringify(pub);
}

/** Mints a dev token: `resource_access[org].roles = [role]`. */
export async function mintDevToken(
  s: DevSecrets,
  opts: { org: string; roles: string[]; sub?: string; ttlSeconds?: number },
): Promise<string> {
  const key = await jose.importJWK(s.signingKey, "EdDSA");
  return await new jose.SignJWT({ resource_access: { [opts.org]: { roles: opts.roles } } })
    .setProtectedHeader({ alg: "EdDSA", kid: s.signingKey.kid })
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setSubject(opts.sub ?? "dev-user")
    .setIssuedAt()
    .setExpirationTime(`${opts.ttlSeconds ?? 12 * 3600}s`)
    .sign(key);
}
