/**
 * Example DIDs for `GET /1.0/testIdentifiers` and the resolver page: each resolves here without
 * reaching another host. Methods that need the network are listed only with configured examples
 * (`DID_TEST_IDENTIFIERS`).
 *
 * @module
 */

/** Built-in examples by method (w3c-ccg and DIF vectors; did:pkh's from its method specification). */
const BUILT_IN: Record<string, string[]> = {
  key: [
    "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
    "did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169",
    "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme",
  ],
  jwk: [
    "did:jwk:eyJjcnYiOiJQLTI1NiIsImt0eSI6IkVDIiwieCI6ImFjYklRaXVNczNpOF91c3pFakoydHBUdFJNNEVVM3l6OTFQSDZDZEgyVjAiLCJ5IjoiX0tjeUxqOXZXTXB0bm1LdG00NkdxRHo4d2Y3NEk1TEtncmwyR3pIM25TRSJ9",
  ],
  peer: [
    "did:peer:0z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
    "did:peer:2.Vz6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V.Ez6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc.Vz6MkgoLTnTypo3tDRwCkZXSccTPHRLhF4ZnjhueYAFpEX6vg.SeyJzIjp7InVyaSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vZW5kcG9pbnQiLCJyb3V0aW5nS2V5cyI6WyJkaWQ6ZXhhbXBsZTpzb21lbWVkaWF0b3Ijc29tZWtleSJdLCJhY2NlcHQiOlsiZGlkY29tbS92MiIsImRpZGNvbW0vYWlwMjtlbnY9cmZjNTg3Il19LCJ0IjoiZG0ifQ",
  ],
  pkh: [
    "did:pkh:eip155:1:0xb9c5714089478a327f09197987f16f9e5d936e8a",
    "did:pkh:bip122:000000000019d6689c085ae165831e93:128Lkh3S7CkDTBZ8W7BbpsN3YYizJMp8p6",
    "did:pkh:tezos:NetXdQprcVkpaWU:tz1TzrmTBSuiVHV2VfMnGRMYvTEPCP42oSM8",
  ],
};

/**
 * `{method: [did, …]}` for the methods this instance resolves: the built-in examples plus the
 * configured ones (grouped by their method), in method order.
 */
export function testIdentifiers(
  methods: readonly string[],
  configured: readonly string[],
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of methods) {
    const list = [...(BUILT_IN[m] ?? [])];
    for (const did of configured) if (did.startsWith(`did:${m}:`)) list.push(did);
    if (list.length) out[m] = list;
  }
  for (const did of configured) {
    const m = did.slice(4, did.indexOf(":", 4));
    if (!(m in out)) (out[m] ??= []).push(did);
  }
  return out;
}
