/**
 * The start of the service after the first stage (`main.ts`) listens: `startApp` (dev bootstrap,
 * KV, services, app, dispatcher) and the readiness check of the process. `main.ts` imports this
 * file dynamically; what it needs before (the runtime check) is in `lite.ts`.
 *
 * @module
 */
export { type ProcessState, readinessCheck, type ReadyReport } from "./readiness.ts";
export { openKv, startApp, type StartedApp, type StartOptions } from "./start_app.ts";
