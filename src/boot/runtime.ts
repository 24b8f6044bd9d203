/**
 * The Deno version the service needs: the safe outbound client passes its own DNS `lookup` to
 * `node:http`/`node:https`, which Deno implements from 2.7 on (on 2.5 and 2.6 every outbound call
 * fails with "Not implemented: ClientRequest.options.lookup").
 *
 * @module
 */

/** The oldest Deno this service runs on. */
export const MIN_DENO = "2.7.0";

/** A sentence naming the found and the needed version when `version` is too old, else undefined. */
export function runtimeProblem(version: string, needed = MIN_DENO): string | undefined {
  const have = parse(version);
  const want = parse(needed)!;
  if (have === undefined) {
    return `Deno ${version} is not a version this service can check; it needs Deno ${needed} or newer.`;
  }
  for (let i = 0; i < 3; i++) {
    if (have[i]! > want[i]!) return undefined;
    if (have[i]! < want[i]!) {
      return `Deno ${version} is too old: this service needs Deno ${needed} or newer ` +
        `(node:http's lookup option, used by the outbound client). Run it with deno ${needed}+.`;
    }
  }
  return undefined;
}

function parse(v: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
