/**
 * SECRETS_KEY rotation: SecretBox with previous keys, SECRETS_KEY_PREVIOUS parsing, and a whole
 * rotation on a real KV file: every sealed value (service signing key, API key lookup pepper,
 * wallet keys, webhook secrets) is sealed again, after which the new key alone runs the service.
 */
import assert from "node:assert/strict";
import { apiKeyLookupId } from "../../src/agents/api_key.ts";
import { resealables } from "../../src/compose.ts";
import { rotateSecrets } from "../../src/crypto/mod.ts";
import { ConfigError, parseConfig } from "../../src/config/config.ts";
import { resealAll, SecretBox } from "../../src/crypto/mod.ts";
import { keys } from "../../src/kv/mod.ts";
import type { WebhookEndpoint } from "../../src/webhooks/endpoint.ts";
import { createIdp, createTestContext, expectJson, type TestIdp } from "../support/context.ts";
import { agentToken, configure } from "../agents/helpers.ts";

const rawKey = () => crypto.getRandomValues(new Uint8Array(32));
const b64 = (k: Uint8Array) => btoa(String.fromCharCode(...k));

Deno.test("SecretBox: opens with previous keys; reseal moves a value to the current key", async () => {
  const [a, b, c] = [rawKey(), rawKey(), rawKey()];
  const sealedA = await new SecretBox(a).seal("wallet seed", "aad-1");
  const rotating = new SecretBox(b, [a]);
  assert.equal(await rotating.openString(sealedA, "aad-1"), "wallet seed");
  await assert.rejects(rotating.open(sealedA, "other-aad"));

  const moved = await rotating.reseal(sealedA, "aad-1");
  assert.ok(moved && moved !== sealedA);
  assert.equal(await new SecretBox(b).openString(moved, "aad-1"), "wallet seed");
  await assert.rejects(new SecretBox(a).open(moved, "aad-1"));
  assert.equal(await rotating.reseal(moved, "aad-1"), undefined); // already current

  await assert.rejects(new SecretBox(c, [b]).open(sealedA, "aad-1"));
  await assert.rejects(new SecretBox(c, [b]).reseal(sealedA, "aad-1"));
});

Deno.test("config: SECRETS_KEY_PREVIOUS takes comma-separated keys; bad ones are named", () => {
  const base = {
    AUTH_PUBLIC_KEY:
      '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}',
    AUTH_ISSUER: "https://idp.test",
    AUTH_AUDIENCE: "ssi-edge",
    SECRETS_KEY: b64(rawKey()),
  };
  const [a, b] = [rawKey(), rawKey()];
  const config = parseConfig({ ...base, SECRETS_KEY_PREVIOUS: `${b64(a)}, ${b64(b)}` });
  assert.deepEqual(config.previousSecretsKeys, [a, b]);
  assert.deepEqual(parseConfig(base).previousSecretsKeys, []);
  assert.throws(
    () => parseConfig({ ...base, SECRETS_KEY_PREVIOUS: `${b64(a)},c2hvcnQ=` }),
    (e: unknown) =>
      e instanceof ConfigError && /SECRETS_KEY_PREVIOUS \(key 2 .*5 bytes/.test(e.message),
  );
});

async function service(kvPath: string, idp: TestIdp, key: Uint8Array, previous: Uint8Array[] = []) {
  return await createTestContext({
    kvPath,
    idp,
    env: {
      SECRETS_KEY: b64(key),
      ...(previous.length ? { SECRETS_KEY_PREVIOUS: previous.map(b64).join(",") } : {}),
    },
  });
}

Deno.test("rotation: every sealed value moves to the new key; then the new key alone runs the service", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  const idp = await createIdp();
  const [oldKey, newKey] = [rawKey(), rawKey()];
  try {
    // Before: an org with an agent (wallet key), an agent token (service signing key, pepper)
    // and a webhook endpoint (signing secret), all sealed under the old key.
    const before = await service(kvPath, idp, oldKey);
    const { res, apiKey } = await configure(before);
    const verkey = (await expectJson(res, 201)).data as { did: string };
    assert.ok(verkey.did);
    await expectJson(await agentToken(before, apiKey), 200);
    const owner = await before.token({ "org-a": ["owner"] });
    const registered = await expectJson(
      await before.call("POST", "/notification/register/webhook-endpoint", {
        token: owner,
        body: { orgId: "org-a", notificationWebhook: "http://127.0.0.1:9/hook" },
      }),
      201,
    );
    const webhookSecret = (registered.data as { secret: string }).secret;
    const agent = (await before.kv.get<{ verkey: string; id: string }>(keys.agent("org-a")))
      .value!;
    // The agent's P-256 key (ES256 proofs) and an OpenID4VCI offer's pre-authorized code.
    const p256 = await before.services.wallet.p256Key("org-a", agent.id);
    const offerId = "0190a000-0000-7000-8000-000000000001";
    await before.kv.set(keys.oid4vcOffer("org-a", offerId), {
      record: { id: offerId, orgId: "org-a", state: "offer-received" },
      sealedCode: await before.services.secrets.seal("code-1", `oid4vc_offer:org-a:${offerId}`),
    });
    await before.close();

    // The new key alone cannot open any of it yet.
    {
      const kv = await Deno.openKv(kvPath);
      const reports = await resealAll(kv, new SecretBox(newKey), resealables);
      assert.deepEqual(
        reports.map((r) => [r.name, r.checked, r.failed.length]),
        [
          ["service signing key", 1, 1],
          ["API key lookup pepper", 1, 1],
          ["wallet keys", 1, 1],
          ["wallet P-256 keys", 1, 1],
          ["webhook secrets", 1, 1],
          ["OpenID4VCI offers", 1, 1],
        ],
      );
      kv.close();
    }

    // During: new key + previous key. Everything still works, and the rotation re-seals all.
    const during = await service(kvPath, idp, newKey, [oldKey]);
    await expectJson(await agentToken(during, apiKey), 200);
    assert.equal(await rotateSecrets(during.kv, during.services.secrets, resealables), true);
    const again = await resealAll(during.kv, during.services.secrets, resealables);
    assert.deepEqual(again.map((r) => r.resealed), [0, 0, 0, 0, 0, 0]); // idempotent
    await during.close();

    // After: the new key alone. The same API key still finds its org (the pepper kept its value),
    // the wallet key and the webhook secret open, and the signing key signs verifiable tokens.
    const after = await service(kvPath, idp, newKey);
    try {
      const token = (await expectJson(await agentToken(after, apiKey), 200)).token as string;
      await expectJson(await after.call("GET", "/me", { token }), 200);
      const wallet = await after.services.wallet.findByVerkey(agent.verkey);
      assert.equal(wallet?.verkey, agent.verkey);
      const reopened = await after.services.wallet.p256Key("org-a", agent.id);
      assert.deepEqual(reopened.publicJwk, p256.publicJwk);
      const offer = (await after.kv.get<{ sealedCode: string }>(keys.oid4vcOffer("org-a", offerId)))
        .value!;
      assert.equal(
        await after.services.secrets.openString(offer.sealedCode, `oid4vc_offer:org-a:${offerId}`),
        "code-1",
      );
      const ep = (await after.kv.get<WebhookEndpoint>(keys.webhook("org-a"))).value!;
      assert.equal(
        await after.services.secrets.openString(ep.secrets[0]!.sealed, "webhook-secret:org-a"),
        webhookSecret,
      );
      await assert.rejects(
        new SecretBox(oldKey).open(ep.secrets[0]!.sealed, "webhook-secret:org-a"),
      );
    } finally {
      await after.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("rotation: agents stored before the pepper existed keep their API key lookups", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  const idp = await createIdp();
  const key = rawKey();
  try {
    // An agent whose lookup id was keyed by SECRETS_KEY itself (as before the pepper record).
    const first = await service(kvPath, idp, key);
    const { res, apiKey } = await configure(first);
    await expectJson(res, 201);
    const agent = await first.kv.get<{ apiKeyLookup: string }>(keys.agent("org-a"));
    const legacy = await apiKeyLookupId(key, apiKey);
    await first.kv.atomic()
      .set(keys.agent("org-a"), { ...agent.value!, apiKeyLookup: legacy })
      .delete(keys.agentByApiKey(agent.value!.apiKeyLookup, "org-a"))
      .set(keys.agentByApiKey(legacy, "org-a"), "org-a")
      .delete(keys.apiKeyPepper())
      .commit();
    await first.close();

    const restarted = await service(kvPath, idp, key);
    try {
      await expectJson(await agentToken(restarted, apiKey), 200);
      assert.ok((await restarted.kv.get(keys.apiKeyPepper())).value, "the pepper is stored now");
    } finally {
      await restarted.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
