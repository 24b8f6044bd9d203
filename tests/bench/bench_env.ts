/**
 * Prints shell `export` lines for a benchmark server: a fresh signing key as AUTH_PUBLIC_KEY,
 * a SECRETS_KEY, and a valid token in BENCH_TOKEN. `deno run -A bench_env.ts`
 */
import * as jose from "jose";

const { privateKey, publicKey } = await jose.generateKeyPair("EdDSA", { extractable: true });
const jwk = { ...(await jose.exportJWK(publicKey)), alg: "EdDSA", kid: "bench" };
const token = await new jose.SignJWT({ resource_access: { "bench-org": { roles: ["owner"] } } })
  .setProtectedHeader({ alg: "EdDSA", kid: "bench" })
  .setIssuer("https://idp.bench/realms/x").setAudience("ssi-edge").setSubject("bench-user")
  .setExpirationTime("2h").sign(privateKey);
const secrets = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
console.log(`export AUTH_PUBLIC_KEY='${JSON.stringify(jwk)}'`);
console.log(`export AUTH_ISSUER='https://idp.bench/realms/x' AUTH_AUDIENCE='ssi-edge'`);
console.log(`export SECRETS_KEY='${secrets}' BENCH_TOKEN='${token}'`);
