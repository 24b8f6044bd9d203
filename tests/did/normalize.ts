/**
 * Test helper: reduces a DID document to its meaning so that documents written in different but
 * equivalent shapes compare equal: relative ids resolved against the DID, verification methods
 * collected from `verificationMethod`, legacy `publicKey` and embedded relationship entries, order of
 * methods, references and services ignored, `@context` ignored.
 */

import { VERIFICATION_RELATIONSHIPS } from "../../src/did/types.ts";

type Json = Record<string, unknown>;

const RELATIONSHIPS = VERIFICATION_RELATIONSHIPS;

/** What a DID document means, as plain sorted data. */
export interface NormalizedDocument {
  id: string;
  alsoKnownAs: string[];
  methods: Json[];
  relationships: Record<string, string[]>;
  services: Json[];
}

/** Normalizes a document; `dropServiceMembers` removes members (e.g. Credo's default priority). */
export function normalizeDocument(
  doc: Json,
  dropServiceMembers: Record<string, unknown> = {},
): NormalizedDocument {
  const did = String(doc.id);
  const abs = (ref: unknown) => {
    const s = String(ref);
    return s.startsWith("#") ? did + s : s;
  };
  const methods = new Map<string, Json>();
  const addMethod = (vm: Json) => {
    const n: Json = { id: abs(vm.id), type: vm.type, controller: abs(vm.controller) };
    for (const k of ["publicKeyBase58", "publicKeyMultibase"]) if (k in vm) n[k] = vm[k];
    if (vm.publicKeyJwk) {
      const { kty, crv, x, y } = vm.publicKeyJwk as Json;
      n.publicKeyJwk = JSON.parse(JSON.stringify({ kty, crv, x, y }));
    }
    methods.set(String(n.id), n);
  };
  for (const list of [doc.verificationMethod, doc.publicKey]) {
    if (Array.isArray(list)) list.forEach((vm) => addMethod(vm as Json));
  }
  const relationships: Record<string, string[]> = {};
  for (const rel of RELATIONSHIPS) {
    const list = doc[rel];
    if (!Array.isArray(list)) continue;
    relationships[rel] = list.map((e) => {
      if (typeof e === "string") return abs(e);
      addMethod(e as Json);
      return abs((e as Json).id);
    }).sort();
  }
  const services = Array.isArray(doc.service)
    ? (doc.service as Json[]).map((s) => {
      const copy: Json = { ...s, id: abs(s.id) };
      for (const [k, v] of Object.entries(dropServiceMembers)) {
        if (copy[k] === v) delete copy[k];
      }
      if (Array.isArray(copy.recipientKeys)) copy.recipientKeys = copy.recipientKeys.map(abs);
      return copy;
    }).sort((a, b) => String(a.id).localeCompare(String(b.id)))
    : [];
  return {
    id: did,
    alsoKnownAs: Array.isArray(doc.alsoKnownAs) ? [...doc.alsoKnownAs as string[]].sort() : [],
    methods: [...methods.values()].sort((a, b) => String(a.id).localeCompare(String(b.id))),
    relationships,
    services,
  };
}

/** Loads a stored vector file relative to this folder. */
export async function loadVector<T = Json>(name: string): Promise<T> {
  const url = new URL(`./vectors/${name}`, import.meta.url);
  return JSON.parse(await Deno.readTextFile(url)) as T;
}
