import assert from "node:assert/strict";
import {
  buildRequestDetail,
  type LdProofVcDetail,
  parseIssuedCredential,
  parseOffer,
} from "../../src/issue_credential/jsonld_format.ts";
import { credentialMismatch } from "../../src/issue_credential/jsonld_match.ts";
import { requestMessage } from "../../src/issue_credential/messages.ts";
import { attachmentOf } from "./helpers.ts";

type Json = Record<string, unknown>;
const fixtures = JSON.parse(
  await Deno.readTextFile(new URL("../interop/fixtures/credo_messages.json", import.meta.url)),
) as { flows: Record<string, { messages: { type: string; message: Json }[] }> };
const flow = fixtures.flows.issue_credential_ed25519signature2018!.messages;
const byType = (suffix: string) => flow.find((m) => m.type.endsWith(suffix))!.message;

Deno.test("a real Credo JSON-LD offer parses: detail, attributes flattened from the subject", () => {
  const parsed = parseOffer(byType("/offer-credential"));
  assert.ok(parsed.ok);
  assert.equal(parsed.detail.options.proofType, "Ed25519Signature2018");
  assert.deepEqual(parsed.attributes, [{
    "mime-type": "text/plain",
    name: "name",
    value: "Alice",
  }]);
  assert.deepEqual(parsed.metadata["_jsonld/credential"], {
    issuer: "did:key:z6Mkpca7QHF8EuQ9Qbt8QaJAs9EgGdtnnLiYYFNQ8oBEDTWs",
    type: ["VerifiableCredential"],
    proofType: "Ed25519Signature2018",
    proofPurpose: "assertionMethod",
  });
});

Deno.test("our request for a Credo offer carries exactly the attachment JSON Credo's holder sent", () => {
  const parsed = parseOffer(byType("/offer-credential"));
  assert.ok(parsed.ok);
  const ours = requestMessage("thread-1", buildRequestDetail(parsed.detail));
  const theirs = byType("/request-credential");
  assert.deepEqual(
    attachmentOf(ours, "requests~attach"),
    attachmentOf(theirs, "requests~attach"),
  );
  assert.deepEqual(ours.formats, [{
    attach_id: (ours["requests~attach"] as Json[])[0]!["@id"],
    format: "aries/ld-proof-vc-detail@v1.0",
  }]);
  assert.equal((ours["~thread"] as Json).thid, "thread-1");
});

Deno.test("binding the holder DID sets credentialSubject.id only when the offer leaves it open", () => {
  const parsed = parseOffer(byType("/offer-credential"));
  assert.ok(parsed.ok);
  const bound = buildRequestDetail(parsed.detail, "did:key:z6MkHolder");
  assert.equal((bound.credential.credentialSubject as Json).id, "did:key:z6MkHolder");
  assert.equal((parsed.detail.credential.credentialSubject as Json).id, undefined, "not mutated");
  const again = buildRequestDetail(bound, "did:key:z6MkOther");
  assert.equal((again.credential.credentialSubject as Json).id, "did:key:z6MkHolder");
});

Deno.test("Credo's issued credential matches Credo's request; altered ones do not", () => {
  const request = attachmentOf(byType("/request-credential"), "requests~attach") as LdProofVcDetail;
  const issued = parseIssuedCredential(byType("/issue-credential"));
  assert.ok(issued.ok);
  assert.equal(credentialMismatch(issued.credential, request), undefined);

  const renamed = structuredClone(issued.credential);
  (renamed.credentialSubject as Json).name = "Mallory";
  assert.match(credentialMismatch(renamed, request)!, /"credentialSubject" differs/);

  const extra = { ...structuredClone(issued.credential), evidence: [{ id: "x" }] };
  assert.match(credentialMismatch(extra, request)!, /"evidence", which was not requested/);

  const withId = { ...structuredClone(issued.credential), id: "urn:uuid:1" };
  assert.equal(credentialMismatch(withId, request), undefined, "issuer may add an id");

  const otherSuite = structuredClone(issued.credential);
  (otherSuite.proof as Json).type = "Ed25519Signature2020";
  assert.match(credentialMismatch(otherSuite, request)!, /proof type/);

  const otherPurpose = structuredClone(issued.credential);
  (otherPurpose.proof as Json).proofPurpose = "authentication";
  assert.match(credentialMismatch(otherPurpose, request)!, /proof purpose/);

  const missing = structuredClone(issued.credential);
  delete missing.issuanceDate;
  const strict = structuredClone(request);
  assert.match(credentialMismatch(missing, strict)!, /lacks the requested "issuanceDate"/);
});

Deno.test("offers in AnonCreds/indy formats are unsupported and keep schema and cred def ids", () => {
  const attachId = "a1";
  const offer = {
    "@type": "https://didcomm.org/issue-credential/2.0/offer-credential",
    "@id": "o1",
    formats: [{ attach_id: attachId, format: "hlindy/cred-abstract@v2.0" }],
    "offers~attach": [{
      "@id": attachId,
      data: {
        json: {
          schema_id: "Th7MpTaRZVRYnPiabds81Y:2:degree:1.0",
          cred_def_id: "Th7MpTaRZVRYnPiabds81Y:3:CL:12:tag",
          nonce: "1",
        },
      },
    }],
  };
  const parsed = parseOffer(offer);
  assert.ok(!parsed.ok);
  assert.equal(parsed.kind, "unsupported");
  assert.match(parsed.reason, /AnonCreds format "hlindy\/cred-abstract@v2.0"/);
  assert.deepEqual(parsed.metadata, {
    "_anoncreds/credential": {
      schemaId: "Th7MpTaRZVRYnPiabds81Y:2:degree:1.0",
      credentialDefinitionId: "Th7MpTaRZVRYnPiabds81Y:3:CL:12:tag",
    },
  });
});

Deno.test("malformed offers are reported as malformed, with the reason", () => {
  const base = byType("/offer-credential");
  const cases: [Json, RegExp][] = [
    [{ ...base, formats: undefined }, /no "formats"/],
    [{ ...base, "offers~attach": [] }, /no attachment/],
    [{
      ...base,
      "offers~attach": [{ ...(base["offers~attach"] as Json[])[0], data: { base64: "%%%" } }],
    }, /not base64/],
    [{
      ...base,
      "offers~attach": [{ ...(base["offers~attach"] as Json[])[0], data: { json: { a: 1 } } }],
    }, /no credential object/],
  ];
  for (const [msg, reason] of cases) {
    const parsed = parseOffer(msg);
    assert.ok(!parsed.ok);
    assert.equal(parsed.kind, "malformed");
    assert.match(parsed.reason, reason);
  }
});

Deno.test("a JSON-LD offer asking for a proof suite we cannot verify is unsupported", () => {
  const base = byType("/offer-credential");
  const detail = attachmentOf(base, "offers~attach");
  (detail.options as Json).proofType = "BbsBlsSignature2020";
  const offer = {
    ...base,
    "offers~attach": [{ ...(base["offers~attach"] as Json[])[0], data: { json: detail } }],
  };
  const parsed = parseOffer(offer);
  assert.ok(!parsed.ok);
  assert.equal(parsed.kind, "unsupported");
  assert.match(parsed.reason, /BbsBlsSignature2020/);
});

Deno.test("credential preview attributes win over the flattened subject", () => {
  const base = byType("/offer-credential");
  const parsed = parseOffer({
    ...base,
    credential_preview: { attributes: [{ name: "degree", value: "BSc" }] },
  });
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.attributes, [{
    "mime-type": "text/plain",
    name: "degree",
    value: "BSc",
  }]);
});

Deno.test("an issuer may append its proof suite context, nothing else, to the requested @context", () => {
  const request = attachmentOf(byType("/request-credential"), "requests~attach") as LdProofVcDetail;
  const issued = parseIssuedCredential(byType("/issue-credential"));
  assert.ok(issued.ok);
  const ctx = issued.credential["@context"] as unknown[];
  const suite = {
    ...structuredClone(issued.credential),
    "@context": [...ctx, "https://w3id.org/security/suites/ed25519-2020/v1"],
  };
  assert.equal(credentialMismatch(suite, request), undefined);
  const other = {
    ...structuredClone(issued.credential),
    "@context": [...ctx, "https://example.com/evil/v1"],
  };
  assert.match(credentialMismatch(other, request)!, /"@context" differs/);
  const reordered = { ...structuredClone(issued.credential), "@context": [...ctx].reverse() };
  assert.match(credentialMismatch(reordered, request)!, /"@context" differs/);
});

Deno.test("a DataIntegrityProof offer: its cryptosuite must be one we verify, and the issued proof must carry it", () => {
  const base = byType("/offer-credential");
  const offerWith = (options: Json) => {
    const detail = attachmentOf(base, "offers~attach");
    detail.options = { ...(detail.options as Json), ...options };
    return {
      ...base,
      "offers~attach": [{ ...(base["offers~attach"] as Json[])[0], data: { json: detail } }],
    };
  };
  const ok = parseOffer(
    offerWith({ proofType: "DataIntegrityProof", cryptosuite: "ecdsa-rdfc-2019" }),
  );
  assert.ok(ok.ok);
  assert.equal(ok.metadata["_jsonld/credential"]!.cryptosuite, "ecdsa-rdfc-2019");
  const bbs = parseOffer(offerWith({ proofType: "DataIntegrityProof", cryptosuite: "bbs-2023" }));
  assert.ok(!bbs.ok);
  assert.equal(bbs.kind, "unsupported");
  assert.match(bbs.reason, /cryptosuite "bbs-2023" is not supported/);

  const request = attachmentOf(byType("/request-credential"), "requests~attach") as LdProofVcDetail;
  request.options = {
    ...request.options,
    proofType: "DataIntegrityProof",
    cryptosuite: "ecdsa-rdfc-2019",
  };
  const issued = parseIssuedCredential(byType("/issue-credential"));
  assert.ok(issued.ok);
  const signed = (cryptosuite: string) => ({
    ...structuredClone(issued.credential),
    "@context": [
      ...(issued.credential["@context"] as unknown[]),
      "https://w3id.org/security/data-integrity/v2",
    ],
    proof: { type: "DataIntegrityProof", cryptosuite, proofPurpose: "assertionMethod" },
  });
  assert.equal(credentialMismatch(signed("ecdsa-rdfc-2019"), request), undefined);
  assert.match(
    credentialMismatch(signed("eddsa-rdfc-2022"), request)!,
    /cryptosuite "eddsa-rdfc-2022" is not the requested "ecdsa-rdfc-2019"/,
  );
});
