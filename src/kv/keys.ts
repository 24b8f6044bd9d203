/**
 * The whole Deno KV keyspace of the service, one builder per key.
 *
 * Rules: keys are tuples; the org id is the SECOND element of every org-owned key, so
 * `kv.list({ prefix: [collection, orgId] })` is the tenancy boundary. Secondary indexes hold
 * pointers (ids) and are written in the same atomic operation as the record they point to.
 * Time lives in values (`cachedAt`, `expiresAt`, `nextAttemptAt`); `expireIn` is only garbage
 * collection.
 *
 * | key | value |
 * | --- | --- |
 * | `["health", "probe"]` | read by readiness (never written) |
 * | `["service", "signing_key"]` | the service's own JWT signing key (sealed JWK) |
 * | `["service", "api_key_pepper"]` | the key of agent API key lookup ids (sealed) |
 * | `["outbox", id]` | `OutboxMessage`: kind, payload, status, attempts, lease |
 * | `["outbox_due", atMs, id]` | pointer: message `id` is due (or its lease ends) at `atMs` |
 * | `["outbox_attempt", id, n]` | `OutboxAttempt` n of message `id` |
 * | `["outbox_by_org", orgId, kind, id]` | pointer for per-org listing (delivery log) |
 * | `["agent", orgId]` | the org's `AgentRecord` (API key only as a salted hash) |
 * | `["agent_key", orgId, keyId]` | an org wallet key: private key sealed with SECRETS_KEY |
 * | `["agent_by_verkey", verkey]` | pointer `{orgId, keyId}` from a base58 Ed25519 verkey |
 * | `["agent_p256_key", orgId, agentId]` | the agent's P-256 key (ES256 proofs): private scalar sealed |
 * | `["agent_token_attempts", orgId, window]` | `POST /agent/token` attempts for the org in a window (count) |
 * | `["token_attempts_by_address", address, window]` | token attempts from a client address (count) |
 * | `["didcomm_messages_by_address", address, window]` | inbound `POST /didcomm` messages from a source address in a minute (count) |
 * | `["agent_by_api_key", lookup, orgId]` | pointer: keyed HMAC of an agent API key → orgId |
 * | `["webhook", orgId]` | the org's `WebhookEndpoint` (secrets sealed) |
 * | `["did_cache", did]` | cached network resolution: result, `cachedAt`, `expiresAt`; for a version, `did` is the DID URL with its version parameters (`did:ethr:…?versionId=9`) |
 * | `["did_peer_long", shortDid]` | long form of a did:peer:4 seen before |
 * | `["connection", orgId, id]` | DIDComm connection record |
 * | `["connection_by_thread", orgId, threadId]` | pointer to a connection id |
 * | `["connection_by_key", orgId, verkey]` | pointer: our key used for a connection → id |
 * | `["connection_by_invitation", orgId, invitationId]` | pointer: received invitation `@id` → id |
 * | `["didcomm_seen", orgId, messageId]` | inbound message `@id` already processed |
 * | `["credential", orgId, id]` | credential exchange record |
 * | `["credential_detail", orgId, id, "offer" \| "request"]` | its offer / request attachment |
 * | `["credential_by_id", id]` | pointer `orgId` of an exchange record |
 * | `["credential_by_thread", orgId, threadId]` | pointer to an exchange record id |
 * | `["w3c_credential", orgId, id]` | a stored W3C verifiable credential |
 * | `["proof", orgId, id]` | proof exchange record (Present Proof 2.0, prover) |
 * | `["proof_request", orgId, id]` | its DIF PE request attachment (definition, challenge, domain) |
 * | `["proof_by_id", id]` | pointer `orgId` of a proof exchange record |
 * | `["proof_by_thread", orgId, threadId]` | pointer to a proof exchange record id |
 * | `["oid4vc_offer", orgId, id]` | OpenID4VCI offer record (pre-authorized code, deferred access token sealed) |
 * | `["oid4vc_accepting", orgId, id]` | lease of an accept in progress (60 s) |
 * | `["sd_jwt_credential", orgId, id]` | a stored SD-JWT VC: head and part count |
 * | `["sd_jwt_credential_part", orgId, id, i]` | part `i` of its `{claims, compact}` JSON |
 * | `["oid4vp_request", orgId, id]` | OpenID4VP presentation request record and what answering needs |
 * | `["oid4vp_answering", orgId, id]` | lease of an accept or decline in progress (60 s) |
 * | `["jsonld_context", url]` | a JSON-LD context fetched once from a `JSONLD_CONTEXT_ALLOW` prefix |
 * | `["credential_status", orgId, id]` | a stored credential's status: what to check, the last answer |
 * | `["credential_status_due", atMs, orgId, id]` | pointer: that status is due for a recheck at `atMs` |
 * | `["status_list", url]` | a verified status list (credential or `statuslist+jwt`), until its `ttl`/`exp` |
 * | `["status_recheck_tick", tickMs]` | the recheck cron tick at `tickMs`, taken by one process |
 */
export const keys = {
  healthProbe: () => ["health", "probe"] as const,
  serviceSigningKey: () => ["service", "signing_key"] as const,
  apiKeyPepper: () => ["service", "api_key_pepper"] as const,

  outboxMessage: (id: string) => ["outbox", id] as const,
  outboxMessagePrefix: () => ["outbox"] as const,
  outboxDue: (atMs: number, id: string) => ["outbox_due", atMs, id] as const,
  outboxDuePrefix: () => ["outbox_due"] as const,
  outboxAttempt: (id: string, n: number) => ["outbox_attempt", id, n] as const,
  outboxAttemptPrefix: (id: string) => ["outbox_attempt", id] as const,
  outboxByOrg: (orgId: string, kind: string, id: string) =>
    ["outbox_by_org", orgId, kind, id] as const,
  outboxByOrgPrefix: (orgId: string, kind: string) => ["outbox_by_org", orgId, kind] as const,

  agent: (orgId: string) => ["agent", orgId] as const,
  agentPrefix: () => ["agent"] as const,
  agentKey: (orgId: string, keyId: string) => ["agent_key", orgId, keyId] as const,
  agentKeyPrefix: (orgId: string) => ["agent_key", orgId] as const,
  agentKeysPrefix: () => ["agent_key"] as const,
  agentByVerkey: (verkey: string) => ["agent_by_verkey", verkey] as const,
  agentP256Key: (orgId: string, agentId: string) => ["agent_p256_key", orgId, agentId] as const,
  agentP256KeysPrefix: () => ["agent_p256_key"] as const,
  tokenAttemptsByOrg: (orgId: string, window: number) =>
    ["agent_token_attempts", orgId, window] as const,
  tokenAttemptsByAddress: (address: string, window: number) =>
    ["token_attempts_by_address", address, window] as const,
  didcommMessagesByAddress: (address: string, window: number) =>
    ["didcomm_messages_by_address", address, window] as const,
  agentByApiKey: (lookup: string, orgId: string) => ["agent_by_api_key", lookup, orgId] as const,
  agentByApiKeyPrefix: (lookup: string) => ["agent_by_api_key", lookup] as const,

  webhook: (orgId: string) => ["webhook", orgId] as const,
  webhookPrefix: () => ["webhook"] as const,

  didCache: (did: string) => ["did_cache", did] as const,
  peerLongForm: (shortDid: string) => ["did_peer_long", shortDid] as const,

  connection: (orgId: string, id: string) => ["connection", orgId, id] as const,
  connectionPrefix: (orgId: string) => ["connection", orgId] as const,
  connectionByThread: (orgId: string, threadId: string) =>
    ["connection_by_thread", orgId, threadId] as const,
  connectionByKey: (orgId: string, verkey: string) => ["connection_by_key", orgId, verkey] as const,
  connectionByInvitation: (orgId: string, invitationId: string) =>
    ["connection_by_invitation", orgId, invitationId] as const,
  didcommSeen: (orgId: string, messageId: string) => ["didcomm_seen", orgId, messageId] as const,

  credential: (orgId: string, id: string) => ["credential", orgId, id] as const,
  credentialPrefix: (orgId: string) => ["credential", orgId] as const,
  credentialDetail: (orgId: string, id: string, which: "offer" | "request") =>
    ["credential_detail", orgId, id, which] as const,
  credentialById: (id: string) => ["credential_by_id", id] as const,
  credentialByThread: (orgId: string, threadId: string) =>
    ["credential_by_thread", orgId, threadId] as const,
  w3cCredential: (orgId: string, id: string) => ["w3c_credential", orgId, id] as const,
  w3cCredentialPrefix: (orgId: string) => ["w3c_credential", orgId] as const,

  proof: (orgId: string, id: string) => ["proof", orgId, id] as const,
  proofPrefix: (orgId: string) => ["proof", orgId] as const,
  proofRequest: (orgId: string, id: string) => ["proof_request", orgId, id] as const,
  proofById: (id: string) => ["proof_by_id", id] as const,
  proofByThread: (orgId: string, threadId: string) => ["proof_by_thread", orgId, threadId] as const,

  oid4vcOffer: (orgId: string, id: string) => ["oid4vc_offer", orgId, id] as const,
  oid4vcOfferPrefix: (orgId: string) => ["oid4vc_offer", orgId] as const,
  oid4vcAccepting: (orgId: string, id: string) => ["oid4vc_accepting", orgId, id] as const,
  oid4vcOffersPrefix: () => ["oid4vc_offer"] as const,
  sdJwtCredential: (orgId: string, id: string) => ["sd_jwt_credential", orgId, id] as const,
  sdJwtCredentialPrefix: (orgId: string) => ["sd_jwt_credential", orgId] as const,
  sdJwtCredentialPart: (orgId: string, id: string, i: number) =>
    ["sd_jwt_credential_part", orgId, id, i] as const,

  oid4vpRequest: (orgId: string, id: string) => ["oid4vp_request", orgId, id] as const,
  oid4vpRequestPrefix: (orgId: string) => ["oid4vp_request", orgId] as const,
  oid4vpAnswering: (orgId: string, id: string) => ["oid4vp_answering", orgId, id] as const,
  jsonldContext: (url: string) => ["jsonld_context", url] as const,
  credentialStatus: (orgId: string, id: string) => ["credential_status", orgId, id] as const,
  credentialStatusDue: (atMs: number, orgId: string, id: string) =>
    ["credential_status_due", atMs, orgId, id] as const,
  credentialStatusDuePrefix: () => ["credential_status_due"] as const,
  statusList: (url: string) => ["status_list", url] as const,
  statusRecheckTick: (tickMs: number) => ["status_recheck_tick", tickMs] as const,
};
