/**
 * The whole Deno KV keyspace of the service, one builder per key.
 *
 * Rules: keys are tuples; the org id is the SECOND element of every org-owned key, so
 * `kv.list({ prefix: [collection, orgId] })` is the tenancy boundary. Secondary indexes hold
 * pointers (ids) and are written in the same atomic operation as the record they point to.
 * Time lives in values (`cachedAt`, `expiresAt`, `nextAttemptAt`); `expireIn` is only garbage
 * collection.
 *
 * What each key holds: the table in `README.md` beside this file (`tests/kv/keyspace_test.ts` checks
 * that it names exactly the keys built here).
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
