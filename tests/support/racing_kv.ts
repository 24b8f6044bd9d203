/**
 * A real KV handle on which another writer gets in first: the next `times` commits of atomic
 * operations that check a key `race` selects are preceded by a write of that key through the plain
 * handle (by default its current value again, which moves its versionstamp), so their checks fail
 * as when another process changed the record between the read and the commit.
 */

/** What to race, and how. */
export interface RaceOptions {
  /** Which checked keys another writer changes first. */
  race: (key: Deno.KvKey) => boolean;
  /** The other writer's write; default: the key's current value, written again. */
  write?: (kv: Deno.Kv, key: Deno.KvKey) => Promise<unknown>;
}

/** A racing handle over `kv`, with `arm(times)` to lose the next `times` races, and a count. */
export function racingKv(kv: Deno.Kv, opts: RaceOptions) {
  const write = opts.write ?? (async (kv: Deno.Kv, key: Deno.KvKey) => {
    const cur = await kv.get(key);
    if (cur.versionstamp !== null) await kv.set(key, cur.value);
  });
  const state = { armed: 0, raced: 0 };
  const racing = new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "atomic") return typeof value === "function" ? value.bind(target) : value;
      return () => {
        const op = target.atomic();
        const checked: Deno.KvKey[] = [];
        const proxy: Deno.AtomicOperation = new Proxy(op, {
          get(o, p) {
            const v = Reflect.get(o, p, o);
            if (typeof v !== "function") return v;
            if (p === "check") {
              return (...checks: Deno.AtomicCheck[]) => {
                for (const c of checks) if (c.versionstamp !== null) checked.push(c.key);
                o.check(...checks);
                return proxy;
              };
            }
            if (p === "commit") {
              return async () => {
                const keys = checked.filter(opts.race);
                if (state.armed > 0 && keys.length > 0) {
                  state.armed--;
                  state.raced++;
                  for (const key of keys) await write(target, key);
                }
                return await o.commit();
              };
            }
            return (...args: unknown[]) => {
              const out = v.apply(o, args);
              return out === o ? proxy : out;
            };
          },
        });
        return proxy;
      };
    },
  });
  return {
    kv: racing,
    /** The next `times` commits that check a raced key lose their race. */
    arm(times = 1) {
      state.armed = times;
    },
    /** How many races were lost so far. */
    get raced() {
      return state.raced;
    },
  };
}
