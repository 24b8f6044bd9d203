/**
 * did:webvh logs made by `didwebvh-ts` itself (the reference implementation), and a real local
 * host serving them: a fresh DID, one updated twice (key rotation, a service), pre-rotation,
 * witnessed, portable (moved to a second host) and deactivated, plus tampered copies.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import * as vh from "didwebvh-ts";
import { serveLocal } from "../support/context.ts";

type Log = Awaited<ReturnType<typeof vh.createDID>>["log"];
type Entry = Log[number];

/** An Ed25519 key with its multikey, a didwebvh-ts Signer and its did:key. */
export class TestKey {
  readonly secret: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly multikey: string;
  constructor() {
    const kp = ed25519.keygen();
    this.secret = kp.secretKey;
    this.publicKey = kp.publicKey;
    this.multikey = vh.multibaseEncode(
      new Uint8Array([0xed, 0x01, ...kp.publicKey]),
      vh.MultibaseEncoding.BASE58_BTC,
    );
  }
  get didKey(): string {
    return `did:key:${this.multikey}`;
  }
  get vmId(): string {
    return `${this.didKey}#${this.multikey}`;
  }
  async signBytes(data: Uint8Array): Promise<string> {
    return await Promise.resolve(
      vh.multibaseEncode(ed25519.sign(data, this.secret), vh.MultibaseEncoding.BASE58_BTC),
    );
  }
  /** The library's Signer interface. */
  signer() {
    return {
      getVerificationMethodId: () => this.vmId,
      sign: async (input: { document: unknown; proof: Parameters<typeof vh.createProof>[0] }) => ({
        proofValue: await this.signBytes(
          await vh.prepareDataForSigning(input.document, input.proof as never),
        ),
      }),
    } as never;
  }
  /** A verification method for the DID document. */
  vm(purpose = "assertionMethod") {
    return { type: "Multikey", publicKeyMultibase: this.multikey, purpose } as never;
  }
}

/** The library's verifier (strict Ed25519), as its own tests use. */
export const libraryVerifier = {
  verify: (s: Uint8Array, m: Uint8Array, p: Uint8Array) =>
    Promise.resolve(ed25519.verify(s, m, p, { zip215: false })),
};

/** JSON Lines of a log. */
export const jsonl = (log: unknown[]) => log.map((e) => JSON.stringify(e)).join("\n") + "\n";

/** A local host serving files by path; `requests` counts every request. */
export function webvhHost() {
  const files = new Map<string, string>();
  const seen: string[] = [];
  const server = serveLocal((req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    const body = files.get(path);
    return body === undefined
      ? new Response("not here", { status: 404 })
      : new Response(body, { headers: { "content-type": "application/jsonl" } });
  });
  return {
    /** `localhost:<port>`, the address to create DIDs at. */
    address: `localhost:${server.port}`,
    port: server.port,
    files,
    seen,
    /** Serves `log` (and witness proofs) for the DID at `path` ("" for .well-known). */
    publish(log: unknown[], path = "", witness?: unknown[]) {
      const dir = path ? `/${path}` : "/.well-known";
      files.set(`${dir}/did.jsonl`, jsonl(log));
      if (witness) files.set(`${dir}/did-witness.json`, JSON.stringify(witness));
    },
    close: server.close,
  };
}

/** The DIDs of the suite, each with the log the library made. */
export interface WebvhCase {
  name: string;
  did: string;
  log: Log;
  path: string;
  witness?: unknown[];
}

/** Builds every valid case at `address` (`address2` for the portable DID's new home). */
export async function buildCases(address: string, address2: string) {
  const k1 = new TestKey();
  const k2 = new TestKey();
  const k3 = new TestKey();
  const base = { verifier: libraryVerifier };

  // 1. fresh
  const fresh = await vh.createDID({
    ...base,
    address,
    paths: ["fresh"],
    signer: k1.signer(),
    updateKeys: [k1.multikey],
    verificationMethods: [k1.vm()],
  });

  // 2. updated twice: key rotation, then a service
  const u0 = await vh.createDID({
    ...base,
    address,
    paths: ["updated"],
    signer: k1.signer(),
    updateKeys: [k1.multikey],
    verificationMethods: [k1.vm()],
  });
  await tick();
  const u1 = await vh.updateDID({
    ...base,
    log: u0.log,
    signer: k1.signer(),
    updateKeys: [k2.multikey],
    verificationMethods: [k2.vm()],
  });
  await tick();
  const u2 = await vh.updateDID({
    ...base,
    log: u1.log,
    signer: k2.signer(),
    updateKeys: [k2.multikey],
    verificationMethods: [k2.vm()],
    services: [{ id: "#linked", type: "LinkedDomains", serviceEndpoint: "https://example.org/" }],
  });

  // 3. pre-rotation: the next key's hash is committed first
  const p0 = await vh.createDID({
    ...base,
    address,
    paths: ["prerotated"],
    signer: k1.signer(),
    updateKeys: [k1.multikey],
    nextKeyHashes: [await vh.deriveNextKeyHash(k2.multikey)],
    verificationMethods: [k1.vm()],
  });
  await tick();
  const p1 = await vh.updateDID({
    ...base,
    log: p0.log,
    signer: k2.signer(),
    updateKeys: [k2.multikey],
    nextKeyHashes: [await vh.deriveNextKeyHash(k3.multikey)],
    verificationMethods: [k2.vm()],
  });

  // 4. witnessed: two witnesses, threshold 2
  const w1 = new TestKey();
  const w2 = new TestKey();
  const witnesses = [{ id: w1.didKey }, { id: w2.didKey }];
  const wd = await vh.createDID({
    ...base,
    address,
    paths: ["witnessed"],
    signer: k1.signer(),
    updateKeys: [k1.multikey],
    verificationMethods: [k1.vm()],
    witness: { threshold: 2, witnesses },
  });
  const witnessProofs = await vh.signWitnessProofEntries(
    wd.log.map((e) => e.versionId),
    witnesses,
    { [w1.didKey]: w1.signer(), [w2.didKey]: w2.signer() },
  );

  // 5. portable: created portable, then moved to another host
  const m0 = await vh.createDID({
    ...base,
    address,
    paths: ["portable"],
    signer: k1.signer(),
    updateKeys: [k1.multikey],
    portable: true,
    verificationMethods: [k1.vm()],
  });
  await tick();
  const m1 = await vh.updateDID({
    ...base,
    log: m0.log,
    signer: k1.signer(),
    updateKeys: [k1.multikey],
    verificationMethods: [k1.vm()],
    address: address2,
    paths: ["moved"],
  });

  // 6. deactivated
  const d0 = await vh.createDID({
    ...base,
    address,
    paths: ["deactivated"],
    signer: k1.signer(),
    updateKeys: [k1.multikey],
    verificationMethods: [k1.vm()],
  });
  await tick();
  const d1 = await vh.deactivateDID({ ...base, log: d0.log, signer: k1.signer() });

  const cases: WebvhCase[] = [
    { name: "fresh", did: fresh.did, log: fresh.log, path: "fresh" },
    { name: "updated twice", did: u2.did, log: u2.log, path: "updated" },
    { name: "pre-rotation", did: p1.did, log: p1.log, path: "prerotated" },
    { name: "witnessed", did: wd.did, log: wd.log, path: "witnessed", witness: witnessProofs },
    { name: "portable (moved)", did: m1.did, log: m1.log, path: "moved" },
    { name: "deactivated", did: d1.did, log: d1.log, path: "deactivated" },
  ];
  return { cases, keys: { k1, k2, k3 }, movedFrom: m0.did };
}

/** versionTime has a resolution of one second: entries need distinct, increasing times. */
function tick(): Promise<void> {
  return new Promise((r) => setTimeout(r, 1010));
}

/** A copy of a log (entries deep-copied). */
export function copyLog(log: Log): Entry[] {
  return structuredClone(log);
}

/** Re-signs `entry` with `key` (a key the log never authorized). */
export async function resignWith(entry: Entry, key: TestKey): Promise<Entry> {
  const { proof: _old, ...rest } = entry;
  const template = { ...vh.createProof(key.vmId), proofPurpose: "assertionMethod" as const };
  const proofValue = await key.signBytes(await vh.prepareDataForSigning(rest, template as never));
  return { ...rest, proof: [{ ...template, proofValue }] } as Entry;
}
