/**
 * `deno task dev` as a newcomer meets it: outbound calls may reach private addresses unless
 * OUTBOUND_ALLOW_PRIVATE=false says otherwise, so an agent at the service's own
 * `http://localhost:8000/didcomm`, a localhost webhook receiver and a did:web on loopback just work;
 * and the banner's commands, pasted into a shell as they are, work against the real port.
 */
import assert from "node:assert/strict";
import { createTestContext, expectJson, serveLocal } from "../support/context.ts";
import { didHost, webDoc } from "../did/did_host.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = new URL("../../", import.meta.url);
/** The dev defaults: DEV_MODE=true and neither outbound setting given. */
const DEV = {
  DEV_MODE: "true",
  OUTBOUND_ALLOW_PRIVATE: undefined,
  OUTBOUND_REQUIRE_HTTPS: undefined,
};

Deno.test("dev mode: an agent at http://localhost:8000/didcomm, a localhost webhook and a loopback did:web are accepted; OUTBOUND_ALLOW_PRIVATE=false still refuses", async () => {
  const host = didHost({ "/.well-known/did.json": (_req, did) => Response.json(webDoc(did)) });
  const hooks = serveLocal(() => new Response(null, { status: 204 }));
  for (
    const [env, ok] of [[DEV, true], [{ ...DEV, OUTBOUND_ALLOW_PRIVATE: "false" }, false]] as const
  ) {
    const ctx = await createTestContext({ env });
    try {
      const owner = await ctx.token({ "org-a": ["owner"] });
      const configured = await ctx.call("POST", "/orgs/org-a/agents/configure", {
        token: owner,
        body: {
          walletName: "DevAgent",
          agentEndpoint: "http://localhost:8000/didcomm",
          apiKey: "k".repeat(32),
        },
      });
      const hook = await ctx.call("POST", "/notification/register/webhook-endpoint", {
        token: owner,
        body: { orgId: "org-a", notificationWebhook: `http://localhost:${hooks.port}/hook` },
      });
      const did = await ctx.call("GET", `/dids/${host.did}`, { token: owner });
      if (ok) {
        await expectJson(configured, 201);
        await expectJson(hook, 201);
        const res = await expectJson(did, 200);
        assert.equal((res.didDocument as { id: string }).id, host.did);
      } else {
        for (const res of [configured, hook]) {
          assert.match((await expectJson(res, 400)).message as string, /OUTBOUND_ALLOW_PRIVATE/);
        }
        await expectJson(did, 500);
      }
    } finally {
      await ctx.close();
    }
  }
  await hooks.close();
  await host.close();
});

/** `deno task dev`'s command (without the task runner), in `cwd`, until the banner is out. */
async function startDev(cwd: string, kvPath: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      new URL("deno.json", ROOT).pathname,
      new URL("src/main.ts", ROOT).pathname,
    ],
    cwd,
    env: { DEV_MODE: "true", PORT: "0", KV_PATH: kvPath, LOG_LEVEL: "error" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const drain = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) out += chunk;
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
    await drained;
  };
  try {
    await waitFor("the dev banner", () => /API docs: /.test(out), 60_000);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}; output: ${out}`);
  }
  return { banner: () => out, stop };
}

/** The banner's `curl` lines, run by `sh` exactly as printed: [command, HTTP status, body]. */
async function runCurls(banner: string): Promise<[string, number, string][]> {
  const lines = banner.split("\n").filter((l) => l.startsWith("  curl "));
  const out: [string, number, string][] = [];
  for (const line of lines) {
    const res = await new Deno.Command("sh", {
      args: ["-c", `${line.trim()} -s -w '\\n%{http_code}'`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(res.stdout);
    const status = Number(text.slice(text.lastIndexOf("\n") + 1));
    out.push([line.trim(), status, text.slice(0, text.lastIndexOf("\n"))]);
  }
  return out;
}

const hasCurl = (() => {
  try {
    return new Deno.Command("curl", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();
if (!hasCurl && Deno.env.get("CI") !== "true") console.log("dev banner test skipped: no curl");

Deno.test({
  name:
    "the dev banner's curl commands work as pasted: /me, configure the demo agent; after a restart, read it",
  ignore: !hasCurl && Deno.env.get("CI") !== "true",
  async fn() {
    const cwd = await Deno.makeTempDir({ prefix: "dev-mode-" });
    // The temp dir holds `.data/` (dev secrets) as a newcomer's checkout would.
    const kvPath = `${cwd}/.data/kv.sqlite3`;
    try {
      const first = await startDev(cwd, kvPath);
      let results: [string, number, string][];
      try {
        results = await runCurls(first.banner());
      } finally {
        await first.stop();
      }
      assert.equal(results.length, 2, first.banner());
      const exported = /^ {2}export TOKEN=(\S+)$/m.exec(first.banner())?.[1];
      assert.ok(exported && first.banner().includes(`Bearer ${exported}"`), "export TOKEN line");
      const [me, configure] = results as [[string, number, string], [string, number, string]];
      assert.match(me[0], /\/me$/);
      assert.equal(me[1], 200, me[2]);
      assert.deepEqual(JSON.parse(me[2]).orgs, { "demo-org": ["owner"] });
      assert.match(configure[0], /\/orgs\/demo-org\/agents\/configure$/);
      assert.equal(configure[1], 201, configure[2]);
      const agent = JSON.parse(configure[2]).data;
      assert.match(agent.agentEndpoint, /^http:\/\/localhost:\d+\/didcomm$/);
      assert.ok(!agent.agentEndpoint.endsWith(":0/didcomm"), "the real port, not PORT=0");

      // Same KV and `.data/`: the banner no longer offers a configure that would be 409.
      const second = await startDev(cwd, kvPath);
      try {
        const [, read] = await runCurls(second.banner()) as [unknown, [string, number, string]];
        assert.match(
          second.banner(),
          /agent is configured \(endpoint http:\/\/localhost:\d+\/didcomm\)/,
        );
        assert.match(read[0], /\/orgs\/demo-org\/agents$/);
        assert.equal(read[1], 200, read[2]);
        assert.equal(JSON.parse(read[2]).did, agent.did);
      } finally {
        await second.stop();
      }
    } finally {
      await Deno.remove(cwd, { recursive: true });
    }
  },
});
