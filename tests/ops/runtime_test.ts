/**
 * The Deno versions the service runs on (`src/boot/runtime.ts`): it logs the version it runs on, and
 * on a Deno older than the one Deno Deploy runs (2.5.0, docs.deno.com/deploy/reference/runtime)
 * it exits 1 naming the found and the needed version. On 2.5.0 itself, the platform's runtime,
 * it starts and works: it answers, and delivers a webhook through the safe client, whose
 * connections are pinned to the vetted addresses only from 2.7 on (it says so at start). The old
 * Deno comes from the npm registry like the project's own (`npx deno@2.5.0`).
 */
import assert from "node:assert/strict";
import { DEPLOY_DENO, npmDeno } from "../support/npm_deno.ts";
import { MIN_DENO, runtimeProblem } from "../../src/boot/runtime.ts";
import { canPinOutbound } from "../../src/outbound/mod.ts";
import { createIdp, serveLocal, signToken } from "../support/context.ts";
import { serviceEnv, startService } from "../support/service_process.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("runtimeProblem names the found and the needed version below 2.5 (Deno Deploy's runtime); connections are pinned from 2.7 on", () => {
  assert.equal(MIN_DENO, "2.5.0");
  for (const ok of ["2.5.0", "2.6.10", "2.7.0", "2.9.6", "3.0.0"]) {
    assert.equal(runtimeProblem(ok), undefined, ok);
  }
  for (const old of ["2.4.5", "2.0.0", "1.46.3"]) {
    assert.match(
      runtimeProblem(old)!,
      new RegExp(`Deno ${old.replaceAll(".", "\\.")} is too old.*2\\.5\\.0.*Deno Deploy runs`),
    );
  }
  assert.match(runtimeProblem("canary")!, /needs Deno 2\.5\.0/);
  assert.deepEqual(
    ["2.5.0", "2.6.10", "2.7.0", "2.9.6", "3.0.0", "canary"].map(canPinOutbound),
    [false, false, true, true, true, false],
  );
});

Deno.test("the service logs its Deno version at start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "runtime_" });
  const svc = await startService(serviceEnv(await createIdp(), dir, { LOG_LEVEL: "info" }));
  try {
    assert.match(svc.output(), new RegExp(`"msg":"starting","deno":"${Deno.version.deno}"`));
    assert.doesNotMatch(svc.output(), /not pinned/);
  } finally {
    await svc.kill();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("on Deno 2.5.0, the version Deno Deploy runs, the service starts, answers and delivers a webhook", async () => {
  const old = await npmDeno(DEPLOY_DENO);
  if (!old.path) {
    if (Deno.env.get("CI") === "true") {
      throw new Error(`Deno 2.5.0 could not be installed: ${old.why}`);
    }
    console.log(`skipped: Deno 2.5.0 could not be installed (${old.why})`);
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "runtime_deploy_" });
  const got: string[] = [];
  const rx = serveLocal(async (req) => {
    got.push(req.headers.get("webhook-id")!);
    await req.body?.cancel();
    return new Response(null, { status: 204 });
  });
  const idp = await createIdp();
  // The system's CA store: npm packages Deno 2.5.0 may still fetch come through it.
  const env = serviceEnv(idp, dir, { LOG_LEVEL: "info", DENO_TLS_CA_STORE: "system" });
  const svc = await startService(env, 120_000, old.path);
  try {
    const out = svc.output();
    assert.match(out, /"msg":"starting","deno":"2\.5\.0"/);
    assert.match(out, /"level":"warn","msg":"outbound calls are vetted but not pinned/);
    const token = await signToken(idp, { orgs: { "org-d": ["owner"] } });
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const reg = await fetch(`${svc.base}/notification/register/webhook-endpoint`, {
      method: "POST",
      headers,
      body: JSON.stringify({ orgId: "org-d", notificationWebhook: `${rx.url}/hook` }),
    });
    assert.equal(reg.status, 201, await reg.text());
    const sent = await fetch(`${svc.base}/notification/webhook-endpoint/test`, {
      method: "POST",
      headers,
      body: JSON.stringify({ orgId: "org-d" }),
    });
    assert.equal(sent.status, 202);
    const { eventId } = (await sent.json()).data;
    await waitFor("the webhook delivered from Deno 2.5.0", () => got.includes(eventId));
  } finally {
    await svc.kill();
    await rx.close();
    await Deno.remove(dir, { recursive: true });
  }
});
