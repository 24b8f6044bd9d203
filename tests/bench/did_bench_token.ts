/**
 * For tests/bench/did_wrk.sh: makes a throwaway ES256 identity provider key and a token for it.
 * Prints JSON `{publicJwk, token, issuer, audience}`.
 */
import * as jose from "jose";

const issuer = "https://idp.bench/realms/ssi";
const audience = "ssi-edge";
const { privateKey, publicKey } = await jose.generateKeyPair("ES256", { extractable: true });
const publicJwk = { ...(await jose.exportJWK(publicKey)), kid: "bench", alg: "ES256" };
const token = await new jose.SignJWT({ resource_access: { "org-bench": { roles: ["member"] } } })
  .setProtectedHeader({ alg: "ES256", kid: "bench" })
  .setIssuer(issuer)
  .setAudience(audience)
  .setSubject("bench-user")
  .setIssuedAt()
  .setExpirationTime("2h")
  .sign(privateKey);
console.log(JSON.stringify({ publicJwk, token, issuer, audience }));
