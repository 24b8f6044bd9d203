/**
 * Ids made in the same millisecond sort in the order they were made (outbox messages and events
 * are listed by id, so a webhook receiver sees a record's changes in order); a new millisecond
 * starts from fresh randomness; UUIDs keep their version and variant.
 */
import assert from "node:assert/strict";
import { timeId, uuidv7 } from "../../src/kv/ids.ts";

Deno.test("time ids made in one millisecond sort in the order they were made", () => {
  const now = Date.now();
  const ids = Array.from({ length: 2000 }, () => timeId(now));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.every((id) => /^[0-9a-f]{32}$/.test(id) && parseInt(id.slice(0, 12), 16) === now));
  const later = timeId(now + 1);
  assert.ok(later > ids.at(-1)!);
  assert.notEqual(
    later.slice(12),
    (BigInt(`0x${ids.at(-1)!.slice(12)}`) + 1n).toString(16).padStart(20, "0"),
  );
});

Deno.test("UUID v7s made in one millisecond sort in order and keep version and variant", () => {
  const now = Date.now();
  const ids = Array.from({ length: 2000 }, () => uuidv7(now));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) {
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(parseInt(id.replaceAll("-", "").slice(0, 12), 16), now);
  }
  assert.ok(uuidv7(now + 1) > ids.at(-1)!);
});
