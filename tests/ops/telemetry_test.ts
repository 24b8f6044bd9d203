/**
 * OpenTelemetry (CONTRACT "Operations"): the real service with `OTEL_DENO=true` exports, to a
 * local OTLP/HTTP receiver (JSON protocol), a span for every outbox delivery attempt and every
 * inbound DIDComm message processed, each linked to the request that caused it, and the counters
 * and histograms for deliveries, backlog age, DIDComm in/out and DID cache hits/misses.
 */
import assert from "node:assert/strict";
import { didHost, json, webDoc } from "../did/did_host.ts";
import { startTestPeer } from "../didcomm/test_peer.ts";
import { createIdp, serveLocal, signToken } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";

type Attr = { key: string; value: Record<string, unknown> };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
  attributes?: Attr[];
  links?: { traceId: string; spanId: string }[];
}

const attr = (span: { attributes?: Attr[] }, key: string) => {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

/** A local OTLP/HTTP (JSON) receiver that keeps every span and metric name it is sent. */
function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const metrics = new Map<string, unknown[]>();
  const server = serveLocal(async (req) => {
    const body = await req.json();
    const path = new URL(req.url).pathname;
    if (path === "/v1/traces") {
      for (const rs of body.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      }
    } else if (path === "/v1/metrics") {
      for (const rm of body.resourceMetrics ?? []) {
        for (const sm of rm.scopeMetrics ?? []) {
          for (const m of sm.metrics ?? []) {
            const points = m.sum?.dataPoints ?? m.histogram?.dataPoints ?? m.gauge?.dataPoints ??
              [];
            metrics.set(m.name, [...(metrics.get(m.name) ?? []), ...points]);
          }
        }
      }
    }
    return new Response(null, { status: 200 });
  });
  return { ...server, spans, metrics };
}

Deno.test("OTEL_DENO=true: spans for delivery attempts and inbound DIDComm linked to their requests; delivery, backlog, DIDComm and DID cache metrics", async () => {
  const otlp = otlpReceiver();
  const dir = await Deno.makeTempDir({ prefix: "otel_" });
  const idp = await createIdp();
  const env = serviceEnv(idp, dir, {
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "ssi-edge-test",
    OTEL_METRIC_EXPORT_INTERVAL: "500",
    OTEL_BSP_SCHEDULE_DELAY: "200",
  });
  let base = ""; // the port is known once the service listens
  const hooks: string[] = [];
  const rx = serveLocal(async (req) => {
    hooks.push((await req.json()).type);
    return new Response(null, { status: 204 });
  });
  const host = didHost({ "/.well-known/did.json": (_r, did) => json(webDoc(did)) });
  const peer = await startTestPeer();
  const svc = await startService(env);
  base = svc.base;
  try {
    const token = await signToken(idp, { orgs: { "org-o": ["owner"] } });
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    // A webhook delivery, queued by POST /notification/webhook-endpoint/test.
    await call("POST", "/notification/register/webhook-endpoint", {
      orgId: "org-o",
      notificationWebhook: `${rx.url}/hook`,
    });
    await call("POST", "/notification/webhook-endpoint/test", { orgId: "org-o" });
    await waitFor("the webhook", () => hooks.includes("webhook.test"));
    // Inbound DIDComm: the peer's DID Exchange response to our request, over POST /didcomm.
    await call("POST", "/orgs/org-o/agents/configure", {
      walletName: "Otel",
      agentEndpoint: `${base}/didcomm`,
      apiKey: "k3y-" + crypto.randomUUID(),
    });
    const conn = await call("POST", "/orgs/org-o/connections/receive-invitation", {
      invitation: peer.invitation(),
    });
    await waitFor(
      "the connection",
      async () => (await call("GET", `/orgs/org-o/connections/${conn.id}`)).state === "completed",
    );
    // DID cache: a miss, then a hit.
    await call("GET", `/dids/${host.did}`);
    await call("GET", `/dids/${host.did}`);

    const spanOf = (name: string, pred: (s: OtlpSpan) => boolean = () => true) =>
      otlp.spans.find((s) => s.name === name && pred(s));
    const webhookAttempt = await waitFor(
      "an outbox.attempt span of the webhook",
      () => spanOf("outbox.attempt", (s) => attr(s, "outbox.kind") === "webhook"),
      10_000,
    );
    const inbound = await waitFor(
      "a didcomm.inbound span",
      () => spanOf("didcomm.inbound", (s) => /didexchange/.test(String(attr(s, "didcomm.type")))),
      10_000,
    );
    // Each links to the request span that queued its work.
    const requestSpan = (link: { traceId: string; spanId: string } | undefined) =>
      otlp.spans.find((s) => link && s.traceId === link.traceId && s.spanId === link.spanId);
    const testRequest = await waitFor(
      "the linked request span",
      () => requestSpan(webhookAttempt.links?.[0]),
      10_000,
    );
    assert.match(JSON.stringify(testRequest.attributes), /webhook-endpoint\/test/);
    const didcommRequest = await waitFor(
      "the linked POST /didcomm span",
      () => requestSpan(inbound.links?.[0]),
      10_000,
    );
    assert.match(JSON.stringify(didcommRequest.attributes), /\/didcomm/);

    for (
      const name of [
        "outbox.deliveries",
        "outbox.delivery.duration",
        "outbox.backlog.age",
        "didcomm.messages",
        "did.cache.lookups",
      ]
    ) {
      await waitFor(`metric ${name}`, () => otlp.metrics.has(name), 10_000);
    }
    const points = (name: string) => JSON.stringify(otlp.metrics.get(name));
    // Exports are periodic: an export between two recordings carries the first only, and the
    // next one the rest. Wait for each expected point rather than for the first export.
    const expected: [string, RegExp][] = [
      ["outbox.deliveries", /succeeded/],
      ["didcomm.messages", /"in"/],
      ["didcomm.messages", /"out"/],
      ["did.cache.lookups", /"hit"/],
      ["did.cache.lookups", /"miss"/],
    ];
    for (const [name, re] of expected) {
      await waitFor(`${name} ${re}`, () => re.test(points(name)), 10_000)
        .catch(() => assert.match(points(name), re));
    }
  } finally {
    await svc.kill();
    await peer.close();
    await host.close();
    await rx.close();
    await otlp.close();
    await Deno.remove(dir, { recursive: true });
  }
});
