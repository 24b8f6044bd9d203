/**
 * Whether the interop peers can run here. `deno task test` installs them first (task
 * `setup-interop`: the Node.js peers' npm packages, ACA-Py's Python venv); on a machine without
 * node/npm or python3 they cannot be installed, and their tests are skipped with the reason
 * printed, except under `CI=true`, where they run and fail.
 */

/** Why a peer cannot run here, or undefined when it can. */
export function peerProblem(peerDir: URL, probe = "node_modules/@credo-ts/core/package.json") {
  const hasNode = (() => {
    try {
      const out = new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" })
        .outputSync();
      return out.success;
    } catch {
      return false;
    }
  })();
  if (!hasNode) return "node is not installed (the interop peers are Node.js programs)";
  try {
    Deno.statSync(new URL(probe, peerDir));
  } catch {
    return `the peer's npm packages are missing (run \`bash tests/interop/setup.sh\`)`;
  }
  return undefined;
}

const printed = new Set<string>();

/**
 * `Deno.test` options for the tests of a peer: `ignore` where it cannot run (the reason printed
 * once), never under `CI=true` (there a missing peer is a failure the tests report).
 */
export function interopOptions(peerDir: URL, probe?: string): { ignore: boolean } {
  return skippedFor(peerProblem(peerDir, probe));
}

/** `Deno.test` options of tests that need what `problem` (when set) says is missing. */
function skippedFor(problem: string | undefined): { ignore: boolean } {
  if (!problem || Deno.env.get("CI") === "true") return { ignore: false };
  if (!printed.has(problem)) {
    printed.add(problem);
    console.log(`interop tests skipped: ${problem}`);
  }
  return { ignore: true };
}

/**
 * A test of a peer (`options`: {@link interopOptions} and sanitizer settings) that runs `fn` on
 * what `start` made (the peers and the service) and then `stop`s it, whatever happens.
 */
export function interopTest<S>(
  name: string,
  options: { ignore: boolean; sanitizeOps?: boolean; sanitizeResources?: boolean },
  start: () => Promise<S>,
  stop: (s: S) => Promise<void>,
  fn: (s: S) => Promise<void>,
): void {
  Deno.test({
    name,
    ...options,
    fn: async () => {
      const s = await start();
      try {
        await fn(s);
      } finally {
        await stop(s);
      }
    },
  });
}

/** The Credo DIDComm issuer peer's folder. */
export const CREDO_PEER_DIR = new URL("./credo_peer/", import.meta.url);

/** Options of the Credo DIDComm interop tests. */
export const credoInterop: { ignore: boolean } = interopOptions(CREDO_PEER_DIR);

/** The Universal Resolver clients' folder (`@veramo/did-resolver`, `@sphereon/did-uni-client`). */
export const UR_CLIENTS_DIR = new URL("./ur_clients/", import.meta.url);

/** Options of the tests that run the Universal Resolver clients. */
export const urClientsInterop: { ignore: boolean } = interopOptions(
  UR_CLIENTS_DIR,
  "node_modules/@veramo/did-resolver/package.json",
);

/** The PLC directory peer's folder (`@did-plc/server` and `@did-plc/lib`). */
export const PLC_PEER_DIR = new URL("./plc_peer/", import.meta.url);

/** Options of the did:plc tests that run the real PLC directory. */
export const plcInterop: { ignore: boolean } = interopOptions(
  PLC_PEER_DIR,
  "node_modules/@did-plc/server/package.json",
);

/** The ACA-Py peer's folder: its requirements files, and its venv once setup.sh ran. */
export const ACAPY_PEER_DIR = new URL("./acapy_peer/", import.meta.url);

/** Why ACA-Py cannot run here (not installed by setup.sh), or undefined when it can. */
export function acapyProblem(): string | undefined {
  try {
    Deno.statSync(new URL("venv/bin/aca-py", ACAPY_PEER_DIR));
    Deno.statSync(new URL("venv/.peer_requirements.sha256", ACAPY_PEER_DIR));
    return undefined;
  } catch {
    return "ACA-Py is not installed (run `bash tests/interop/setup.sh`; it needs python3 3.9-3.12)";
  }
}

/** Options of the ACA-Py interop tests. */
export const acapyInterop: { ignore: boolean } = skippedFor(acapyProblem());
