/**
 * Time-ordered ids. Ids made in one process in the same millisecond still sort in the order they
 * were made: the random part of the first is incremented for the next (the monotonic scheme of
 * ULID and RFC 9562 §6.2), so outbox messages, events and records list in creation order.
 */

/** Adds one to the big-endian number in `b[from..]`, leaving `b[from]`'s bits outside `topMask`. */
function increment(b: Uint8Array, from: number, topMask = 0xff): void {
  for (let i = b.length - 1; i >= from; i--) {
    const mask = i === from ? topMask : 0xff;
    const next = ((b[i]! & mask) + 1) & mask;
    b[i] = (b[i]! & ~mask & 0xff) | next;
    if (next !== 0) return;
  }
}

let lastTimeMs = -1;
const lastTimeRandom = new Uint8Array(10);

/** 12 hex chars of ms time + 20 hex chars, random per ms and counting up within it; sort newest-last. */
export function timeId(now = Date.now()): string {
  const ms = Math.max(0, Math.floor(now));
  if (ms === lastTimeMs) increment(lastTimeRandom, 0);
  else {
    crypto.getRandomValues(lastTimeRandom);
    lastTimeRandom[0]! &= 0x7f; // room to count up without wrapping
    lastTimeMs = ms;
  }
  let s = ms.toString(16).padStart(12, "0");
  for (const b of lastTimeRandom) s += b.toString(16).padStart(2, "0");
  return s;
}

let lastUuidMs = -1;
const lastUuid = new Uint8Array(16);

/**
 * UUID v7 (time ordered, RFC 9562), used where records are exposed as UUIDs. Within one
 * millisecond the 62 bits of `rand_b` count up from a random start (RFC 9562 §6.2, method 2).
 */
export function uuidv7(now = Date.now()): string {
  const msNum = Math.max(0, Math.floor(now));
  const b = lastUuid;
  if (msNum === lastUuidMs) increment(b, 8, 0x3f);
  else {
    crypto.getRandomValues(b);
    const ms = BigInt(msNum);
    for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
    b[6] = (b[6]! & 0x0f) | 0x70;
    b[8] = (b[8]! & 0x1f) | 0x80; // variant, and one spare bit to count up without wrapping
    lastUuidMs = msNum;
  }
  let h = "";
  for (const x of b) h += x.toString(16).padStart(2, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
