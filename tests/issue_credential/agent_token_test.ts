import assert from "node:assert/strict";
import { createTestContext, expectJson } from "../support/context.ts";
import { didKeyIdentity } from "../credentials/jsonld/test_keys.ts";
import { exchangeToCredentialReceived, FakeDidcomm } from "./helpers.ts";

Deno.test("the org's agent token may accept its credentials; another org's agent token gets 404", async () => {
  const port = new FakeDidcomm(Date.now);
  const ctx = await createTestContext({ build: { holderDidcomm: port } });
  try {
    port.attach(ctx.services);
    const holder = ctx.services.holder;
    const agentToken = async (orgId: string) => {
      const apiKey = "k3y-" + crypto.randomUUID();
      const conf = await ctx.call("POST", `/orgs/${orgId}/agents/configure`, {
        token: await ctx.token({ [orgId]: ["owner"] }),
        body: { walletName: "Agent", agentEndpoint: "https://agent.example/didcomm", apiKey },
      });
      await expectJson(conf, 201);
      const t = await ctx.call("POST", "/agent/token", { headers: { authorization: apiKey } });
      return String((await expectJson(t, 200)).token);
    };
    const mine = await agentToken("org-a");
    const theirs = await agentToken("org-b");
    const connectionId = crypto.randomUUID();
    port.connections.add(connectionId);
    const sub = {
      ...ctx,
      port,
      holder,
      issuer: didKeyIdentity(),
      orgId: "org-a",
      connectionId,
      flush: async () => {
        await ctx.services.dispatcher.runOnce();
        return port.sent;
      },
    };
    const { id } = await exchangeToCredentialReceived(sub);
    const body = { credentialRecordId: id };
    const path = "/credentials/accept-credential";
    await expectJson(await ctx.call("POST", path, { token: theirs, body }), 404);
    const ok = await expectJson(await ctx.call("POST", path, { token: mine, body }), 200);
    assert.equal(ok.state, "done");
  } finally {
    await ctx.close();
  }
});
