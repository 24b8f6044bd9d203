/**
 * Never lost, never twice: the real service (`src/main.ts` subprocess) holds a credential from a
 * real Credo 0.6.3 agent and accepts its proof request while Credo's endpoint is down (503), so
 * the committed presentation waits in the outbox; the service is killed with SIGKILL, Credo comes
 * back, the service restarts on the same KV file, and Credo receives the presentation exactly
 * once, verifies it and acks it (done on both sides).
 */
import assert from "node:assert/strict";
import { credoInterop } from "./availability.ts";
import { startCredoIssuer } from "./credo_peer.ts";
import { type Caller, connectAndIssue } from "./credo_credential.ts";
import { createIdp, signToken } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";
import { drainOutbox, pendingOutbox } from "../support/outbox.ts";

const ORG = "org-proof-kill";
type Json = Record<string, unknown>;

Deno.test({
  ...credoInterop,
  name: "kill -9 between accept-request and the presentation's delivery: Credo receives it " +
    "once after the restart, verifies it, and both sides end done",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "proof_kill_" });
    const idp = await createIdp();
    const env = serviceEnv(idp, dir);
    let base = ""; // the port is known once the service listens
    const token = await signToken(idp, { orgs: { [ORG]: ["owner"] } });
    const api: Caller = {
      call: (method, path, o = {}) =>
        fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${o.token ?? token}`,
            ...(o.body !== undefined ? { "content-type": "application/json" } : {}),
          },
          body: o.body === undefined ? undefined : JSON.stringify(o.body),
        }),
    };
    const json = async (method: string, path: string, body?: unknown) => {
      const res = await api.call(method, path, { token, body });
      return { status: res.status, body: await res.json() as Json };
    };
    const issuer = await startCredoIssuer();
    let svc = await startService(env);
    base = svc.base;
    try {
      const conf = await json("POST", `/orgs/${ORG}/agents/configure`, {
        walletName: "KillAgent",
        agentEndpoint: `${base}/didcomm`,
        apiKey: "k3y-" + crypto.randomUUID(),
      });
      assert.equal(conf.status, 201, JSON.stringify(conf.body));
      const { theirs } = await connectAndIssue(issuer, api, ORG, token);

      const req = await issuer.requestProof({ connectionId: theirs });
      const received = await waitFor("our proof record", async () => {
        const list = (await json("GET", `/orgs/${ORG}/proofs`)).body.data as Json[];
        return list.find((r) => r.threadId === req.threadId && r.state === "request-received");
      });

      await issuer.pauseInbound(true); // the presentation cannot be delivered now
      const accepted = await json("POST", "/proofs/accept-request", {
        proofRecordId: received.id,
      });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal(accepted.body.state, "presentation-sent");
      await svc.kill();
      // The presentation is committed and waiting: nothing reached Credo.
      const kv = await Deno.openKv(env.KV_PATH!);
      try {
        assert.ok(await pendingOutbox(kv) > 0);
        const before = await issuer.messages();
        assert.equal(before.filter((m) => m.type.endsWith("/presentation")).length, 0);

        await issuer.pauseInbound(false);
        svc = await startService(env);
        const verified = await issuer.waitForProof(req.proofExchangeId, "done", 30_000);
        assert.equal(verified.isVerified, true, verified.errorMessage ?? "");
        await waitFor(
          "our record done",
          async () => (await json("GET", `/proofs/${received.id}`)).body.state === "done",
        );
        // The restarted service's outbox drains: a second copy would have reached Credo by then.
        await drainOutbox(kv, 30_000);
      } finally {
        kv.close();
      }
      const presentations = (await issuer.messages()).filter((m) =>
        m.type === "https://didcomm.org/present-proof/2.0/presentation" &&
        m.thid === req.threadId
      );
      assert.equal(presentations.length, 1);
    } catch (err) {
      console.error(
        "--- Credo peer logs ---\n" + issuer.logs() + "\n--- service ---\n" +
          svc.output(),
      );
      throw err;
    } finally {
      await svc.kill();
      await issuer.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
