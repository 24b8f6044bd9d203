/**
 * Every change of an OpenID4VP presentation request emits `presentation.state_changed` with the
 * record and `protocol: "openid4vp"` (CONTRACT "OpenID4VP holder"): received, then `done`,
 * `failed` (the verifier refuses) or `declined`, each in the commit that makes the change.
 */
import assert from "node:assert/strict";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext, expectJson } from "../support/context.ts";
import { recordEvents } from "../support/outbox.ts";
import { startLocalVerifier } from "./local_verifier.ts";
import { storeSdJwt } from "./stored_credentials.ts";

const ORG = "org-events";
type Json = Record<string, unknown>;

Deno.test("OID4VP events: received → done, received → failed, received → declined, each with the record and protocol openid4vp", async () => {
  const ctx = await createTestContext();
  const verifier = await startLocalVerifier();
  try {
    await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
    await storeSdJwt(ctx, ORG, { given_name: "Erika" });
    const token = await ctx.token({ [ORG]: ["holder"] });
    const path = `/orgs/${ORG}/openid4vp/requests`;
    const receive = async () =>
      await expectJson(
        await ctx.call("POST", path, {
          token,
          body: { request: (await verifier.request()).link },
        }),
        201,
      );
    const act = async (id: unknown, action: "accept" | "decline") =>
      await expectJson(await ctx.call("POST", `${path}/${id}/${action}`, { token }), 200);

    const done = await receive();
    assert.equal((await act(done.id, "accept")).state, "done");
    const failed = await receive();
    verifier.answerWith(400, { error: "invalid_request", error_description: "no" });
    assert.equal((await act(failed.id, "accept")).state, "failed");
    const declined = await receive();
    assert.equal((await act(declined.id, "decline")).state, "declined");

    for (
      const [rec, end] of [[done, "done"], [failed, "failed"], [declined, "declined"]] as const
    ) {
      const events = await recordEvents(ctx.kv, "presentation.state_changed", String(rec.id));
      assert.deepEqual(
        events.map((e) => `${e.previousState}→${e.state}`),
        ["null→request-received", `request-received→${end}`],
        end,
      );
      for (const e of events) {
        assert.equal(e.protocol, "openid4vp", end);
        assert.equal(e.orgId, ORG, end);
        assert.deepEqual(e.verifier, rec.verifier, end);
      }
      const last = events.at(-1)! as Json;
      const now = await expectJson(await ctx.call("GET", `${path}/${rec.id}`, { token }), 200);
      assert.equal(
        last.updatedAt,
        now.updatedAt,
        `${end}: the event carries the record as written`,
      );
    }
  } finally {
    await verifier.close();
    await ctx.close();
  }
});
