/**
 * Launcher for the real Credo (credo-ts 0.6.3) DIDComm v1 ISSUER and VERIFIER peer in
 * `tests/interop/credo_peer/issuer.mjs`. Spawns it with Node.js on free 127.0.0.1 ports,
 * waits for its `READY {...}` line and wraps its JSON control API.
 *
 * Needs `bash tests/interop/setup.sh` (npm ci) to have run once.
 */

import { peerControl, spawnNodePeer } from "./node_peer.ts";

const PEER_DIR = new URL("./credo_peer/", import.meta.url);

/** Options for {@link startCredoIssuer}. */
export interface CredoIssuerOptions {
  /** DIDComm inbound HTTP port; 0 (default) picks a free one. */
  didcommPort?: number;
  /** Control API port; 0 (default) picks a free one. */
  controlPort?: number;
  /** Milliseconds to wait for READY (default 60000: a bound on a hang, not a speed check). */
  startupTimeoutMs?: number;
  /** Credo log level: test | trace | debug | info | warn (default) | error | fatal | off. */
  logLevel?: string;
  /** Node.js executable (default `node` on PATH, or $NODE_BIN). */
  nodePath?: string;
}

/** A Credo connection record as the control API returns it. */
export interface CredoConnection {
  id: string;
  state: string;
  role: string;
  did: string | null;
  theirDid: string | null;
  theirLabel: string | null;
  protocol: string | null;
  outOfBandId: string | null;
  threadId: string | null;
  errorMessage: string | null;
  createdAt: string | null;
}

/** A Credo credential exchange record as the control API returns it. */
export interface CredoCredentialExchange {
  id: string;
  state: string;
  role: string;
  threadId: string;
  connectionId: string | null;
  protocolVersion: string;
  errorMessage: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  /** Only from {@link CredoIssuer.credential}: offer/request/credential format data. */
  formatData?: Record<string, unknown>;
}

/** A Credo proof exchange record (verifier role) as the control API returns it. */
export interface CredoProofExchange extends CredoCredentialExchange {
  /** Credo's own verdict on the presentation it received. */
  isVerified: boolean | null;
  /** Only from {@link CredoIssuer.proof}: request/presentation format data. */
  formatData?: Record<string, unknown>;
}

/** Options of {@link CredoIssuer.requestProof}. */
export interface CredoProofRequestOptions {
  connectionId: string;
  /** Default: one descriptor asking for `$.credentialSubject.name`. */
  presentationDefinition?: Record<string, unknown>;
  /** Default: 32 random bytes (Credo's own). */
  challenge?: string;
  domain?: string;
  comment?: string;
}

/** A received trust ping response. */
export interface CredoTrustPingResponse {
  connectionId: string | null;
  threadId: string;
  id: string;
  receivedAt: string;
}

/** A problem report the issuer received (any protocol). */
export interface CredoProblemReport {
  type: string;
  id: string;
  threadId: string | null;
  pthid: string | null;
  code: string | null;
  description: string | null;
  receivedAt: string;
  message: Record<string, unknown>;
}

/** One logged DIDComm message (plaintext; `message`/`envelope` only with `full`). */
export interface CredoLoggedMessage {
  direction: "in" | "out";
  at: string;
  type: string;
  id: string;
  thid: string | null;
  pthid: string | null;
  envelope?: Record<string, unknown>;
  message?: Record<string, unknown>;
}

/** Options of {@link CredoIssuer.offerCredential}. */
export interface CredoOfferOptions {
  connectionId: string;
  /** Default `{ name: "Alice" }` (the inline context defines only `name`). */
  credentialSubject?: Record<string, unknown>;
  /** "proof": the issue-credential message Credo sends carries a corrupted proof signature. */
  tamper?: "proof" | "none";
  /** Default Ed25519Signature2018 (the only suite Credo can sign with a did:key issuer). */
  proofType?: string;
  /** Extra inline JSON-LD context replacing `{ name: "https://schema.org/name" }`. */
  context?: Record<string, unknown>;
  /** Every context after the VC 1.1 one (URLs or inline), replacing `context`. */
  contexts?: unknown[];
  /** The credential's `credentialStatus` (e.g. a BitstringStatusListEntry), signed with it. */
  credentialStatus?: unknown;
  comment?: string;
}

/** A running Credo issuer process. */
export interface CredoIssuer {
  didcommPort: number;
  controlPort: number;
  /** DIDComm endpoint, `http://127.0.0.1:<didcommPort>`. */
  endpoint: string;
  /** The issuer's did:key (Ed25519) used to sign credentials. */
  issuerDid: string;
  /** Milliseconds from Node process start to READY, as the peer measured it. */
  startupMs: number;
  /** Resident memory in MiB at READY. */
  rssMb: number;
  createInvitation(
    handshake?: "didexchange" | "connections" | "connections-legacy",
  ): Promise<{ invitationUrl: string; outOfBandId: string; invitation?: Record<string, unknown> }>;
  connections(): Promise<CredoConnection[]>;
  connection(id: string): Promise<CredoConnection>;
  trustPing(connectionId: string): Promise<{ id: string; threadId: string }>;
  /** DID Rotate 1.0: Credo rotates its DID on the connection; returns the new DID. */
  rotate(connectionId: string): Promise<{ newDid: string }>;
  /** DID Rotate 1.0: Credo hangs up the connection. */
  hangup(connectionId: string): Promise<{ ok: boolean }>;
  trustPings(): Promise<CredoTrustPingResponse[]>;
  offerCredential(
    options: CredoOfferOptions,
  ): Promise<{ credentialExchangeId: string; threadId: string }>;
  /**
   * Credo signs a JSON-LD credential (Ed25519Signature2018) with the issuer's key, or with
   * `signer: "other"` with another key of its own whatever issuer the credential names.
   */
  signCredential(
    credential: Record<string, unknown>,
    signer?: "issuer" | "other",
  ): Promise<Record<string, unknown>>;
  credentials(): Promise<CredoCredentialExchange[]>;
  /** Present Proof 2.0 request with a DIF PE definition (Credo as verifier). */
  requestProof(
    options: CredoProofRequestOptions,
  ): Promise<{ proofExchangeId: string; threadId: string }>;
  proofs(): Promise<CredoProofExchange[]>;
  proof(id: string): Promise<CredoProofExchange>;
  /** Polls until the proof exchange reaches `state` (default done). */
  waitForProof(id: string, state?: string, timeoutMs?: number): Promise<CredoProofExchange>;
  /** While paused, Credo's DIDComm endpoint answers 503 to everything (a peer that is down). */
  pauseInbound(paused: boolean): Promise<{ paused: boolean }>;
  credential(id: string): Promise<CredoCredentialExchange>;
  problemReports(): Promise<CredoProblemReport[]>;
  messages(options?: { direction?: "in" | "out"; full?: boolean }): Promise<CredoLoggedMessage[]>;
  /** Polls until the issuer's connection for `outOfBandId` reaches `state` (default completed). */
  waitForConnection(
    outOfBandId: string,
    state?: string,
    timeoutMs?: number,
  ): Promise<CredoConnection>;
  /** Polls until the credential exchange reaches `state` (default done). */
  waitForCredential(
    id: string,
    state?: string,
    timeoutMs?: number,
  ): Promise<CredoCredentialExchange>;
  /** The peer's stderr so far (Credo logs), last 64 KiB. */
  logs(): string;
  /** Shuts the peer down (control API, then SIGKILL after 3 s) and awaits its exit. */
  close(): Promise<void>;
}

/** Polls `fn` every 50 ms until it returns a truthy value. */
async function poll<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Credo peer: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the Credo issuer peer; always `close()` it (e.g. in `finally`). */
export async function startCredoIssuer(options: CredoIssuerOptions = {}): Promise<CredoIssuer> {
  const peer = await spawnNodePeer({
    name: "Credo peer",
    dir: PEER_DIR,
    script: "issuer.mjs",
    args: [
      "--didcomm-port",
      String(options.didcommPort ?? 0),
      "--control-port",
      String(options.controlPort ?? 0),
    ],
    installed: {
      probe: "node_modules/@credo-ts/core/package.json",
      hint: "run `bash tests/interop/setup.sh`",
    },
    stopPath: "/shutdown",
    ...options,
  });
  const { ready } = peer;
  const { api, logs, close } = peerControl(peer);
  const issuer: CredoIssuer = {
    didcommPort: Number(ready.didcommPort),
    controlPort: Number(ready.controlPort),
    endpoint: String(ready.endpoint),
    issuerDid: String(ready.issuerDid),
    startupMs: Number(ready.startupMs),
    rssMb: Number(ready.rssMb),
    createInvitation: (handshake = "didexchange") => api("POST", "/invitations", { handshake }),
    connections: () => api("GET", "/connections"),
    connection: (id) => api("GET", `/connections/${encodeURIComponent(id)}`),
    trustPing: (id) => api("POST", `/connections/${encodeURIComponent(id)}/trust-ping`),
    trustPings: () => api("GET", "/trust-pings"),
    rotate: (id) => api("POST", `/connections/${encodeURIComponent(id)}/rotate`),
    hangup: (id) => api("POST", `/connections/${encodeURIComponent(id)}/hangup`),
    offerCredential: (offer) => api("POST", "/credentials/offer", offer),
    signCredential: (credential, signer = "issuer") =>
      api("POST", "/sign-credential", { credential, signer }),
    credentials: () => api("GET", "/credentials"),
    requestProof: (options) => api("POST", "/proofs/request", options),
    proofs: () => api("GET", "/proofs"),
    proof: (id) => api("GET", `/proofs/${encodeURIComponent(id)}`),
    waitForProof: (id, state = "done", timeoutMs = 15000) =>
      poll(`proof exchange ${id} in state ${state}`, async () => {
        const record = await issuer.proof(id);
        return record.state === state ? record : undefined;
      }, timeoutMs),
    pauseInbound: (paused) => api("POST", "/inbound", { paused }),
    credential: (id) => api("GET", `/credentials/${encodeURIComponent(id)}`),
    problemReports: () => api("GET", "/problem-reports"),
    messages: ({ direction = "in", full = false } = {}) =>
      api("GET", `/messages?direction=${direction}${full ? "&full=1" : ""}`),
    waitForConnection: (outOfBandId, state = "completed", timeoutMs = 15000) =>
      poll(
        `connection of ${outOfBandId} in state ${state}`,
        async () =>
          (await issuer.connections()).find((c) =>
            c.outOfBandId === outOfBandId && c.state === state
          ),
        timeoutMs,
      ),
    waitForCredential: (id, state = "done", timeoutMs = 15000) =>
      poll(`credential exchange ${id} in state ${state}`, async () => {
        const record = await issuer.credential(id);
        return record.state === state ? record : undefined;
      }, timeoutMs),
    logs,
    close,
  };
  return issuer;
}
