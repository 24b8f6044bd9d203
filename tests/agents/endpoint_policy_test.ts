/**
 * `agentEndpoint` is where peers are told to send this org's DIDComm messages: on a strict
 * instance (no OUTBOUND_ALLOW_PRIVATE) it goes through the outbound address policy at configure
 * and at PATCH, so no peer is pointed at loopback, private or cloud metadata addresses.
 */
import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import { agentsContext, configure } from "./helpers.ts";

/** 26 endpoint forms an attacker would try, none of them public. */
const FORBIDDEN = [
  "http://127.0.0.1/didcomm",
  "http://127.1/didcomm",
  "http://2130706433/didcomm",
  "http://0x7f000001/didcomm",
  "http://0177.0.0.1/didcomm",
  "http://localhost:8000/didcomm",
  "http://[::1]/didcomm",
  "http://[::127.0.0.1]/didcomm",
  "http://[::ffff:127.0.0.1]/didcomm",
  "http://[0:0:0:0:0:ffff:7f00:1]/didcomm",
  "http://169.254.169.254/latest/meta-data/",
  "http://[::ffff:169.254.169.254]/",
  "http://[64:ff9b::a9fe:a9fe]/",
  "http://[fd00:ec2::254]/",
  "http://10.0.0.5/didcomm",
  "http://172.20.1.1/didcomm",
  "http://192.168.0.10/didcomm",
  "http://100.100.100.200/",
  "http://0.0.0.0/didcomm",
  "http://[::]/didcomm",
  "http://[fe80::1]/didcomm",
  "http://[fc00::1]/didcomm",
  "http://[2002:7f00:1::]/didcomm",
  "http://[2001:0:7f00:1::1]/didcomm",
  "http://198.18.0.1/didcomm",
  "http://224.0.0.1/didcomm",
];

Deno.test("agentEndpoint: 26 private, loopback and metadata forms are refused at configure and at PATCH on a strict instance", async () => {
  assert.equal(FORBIDDEN.length, 26);
  const ctx = await agentsContext({
    env: { OUTBOUND_ALLOW_PRIVATE: "false", OUTBOUND_REQUIRE_HTTPS: "false" },
  });
  try {
    for (const agentEndpoint of FORBIDDEN) {
      const { res } = await configure(ctx, "org-a", { agentEndpoint });
      const body = await expectJson(res, 400);
      assert.match(
        body.message as string,
        /^agentEndpoint: .*(may not reach|not an absolute)/,
        agentEndpoint,
      );
      assert.equal((body.details as { path: string }[])[0]!.path, "agentEndpoint");
    }
    // A public endpoint is accepted; a PATCH to a forbidden one is refused and changes nothing.
    await expectJson(
      (await configure(ctx, "org-a", { agentEndpoint: "http://93.184.215.14/didcomm" })).res,
      201,
    );
    const token = await ctx.token();
    for (const agentEndpoint of FORBIDDEN) {
      const res = await ctx.call("PATCH", "/orgs/org-a/agents", { token, body: { agentEndpoint } });
      await expectJson(res, 400);
    }
    const agent = await expectJson(await ctx.call("GET", "/orgs/org-a/agents", { token }), 200);
    assert.equal(agent.agentEndpoint, "http://93.184.215.14/didcomm");
  } finally {
    await ctx.close();
  }
});
