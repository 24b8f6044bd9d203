/**
 * Launcher for the real Credo 0.6.3 OpenID4VCI ISSUER peer in
 * `tests/interop/oid4vc_peer/issuer.mjs`. Spawns it with Node.js on free 127.0.0.1 ports,
 * waits for its `READY {...}` line and wraps its JSON control API.
 *
 * Needs `npm ci --ignore-scripts` in `tests/interop/oid4vc_peer` to have run once.
 */

import { type PeerControl, peerControl, runNodeScript, spawnNodePeer } from "./node_peer.ts";

const PEER_DIR = new URL("./oid4vc_peer/", import.meta.url);

/**
 * The issuers the peer hosts (each its own credential issuer path); `ed25519-batch` publishes
 * `batch_credential_issuance` with `batch_size` 2.
 */
export type Oid4vcIssuerKind =
  | "ed25519-did-key"
  | "p256-did-jwk"
  | "p256-did-key"
  | "ed25519-batch";

/** Options for {@link startOid4vcIssuer}. */
export interface Oid4vcIssuerOptions {
  /** OID4VCI HTTP port; 0 (default) picks a free one. */
  port?: number;
  /** Control API port; 0 (default) picks a free one. */
  controlPort?: number;
  /** The origin the issuer publishes as its own (a relay in front of it); default its own. */
  publicOrigin?: string;
  /** Lifetime of the issuer's access tokens in seconds (Credo's default 180). */
  accessTokenSeconds?: number;
  /** Milliseconds to wait for READY (default 60000: a bound on a hang, not a speed check). */
  startupTimeoutMs?: number;
  /** Credo log level: test | trace | debug | info | warn (default) | error | fatal | off. */
  logLevel?: string;
  /** Node.js executable (default $NODE_BIN, else `node` on PATH). */
  nodePath?: string;
}

/** What the peer reports about one of its issuers. */
export interface Oid4vcIssuerInfo {
  /** The issuer's DID (`iss` of the SD-JWT VCs). */
  did: string;
  /** Absolute DID URL of the signing key; the SD-JWT header `kid` is its `#fragment`. */
  didUrl: string;
  /** "EdDSA" or "ES256". */
  alg: string;
  /** `credential_issuer`, e.g. `http://127.0.0.1:<port>/oid4vci/ed25519-did-key`. */
  credentialIssuer: string;
  /** `http://127.0.0.1:<port>/.well-known/openid-credential-issuer/oid4vci/<kind>`. */
  issuerMetadataUrl: string;
  /** `http://127.0.0.1:<port>/.well-known/oauth-authorization-server/oid4vci/<kind>`. */
  authorizationServerMetadataUrl: string;
}

/** Options of {@link Oid4vcIssuer.createOffer}. */
export interface Oid4vcOfferOptions {
  /** Default "ed25519-did-key". */
  issuer?: Oid4vcIssuerKind;
  /**
   * Credential claims (vct is added). Default: given_name, family_name, birthdate,
   * issuing_country, address {street_address, locality, country}.
   */
  claims?: Record<string, unknown>;
  /**
   * SD-JWT disclosure frame (`{_sd: [...], nested: {_sd: [...]}}`). Default for the
   * default claims: given_name, family_name, birthdate, address, address.street_address,
   * address.locality disclosable; issuing_country and address.country plain. Default for
   * caller-supplied claims: every key disclosable, recursively into objects.
   */
  disclosureFrame?: Record<string, unknown>;
  /** true: `?credential_offer=<urlencoded JSON>`; false (default): `?credential_offer_uri=`. */
  byValue?: boolean;
  /** true: the offer requires a 4-digit numeric tx_code (returned as `txCode`). */
  txCode?: boolean;
  /** The OpenID4VCI version of the offer (Credo's names); default "v1". */
  version?: "v1" | "v1.draft15" | "v1.draft11-14";
  /**
   * The credential configuration: "IdentityCredential" (default; proofs EdDSA or ES256) or
   * "IdentityCredentialES256" (proofs ES256 only).
   */
  configuration?: "IdentityCredential" | "IdentityCredentialES256";
  /**
   * Deferred issuance: the credential request gets a `transaction_id` (and this `interval`,
   * seconds, default 1); the deferred endpoint answers pending until {@link Oid4vcIssuer.deferred}
   * says "issue" or "deny".
   */
  deferred?: { interval?: number };
  /** true: the token answer carries a refresh token (Credo's `generateRefreshTokens`). */
  refreshTokens?: boolean;
  /** A `status.status_list` claim: index `idx` of the peer's status list `list` (its id). */
  status?: { list: string; idx: number };
}

/** The deferred transactions of a session, as the control API returns them. */
export interface Oid4vcDeferredState {
  transactions: { transactionId: string; next: "pending" | "issue" | "deny"; polls?: number }[];
}

/** Answer of {@link Oid4vcIssuer.createOffer}. */
export interface Oid4vcOffer {
  /** `openid-credential-offer://?credential_offer_uri=…` or `…?credential_offer=…`. */
  offerUri: string;
  /** The credential offer payload (OID4VCI 1.0). */
  offer: {
    credential_issuer: string;
    credential_configuration_ids: string[];
    grants: Record<string, Record<string, unknown>>;
  };
  /** Where the offer is hosted (also set for by-value offers). */
  credentialOfferUri: string | null;
  issuanceSessionId: string;
  issuerDid: string;
  issuerKid: string;
  credentialIssuer: string;
  issuerMetadataUrl: string;
  credentialConfigurationId: string;
  vct: string;
  claims: Record<string, unknown>;
  disclosureFrame: Record<string, unknown>;
  /** The tx_code value the holder must send, or null. */
  txCode: string | null;
}

/** Credo issuance session, as the control API returns it. */
export interface Oid4vcIssuanceSession {
  id: string;
  /** OfferCreated | OfferUriRetrieved | AccessTokenRequested | AccessTokenCreated |
   * CredentialRequestReceived | CredentialsPartiallyIssued | Completed | Error | … */
  state: string;
  issuerId: string;
  credentialOfferUri: string | null;
  credentialOfferPayload: Record<string, unknown> | null;
  preAuthorizedCode: string | null;
  txCode: string | null;
  openId4VciVersion: string | null;
  issuedCredentials: string[];
  errorMessage: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** Result of {@link Oid4vcIssuer.holderTiming}: Credo's own holder as a baseline. */
export interface Oid4vcHolderTiming {
  n: number;
  issuer: string;
  binding: string;
  failures: number;
  medianMs: number | null;
  minMs: number | null;
  maxMs: number | null;
  timingsMs: number[];
  steps: {
    issuer: string;
    issuanceSessionId: string;
    resolveMs: number;
    tokenMs: number;
    credentialMs: number;
  }[];
  /** First credential received: compact SD-JWT (with disclosures) and its claims. */
  sample?: { issuer: string; compact: string; claims: Record<string, unknown> | null };
}

/** A running Credo OID4VCI issuer process. */
export interface Oid4vcIssuer {
  /** `http://127.0.0.1:<port>/oid4vci`; each issuer lives at `<issuerBaseUrl>/<kind>`. */
  issuerBaseUrl: string;
  /** The port its OID4VCI endpoints listen on (behind `publicOrigin` when one is given). */
  port: number;
  /** `http://127.0.0.1:<controlPort>`. */
  controlUrl: string;
  issuers: Record<Oid4vcIssuerKind, Oid4vcIssuerInfo>;
  /** Milliseconds from Node process start to READY, as the peer measured it. */
  startupMs: number;
  /** Resident memory in MiB at READY. */
  rssMb: number;
  createOffer(options?: Oid4vcOfferOptions): Promise<Oid4vcOffer>;
  session(id: string): Promise<Oid4vcIssuanceSession>;
  /**
   * A session's deferred transactions; with `next`, what their next poll gets (the credentials,
   * `credential_request_denied`, or pending again).
   */
  deferred(id: string, next?: "issue" | "deny" | "pending"): Promise<Oid4vcDeferredState>;
  /** Polls until the session reaches `state` (default Completed). */
  waitForSession(id: string, state?: string, timeoutMs?: number): Promise<Oid4vcIssuanceSession>;
  /**
   * Runs `holder_timing.mjs` (Credo's own holder in Node) against this issuer:
   * `n` fresh offers, each timed from offer URI to stored credential.
   * `issuer` may be a kind or "all"; `binding` jwk (default) | did:key | did:jwk.
   */
  holderTiming(
    n?: number,
    issuer?: Oid4vcIssuerKind | "all",
    binding?: "jwk" | "did:key" | "did:jwk",
  ): Promise<Oid4vcHolderTiming>;
  /** The peer's stderr so far (Credo logs), last 64 KiB. */
  logs(): string;
  /** Shuts the peer down (control API, then SIGKILL after 3 s) and awaits its exit. */
  close(): Promise<void>;
}

/**
 * Spawns `script` of `tests/interop/oid4vc_peer` (the issuer or the verifier: one set of npm
 * packages, one control API with `/stop`) as `name`; its READY line and bound control API.
 */
export async function spawnOid4vcPeer(
  name: string,
  script: string,
  args: string[],
  options: { startupTimeoutMs?: number; logLevel?: string; nodePath?: string },
): Promise<PeerControl & { ready: Record<string, unknown> }> {
  const node = await spawnNodePeer({
    name,
    dir: PEER_DIR,
    script,
    args,
    installed: {
      probe: "node_modules/@credo-ts/openid4vc/package.json",
      hint: "run `bash tests/interop/setup.sh`",
    },
    stopPath: "/stop",
    ...options,
  });
  return { ready: node.ready, ...peerControl(node) };
}

/** Starts the Credo OID4VCI issuer peer; always `close()` it (e.g. in `finally`). */
export async function startOid4vcIssuer(
  options: Oid4vcIssuerOptions = {},
): Promise<Oid4vcIssuer> {
  const { ready, controlUrl, api, logs, close } = await spawnOid4vcPeer(
    "OID4VC peer",
    "issuer.mjs",
    [
      "--port",
      String(options.port ?? 0),
      "--control-port",
      String(options.controlPort ?? 0),
      ...(options.publicOrigin ? ["--public-origin", options.publicOrigin] : []),
      ...(options.accessTokenSeconds
        ? ["--access-token-seconds", String(options.accessTokenSeconds)]
        : []),
    ],
    options,
  );
  const peer: Oid4vcIssuer = {
    issuerBaseUrl: String(ready.issuerBaseUrl),
    port: Number(ready.port),
    controlUrl,
    issuers: ready.issuers as Record<Oid4vcIssuerKind, Oid4vcIssuerInfo>,
    startupMs: Number(ready.startupMs),
    rssMb: Number(ready.rssMb),
    createOffer: (offer = {}) => api("POST", "/offers", offer),
    session: (id) => api("GET", `/sessions/${encodeURIComponent(id)}`),
    deferred: (id, next) =>
      api(
        next ? "POST" : "GET",
        `/sessions/${encodeURIComponent(id)}/deferred`,
        next ? { next } : undefined,
      ),
    waitForSession: async (id, state = "Completed", timeoutMs = 15000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const session = await peer.session(id);
        if (session.state === state) return session;
        if (Date.now() > deadline) {
          throw new Error(
            `OID4VC peer: session ${id} is ${session.state}, not ${state} (${session.errorMessage})`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    holderTiming: (n = 10, issuer = "ed25519-did-key", binding = "jwk") =>
      runNodeScript<Oid4vcHolderTiming>(options, PEER_DIR, "holder_timing.mjs", [
        controlUrl,
        String(n),
        issuer,
        binding,
      ]),
    logs,
    close,
  };
  return peer;
}
