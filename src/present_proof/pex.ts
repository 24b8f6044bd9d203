/**
 * The DIF Presentation Exchange library (`@animo-id/pex`, the fork Credo uses), loaded on first
 * use: it costs about 200 ms to import, which the service's cold start does not pay.
 *
 * @module
 */
import type { PEX as PexClass } from "@animo-id/pex";
import { lazy } from "../base/mod.ts";

const loadPex = lazy(() => import("@animo-id/pex"));

/** A fresh `PEX` instance (an instance keeps the state of its last evaluation: never share one). */
export async function newPex(): Promise<PexClass> {
  const { PEX } = await loadPex();
  return new PEX();
}

/** `PEX.validateDefinition`: the problems of a presentation definition, or [] when it is valid. */
export async function definitionProblems(definition: unknown): Promise<string[]> {
  const { PEX } = await loadPex();
  let checked: unknown;
  try {
    checked = PEX.validateDefinition(definition as Parameters<typeof PEX.validateDefinition>[0]);
  } catch (err) {
    return [err instanceof Error ? err.message : String(err)];
  }
  const list = Array.isArray(checked) ? checked : [checked];
  return list.filter((c) => c?.status === "error").map((c) => `${c.tag}: ${c.message}`);
}
