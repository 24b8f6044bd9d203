// Records every DIDComm v1 plaintext message an agent packs or unpacks, with envelope
// facts (alg, enc, IV length), and can tamper with outbound credentials. It wraps the
// agent's DidCommEnvelopeService singleton, so it sees exactly what goes on the wire.

const ISSUE_CREDENTIAL_V2 = "https://didcomm.org/issue-credential/2.0/issue-credential";

function b64uDecode(value) {
  return Buffer.from(value, "base64url");
}

function envelopeFacts(envelope) {
  const header = JSON.parse(b64uDecode(envelope.protected).toString("utf8"));
  return {
    alg: header.alg,
    enc: header.enc,
    typ: header.typ,
    ivBytes: b64uDecode(envelope.iv).length,
    tagBytes: b64uDecode(envelope.tag).length,
    recipients: header.recipients.map((r) => ({
      kid: r.header.kid,
      hasSender: r.header.sender !== undefined,
      ivBytes: r.header.iv === undefined ? null : b64uDecode(r.header.iv).length,
    })),
  };
}

function summary(direction, message, envelope) {
  return {
    direction,
    at: new Date().toISOString(),
    type: message["@type"],
    id: message["@id"],
    thid: message["~thread"]?.thid ?? null,
    pthid: message["~thread"]?.pthid ?? null,
    envelope,
    message,
  };
}

/**
 * Flips one byte of the proof signature (jws or proofValue) of every credential
 * attachment in an issue-credential 2.0 message. Returns a new message object.
 */
export function tamperCredentialMessage(message) {
  const copy = structuredClone(message);
  for (const attachment of copy["credentials~attach"] ?? []) {
    const vc = JSON.parse(
      Buffer.from(attachment.data.base64, "base64").toString("utf8"),
    );
    if (typeof vc.proof?.jws === "string") {
      const [header, payload, signature] = vc.proof.jws.split(".");
      const sig = b64uDecode(signature);
      sig[0] ^= 0x01;
      vc.proof.jws = `${header}.${payload}.${sig.toString("base64url")}`;
    } else if (typeof vc.proof?.proofValue === "string") {
      const value = vc.proof.proofValue;
      const last = value.at(-2) === "A" ? "B" : "A";
      vc.proof.proofValue = `${value.slice(0, -2)}${last}${value.at(-1)}`;
    }
    attachment.data.base64 = Buffer.from(JSON.stringify(vc), "utf8").toString(
      "base64",
    );
  }
  return copy;
}

/** Wraps the envelope service; returns the log plus a set of thread ids to tamper. */
export function installRecorder(envelopeService) {
  const recorder = {
    inbound: [],
    outbound: [],
    tamperThreads: new Set(),
    listeners: new Set(),
  };
  const encrypt = envelopeService.encryptDidcommV1Message.bind(envelopeService);
  const decrypt = envelopeService.decryptDidcommV1Message.bind(envelopeService);

  envelopeService.encryptDidcommV1Message = async (
    agentContext,
    message,
    recipientKeys,
    senderKey,
  ) => {
    let plaintext = message;
    if (
      message["@type"] === ISSUE_CREDENTIAL_V2 &&
      recorder.tamperThreads.has(message["~thread"]?.thid)
    ) {
      plaintext = tamperCredentialMessage(message);
    }
    const envelope = await encrypt(
      agentContext,
      plaintext,
      recipientKeys,
      senderKey,
    );
    if (plaintext["@type"] !== "https://didcomm.org/routing/1.0/forward") {
      recorder.outbound.push(
        summary("out", plaintext, envelopeFacts(envelope)),
      );
    }
    return envelope;
  };

  envelopeService.decryptDidcommV1Message = async (agentContext, envelope) => {
    const result = await decrypt(agentContext, envelope);
    const entry = summary(
      "in",
      result.plaintextMessage,
      envelopeFacts(envelope),
    );
    recorder.inbound.push(entry);
    for (const listener of recorder.listeners) listener(entry);
    return result;
  };
  return recorder;
}
