// The console's DIDComm proof requests (Present Proof 2.0): who asks (the connection's label), what
// each input descriptor asks for, and exactly which stored credential and which of its claims the
// answer would carry, with accept and decline. Accept sends the selection shown, so what is shown
// is what is sent (or the service says why not). Everything from the network is set as text.

/** The value at `path` (an array of keys) in `doc`, as text. */
function valueAt(doc, path) {
  let v = doc;
  for (const k of path) v = v == null ? undefined : v[k];
  return typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
}

/** `name=Alice, age=30`: the claims a credential would disclose. */
function claimsText(credential, paths) {
  return paths.map((p) => `${p.slice(1).join(".")}=${valueAt(credential, p)}`).join(", ");
}

/**
 * The proof requests section, built from the console's helpers: returns `load()`, which lists the
 * org's proof records into `#proofs`.
 */
export function proofRequests({ api, jsonOf, el, facts, act, showPage, org, q }) {
  /** The stored credentials a page of records refers to, by id. */
  async function credentialsOf(records) {
    const ids = new Set();
    for (const p of records) {
      for (const d of p.inputDescriptors ?? []) for (const m of d.matches) ids.add(m.credentialId);
    }
    const out = new Map();
    await Promise.all([...ids].map(async (id) => {
      const res = await api(`/orgs/${q(org())}/w3c-credentials/${q(id)}`);
      if (res.ok) out.set(id, (await jsonOf(res)).credential);
      else await res.body?.cancel();
    }));
    return out;
  }

  /** One input descriptor: what it asks for and the credential (and claims) the answer carries. */
  function descriptorBlock(p, d, creds, chosen) {
    const open = p.state === "request-received";
    const block = el("div", { class: "descriptor", "data-descriptor": d.id });
    block.append(facts([
      ["Asks", d.name ? `${d.name} (${d.id})` : d.id],
      ["Purpose", d.purpose],
      ["Fields", d.requestedFields.join(", ")],
    ]));
    const selected = p.selection?.[d.id];
    if (!selected) {
      if (open && d.matches.length === 0) {
        block.append(el("p", { class: "muted", text: "No stored credential matches." }));
      }
      return block;
    }
    const carries = el("p", { class: "carries" });
    const show = (id) => {
      const m = d.matches.find((x) => x.credentialId === id);
      const vc = creds.get(id);
      carries.textContent = `${open ? "Would send" : "Sent"}: credential ${id}` +
        (vc && m
          ? ` from ${vc.issuer?.id ?? vc.issuer}: ${claimsText(vc, m.disclosedClaims)}`
          : "");
    };
    chosen.set(d.id, selected);
    if (open && d.matches.length > 1) {
      const label = `Credential for ${d.name ?? d.id}`;
      const select = el("select", { "aria-label": label });
      for (const m of d.matches) {
        const vc = creds.get(m.credentialId);
        const option = el("option", {
          value: m.credentialId,
          text: vc ? claimsText(vc, m.disclosedClaims) : m.credentialId,
        });
        if (m.credentialId === selected) option.selected = true;
        select.append(option);
      }
      select.addEventListener("change", () => {
        chosen.set(d.id, select.value);
        show(select.value);
      });
      block.append(el("label", { text: label }), select);
    }
    show(selected);
    block.append(carries);
    return block;
  }

  function item(p, creds) {
    const chosen = new Map();
    const node = el(
      "li",
      { "data-proof": p.id },
      facts([
        ["Verifier", p.verifier?.label ?? p.connectionId],
        ["State", p.state],
        ["Request", p.presentationDefinition?.name ?? p.presentationDefinition?.purpose],
        ["Format", p.requestFormat],
        ["Cannot answer", p.state === "request-received" ? p.unanswerable : undefined],
        ["Updated", p.updatedAt],
        ["Error", p.errorMessage],
      ]),
    );
    for (const d of p.inputDescriptors ?? []) node.append(descriptorBlock(p, d, creds, chosen));
    if (p.state !== "request-received") return node;
    const actions = el("div", { class: "actions" });
    if (!p.unanswerable) {
      actions.append(el("button", {
        type: "button",
        text: "Accept request",
        onclick: (ev) =>
          act(
            ev.currentTarget,
            "/proofs/accept-request",
            { proofRecordId: p.id, selection: Object.fromEntries(chosen) },
            load,
          ),
      }));
    }
    actions.append(el("button", {
      type: "button",
      class: "secondary",
      text: "Decline request",
      onclick: (ev) =>
        act(ev.currentTarget, "/proofs/decline-request", { proofRecordId: p.id }, load),
    }));
    node.append(actions);
    return node;
  }

  async function load() {
    await showPage(
      "proofs",
      `/orgs/${q(org())}/proofs?limit=20`,
      "No proof requests yet.",
      async (data) => {
        const creds = await credentialsOf(data);
        return data.map((p) => item(p, creds));
      },
    );
  }

  return load;
}
