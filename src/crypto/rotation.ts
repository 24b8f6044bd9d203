/**
 * SECRETS_KEY rotation: every sealed value in KV is sealed again under the current key.
 *
 * Each feature that seals values describes where they live with a {@link Resealable}; the list is
 * in `src/compose.ts`. {@link resealAll} walks them, and writes each changed record with a
 * versionstamp check (retrying on conflict), so it can run while the service runs: with
 * SECRETS_KEY = the new key and SECRETS_KEY_PREVIOUS = the old one, both open everything.
 *
 * @module
 */
import { log } from "../base/mod.ts";
import { atomicUpdate } from "../kv/mod.ts";
import type { SecretBox } from "./secret_box.ts";

/** Where one kind of sealed value lives and how to seal one record again. */
export interface Resealable<T> {
  /** For the report, e.g. "wallet keys". */
  name: string;
  /** One record (`key`) or every record under a prefix (`prefix`). */
  select: { key: Deno.KvKey } | { prefix: Deno.KvKey };
  /** The record with its sealed fields sealed again, or undefined when nothing changed. */
  reseal(value: T, box: SecretBox): Promise<T | undefined>;
}

/** What one Resealable's pass found. */
export interface ResealReport {
  name: string;
  /** Records read. */
  checked: number;
  /** Records written with values sealed under the current key. */
  resealed: number;
  /** Keys of records no configured key opens (printable). */
  failed: string[];
}

/** Seals every value of `items` again under `box`'s current key. Never throws for one record. */
export async function resealAll(
  kv: Deno.Kv,
  box: SecretBox,
  // deno-lint-ignore no-explicit-any
  items: Resealable<any>[],
): Promise<ResealReport[]> {
  const reports: ResealReport[] = [];
  for (const item of items) {
    const report: ResealReport = { name: item.name, checked: 0, resealed: 0, failed: [] };
    const entries: Deno.KvEntry<unknown>[] = [];
    if ("key" in item.select) {
      const e = await kv.get(item.select.key);
      if (e.versionstamp !== null) entries.push(e as Deno.KvEntry<unknown>);
    } else {
      for await (const e of kv.list({ prefix: item.select.prefix })) entries.push(e);
    }
    for (const entry of entries) {
      report.checked++;
      try {
        const resealed = await atomicUpdate(kv, async (op, attempt) => {
          const cur = attempt === 0 ? entry : await kv.get(entry.key);
          if (cur.versionstamp === null) return false; // removed meanwhile
          const next = await item.reseal(cur.value, box);
          if (next === undefined) return false;
          op.check(cur).set(cur.key, next);
          return true;
        }, { conflict: () => new Error("the record kept changing") });
        if (resealed) report.resealed++;
      } catch {
        report.failed.push(JSON.stringify(entry.key));
      }
    }
    reports.push(report);
  }
  return reports;
}

/**
 * Seals every value of `items` in KV again under the current SECRETS_KEY and logs what it did.
 * True when every value opened (then SECRETS_KEY_PREVIOUS can be removed).
 */
export async function rotateSecrets(
  kv: Deno.Kv,
  box: SecretBox,
  // deno-lint-ignore no-explicit-any
  items: Resealable<any>[],
): Promise<boolean> {
  const reports = await resealAll(kv, box, items);
  for (const r of reports) {
    log(r.failed.length ? "error" : "info", "re-sealed under the current SECRETS_KEY", {
      values: r.name,
      checked: r.checked,
      resealed: r.resealed,
      unreadable: r.failed.length,
      ...(r.failed.length ? { unreadableKeys: r.failed.slice(0, 20) } : {}),
    });
  }
  const ok = reports.every((r) => r.failed.length === 0);
  log(
    ok ? "info" : "error",
    ok
      ? "every sealed value is under the current SECRETS_KEY; SECRETS_KEY_PREVIOUS can be removed"
      : "some sealed values open with no configured key; keep SECRETS_KEY_PREVIOUS and check them",
  );
  return ok;
}
