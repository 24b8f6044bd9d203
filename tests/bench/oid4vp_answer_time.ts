/**
 * Time from a presentation request received to the verifier's answer: this service's OpenID4VP
 * holder vs Credo 0.6.3's own holder, on the same real Credo 0.6.3 verifier (Node.js peer), with
 * the same request (DID-signed, by reference, `direct_post`, two claims of an SD-JWT VC the Credo
 * issuer issued to each holder).
 *
 * This service: `POST /orgs/{orgId}/openid4vp/requests` (fetch, signature, DCQL, record) then
 * `POST …/accept` (presentation, key binding JWT, POST to the verifier, its 200), through
 * `app.request` in this process (no client-facing HTTP, as Credo's holder is a library call).
 * Credo: `resolveOpenId4VpAuthorizationRequest` → `selectCredentialsForDcqlRequest` →
 * `acceptOpenId4VpAuthorizationRequest` (`tests/interop/oid4vc_peer/vp_holder_timing.mjs`).
 *
 * Usage: deno run -A tests/bench/oid4vp_answer_time.ts [N=20] [warmup=3]
 */
import { startOid4vcIssuer } from "../interop/oid4vc_peer.ts";
import { startOid4vpVerifier } from "../interop/oid4vp_peer.ts";
import { identityQuery, issueToOrg, ORG } from "../interop/oid4vp_support.ts";
import { configureAgent } from "../didcomm/helpers.ts";
import { createTestContext } from "../support/context.ts";

const N = Number(Deno.args[0] ?? 20);
const WARMUP = Number(Deno.args[1] ?? 3);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round = (x: number) => Math.round(x * 10) / 10;

const [issuer, verifier] = await Promise.all([startOid4vcIssuer(), startOid4vpVerifier()]);
const ctx = await createTestContext();
try {
  await configureAgent(ctx, ORG, "http://127.0.0.1:9/didcomm");
  const token = await ctx.token({ [ORG]: ["holder"] });
  await issueToOrg({ issuer, verifier, ctx, token });
  const dcql = identityQuery([["given_name"], ["address", "locality"]]);

  const total: number[] = [];
  const receive: number[] = [];
  const answer: number[] = [];
  for (let i = 0; i < WARMUP + N; i++) {
    const req = await verifier.createRequest({ dcql, signer: "did" });
    const t0 = performance.now();
    const res = await ctx.call("POST", `/orgs/${ORG}/openid4vp/requests`, {
      token,
      body: { request: req.authorizationRequest },
    });
    const rec = await res.json();
    const t1 = performance.now();
    const done = await (await ctx.call(
      "POST",
      `/orgs/${ORG}/openid4vp/requests/${rec.id}/accept`,
      { token, body: {} },
    )).json();
    const t2 = performance.now();
    if (done.state !== "done") throw new Error(`request ${i}: ${JSON.stringify(done)}`);
    if (i < WARMUP) continue;
    total.push(t2 - t0);
    receive.push(t1 - t0);
    answer.push(t2 - t1);
  }
  const credo = await verifier.holderTiming(issuer.controlUrl, N);
  const ours = median(total);
  console.log(JSON.stringify(
    {
      n: N,
      warmup: WARMUP,
      service: {
        medianMs: round(ours),
        minMs: round(Math.min(...total)),
        maxMs: round(Math.max(...total)),
        receiveMedianMs: round(median(receive)),
        acceptMedianMs: round(median(answer)),
      },
      credoHolder: {
        medianMs: credo.medianMs,
        minMs: credo.minMs,
        maxMs: credo.maxMs,
        failures: credo.failures,
      },
      ratio: credo.medianMs ? round((credo.medianMs / ours) * 100) / 100 : null,
    },
    null,
    2,
  ));
} finally {
  await ctx.close();
  await Promise.all([issuer.close(), verifier.close()]);
}
