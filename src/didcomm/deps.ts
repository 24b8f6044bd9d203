/**
 * What the DIDComm layer is built from: handed in by the composition (`src/compose.ts`), never
 * looked up.
 *
 * @module
 */
import type { AgentRecord, Wallet } from "../agents/mod.ts";
import type { DidcommResolver } from "./resolve.ts";
import type { SafeFetch } from "../outbound/mod.ts";

/** The DIDComm layer's dependencies. */
export interface DidcommDeps {
  kv: Deno.Kv;
  /** The org wallets: keys of inbound envelopes, per-connection keys. */
  wallet: Wallet;
  /** The org agents (label, endpoint): the org's current agent record. */
  agents: { find(orgId: string): Promise<AgentRecord | undefined> };
  /** The service's DID resolver (the other side's did:peer and did:key). */
  resolver: DidcommResolver;
  /** Woken after a commit that queued outbox messages. */
  dispatcher: { wake(): void };
  safeFetch: SafeFetch;
  now: () => number;
  /** `DIDCOMM_RATE_LIMIT`: inbound messages per source address per minute (0: no limit). */
  inboundPerMinute: number;
}
