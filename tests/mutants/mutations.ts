/**
 * The mutation list of `deno task mutants` (runner: `run.ts`): each entry breaks one rule a user
 * relies on, in one place of the product, and names the test files that must then fail.
 *
 * Re-pointing after a move: change `path` (and the paths in `tests`); the anchor is the exact text
 * to replace and must occur exactly once in the file (`deno task mutants` lists every anchor that
 * does not, and so does `tests/mutants/anchors_test.ts`). Keep anchors short but unique: a whole
 * statement, not a fragment that a formatter could re-wrap.
 *
 * @module
 */

/** One mutation: where, what, which rule it breaks, which tests own that rule. */
export interface Mutation {
  /** Stable name, `area/what-breaks`. */
  id: string;
  /** The rule broken, in words (as CONTRACT.md says it). */
  rule: string;
  /** The file, relative to the repository root. */
  path: string;
  /** The exact text replaced (must occur exactly once in the file). */
  anchor: string;
  /** What it is replaced with. */
  replacement: string;
  /** The owning test files (relative to the root); only these run against the mutation. */
  tests: string[];
}

export const MUTATIONS: Mutation[] = [
  // --- the outbound policy, per surface (a strict instance: OUTBOUND_ALLOW_PRIVATE unset) -----
  {
    id: "outbound/status-lists-unguarded",
    rule:
      "Status lists are fetched through the outbound client (a credential's issuer chooses the URL).",
    path: "src/compose.ts",
    anchor: "    checker: new StatusChecker({\n      kv,\n      safeFetch,",
    replacement: "    checker: new StatusChecker({\n      kv,\n      safeFetch: operatorFetch,",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/oid4vp-unguarded",
    rule:
      "OpenID4VP request_uri and response_uri are reached through the outbound client (a verifier chooses them).",
    path: "src/compose.ts",
    anchor:
      "  const openid4vp = new Oid4vpHolder({\n    kv,\n    wallet,\n    resolver,\n    safeFetch,",
    replacement:
      "  const openid4vp = new Oid4vpHolder({\n    kv,\n    wallet,\n    resolver,\n    safeFetch: operatorFetch,",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/oid4vp-response-uri-unchecked",
    rule: "A response_uri the outbound policy refuses is refused on receipt.",
    path: "src/openid4vp/holder.ts",
    anchor:
      "      checkUrl: (url) => checkOutboundUrl(url, this.#d.outbound, this.#d.resolveHost),",
    replacement:
      "      checkUrl: (url) => checkOutboundUrl(url, { ...this.#d.outbound, allowPrivate: true }),",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/webhook-delivery-unguarded",
    rule: "Webhook targets are re-checked against the policy at every attempt.",
    path: "src/compose.ts",
    anchor:
      "    [WEBHOOK_KIND]: createWebhookHandler({ kv, secrets, safeFetch, now }, options.webhookDelivery),",
    replacement:
      "    [WEBHOOK_KIND]: createWebhookHandler({ kv, secrets, safeFetch: operatorFetch, now }, options.webhookDelivery),",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/webhook-registration-unchecked",
    rule: "A webhook target the policy refuses is 400 at registration.",
    path: "src/webhooks/validate.ts",
    anchor: "    return await checkOutboundUrl(raw, policy, resolveHost);",
    replacement:
      "    return await checkOutboundUrl(raw, { ...policy, allowPrivate: true }, resolveHost);",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/agent-endpoint-unchecked",
    rule: "An agentEndpoint the policy refuses is 400 (peers are told to send there).",
    path: "src/agents/service.ts",
    anchor: "      await checkOutboundUrl(endpoint, this.#d.outbound, this.#d.resolveHost);",
    replacement:
      "      await checkOutboundUrl(endpoint, { ...this.#d.outbound, allowPrivate: true });",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/didcomm-unguarded",
    rule:
      "Invitation links and services, and peers' DIDComm endpoints, are reached through the outbound client.",
    path: "src/compose.ts",
    anchor: "    safeFetch,\n    now,\n    inboundPerMinute: config.didcommRateLimit,",
    replacement:
      "    safeFetch: operatorFetch,\n    now,\n    inboundPerMinute: config.didcommRateLimit,",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/contexts-unguarded",
    rule: "JSON-LD contexts are fetched through the outbound client.",
    path: "src/compose.ts",
    anchor:
      "  const contexts = new ContextStore({ kv, safeFetch, allow: config.jsonldContextAllow, now });",
    replacement:
      "  const contexts = new ContextStore({ kv, safeFetch: operatorFetch, allow: config.jsonldContextAllow, now });",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/oid4vci-unguarded",
    rule: "OpenID4VCI issuer metadata (and its endpoints) are fetched through the outbound client.",
    path: "src/compose.ts",
    anchor: "  const openid4vc = new Oid4vcHolder({ ...openid4vcDeps, wallet });",
    replacement:
      "  const openid4vc = new Oid4vcHolder({ ...openid4vcDeps, safeFetch: operatorFetch, wallet });",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/oid4vci-deferred-unguarded",
    rule: "A deferred credential endpoint is polled through the outbound client.",
    path: "src/compose.ts",
    anchor: "    [DEFERRED_KIND]: deferredHandler(openid4vcDeps),",
    replacement:
      "    [DEFERRED_KIND]: deferredHandler({ ...openid4vcDeps, safeFetch: operatorFetch }),",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/did-hosts-unguarded",
    rule: "did:web and did:webvh hosts are reached through the outbound client.",
    path: "src/compose.ts",
    anchor: "    { config, kv, safeFetch, operatorFetch, now },",
    replacement: "    { config, kv, safeFetch: operatorFetch, operatorFetch, now },",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/names-not-vetted-at-connect",
    rule:
      "The addresses a host name resolves to are vetted at every connection (not only IP literals).",
    path: "src/outbound/transport.ts",
    anchor: "    resolveAndVet(hostname, policy, resolveHost).then((addresses) => {",
    replacement:
      "    resolveAndVet(hostname, { ...policy, allowPrivate: true }, resolveHost).then((addresses) => {",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/plc-directory-under-policy",
    rule: "The PLC directory is operator configuration: a strict instance still reaches it.",
    path: "src/did/create.ts",
    anchor: "      safeFetch: operatorFetch,\n      directoryUrl: deps.config.didPlcDirectoryUrl,",
    replacement:
      "      safeFetch: deps.safeFetch,\n      directoryUrl: deps.config.didPlcDirectoryUrl,",
    tests: ["tests/outbound/strict_instance_test.ts", "tests/did/plc_method_test.ts"],
  },
  {
    id: "outbound/universal-resolver-under-policy",
    rule: "The universal resolver is operator configuration: a strict instance still reaches it.",
    path: "src/did/create.ts",
    anchor: "createUniversalResolver({ baseUrl: url, safeFetch: operatorFetch })",
    replacement: "createUniversalResolver({ baseUrl: url, safeFetch: deps.safeFetch })",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  {
    id: "outbound/chain-rpc-under-policy",
    rule: "Chain RPC URLs are operator configuration: a strict instance still reaches them.",
    path: "src/did/create.ts",
    anchor: "      pluginDrivers({ config: deps.config, operatorFetch }),",
    replacement: "      pluginDrivers({ config: deps.config, operatorFetch: deps.safeFetch }),",
    tests: ["tests/outbound/strict_instance_test.ts"],
  },
  // --- bearer tokens (JWT) ---------------------------------------------------------------------
  {
    id: "auth/issuer-not-checked",
    rule: "A token of another issuer is 401 invalid_token (`iss` required and checked).",
    path: "src/http/auth.ts",
    anchor: "        issuer: trusted.issuer,\n",
    replacement: "",
    tests: ["tests/http/auth_test.ts"],
  },
  {
    id: "auth/any-algorithm",
    rule: "Only AUTH_ALGORITHMS verify a token; a disallowed algorithm is 401.",
    path: "src/http/auth.ts",
    anchor: "        algorithms: trusted.algorithms,\n",
    replacement: "",
    tests: ["tests/http/auth_algorithms_test.ts"],
  },
  // --- org isolation -----------------------------------------------------------------------------
  {
    id: "orgs/record-of-another-org-visible",
    rule: "A record of an org the caller is not a member of is 404, never shown.",
    path: "src/http/org.ts",
    anchor: "if (!found || !isOrgMember(p, found.orgId)) throw notFound(missing);",
    replacement: "if (!found) throw notFound(missing);",
    tests: [
      "tests/issue_credential/accept_credential_test.ts",
      "tests/present_proof/accept_test.ts",
    ],
  },
  {
    id: "orgs/member-role-not-checked",
    rule: "A token with no role in the path's org gets 403 on every org route.",
    path: "src/http/org.ts",
    anchor:
      '  } else if (!hasOrgRole(p, orgId, MEMBER_ROLES)) {\n    throw forbidden(`You are not a member of organization "${orgId}".`);\n  }',
    replacement: "  }",
    tests: ["tests/http/member_routes_test.ts"],
  },
  {
    id: "orgs/org-routes-for-admins-only",
    rule:
      "Any member of the org, or its agent token, may use the OpenID4VP, OpenID4VCI and proof routes.",
    path: "src/app.ts",
    anchor: '  app.use("/orgs/:orgId/*", requireOrg("member"));',
    replacement: '  app.use("/orgs/:orgId/*", requireOrg("admin"));',
    tests: ["tests/http/member_routes_test.ts"],
  },
  {
    id: "orgs/agent-token-administers",
    rule: "Agent tokens never administer (configure, webhooks): 403.",
    path: "src/http/org.ts",
    anchor:
      '    if (p.kind === "agent") {\n      throw forbidden(`Agent tokens cannot administer organization "${orgId}".`);\n    }\n',
    replacement: "",
    tests: ["tests/issue_credential/agent_token_test.ts", "tests/agents/token_test.ts"],
  },
  // --- agent API keys --------------------------------------------------------------------------
  {
    id: "api-key/stored-in-clear",
    rule: "An agent API key is kept only as a salted PBKDF2 hash.",
    path: "src/agents/service.ts",
    anchor: "      apiKeyHash: await hashSecret(input.apiKey),",
    replacement: "      apiKeyHash: input.apiKey,",
    tests: ["tests/agents/secrets_test.ts"],
  },
  {
    id: "api-key/hash-not-compared",
    rule: "A wrong agent API key gets no token (401).",
    path: "src/crypto/secret_box.ts",
    anchor: "  return timingSafeEqual(h, fromB64u(hash));",
    replacement: "  return h.length > 0 || timingSafeEqual(h, fromB64u(hash));",
    tests: ["tests/agents/token_test.ts"],
  },
  // --- rate limit --------------------------------------------------------------------------------
  {
    id: "rate-limit/one-more-attempt",
    rule:
      "At most 10 token attempts per address and 30 per org a minute, and DIDCOMM_RATE_LIMIT inbound messages per source address; then 429.",
    path: "src/kv/window_limit.ts",
    anchor: "    if (count >= limit.max) return false;",
    replacement: "    if (count > limit.max) return false;",
    tests: ["tests/agents/token_limits_test.ts", "tests/didcomm/inbound_limit_test.ts"],
  },
  // --- webhooks ----------------------------------------------------------------------------------
  {
    id: "webhooks/signature-without-timestamp",
    rule: "webhook-signature is v1, + base64 HMAC-SHA256 of id.timestamp.body.",
    path: "src/webhooks/signature.ts",
    anchor: "  const data = te.encode(`${id}.${timestampSeconds}.${body}`);",
    replacement: "  const data = te.encode(`${id}.${body}`);",
    tests: ["tests/webhooks/delivery_test.ts"],
  },
  // --- DID cache ---------------------------------------------------------------------------------
  {
    id: "did-cache/keeps-an-error",
    rule: "A failed resolution (internalError) is never cached.",
    path: "src/did/cache/cache.ts",
    anchor: "    else if (error !== undefined) return undefined;",
    replacement: '    else if (error === "invalidDid") return undefined;',
    tests: ["tests/did/cache_test.ts"],
  },
  // --- atomic ack and state --------------------------------------------------------------------
  {
    id: "credentials/ack-in-its-own-commit",
    rule: "accept-credential commits done and the ack in one atomic write; the ack is sent once.",
    path: "src/issue_credential/holder.ts",
    anchor: "        await this.exchanges.queue(op, stored, ackMessage(stored.record.threadId));",
    replacement:
      "        const own = this.#d.kv.atomic();\n        await this.exchanges.queue(own, stored, ackMessage(stored.record.threadId));\n        await own.commit();",
    tests: ["tests/issue_credential/accept_credential_test.ts"],
  },
  // --- DIDComm envelopes and signatures ----------------------------------------------------------
  {
    id: "didcomm/sender-not-the-connection",
    rule: "A message on a connection is processed only from the connection's other side.",
    path: "src/didcomm/inbound.ts",
    anchor: "    if (!ctx.senderKey || !ctx.connection.theirKeys.includes(ctx.senderKey)) {",
    replacement: "    if (!ctx.senderKey) {",
    tests: ["tests/didcomm/inbound_test.ts"],
  },
  {
    id: "didcomm/signed-attachment-not-verified",
    rule: "A DID Exchange response's signed attachment must verify with the invitation key.",
    path: "src/didcomm/connections/signatures.ts",
    anchor:
      "    if (ed25519Verify(signature, utf8.encode(`${sig.protected}.${payloadB64}`), key)) {",
    replacement: "    if (signature.length > 0) {",
    tests: [
      "tests/didcomm/connections/accept_response_test.ts",
      "tests/didcomm/connections_test.ts",
    ],
  },
  {
    id: "didcomm/connection-sig-not-verified",
    rule: "A Connections 1.0 response's connection~sig must verify with the invitation key.",
    path: "src/didcomm/connections/signatures.ts",
    anchor: '  if (!ed25519Verify(signature, data, signer)) return fail("does not verify");',
    replacement: '  if (signature.length === 0) return fail("does not verify");',
    tests: ["tests/didcomm/connections/connection_sig_test.ts"],
  },
  // --- JSON-LD proofs ----------------------------------------------------------------------------
  {
    id: "jsonld/proof-not-verified",
    rule: "A JSON-LD credential whose proof does not verify is refused.",
    path: "src/credentials/jsonld/verify.ts",
    anchor: "    if (result.verified === true) {",
    replacement: "    if (result !== undefined) {",
    tests: ["tests/credentials/jsonld/verify_test.ts"],
  },
  {
    id: "jsonld/context-fetch-without-timeout",
    rule: "JSON-LD contexts are fetched with the outbound client's timeout (5 s).",
    path: "src/credentials/jsonld/context_store.ts",
    anchor: "        timeoutMs: this.#d.timeoutMs ?? 5_000,",
    replacement: "        timeoutMs: this.#d.timeoutMs ?? 30_000,",
    tests: ["tests/present_proof/context_timeout_test.ts"],
  },
  // --- SD-JWT VC ---------------------------------------------------------------------------------
  {
    id: "sd-jwt/issuer-signature-not-verified",
    rule: "A received SD-JWT VC's issuer signature must verify.",
    path: "src/credentials/sd_jwt/verify.ts",
    anchor: "    await jose.compactVerify(jwt, key, { algorithms: [header.alg as string] });",
    replacement: "    void key;",
    tests: ["tests/credentials/sd_jwt/verify_test.ts"],
  },
  {
    id: "sd-jwt/unreferenced-disclosure-accepted",
    rule: "Every disclosure's digest must be referenced by the credential.",
    path: "src/credentials/sd_jwt/verify.ts",
    anchor: "    if (!known.has(digest)) {",
    replacement: '    if (digest === "") {',
    tests: ["tests/credentials/sd_jwt/verify_test.ts"],
  },
  {
    id: "sd-jwt/cnf-not-the-holder-key",
    rule: "cnf must name the key that made the proof.",
    path: "src/credentials/sd_jwt/verify.ts",
    anchor: "    if (theirs !== await jose.calculateJwkThumbprint(ctx.holderJwk)) {",
    replacement: '    if (theirs === "") {',
    tests: ["tests/credentials/sd_jwt/verify_test.ts"],
  },
  // --- OpenID4VP ---------------------------------------------------------------------------------
  {
    id: "oid4vp/request-signature-not-verified",
    rule: "A request object signed by another key, or tampered, is 400; nothing is sent.",
    path: "src/openid4vp/request_signature.ts",
    anchor: "      await jose.compactVerify(jwt.compact, key, { algorithms: [alg] });",
    replacement: "      void key;",
    tests: ["tests/openid4vp/request_signatures_test.ts"],
  },
  {
    id: "oid4vp/request-expiry-not-checked",
    rule: "An expired request object is 400 (request_expired).",
    path: "src/openid4vp/request_signature.ts",
    anchor: "    checkTimes(jwt.payload, deps.now());",
    replacement: "    void checkTimes;",
    tests: ["tests/openid4vp/request_signatures_test.ts"],
  },
  {
    id: "oid4vp/kb-jwt-audience",
    rule: "The key binding JWT carries aud = the client identifier.",
    path: "src/credentials/sd_jwt/present.ts",
    anchor: "    kb: { payload: { nonce: kb.nonce, aud: kb.aud, iat: kb.iat } },",
    replacement: '    kb: { payload: { nonce: kb.nonce, aud: "wallet", iat: kb.iat } },',
    tests: ["tests/openid4vp/answer_test.ts"],
  },
  {
    id: "oid4vp/suspended-offered",
    rule: "A revoked or suspended credential is never offered as a match.",
    path: "src/credentials/credential_store.ts",
    anchor: '  return state !== "revoked" && state !== "suspended";',
    replacement: '  return state !== "revoked";',
    tests: ["tests/openid4vp/suspended_test.ts"],
  },
  {
    id: "oid4vp/haip-links-refused",
    rule: "haip:// links are OpenID4VP requests and are accepted.",
    path: "src/openid4vp/request_link.ts",
    anchor: '"openid4vp:", "haip:", "eudi-openid4vp:"',
    replacement: '"openid4vp:", "eudi-openid4vp:"',
    tests: ["tests/openid4vp/link_forms_test.ts"],
  },
  {
    id: "oid4vp/https-links-refused",
    rule: "An https:// link with the request's query is an OpenID4VP request and is accepted.",
    path: "src/openid4vp/request_link.ts",
    anchor: '"mdoc-openid4vp:", "https:", "http:"',
    replacement: '"mdoc-openid4vp:", "http:"',
    tests: ["tests/openid4vp/link_forms_test.ts"],
  },
  {
    id: "oid4vp/no-event-but-done",
    rule:
      "Every change of a presentation request (declined and failed too) emits presentation.state_changed.",
    path: "src/openid4vp/store.ts",
    anchor: "    emitChange(op, record, state, now);",
    replacement: '    if (record.state === "done") emitChange(op, record, state, now);',
    tests: ["tests/openid4vp/events_test.ts"],
  },
  // --- Present Proof -----------------------------------------------------------------------------
  {
    id: "proofs/proof-type-ignored",
    rule:
      "The presentation is signed with the proof type format.ldp_vp.proof_type names; 409 if none.",
    path: "src/present_proof/present.ts",
    anchor: "  const suite = presentationProofType(request.presentation_definition);",
    replacement: '  const suite = "Ed25519Signature2018" as const;',
    tests: ["tests/present_proof/record_rules_test.ts"],
  },
  {
    id: "proofs/tags-not-updated",
    rule: "A proof record's _tags (state, threadId, connectionId) are current in every state.",
    path: "src/present_proof/record.ts",
    anchor:
      '    _tags: { state, threadId: record.threadId, connectionId: record.connectionId, role: "prover" },',
    replacement: "    _tags: record._tags,",
    tests: ["tests/present_proof/record_rules_test.ts"],
  },
  {
    id: "proofs/no-event-for-declined",
    rule: "Every change of a proof record emits proof.state_changed (declined too).",
    path: "src/present_proof/store.ts",
    anchor: "  emitChange(op, next.orgId, next.record, entry.value.record.state, now);",
    replacement:
      '  if (next.record.state !== "declined") emitChange(op, next.orgId, next.record, entry.value.record.state, now);',
    tests: ["tests/present_proof/record_rules_test.ts"],
  },
  // --- credential status ------------------------------------------------------------------------
  {
    id: "status/valid-until-ignored",
    rule: "A status list credential is never used past its validUntil (VCDM 2.0).",
    path: "src/status/bitstring.ts",
    anchor: "  const until = [doc.validUntil, doc.expirationDate].map((d) =>",
    replacement: "  const until = [doc.expirationDate].map((d) =>",
    tests: ["tests/status/valid_until_test.ts"],
  },
  {
    id: "status/revoked-credential-received",
    rule:
      "A credential revoked on receipt (deferred issuance too) is refused: offer failed, nothing stored.",
    path: "src/openid4vci/receipt.ts",
    anchor: '      if (status.state === "revoked") {',
    replacement: '      if (status.state === "revoked" && of.offerId === "") {',
    tests: ["tests/openid4vci/deferred_status_test.ts"],
  },
  // --- did:plc -----------------------------------------------------------------------------------
  {
    id: "plc/document-of-genesis",
    rule: "The did:plc document is the one of the latest valid operation.",
    path: "src/did/methods/plc.ts",
    anchor: "        didDocument: lib.plcDocument(did, state.operation),",
    replacement: "        didDocument: lib.plcDocument(did, chain[0]!.operation),",
    tests: ["tests/did/plc_rules_test.ts"],
  },
  {
    id: "plc/genesis-hash-not-checked",
    rule: "The genesis operation hashes to the DID.",
    path: "src/did/methods/plc/verify_log.ts",
    anchor: "      if (bytes.genesisDid !== did) {",
    replacement: '      if (bytes.genesisDid === "") {',
    tests: ["tests/did/plc_rules_test.ts"],
  },
  {
    id: "plc/cid-not-checked",
    rule: "Every entry's cid is the CID of its operation.",
    path: "src/did/methods/plc/verify_log.ts",
    anchor: "    if (bytes.cid !== entry.cid) {",
    replacement: '    if (bytes.cid === "") {',
    tests: ["tests/did/plc_rules_test.ts"],
  },
  {
    id: "plc/prev-not-checked",
    rule: "Every later operation names an earlier one as prev.",
    path: "src/did/methods/plc/verify_log.ts",
    anchor: "    const prev = nodes.get(op.prev);",
    replacement: "    const prev = nodes.get(op.prev) ?? head;",
    tests: ["tests/did/plc_rules_test.ts"],
  },
  {
    id: "plc/after-tombstone-accepted",
    rule: "A tombstone ends the log.",
    path: "src/did/methods/plc/verify_log.ts",
    anchor: '    if (prev.entry.operation.type === "plc_tombstone") {',
    replacement:
      '    if (prev.entry.operation.type === "plc_tombstone" && prev.rotationKeys.length > 0) {',
    tests: ["tests/did/plc_rules_test.ts"],
  },
  {
    id: "plc/time-order-not-checked",
    rule: "createdAt increases along the log.",
    path: "src/did/methods/plc/verify_log.ts",
    anchor: "      if (entry.time <= prev.entry.time) {",
    replacement: "      if (entry.time < 0) {",
    tests: ["tests/did/plc_rules_test.ts"],
  },
  {
    id: "plc/high-s-accepted",
    rule: "Operations are signed low-S by a rotation key.",
    path: "src/did/methods/plc/signature.ts",
    anchor: "        lowS: true,",
    replacement: "        lowS: false,",
    tests: ["tests/did/plc_vectors_test.ts"],
  },
  // --- DID plug-ins ----------------------------------------------------------------------------
  {
    id: "did-plugins/entry-timeout-ignored",
    rule: "A plug-in entry's own timeoutMs wins over DID_DRIVER_TIMEOUT_MS.",
    path: "src/did/plugins/driver.ts",
    anchor: "        plugin.timeoutMs ?? options.timeoutMs,",
    replacement: "        options.timeoutMs,",
    tests: ["tests/did/plugin_rules_test.ts"],
  },
  {
    id: "did-plugins/node-error-not-an-outage",
    rule:
      "An answer caused by a node error is internalError (500) whatever keyword the driver used, and never cached.",
    path: "src/did/plugins/chain_rpc.ts",
    anchor: "      if (why !== undefined) failed(`the node answered an error: ${why}`);",
    replacement: "      void why;",
    tests: ["tests/did/plugin_rules_test.ts"],
  },
  {
    id: "did-plugins/invalid-did-keyword",
    rule: "A driver's invalidDid (did:pkh: another namespace) is 400 invalidDid.",
    path: "src/did/plugins/driver_answer.ts",
    anchor: '  invaliddid: "invalidDid",',
    replacement: '  invaliddid: "notFound",',
    tests: ["tests/did/pkh_local_test.ts"],
  },
  // --- did:webvh ---------------------------------------------------------------------------------
  {
    id: "webvh/proof-not-verified",
    rule: "Every did:webvh log entry's proof must verify.",
    path: "src/did/methods/webvh.ts",
    anchor: "    Promise.resolve(verifyEd25519(signature, message, publicKey)),",
    replacement:
      "    Promise.resolve(signature.length > 0 || verifyEd25519(signature, message, publicKey)),",
    tests: ["tests/did/webvh_test.ts"],
  },
];
