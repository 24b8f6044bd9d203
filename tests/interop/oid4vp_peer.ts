/**
 * Launcher for the real Credo 0.6.3 OpenID4VP VERIFIER peer in
 * `tests/interop/oid4vc_peer/verifier.mjs` (same npm packages as the OpenID4VCI issuer peer).
 * Spawns it with Node.js on free 127.0.0.1 ports, waits for its `READY {...}` line and wraps its
 * JSON control API.
 */
import { runNodeScript } from "./node_peer.ts";
import { spawnOid4vcPeer } from "./oid4vc_peer.ts";

const PEER_DIR = new URL("./oid4vc_peer/", import.meta.url);

/** Options of {@link startOid4vpVerifier}. */
export interface Oid4vpVerifierOptions {
  /** Credo log level (default warn). */
  logLevel?: string;
  /** Node.js executable (default $NODE_BIN, else `node` on PATH). */
  nodePath?: string;
}

/** What the peer answers when asked for a request. */
export interface VerifierRequest {
  /** `openid4vp://?…`: by value (unsigned) or by reference (`request_uri`, DID-signed). */
  authorizationRequest: string;
  verificationSessionId: string;
  authorizationRequestId: string;
  authorizationRequestUri: string | null;
  /** `<origin>/variants/<session>`: `/original`, `/tampered`, `/wrong-signer`, `/expired`. */
  variantsUrl: string;
  /** `decentralized_identifier:<did>` for signed requests, null for unsigned ones. */
  clientId: string | null;
}

/** One presentation Credo verified, as the peer reports it. */
export interface VerifiedPresentation {
  format: "dc+sd-jwt" | "ldp_vp";
  /** SD-JWT VC: every claim Credo sees (plain and disclosed). */
  claims?: Record<string, unknown>;
  kbJwt?: Record<string, unknown> | null;
  presentation?: Record<string, unknown>;
}

/** A Credo verification session. */
export interface VerificationSession {
  id: string;
  /** RequestCreated | RequestUriRetrieved | ResponseVerified | Error. */
  state: string;
  errorMessage: string | null;
  /** Once ResponseVerified: per credential query id, the presentations. */
  presentations: Record<string, VerifiedPresentation[]> | null;
}

/** A call the verifier's endpoints received. */
export interface VerifierExchange {
  method: string;
  path: string;
  session: string | null;
  /** Form fields of the body (`vp_token`, `state`, `response`, `error`…). */
  fields: string[];
  error: string | null;
  status: number;
}

/** A running Credo verifier. */
export interface Oid4vpVerifier {
  verifierBaseUrl: string;
  controlUrl: string;
  /** The verifier's signing DID and another DID of the peer (for wrong-signer requests). */
  dids: { verifier: string; other: string };
  createRequest(options: {
    dcql: Record<string, unknown>;
    signer?: "none" | "did";
    responseMode?: "direct_post" | "direct_post.jwt";
  }): Promise<VerifierRequest>;
  session(id: string): Promise<VerificationSession>;
  /** Polls until the session leaves RequestCreated/RequestUriRetrieved (or `state`). */
  waitForSession(id: string, state?: string, timeoutMs?: number): Promise<VerificationSession>;
  /** Every call to the verifier's endpoints so far. */
  exchanges(): Promise<VerifierExchange[]>;
  /** Closes the verifier's HTTP port (control stays up); `up()` opens it again. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Credo's own holder against this verifier (see `vp_holder_timing.mjs`). */
  holderTiming(issuerControlUrl: string, n: number): Promise<CredoHolderTiming>;
  logs(): string;
  close(): Promise<void>;
}

/** What `vp_holder_timing.mjs` reports. */
export interface CredoHolderTiming {
  n: number;
  failures: number;
  medianMs: number | null;
  minMs: number | null;
  maxMs: number | null;
  timingsMs: number[];
}

/** Starts the Credo verifier peer; always `close()` it. */
export async function startOid4vpVerifier(
  options: Oid4vpVerifierOptions = {},
): Promise<Oid4vpVerifier> {
  const { ready, controlUrl, api, logs, close } = await spawnOid4vcPeer(
    "OID4VP verifier peer",
    "verifier.mjs",
    ["--port", "0", "--control-port", "0"],
    options,
  );
  const peer: Oid4vpVerifier = {
    verifierBaseUrl: String(ready.verifierBaseUrl),
    controlUrl,
    dids: ready.dids as Oid4vpVerifier["dids"],
    createRequest: (o) => api("POST", "/requests", o),
    session: (id) => api("GET", `/sessions/${encodeURIComponent(id)}`),
    waitForSession: async (id, state, timeoutMs = 15000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await peer.session(id);
        const open = s.state === "RequestCreated" || s.state === "RequestUriRetrieved";
        if (state ? s.state === state : !open) return s;
        if (Date.now() > deadline) {
          throw new Error(`verifier session ${id} is ${s.state} (${s.errorMessage})`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    exchanges: () => api("GET", "/exchanges"),
    down: async () => {
      await api("POST", "/down");
    },
    up: async () => {
      await api("POST", "/up");
    },
    holderTiming: (issuerControlUrl, n) =>
      runNodeScript<CredoHolderTiming>(options, PEER_DIR, "vp_holder_timing.mjs", [
        issuerControlUrl,
        controlUrl,
        String(n),
      ]),
    logs,
    close,
  };
  return peer;
}
