/**
 * Benchmark of `POST /credentials/accept-credential` on records in `credential-received`, with
 * the ack receiver local: the real service (`src/main.ts` subprocess, KV file) has a completed
 * DIDComm connection to a real peer in this process (envelopes decrypted with its key); N exchange
 * records of that connection are seeded in `credential-received`; wrk (one id per request, see
 * `accept_credential.lua`) drives the route; then the time until the peer holds every ack is
 * measured. Needs wrk.
 *
 * Usage: deno run -A tests/bench/accept_credential_bench.ts [records=20000] [duration=5s] [connections=50]
 */
import * as jose from "jose";
import { startTestPeer } from "../didcomm/test_peer.ts";
import { newHolderRecord, type StoredExchange } from "../../src/issue_credential/record.ts";
import { keys } from "../../src/kv/keys.ts";
import { uuidv7 } from "../../src/kv/ids.ts";

const N = Number(Deno.args[0] ?? 20000);
const DURATION = Deno.args[1] ?? "5s";
const CONNECTIONS = Number(Deno.args[2] ?? 50);
const THREADS = 2;
const ORG = "bench-org";
const ROOT = new URL("../../", import.meta.url);

const { privateKey, publicKey } = await jose.generateKeyPair("EdDSA", { extractable: true });
const jwk = { ...(await jose.exportJWK(publicKey)), alg: "EdDSA", kid: "bench" };
const sign = (roles: string[]) =>
  new jose.SignJWT({ resource_access: { [ORG]: { roles } } })
    .setProtectedHeader({ alg: "EdDSA", kid: "bench" })
    .setIssuer("https://idp.bench/realms/x").setAudience("ssi-edge").setSubject("bench-user")
    .setExpirationTime("2h").sign(privateKey);
const owner = await sign(["owner"]);
const holder = await sign(["holder"]);

const dir = await Deno.makeTempDir({ prefix: "accept_cred_bench_" });
const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const port = (l.addr as Deno.NetAddr).port;
l.close();
const base = `http://127.0.0.1:${port}`;
const child = new Deno.Command(Deno.execPath(), {
  args: ["run", "--allow-all", "src/main.ts"],
  cwd: ROOT,
  env: {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? dir,
    PORT: String(port),
    LISTEN_HOST: "127.0.0.1",
    KV_PATH: `${dir}/kv.sqlite3`,
    SECRETS_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
    AUTH_PUBLIC_KEY: JSON.stringify(jwk),
    AUTH_ISSUER: "https://idp.bench/realms/x",
    AUTH_AUDIENCE: "ssi-edge",
    PUBLIC_URL: base,
    OUTBOUND_REQUIRE_HTTPS: "false",
    OUTBOUND_ALLOW_PRIVATE: "true",
    LOG_LEVEL: "error",
  },
  stdout: "null",
  stderr: "inherit",
}).spawn();
const peer = await startTestPeer();

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 120_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const call = async (method: string, path: string, token: string, body?: unknown) => {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

try {
  await until("service up", async () => (await fetch(`${base}/health`)).ok);
  const conf = await call("POST", `/orgs/${ORG}/agents/configure`, owner, {
    walletName: "BenchAgent",
    agentEndpoint: `${base}/didcomm`,
    apiKey: "k3y-" + crypto.randomUUID(),
  });
  if (conf.status !== 201) throw new Error(JSON.stringify(conf.body));
  const conn = await call("POST", `/orgs/${ORG}/connections/receive-invitation`, owner, {
    invitation: peer.invitation(),
  });
  const connectionId = conn.body.id as string;
  await until(
    "connection completed",
    async () =>
      (await call("GET", `/orgs/${ORG}/connections/${connectionId}`, owner)).body.state ===
        "completed",
  );

  // Seed N records in credential-received on that connection (pointers as the store writes them).
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  const ids: string[] = [];
  const t0 = Date.now();
  for (let i = 0; i < N; i += 100) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(N, i + 100); j++) {
      const now = t0 + j;
      const record = newHolderRecord({
        id: uuidv7(now),
        connectionId,
        threadId: crypto.randomUUID(),
        state: "credential-received",
        credentialAttributes: [{ "mime-type": "text/plain", name: "name", value: "Alice" }],
        metadata: {},
        now,
      });
      const stored: StoredExchange = {
        orgId: ORG,
        record,
        format: { offerFormat: "aries/ld-proof-vc-detail@v1.0", offerMessageId: "seed" },
      };
      op.set(keys.credential(ORG, record.id), stored)
        .set(keys.credentialById(record.id), ORG)
        .set(keys.credentialByThread(ORG, record.threadId), record.id);
      ids.push(record.id);
    }
    await op.commit();
  }
  kv.close();
  await Deno.writeTextFile(`${dir}/ids.txt`, ids.join("\n") + "\n");

  const tWrk = Date.now();
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${THREADS}`,
      `-c${CONNECTIONS}`,
      `-d${DURATION}`,
      "--latency",
      "-s",
      new URL("accept_credential.lua", import.meta.url).pathname,
      base + "/credentials/accept-credential",
      "--",
      `${dir}/ids.txt`,
      holder,
      String(THREADS),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text)?.[1];
  const p50 = /\s50%\s+(\S+)/.exec(text)?.[1];
  const p99 = /\s99%\s+(\S+)/.exec(text)?.[1];
  const result = /RESULT requests=(\d+) non2xx=(\d+) socket_errors=(\d+)/.exec(text);
  const requests = Number(result?.[1] ?? 0);
  const non2xx = Number(result?.[2] ?? 0);
  const ok = requests - non2xx;
  const ackType = "https://didcomm.org/issue-credential/2.0/ack";
  const ackThreads = () =>
    peer.received.filter((r) => r.message["@type"] === ackType)
      .map((r) => (r.message["~thread"] as { thid: string }).thid);
  // Requests in flight when wrk stops are not counted by wrk but may still commit (and ack).
  await until(`${ok} acks at the peer`, () => Promise.resolve(ackThreads().length >= ok), 600_000);
  await new Promise((r) => setTimeout(r, 2000));
  const ackSeconds = (Date.now() - tWrk - 2000) / 1000;
  const all = ackThreads();
  const distinct = new Set(all).size;
  console.log(
    `accept-credential (wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}, ${N} records seeded):`,
  );
  console.log(
    `  ${rps} req/s, p50 ${p50}, p99 ${p99}; ${ok} x 200 counted by wrk, ${non2xx} non-2xx` +
      (requests > N ? " (records ran out: those are 409s)" : ""),
  );
  console.log(
    `  ${all.length} acks (${distinct} threads) at the local peer within ${
      ackSeconds.toFixed(1)
    } s of the load's start (${(all.length / ackSeconds).toFixed(0)} acks/s end to end)`,
  );
  if (distinct < ok || distinct > ok + CONNECTIONS) {
    throw new Error(`expected about ${ok} acked threads, the peer has ${distinct}`);
  }
} finally {
  child.kill("SIGTERM");
  await child.status;
  await peer.close();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
