/**
 * A local OpenID4VCI issuer made here for the holder's `ldp_vc` tests. No peer that runs here
 * issues W3C JSON-LD credentials with Data Integrity proofs (Credo 0.6.3 signs the Ed25519
 * 2018/2020 suites only), so this one does: a real HTTP server on 127.0.0.1 speaking the
 * pre-authorized code flow of OpenID4VCI 1.0 (issuer and authorization server metadata, token,
 * nonce, credential endpoints), that checks the wallet's proof of possession with jose (its
 * signature by the key of the did:key it names, `typ`, `aud`, the nonce it gave) and answers with a
 * credential whose subject is that DID, signed with Digital Bazaar's `DataIntegrityProof` by the
 * test's issuer key. A test may replace the credential it sends (`send`), to send a W3C vector or
 * a changed one.
 */
import * as jose from "jose";
import { base58 } from "@scure/base";
import { p256 } from "@noble/curves/nist.js";
import { type DiIssuer, signDataIntegrity } from "../credentials/jsonld/di_keys.ts";

type Json = Record<string, unknown>;

/** The configuration id and types this issuer offers. */
export const LDP_CONFIGURATION = "MembershipCredential";
export const LDP_TYPES = ["VerifiableCredential", "MembershipCredential"];
/** VC 2.0 and the W3C examples vocabulary (kept under `VECTOR_CONTEXT_ALLOW` by the tests). */
const CONTEXT = [
  "https://www.w3.org/ns/credentials/v2",
  "https://www.w3.org/ns/credentials/examples/v2",
];

/** The public JWK of a did:key (Ed25519 or P-256) URL, as the proof's `kid` names it. */
function didKeyJwk(kid: string): jose.JWK {
  const bytes = base58.decode(kid.split("#")[0]!.slice("did:key:z".length));
  if (bytes[0] === 0xed && bytes[1] === 0x01) {
    return { kty: "OKP", crv: "Ed25519", x: jose.base64url.encode(bytes.slice(2)) };
  }
  if (bytes[0] === 0x80 && bytes[1] === 0x24) {
    const raw = p256.Point.fromBytes(bytes.slice(2)).toBytes(false);
    return {
      kty: "EC",
      crv: "P-256",
      x: jose.base64url.encode(raw.slice(1, 33)),
      y: jose.base64url.encode(raw.slice(33)),
    };
  }
  throw new Error(`unsupported did:key ${kid}`);
}

/** Starts the issuer; `issuer` signs its credentials. */
export function startLdpIssuer(issuer: DiIssuer) {
  const codes = new Set<string>();
  const tokens = new Set<string>();
  const nonces = new Set<string>();
  const slot: { send?: (holderDid: string, issued: Json) => Json | Promise<Json> } = {};
  const holders: string[] = [];
  let url = "";
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    async (req): Promise<Response> => {
      const path = new URL(req.url).pathname;
      const error = (status: number, code: string, description: string) =>
        Response.json({ error: code, error_description: description }, { status });
      if (path === "/.well-known/openid-credential-issuer") {
        return Response.json({
          credential_issuer: url,
          credential_endpoint: `${url}/credential`,
          nonce_endpoint: `${url}/nonce`,
          display: [{ name: "Local ldp_vc Issuer", locale: "en" }],
          credential_configurations_supported: {
            [LDP_CONFIGURATION]: {
              format: "ldp_vc",
              credential_definition: { "@context": CONTEXT, type: LDP_TYPES },
              // OpenID4VCI 1.0 (what tells the library this issuer is not a draft).
              credential_metadata: { display: [{ name: "Membership", locale: "en" }] },
              cryptographic_binding_methods_supported: ["did:key"],
              credential_signing_alg_values_supported: [issuer.cryptosuite],
              proof_types_supported: {
                jwt: { proof_signing_alg_values_supported: ["EdDSA", "ES256"] },
              },
            },
          },
        });
      }
      if (path === "/.well-known/oauth-authorization-server") {
        return Response.json({
          issuer: url,
          token_endpoint: `${url}/token`,
          "pre-authorized_grant_anonymous_access_supported": true,
        });
      }
      if (path === "/token" && req.method === "POST") {
        const form = new URLSearchParams(await req.text());
        const code = form.get("pre-authorized_code") ?? "";
        if (!codes.delete(code)) return error(400, "invalid_grant", "unknown or spent code");
        const token = crypto.randomUUID();
        tokens.add(token);
        return Response.json({ access_token: token, token_type: "Bearer", expires_in: 300 });
      }
      if (path === "/nonce" && req.method === "POST") {
        const c_nonce = crypto.randomUUID();
        nonces.add(c_nonce);
        return Response.json({ c_nonce }, { headers: { "cache-control": "no-store" } });
      }
      if (path === "/credential" && req.method === "POST") {
        const token = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
        if (!tokens.has(token)) return error(401, "invalid_token", "unknown access token");
        const body = await req.json() as Json;
        if (body.credential_configuration_id !== LDP_CONFIGURATION) {
          return error(400, "invalid_credential_request", "unknown configuration");
        }
        const jwt = ((body.proofs as Json | undefined)?.jwt as string[] | undefined)?.[0] ??
          (body.proof as Json | undefined)?.jwt as string | undefined;
        if (!jwt) return error(400, "invalid_proof", "no jwt proof");
        let holderDid: string;
        try {
          const { kid, alg } = jose.decodeProtectedHeader(jwt);
          const { payload } = await jose.jwtVerify(
            jwt,
            await jose.importJWK(didKeyJwk(kid!), alg),
            {
              typ: "openid4vci-proof+jwt",
              audience: url,
            },
          );
          if (!nonces.delete(String(payload.nonce))) throw new Error("unknown nonce");
          holderDid = kid!.split("#")[0]!;
        } catch (err) {
          return error(400, "invalid_proof", (err as Error).message);
        }
        holders.push(holderDid);
        const issued = await signDataIntegrity({
          "@context": CONTEXT,
          type: LDP_TYPES,
          issuer: issuer.did,
          validFrom: "2025-01-01T00:00:00Z",
          credentialSubject: { id: holderDid, name: "Alice" },
        }, issuer);
        const credential = slot.send ? await slot.send(holderDid, issued) : issued;
        return Response.json({ credentials: [{ credential }] });
      }
      return new Response("not found", { status: 404 });
    },
  );
  url = `http://127.0.0.1:${server.addr.port}`;
  return {
    url,
    /** The DIDs that proved possession, in order. */
    holders,
    /** Sends `send(holderDid, issued)` instead of the credential it signed (undefined: that one). */
    sendInstead(send?: (holderDid: string, issued: Json) => Json | Promise<Json>) {
      slot.send = send;
    },
    /** A new by-value offer of the configuration, with a fresh pre-authorized code. */
    offer(): string {
      const code = crypto.randomUUID();
      codes.add(code);
      const offer = {
        credential_issuer: url,
        credential_configuration_ids: [LDP_CONFIGURATION],
        grants: {
          "urn:ietf:params:oauth:grant-type:pre-authorized_code": { "pre-authorized_code": code },
        },
      };
      return `openid-credential-offer://?credential_offer=${
        encodeURIComponent(JSON.stringify(offer))
      }`;
    },
    close: () => server.shutdown(),
  };
}
