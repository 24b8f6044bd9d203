/** Time-ordered ids: 12 hex chars of ms time + 20 random hex chars; sort newest-last. */
export function timeId(now = Date.now()): string {
  const t = Math.max(0, Math.floor(now)).toString(16).padStart(12, "0");
  const r = crypto.getRandomValues(new Uint8Array(10));
  let s = "";
  for (const b of r) s += b.toString(16).padStart(2, "0");
  return t + s;
}

/** UUID v7 (time ordered, RFC 9562), used where records are exposed as UUIDs. */
export function uuidv7(now = Date.now()): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  const ms = BigInt(Math.floor(now));
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
