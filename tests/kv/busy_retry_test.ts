/**
 * The one busy-database retry layer (`src/kv/busy_retry.ts`), against a real locked SQLite file:
 * another connection (node:sqlite, as another process would) holds the write lock past SQLite's
 * own 5 s wait, so a plain KV write fails with "database is locked".
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { atomicUpdate, withBusyRetry } from "../../src/kv/mod.ts";

/** A KV file, a lock on it held by another connection, and KV handles of their own on it. */
async function lockedFile() {
  const dir = await Deno.makeTempDir({ prefix: "busy_" });
  const path = `${dir}/kv.sqlite3`;
  const handles: Deno.Kv[] = [];
  // One handle is one SQLite connection whose calls run in turn: each caller gets its own.
  const open = async () => {
    const kv = await Deno.openKv(path);
    handles.push(kv);
    // A handle's first call sets up its connection, which waits for as long as a lock is held:
    // make it before the lock.
    await kv.get(["seed"]);
    return kv;
  };
  await (await open()).set(["seed"], 1);
  const holder = new DatabaseSync(path);
  // Never block this thread waiting for a lock: a KV handle's own background writes finish on it.
  holder.exec("PRAGMA busy_timeout = 0");
  return {
    open,
    /** Takes the write lock, trying again (without blocking) while a KV handle holds it. */
    async lock() {
      for (;;) {
        try {
          return holder.exec("BEGIN EXCLUSIVE");
        } catch (err) {
          if (!/locked|busy/i.test(String(err))) throw err;
          await new Promise((r) => setTimeout(r, 1));
        }
      }
    },
    release: () => holder.exec("COMMIT"),
    async close() {
      for (const kv of handles) kv.close();
      holder.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** `p`'s outcome, observed at once (a rejection before it is awaited is not left unhandled). */
function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error) => ({ ok: false as const, error }),
  );
}

async function rejectsBusy(p: Promise<{ ok: boolean; error?: unknown }>) {
  const r = await p;
  assert.equal(r.ok, false, "the call failed");
  assert.match(String(r.error), /database is locked/);
}

/** An atomic commit that checks a versionstamp: refused at once while another connection writes. */
const checkedCommit = (kv: Deno.Kv, key: Deno.KvKey) =>
  kv.atomic().check({ key, versionstamp: null }).set(key, 1).commit();

Deno.test("a commit that meets another connection's lock is tried again until the lock goes; a plain handle fails", async () => {
  const f = await lockedFile();
  const raw = await f.open();
  const wrapped = withBusyRetry(await f.open());
  try {
    await f.lock();
    // Without the layer a checked commit is refused at once…
    await rejectsBusy(settle(checkedCommit(raw, ["plain"])));
    // …with it, it is tried again for as long as the lock stays: here past SQLite's own 5 s
    // wait, which a plain write on another connection runs into meanwhile.
    const commit = settle(checkedCommit(wrapped, ["op"]));
    await rejectsBusy(settle(raw.set(["waited"], 1)));
    f.release();
    const committed = await commit;
    assert.ok(committed.ok && committed.value.ok, "the atomic commit went through");
    assert.equal((await raw.get(["op"])).value, 1);
    assert.equal((await raw.get(["plain"])).value, null);
    // A failed versionstamp check is not a busy database: answered at once, not retried.
    assert.equal((await checkedCommit(wrapped, ["op"])).ok, false);
  } finally {
    await f.close();
  }
});

/** `kv`, counting the commits of its atomic operations in `counter.commits`. */
function countingCommits(kv: Deno.Kv, counter: { commits: number }): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop !== "atomic") return Reflect.get(target, prop, target).bind(target);
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = () => {
          counter.commits++;
          return commit();
        };
        return op;
      };
    },
  });
}

Deno.test("the retries are bounded (retryMs), and atomicUpdate adds none of its own", async () => {
  const f = await lockedFile();
  const counter = { commits: 0 };
  const noRetry = withBusyRetry(countingCommits(await f.open(), counter), { retryMs: 0 });
  try {
    await f.lock();
    await rejectsBusy(settle(checkedCommit(noRetry, ["bounded"])));
    assert.equal(counter.commits, 1);
    let steps = 0;
    const update = settle(atomicUpdate(noRetry, (op) => {
      steps++;
      op.check({ key: ["counter"], versionstamp: null }).set(["counter"], steps);
    }));
    await rejectsBusy(update);
    f.release();
    // One step and one commit: a busy database is the handle's business, not the loop's.
    assert.equal(steps, 1);
    assert.equal(counter.commits, 2);
  } finally {
    await f.close();
  }
});
