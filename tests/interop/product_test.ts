/**
 * The whole product as deployed, through HTTP only: the real service (`src/main.ts` as a
 * subprocess on a KV file), a real Credo issuer, a real webhook receiver verifying signatures with
 * the `standardwebhooks` library, and JWTs from a test identity provider.
 *
 * An owner configures the org's agent and registers a webhook endpoint; the agent's API key buys
 * an agent token; with it the org connects to Credo from an out-of-band invitation, accepts
 * Credo's credential offer, and `POST /credentials/accept-credential` finishes the exchange on
 * both sides. The org's DID resolves through `GET /dids`. Every state change arrives at the
 * receiver, signed, in order.
 *
 * Needs `bash tests/interop/setup.sh` (npm packages of the Credo peer).
 */
import { credoInterop } from "./availability.ts";
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { createIdp, serveLocal, signToken } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";
import { startCredoIssuer } from "./credo_peer.ts";

const ORG = "org-e2e";
type Json = Record<string, unknown>;

Deno.test({
  ...credoInterop,
  name:
    "product: configure, webhooks, agent token, connect to Credo, accept a credential, resolve; all through the real service",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const idp = await createIdp();
    const events: { type: string; data: Json; id: string; timestamp: string }[] = [];
    let secret = "";
    // A delivery may arrive before the registration's answer (with the secret) has been read here.
    const secretKnown = Promise.withResolvers<void>();
    const bad: string[] = [];
    const rx = serveLocal(async (req) => {
      const body = await req.text();
      await secretKnown.promise;
      try {
        const ev = new Webhook(secret).verify(body, Object.fromEntries(req.headers)) as Json;
        events.push({
          type: String(ev.type),
          data: ev.data as Json,
          id: String(ev.id),
          timestamp: String(ev.timestamp),
        });
      } catch (err) {
        bad.push(String(err));
      }
      return new Response(null, { status: 204 });
    });
    const issuer = await startCredoIssuer();
    const service = await startService(serviceEnv(idp, dir));
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(service.base + path, {
        method,
        headers: {
          authorization: token.startsWith("Bearer ") ? token : `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) as Json : {} };
    };
    try {
      const owner = await signToken(idp, { orgs: { [ORG]: ["owner"] } });
      const apiKey = "e2e-api-key-" + crypto.randomUUID();
      const configured = await call("POST", `/orgs/${ORG}/agents/configure`, owner, {
        walletName: "E2EHolder",
        agentEndpoint: `${service.base}/didcomm`,
        apiKey,
      });
      assert.equal(configured.status, 201, JSON.stringify(configured.json));
      const registered = await call("POST", "/notification/register/webhook-endpoint", owner, {
        orgId: ORG,
        notificationWebhook: `${rx.url}/hooks`,
      });
      assert.equal(registered.status, 201, JSON.stringify(registered.json));
      secret = String((registered.json.data as Json).secret);
      secretKnown.resolve();

      // The agent's API key (raw in authorization) buys a 15-minute agent token.
      const tokenRes = await fetch(`${service.base}/agent/token`, {
        method: "POST",
        headers: { authorization: apiKey },
      });
      assert.equal(tokenRes.status, 200);
      const agent = String((await tokenRes.json()).token);

      const inv = await issuer.createInvitation("didexchange");
      const created = await call("POST", `/orgs/${ORG}/connections/receive-invitation`, agent, {
        invitationUrl: inv.invitationUrl,
      });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const theirs = await issuer.waitForConnection(inv.outOfBandId, "completed", 15_000);
      const offer = await issuer.offerCredential({ connectionId: theirs.id });
      const offered = await waitFor("the offer at the service", async () => {
        const list = await call("GET", `/orgs/${ORG}/credentials`, agent);
        return (list.json.data as Json[]).find((r) =>
          r.threadId === offer.threadId && r.state === "offer-received"
        );
      }, 15_000);
      const accepted = await call("POST", "/credentials/accept-offer", agent, {
        credentialRecordId: offered.id,
      });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
      await waitFor("the credential at the service", async () => {
        const r = await call("GET", `/credentials/${offered.id}`, agent);
        if (r.json.state === "abandoned") throw new Error(`abandoned: ${r.json.errorMessage}`);
        return r.json.state === "credential-received" || undefined;
      }, 15_000);
      const done = await call("POST", "/credentials/accept-credential", agent, {
        credentialRecordId: offered.id,
      });
      assert.equal(done.status, 200, JSON.stringify(done.json));
      assert.equal(done.json.state, "done");
      await issuer.waitForCredential(offer.credentialExchangeId, "done", 15_000);

      // The org's DIDs resolve through the service.
      const conn = await call("GET", `/orgs/${ORG}/connections/${created.json.id}`, agent);
      const resolved = await call("GET", `/dids/${conn.json.did}`, owner);
      assert.equal(resolved.status, 200);
      assert.equal((resolved.json.didDocument as Json).id, conn.json.did);

      // Every state change reached the receiver, signed with the registered secret. Deliveries
      // run in parallel, so arrival order is not event order: the events' timestamps are.
      await waitFor("the credential's done event", () =>
        Promise.resolve(
          events.find((e) => e.type === "credential.state_changed" && e.data.state === "done"),
        ), 15_000);
      assert.deepEqual(bad, []);
      events.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
      const states = (type: string) =>
        events.filter((e) => e.type === type).map((e) => e.data.state);
      assert.deepEqual(states("connection.state_changed"), [
        "invitation-received",
        "request-sent",
        "response-received",
        "completed",
      ]);
      assert.deepEqual(states("credential.state_changed"), [
        "offer-received",
        "request-sent",
        "credential-received",
        "done",
      ]);
      assert.equal(new Set(events.map((e) => e.id)).size, events.length, "no event twice");
    } catch (err) {
      console.error("--- service output ---\n" + service.output());
      console.error("--- Credo peer logs ---\n" + issuer.logs());
      throw err;
    } finally {
      secretKnown.resolve(); // never leave a delivery waiting
      await service.stop();
      await issuer.close();
      await rx.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
