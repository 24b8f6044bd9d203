/**
 * The credential exchange's DIDComm port on the real DIDComm layer (`src/didcomm/api.ts`) and its
 * issuer DID resolution on the service's resolver (`src/did/mod.ts`).
 *
 * @module
 */
import type { AppDeps } from "../deps.ts";
import { didcommPort } from "../didcomm/api.ts";
import { didResolverFor } from "../did/mod.ts";
import type { LdDidDocument, ResolveDid } from "./jsonld/types.ts";
import type { CredentialDidcommPort, InboundHandler } from "./didcomm_port.ts";

/**
 * The layer's handler registry is one per process; handlers are kept per `AppDeps` here and the
 * one registered for a type looks up those of the message's `ctx.deps`.
 */
const byDeps = new WeakMap<AppDeps, Map<string, InboundHandler>>();
const registeredTypes = new Set<string>();

/** Handlers run for messages on a completed connection from its other side (the layer checks). */
export function realDidcommPort(deps: AppDeps): CredentialDidcommPort {
  const port = didcommPort(deps);
  return {
    registerHandler(type, handler) {
      let mine = byDeps.get(deps);
      if (!mine) byDeps.set(deps, mine = new Map());
      mine.set(type, handler);
      if (registeredTypes.has(type)) return;
      registeredTypes.add(type);
      port.registerHandler(type, async (ctx) => {
        const h = byDeps.get(ctx.deps)?.get(type);
        if (!h) return; // this app has no credentials feature set up
        await h({
          orgId: ctx.orgId,
          connectionId: ctx.connectionId,
          message: ctx.message,
          op: ctx.op,
          now: ctx.now,
        });
      });
    },
    queueMessage: (op, input) => port.queueMessage(op, input),
  };
}

/** Resolves issuer DIDs with the service's caching resolver (did:key, did:peer, did:web, …). */
export function serviceResolveDid(deps: AppDeps): ResolveDid {
  return async (did) => {
    const result = await didResolverFor(deps).resolve(did);
    return (result.didDocument ?? null) as LdDidDocument | null;
  };
}
