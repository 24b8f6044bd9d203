import assert from "node:assert/strict";
import { enqueue, readMessage } from "../../src/outbox/outbox.ts";
import { serveLocal } from "../support/context.ts";
import { waitFor } from "../support/wait.ts";

function startWorker(path: string, leaseMs: number): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./fixtures/outbox_worker.ts", import.meta.url).pathname,
      path,
      String(leaseMs),
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
}

Deno.test("a message claimed by a process killed with SIGKILL is delivered after restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "outbox_kill_" });
  const path = `${dir}/kv.sqlite3`;
  let hang = true;
  let seenWhileHanging = 0;
  let release: () => void = () => {};
  const released = new Promise<void>((r) => (release = r));
  const received: string[] = [];
  const receiver = serveLocal(async (req) => {
    const id = await req.text();
    if (hang) {
      seenWhileHanging++;
      await released; // answers only when the test ends
      return new Response("too late");
    }
    received.push(id);
    return new Response("ok");
  });
  const kv = await Deno.openKv(path);
  let worker: Deno.ChildProcess | undefined;
  try {
    const op = kv.atomic();
    const msg = enqueue(op, { kind: "http_probe", orgId: "org-a", payload: { url: receiver.url } });
    assert.ok((await op.commit()).ok);

    worker = startWorker(path, 1500);
    await waitFor(
      "the claimed delivery at the hanging receiver",
      () => seenWhileHanging === 1,
      20_000,
    );
    const claimed = (await readMessage(kv, msg.id))!.message;
    assert.notEqual(claimed.leaseOwner, null, "the first process holds the lease");
    worker.kill("SIGKILL");
    await worker.status;

    hang = false;
    worker = startWorker(path, 1500);
    await waitFor(
      "the message succeeded after restart",
      async () => (await readMessage(kv, msg.id))!.message.status === "succeeded",
      20_000,
    );
    assert.deepEqual(received, [msg.id]);
    const m = (await readMessage(kv, msg.id))!;
    assert.equal(m.attempts.length, 1, "the killed attempt left no record; the second one did");
  } finally {
    try {
      worker?.kill("SIGKILL");
      await worker?.status;
    } catch { /* already gone */ }
    kv.close();
    release();
    await receiver.close();
  }
});
