/**
 * Who may use the OpenID4VP, OpenID4VCI and Present Proof routes (CONTRACT "Authentication and
 * authorization", "OpenID4VCI holder"): any member of the org (here a `holder` and a `member`),
 * or the org's agent token; a token with no role in the path's org gets 403; a record of another
 * org is 404, under one's own org path or by id alone, for people and agent tokens alike.
 */
import assert from "node:assert/strict";
import { expectJson } from "../support/context.ts";
import { createProofContext, proofOf, requestMessage } from "../present_proof/helpers.ts";
import { startLocalVerifier } from "../openid4vp/local_verifier.ts";
import { storeSdJwt } from "../openid4vp/stored_credentials.ts";
import { configureAgent } from "../didcomm/helpers.ts";

type Json = Record<string, unknown>;

Deno.test("OpenID4VP, OpenID4VCI and proof routes: members and the org's agent token may act; non-members 403; another org's records 404", async () => {
  const ctx = await createProofContext(); // org-a with an agent and a connection
  const verifier = await startLocalVerifier();
  try {
    const A = ctx.orgId;
    await configureAgent(ctx, "org-b", "https://agent-b.example/didcomm");
    const agentToken = async (orgId: string) => {
      const agent = await ctx.services.agents.find(orgId);
      return (await ctx.services.signer.mintAgentToken(orgId, agent!.keyEpoch ?? "")).token;
    };
    const callers = {
      holder: await ctx.token({ [A]: ["holder"] }),
      member: await ctx.token({ [A]: ["member"] }),
      agent: await agentToken(A),
    };
    const outsider = await ctx.token({ "org-b": ["owner", "holder"] });
    const outsiderAgent = await agentToken("org-b");
    await storeSdJwt(ctx, A, { given_name: "Erika" });
    await storeSdJwt(ctx, "org-b", { given_name: "Bea" });
    const call = (token: string, method: string, path: string, body?: unknown) =>
      ctx.call(method, path, { token, body });

    // Lists under the org's path.
    const lists = [
      `/orgs/${A}/openid4vp/requests`,
      `/orgs/${A}/openid4vc/offers`,
      `/orgs/${A}/sd-jwt-credentials`,
      `/orgs/${A}/proofs`,
      `/orgs/${A}/w3c-credentials`,
    ];
    for (const path of lists) {
      for (const [who, token] of Object.entries(callers)) {
        await expectJson(await call(token, "GET", path), 200).catch((e) => {
          throw new Error(`${who} GET ${path}: ${e.message}`);
        });
      }
      for (const token of [outsider, outsiderAgent]) {
        const body = await expectJson(await call(token, "GET", path), 403);
        assert.match(String(body.message), /not a member of organization "org-a"/, path);
      }
    }

    // OpenID4VP: each caller receives a request and answers it; an outsider may do neither.
    for (const [who, token] of Object.entries(callers)) {
      const req = await verifier.request();
      const rec = await expectJson(
        await call(token, "POST", `/orgs/${A}/openid4vp/requests`, { request: req.link }),
        201,
      );
      const one = `/orgs/${A}/openid4vp/requests/${rec.id}`;
      await expectJson(await call(outsider, "POST", `${one}/accept`), 403);
      await expectJson(
        await call(outsider, "GET", `/orgs/org-b/openid4vp/requests/${rec.id}`),
        404,
      );
      await expectJson(
        await call(outsiderAgent, "POST", `/orgs/org-b/openid4vp/requests/${rec.id}/decline`),
        404,
      );
      assert.equal((await expectJson(await call(token, "GET", one), 200)).id, rec.id, who);
      const done = await expectJson(await call(token, "POST", `${one}/accept`), 200);
      assert.equal(done.state, "done", who);
    }
    await expectJson(
      await call(outsider, "POST", `/orgs/${A}/openid4vp/requests`, {
        request: (await verifier.request()).link,
      }),
      403,
    );

    // OpenID4VCI: a malformed offer is the caller's 400 (past the role check) for members and the
    // agent token, 403 for an outsider.
    const offer = { credentialOffer: "openid-credential-offer://?credential_offer=%7B%7D" };
    for (const token of Object.values(callers)) {
      await expectJson(await call(token, "POST", `/orgs/${A}/openid4vc/offers`, offer), 400);
    }
    await expectJson(await call(outsider, "POST", `/orgs/${A}/openid4vc/offers`, offer), 403);
    const [sdJwt] = (await expectJson(
      await call(callers.agent, "GET", `/orgs/${A}/sd-jwt-credentials`),
      200,
    )).data as Json[];
    await expectJson(
      await call(outsider, "GET", `/orgs/org-b/sd-jwt-credentials/${sdJwt!.id}`),
      404,
    );

    // Present Proof: records by id; the agent token declines one.
    const message = requestMessage({
      id: "pd",
      input_descriptors: [{ id: "name", constraints: { fields: [{ path: ["$.name"] }] } }],
    });
    await ctx.receive(message);
    const proof = await proofOf(ctx, message["@id"]);
    for (const token of Object.values(callers)) {
      assert.equal(
        (await expectJson(await call(token, "GET", `/proofs/${proof.id}`), 200)).id,
        proof.id,
      );
    }
    for (const token of [outsider, outsiderAgent]) {
      await expectJson(await call(token, "GET", `/proofs/${proof.id}`), 404);
      await expectJson(
        await call(token, "POST", "/proofs/decline-request", { proofRecordId: proof.id }),
        404,
      );
    }
    const declined = await expectJson(
      await call(callers.agent, "POST", "/proofs/decline-request", { proofRecordId: proof.id }),
      200,
    );
    assert.equal(declined.state, "declined");
  } finally {
    await verifier.close();
    await ctx.close();
  }
});
