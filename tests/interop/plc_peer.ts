/**
 * Launcher for the real PLC directory peer in `tests/interop/plc_peer/directory.mjs`:
 * `@did-plc/server` (the reference directory) in memory under Node.js on a free 127.0.0.1 port,
 * with DIDs written by `@did-plc/lib` and the reference rendering of their documents, through a
 * JSON control API.
 *
 * Needs `npm ci --ignore-scripts` in `tests/interop/plc_peer` to have run once
 * (`bash tests/interop/setup.sh`).
 */
import { PLC_PEER_DIR } from "./availability.ts";
import { peerControl, spawnNodePeer } from "./node_peer.ts";

/** An audit log entry as the directory serves it. */
export interface PlcAuditEntry {
  did: string;
  operation: Record<string, unknown> & { type: string; prev: string | null; sig: string };
  cid: string;
  nullified: boolean;
  createdAt: string;
}

/** One valid state of a DID, with the reference implementation's rendering of it. */
export interface PlcReferenceState {
  cid: string;
  createdAt: string;
  /** Null after a tombstone. */
  document: Record<string, unknown> | null;
}

/** A DID the peer wrote (or, for `legacy`, made as a log). */
export interface PlcScenario {
  name: string;
  did: string;
  keys: Record<string, unknown>;
  auditLog: PlcAuditEntry[];
  states: PlcReferenceState[];
  /** An operation on top of the newest one signed by a key that may not sign it. */
  forged?: { operation: PlcAuditEntry["operation"]; cid: string };
}

/** A running PLC directory peer. */
export interface PlcDirectoryPeer {
  /** `http://127.0.0.1:<port>`: the directory (`DID_PLC_DIRECTORY_URL`). */
  directoryUrl: string;
  /** DIDs written through the directory: fresh, updated twice, rotation-key change, tombstoned, recovery. */
  scenarios(): Promise<PlcScenario[]>;
  /** A DID whose genesis is a legacy `create` operation (a log only: directories refuse it now). */
  legacy(): Promise<PlcScenario>;
  /** An n-operation log and the reference rendering of its last state. */
  longLog(n: number): Promise<{ did: string; auditLog: PlcAuditEntry[]; document: unknown }>;
  /** Today's reference rendering of an operation's state, and the published library's. */
  render(did: string, operation: unknown): Promise<{ document: unknown; published: unknown }>;
  /** The CID of an operation, as `@did-plc/lib` computes it. */
  cid(operation: unknown): Promise<string>;
  /** Whether the published `@did-plc/lib` accepts a whole audit log, and its error. */
  libraryVerify(auditLog: unknown[]): Promise<{ accepted: boolean; error?: string }>;
  /** The peer's stderr so far. */
  logs(): string;
  close(): Promise<void>;
}

/** Starts the PLC directory peer; always `close()` it (e.g. in `finally`). */
export async function startPlcDirectory(): Promise<PlcDirectoryPeer> {
  const node = await spawnNodePeer({
    name: "PLC directory peer",
    dir: PLC_PEER_DIR,
    script: "directory.mjs",
    args: ["--port", "0", "--control-port", "0"],
    installed: {
      probe: "node_modules/@did-plc/server/package.json",
      hint: "run `bash tests/interop/setup.sh`",
    },
    stopPath: "/stop",
  });
  const { api, logs, close } = peerControl(node);
  const post = <T>(path: string, body?: unknown) => api<T>("POST", path, body);
  return {
    directoryUrl: String(node.ready.directoryUrl),
    scenarios: () => post("/scenarios"),
    legacy: () => post("/legacy"),
    longLog: (n) => post("/long-log", { n }),
    render: (did, operation) => post("/render", { did, operation }),
    cid: async (operation) => (await post<{ cid: string }>("/cid", { operation })).cid,
    libraryVerify: (auditLog) => post("/library-verify", { auditLog }),
    logs,
    close,
  };
}
