// Turns the issuer's recorded plaintext message log into a fixture file for the
// people writing the holder side: one real example of each message, in order, with
// envelope facts and decoded attachments.
const ATTACH_FIELDS = [
  "did_doc~attach",
  "did_rotate~attach",
  "offers~attach",
  "requests~attach",
  "credentials~attach",
  "formats",
];

function decodeBase64Json(value) {
  const text = Buffer.from(value, "base64").toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Decoded views of attachments and signatures, keyed by message field. */
export function decodeAttachments(message) {
  const decoded = {};
  for (const field of ATTACH_FIELDS) {
    const value = message[field];
    if (field === "formats" || value === undefined) continue;
    const list = Array.isArray(value) ? value : [value];
    decoded[field] = list.map((a) => ({
      id: a["@id"],
      mimeType: a["mime-type"],
      json: a.data?.base64 ? decodeBase64Json(a.data.base64) : null,
      jws: a.data?.jws ?? null,
    }));
  }
  const sig = message["connection~sig"];
  if (sig?.sig_data) {
    const bytes = Buffer.from(sig.sig_data, "base64url");
    decoded["connection~sig"] = {
      timestamp: Number(bytes.readBigUInt64BE(0)),
      connection: JSON.parse(bytes.subarray(8).toString("utf8")),
    };
  }
  return decoded;
}

function entry(e, from) {
  return {
    from,
    to: from === "issuer" ? "holder" : "issuer",
    type: e.type,
    envelope: e.envelope,
    message: e.message,
    decoded: decodeAttachments(e.message),
  };
}

/** Builds the fixture document. */
export function buildFixtures(
  { issuerIn, issuerOut, connections, credentialOutcomes, timings },
) {
  const all = [
    ...issuerIn.map((e) => ({ ...e, from: "holder" })),
    ...issuerOut.map((e) => ({ ...e, from: "issuer" })),
  ]
    .sort((a, b) => a.at.localeCompare(b.at));
  const flows = {};
  const threadToFlow = new Map();
  for (const [name, c] of Object.entries(connections)) {
    flows[`handshake_${name}`] = { invitation: c.invitation, messages: [] };
    threadToFlow.set(c.issuerConn.threadId, `handshake_${name}`);
  }
  flows.trust_ping = [];
  flows.other = [];
  const credentialThreads = [];
  for (const e of all) {
    const type = String(e.type);
    const handshakeFlow = threadToFlow.get(e.thid ?? e.id);
    if (handshakeFlow && (type.includes("/didexchange/") || type.includes("/connections/1.0/"))) {
      flows[handshakeFlow].messages.push(entry(e, e.from));
    } else if (type.includes("/trust_ping/")) {
      const seen = flows.trust_ping.some((m) =>
        m.from === e.from && m.type === type &&
        m.message.response_requested === e.message.response_requested
      );
      if (!seen) flows.trust_ping.push(entry(e, e.from));
    } else if (type.includes("/issue-credential/2.0/")) {
      let thread = credentialThreads.find((t) => t.thid === e.thid);
      if (!thread) credentialThreads.push(thread = { thid: e.thid, messages: [] });
      thread.messages.push(entry(e, e.from));
    } else flows.other.push(entry(e, e.from));
  }
  const names = Object.keys(credentialOutcomes);
  credentialThreads.forEach((t, i) => {
    flows[
      `issue_credential_${(names[i] ?? `thread${i}`).replace(/\W+/g, "_").toLowerCase()}`
    ] = {
      outcome: credentialOutcomes[names[i]] ?? null,
      messages: t.messages,
    };
  });
  return {
    about:
      "Real DIDComm v1 plaintext messages (unpacked) exchanged between a Credo issuer and a Credo holder, " +
      "captured at the issuer envelope layer by tests/interop/credo_peer/selftest.mjs --write-fixtures. " +
      '"from" is the sender. "envelope" summarises the packed JWE (alg, enc, IV/tag byte lengths, recipients). ' +
      '"decoded" shows base64 attachments and connection~sig decoded.',
    credo: {
      core: "0.6.0-alpha-20251127043254",
      didcomm: "0.6.0-alpha-20251127043254",
      node: "0.6.0-alpha-20251127043254",
    },
    timings,
    flows,
  };
}
