// JSON control API over a Credo issuer and verifier agent (see ../README.md for the routes).
import { ClaimFormat, JsonTransformer, W3cCredential } from "@credo-ts/core";
import { DidCommHandshakeProtocol, DidCommTrustPingEventTypes } from "@credo-ts/didcomm";

const CONTEXT_INLINE = { name: "https://schema.org/name" };

function connectionJson(c) {
  return {
    id: c.id,
    state: c.state,
    role: c.role,
    did: c.did ?? null,
    theirDid: c.theirDid ?? null,
    theirLabel: c.theirLabel ?? null,
    protocol: c.protocol ?? null,
    outOfBandId: c.outOfBandId ?? null,
    threadId: c.threadId ?? null,
    errorMessage: c.errorMessage ?? null,
    createdAt: c.createdAt?.toISOString() ?? null,
  };
}

function credentialJson(r) {
  return {
    id: r.id,
    state: r.state,
    role: r.role,
    threadId: r.threadId,
    connectionId: r.connectionId ?? null,
    protocolVersion: r.protocolVersion,
    errorMessage: r.errorMessage ?? null,
    createdAt: r.createdAt?.toISOString() ?? null,
    updatedAt: r.updatedAt?.toISOString() ?? null,
  };
}

function proofJson(r) {
  return { ...credentialJson(r), isVerified: r.isVerified ?? null };
}

/** The default request: any credential with a `credentialSubject.name` (what the issuer issues). */
function defaultDefinition() {
  return {
    id: crypto.randomUUID(),
    input_descriptors: [{
      id: "name",
      name: "Name",
      purpose: "We need your name.",
      constraints: {
        fields: [{ path: ["$.credentialSubject.name"], filter: { type: "string" } }],
      },
    }],
  };
}

function problemReportOf(entry) {
  const description = entry.message.description;
  return {
    type: entry.type,
    id: entry.id,
    threadId: entry.thid,
    pthid: entry.pthid,
    code: typeof description === "object" ? (description?.code ?? null) : null,
    description: typeof description === "object"
      ? (description?.en ?? null)
      : (description ?? null),
    receivedAt: entry.at,
    message: entry.message,
  };
}

/** Returns a request handler (method, path, body, query) => {status, body}. */
export function createControlApi(
  { agent, recorder, issuerDid, endpoint, inboundSwitch, shutdown },
) {
  const trustPingResponses = [];
  agent.events.on(
    DidCommTrustPingEventTypes.DidCommTrustPingResponseReceivedEvent,
    (event) => {
      trustPingResponses.push({
        connectionId: event.payload.connectionRecord?.id ?? null,
        threadId: event.payload.message.threadId,
        id: event.payload.message.id,
        receivedAt: new Date().toISOString(),
      });
    },
  );
  const didcomm = agent.didcomm;
  let other;
  const otherDid = async () => {
    other ??= agent.dids.create({
      method: "key",
      options: { createKey: { type: { kty: "OKP", crv: "Ed25519" } } },
    }).then((r) => r.didState.did);
    return await other;
  };

  const routes = [
    [
      "GET",
      /^\/health$/,
      () => ({
        issuerDid,
        endpoint,
        rssMb: Math.round(process.memoryUsage().rss / 1048576),
      }),
    ],
    ["POST", /^\/invitations$/, async (_m, body) => {
      const handshake = body.handshake ?? "didexchange";
      if (handshake === "connections-legacy") {
        const { outOfBandRecord, invitation } = await didcomm.oob
          .createLegacyInvitation({ label: "Credo Issuer" });
        return {
          invitationUrl: invitation.toUrl({ domain: endpoint }),
          outOfBandId: outOfBandRecord.id,
        };
      }
      if (handshake !== "didexchange" && handshake !== "connections") {
        return {
          status: 400,
          body: { error: `unknown handshake '${handshake}'` },
        };
      }
      const protocol = handshake === "connections"
        ? DidCommHandshakeProtocol.Connections
        : DidCommHandshakeProtocol.DidExchange;
      const record = await didcomm.oob.createInvitation({
        label: "Credo Issuer",
        handshakeProtocols: [protocol],
      });
      return {
        invitationUrl: record.outOfBandInvitation.toUrl({ domain: endpoint }),
        outOfBandId: record.id,
        invitation: record.outOfBandInvitation.toJSON(),
      };
    }],
    [
      "GET",
      /^\/connections$/,
      async () => (await didcomm.connections.getAll()).map(connectionJson),
    ],
    [
      "GET",
      /^\/connections\/([^/]+)$/,
      async (m) => connectionJson(await didcomm.connections.getById(m[1])),
    ],
    ["POST", /^\/connections\/([^/]+)\/trust-ping$/, async (m) => {
      const ping = await didcomm.connections.sendPing(m[1], {
        responseRequested: true,
      });
      return { id: ping.id, threadId: ping.threadId };
    }],
    ["POST", /^\/connections\/([^/]+)\/rotate$/, async (m) => {
      // DID Rotate 1.0: a new did:peer for this connection, announced to the other side.
      const { newDid } = await didcomm.connections.rotate({ connectionId: m[1] });
      return { newDid };
    }],
    ["POST", /^\/connections\/([^/]+)\/hangup$/, async (m) => {
      await didcomm.connections.hangup({ connectionId: m[1] });
      return { ok: true };
    }],
    ["GET", /^\/trust-pings$/, () => trustPingResponses],
    ["POST", /^\/credentials\/offer$/, async (_m, body) => {
      if (typeof body.connectionId !== "string") {
        return { status: 400, body: { error: "connectionId required" } };
      }
      const tamper = body.tamper ?? "none";
      if (tamper !== "none" && tamper !== "proof") {
        return { status: 400, body: { error: `bad tamper '${tamper}'` } };
      }
      const record = await didcomm.credentials.offerCredential({
        connectionId: body.connectionId,
        protocolVersion: "v2",
        comment: body.comment,
        credentialFormats: {
          jsonld: {
            credential: {
              "@context": [
                "https://www.w3.org/2018/credentials/v1",
                ...(body.contexts ?? [body.context ?? CONTEXT_INLINE]),
              ],
              type: ["VerifiableCredential"],
              issuer: issuerDid,
              issuanceDate: body.issuanceDate ??
                new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
              credentialSubject: body.credentialSubject ?? { name: "Alice" },
              ...(body.credentialStatus ? { credentialStatus: body.credentialStatus } : {}),
            },
            options: {
              proofType: body.proofType ?? "Ed25519Signature2018",
              proofPurpose: "assertionMethod",
            },
          },
        },
      });
      if (tamper === "proof") recorder.tamperThreads.add(record.threadId);
      return { credentialExchangeId: record.id, threadId: record.threadId };
    }],
    ["POST", /^\/sign-credential$/, async (_m, body) => {
      // Credo signs a JSON-LD credential (e.g. a status list credential) with the issuer's key,
      // or with `signer: "other"` with another key (whatever issuer the credential names).
      const signerDid = body.signer === "other" ? await otherDid() : issuerDid;
      const verificationMethod = (await agent.dids.resolve(signerDid)).didDocument
        .verificationMethod[0].id;
      const signed = await agent.w3cCredentials.signCredential({
        format: ClaimFormat.LdpVc,
        credential: JsonTransformer.fromJSON(body.credential, W3cCredential),
        proofType: body.proofType ?? "Ed25519Signature2018",
        verificationMethod,
      });
      return JsonTransformer.toJSON(signed);
    }],
    [
      "GET",
      /^\/credentials$/,
      async () => (await didcomm.credentials.getAll()).map(credentialJson),
    ],
    ["GET", /^\/credentials\/([^/]+)$/, async (m) => {
      const record = await didcomm.credentials.getById(m[1]);
      return {
        ...credentialJson(record),
        formatData: await didcomm.credentials.getFormatData(record.id),
      };
    }],
    ["POST", /^\/proofs\/request$/, async (_m, body) => {
      if (typeof body.connectionId !== "string") {
        return { status: 400, body: { error: "connectionId required" } };
      }
      const record = await didcomm.proofs.requestProof({
        connectionId: body.connectionId,
        protocolVersion: "v2",
        comment: body.comment,
        proofFormats: {
          presentationExchange: {
            presentationDefinition: body.presentationDefinition ?? defaultDefinition(),
            options: { challenge: body.challenge, domain: body.domain },
          },
        },
      });
      return { proofExchangeId: record.id, threadId: record.threadId };
    }],
    ["GET", /^\/proofs$/, async () => (await didcomm.proofs.getAll()).map(proofJson)],
    ["GET", /^\/proofs\/([^/]+)$/, async (m) => {
      const record = await didcomm.proofs.getById(m[1]);
      return { ...proofJson(record), formatData: await didcomm.proofs.getFormatData(record.id) };
    }],
    ["POST", /^\/inbound$/, (_m, body) => {
      if (typeof body.paused !== "boolean") {
        return { status: 400, body: { error: "paused (boolean) required" } };
      }
      inboundSwitch.paused = body.paused;
      return { paused: inboundSwitch.paused };
    }],
    [
      "GET",
      /^\/problem-reports$/,
      () =>
        recorder.inbound.filter((e) => String(e.type).endsWith("/problem-report")).map(
          problemReportOf,
        ),
    ],
    ["GET", /^\/messages$/, (_m, _b, query) => {
      const list = query.get("direction") === "out" ? recorder.outbound : recorder.inbound;
      return query.get("full") === "1"
        ? list
        : list.map(({ message: _msg, envelope: _env, ...rest }) => rest);
    }],
    ["POST", /^\/shutdown$/, () => {
      setTimeout(shutdown, 10);
      return { ok: true };
    }],
  ];

  return async (method, path, body, query) => {
    for (const [routeMethod, pattern, handler] of routes) {
      const match = pattern.exec(path);
      if (!match || routeMethod !== method) continue;
      const result = await handler(match, body, query);
      return result && typeof result.status === "number" && "body" in result
        ? result
        : { status: 200, body: result };
    }
    return { status: 404, body: { error: `no route ${method} ${path}` } };
  };
}
