/**
 * Deno versions compared: the start's runtime check (`boot/runtime.ts`) and the outbound client's
 * choice to pin connections (`outbound/transport.ts`) both ask whether the running Deno is at
 * least some version.
 *
 * @module
 */

/**
 * Whether Deno `version` (`Deno.version.deno`, e.g. `2.9.6`) is `needed` or newer; undefined when
 * `version` has no `major.minor.patch` to compare (a canary build's name).
 */
export function denoAtLeast(version: string, needed: string): boolean | undefined {
  const have = parse(version);
  const want = parse(needed);
  if (have === undefined || want === undefined) return undefined;
  for (let i = 0; i < 3; i++) {
    if (have[i]! !== want[i]!) return have[i]! > want[i]!;
  }
  return true;
}

function parse(v: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
