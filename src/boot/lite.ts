/**
 * The light entry of `boot/`: what the first stage of the start (`main.ts`) needs before the app
 * loads, the check of the Deno version.
 *
 * @module
 */
export { MIN_DENO, runtimeProblem } from "./runtime.ts";
