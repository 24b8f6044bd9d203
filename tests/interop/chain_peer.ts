/**
 * Launcher of the chain peer (`tests/interop/chain_peer`): a real local Ethereum node (anvil, from
 * `@foundry-rs/anvil`'s platform package) on a free loopback port, and `chain.mjs`, which deploys
 * the did:ethr and did:polygon registries, writes DIDs, and resolves DID URLs with the drivers
 * themselves in Node.js (their own answers, which the service's are compared with).
 *
 * Needs `bash tests/interop/setup.sh` (or `deno task test`) to have installed the peer once.
 */
import { interopOptions } from "./availability.ts";
import { runNodeScript } from "./node_peer.ts";

/** The chain peer's folder. */
export const CHAIN_PEER_DIR = new URL("./chain_peer/", import.meta.url);

/** Options of the tests that need the chain peer. */
export const chainInterop: { ignore: boolean } = interopOptions(
  CHAIN_PEER_DIR,
  "node_modules/ethr-did-resolver/package.json",
);

/** anvil's binary, from the platform package npm installed (`@foundry-rs/anvil-<os>-<arch>`). */
const ANVIL = new URL(
  `node_modules/@foundry-rs/anvil-${Deno.build.os === "windows" ? "win32" : Deno.build.os}-${
    Deno.build.arch === "x86_64" ? "amd64" : "arm64"
  }/bin/anvil`,
  CHAIN_PEER_DIR,
);

/** A running anvil node. */
export interface Anvil {
  rpcUrl: string;
  /** Freezes the process (SIGSTOP): calls to it hang. */
  freeze(): void;
  /** Lets a frozen node run again (SIGCONT). */
  thaw(): void;
  /** Kills the node (SIGKILL) and waits for it to exit; idempotent. */
  stop(): Promise<void>;
}

/** Starts anvil on 127.0.0.1, port 0 (it prints the port it took). */
export async function startAnvil(): Promise<Anvil> {
  const child = new Deno.Command(ANVIL.pathname, {
    args: ["--port", "0", "--host", "127.0.0.1"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let seen = "";
  let port: string | undefined;
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  try {
    while (port === undefined) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`anvil exited before listening: ${seen}${await stderr}`);
      seen += value;
      port = /Listening on 127\.0\.0\.1:(\d+)/.exec(seen)?.[1];
    }
  } finally {
    clearTimeout(timer);
  }
  const drained = (async () => {
    while (!(await lines.read()).done) { /* discard */ }
  })();
  let stopped: Promise<void> | undefined;
  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    freeze: () => child.kill("SIGSTOP"),
    thaw: () => child.kill("SIGCONT"),
    stop: () =>
      stopped ??= (async () => {
        try {
          child.kill("SIGCONT");
          child.kill("SIGKILL");
        } catch { /* already exited */ }
        await child.status;
        await drained;
        await stderr;
      })(),
  };
}

/** Runs `node chain.mjs <command> …args` and returns its JSON answer. */
export function chain<T>(command: string, ...args: string[]): Promise<T> {
  return runNodeScript<T>({}, CHAIN_PEER_DIR, "chain.mjs", [command, ...args]);
}

/** What `chain.mjs setup` wrote. */
export interface ChainSetup {
  chainId: number;
  ethrRegistry: string;
  polygonRegistry: string;
  ethr: {
    unchangedKey: string;
    unchanged: string;
    chainIdForm: string;
    withService: string;
    withDelegate: string;
    newOwner: string;
    deactivated: string;
    twice: string;
    touchable: string;
  };
  touchableAddress: string;
  versions: { first: { block: number; time: number }; second: { block: number; time: number } };
  polygon: { registered: string; deactivated: string; unregistered: string };
}

/** A resolution result as the drivers answer it in Node.js. */
export interface DriverResult {
  didDocument: Record<string, unknown> | null;
  didDocumentMetadata: Record<string, unknown>;
  didResolutionMetadata: { error?: string; message?: string; contentType?: string };
}

/** The drivers' own answers for `requests` (`chain.mjs resolve`). */
export async function driverAnswers(
  config: { ethr?: unknown[]; polygon?: Record<string, unknown> },
  requests: { didUrl: string; accept?: string }[],
): Promise<Map<string, DriverResult>> {
  const { answers: out } = await chain<{
    answers: { didUrl: string; accept?: string; result?: DriverResult; thrown?: string }[];
  }>("resolve", JSON.stringify(config), JSON.stringify(requests));
  const answers = new Map<string, DriverResult>();
  for (const a of out) {
    if (a.result === undefined) throw new Error(`the driver threw for ${a.didUrl}: ${a.thrown}`);
    answers.set(`${a.didUrl} ${a.accept ?? ""}`, a.result);
  }
  return answers;
}
