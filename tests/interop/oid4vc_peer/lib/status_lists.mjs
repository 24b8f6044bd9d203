// IETF Token Status Lists for the Credo issuer peer: Credo 0.6.3 puts a `status` claim into an
// SD-JWT VC when the issuer's mapper gives one, but it keeps no status lists of its own. This
// module keeps lists in memory, serves each as a `statuslist+jwt` signed by the issuer's own key
// (Credo's JwsService and KMS; `@sd-jwt/jwt-status-list` for the list encoding), or, for tests of
// refusal, by another key under the issuer's kid.
import { JsonEncoder, JwsService } from "@credo-ts/core";
import { createHeaderAndPayload, StatusList } from "@sd-jwt/jwt-status-list";

/**
 * @param {{ agent: import("@credo-ts/core").Agent, app: import("express").Express,
 *   origin: string, issuerKeys: Map<string, {did: string, didUrl: string, alg: string}> }} deps
 */
export async function createStatusLists({ agent, app, origin, issuerKeys }) {
  const lists = new Map();
  const jws = agent.dependencyManager.resolve(JwsService);
  // Another Ed25519 key ("other"): a list signed by it claims the issuer's kid but does not verify.
  const { didState } = await agent.dids.create({
    method: "key",
    options: { createKey: { type: { kty: "OKP", crv: "Ed25519" } } },
  });
  const other = { didUrl: didState.didDocument.verificationMethod[0].id, alg: "EdDSA" };

  async function kmsKeyId(didUrl) {
    const { publicJwk } = await agent.dids.resolveVerificationMethodFromCreatedDidRecord(didUrl);
    return publicJwk.keyId;
  }

  async function signed(list) {
    const sl = new StatusList(list.statuses, list.bits);
    const { header, payload } = createHeaderAndPayload(
      sl,
      {
        iss: list.issuer.did,
        sub: list.uri,
        iat: Math.floor(Date.now() / 1000),
        ...(list.ttl !== undefined ? { ttl: list.ttl } : {}),
        ...(list.exp !== undefined ? { exp: list.exp } : {}),
      },
      { alg: list.signer.alg, typ: "statuslist+jwt", kid: list.issuer.didUrl },
    );
    return await jws.createJwsCompact(agent.context, {
      payload: JsonEncoder.toBuffer(payload),
      keyId: await kmsKeyId(list.signer.didUrl),
      protectedHeaderOptions: header,
    });
  }

  app.get("/status-lists/:id", async (req, res) => {
    const list = lists.get(req.params.id);
    if (!list) return res.status(404).json({ error: "no such status list" });
    res.type("application/statuslist+jwt").send(await signed(list));
  });

  /** The `status` claim of a credential at `idx` of list `id`. */
  function claim({ list: id, idx }) {
    const list = lists.get(id);
    if (!list) throw new Error(`no status list ${id}`);
    return { status_list: { idx, uri: list.uri } };
  }

  /** Control API: `POST /status-lists`, `POST /status-lists/{id}/statuses`. */
  async function handle(method, path, body) {
    if (method === "POST" && path === "/status-lists") {
      const kind = body.issuer ?? "ed25519-did-key";
      const issuer = issuerKeys.get(kind);
      if (!issuer) return { status: 400, body: { error: `unknown issuer ${kind}` } };
      const id = crypto.randomUUID();
      const list = {
        issuer,
        signer: body.signer === "other" ? other : issuer,
        bits: body.bits ?? 2,
        statuses: new Array(body.size ?? 1024).fill(0),
        ttl: body.ttl,
        exp: body.exp,
        uri: `${origin}/status-lists/${id}`,
      };
      lists.set(id, list);
      return { status: 200, body: { id, uri: list.uri } };
    }
    const m = /^\/status-lists\/([^/]+)\/statuses$/.exec(path);
    if (method === "POST" && m) {
      const list = lists.get(m[1]);
      if (!list) return { status: 404, body: { error: "no such status list" } };
      list.statuses[body.idx] = body.value;
      return { status: 200, body: { ok: true } };
    }
    return undefined;
  }

  return { claim, handle };
}
