// The console's OpenID4VP presentation requests: who asks (the verifier's name, its client
// identifier and how the service checked it), what each credential query asks for, and exactly
// which stored credential and which claims (with their values) the answer would disclose, with
// accept and decline. Accept sends the selection shown, so what is shown is what is sent (or the
// service says why not). Everything from the network is set as text.

/** The value at `path` in `doc`, as text. */
function valueAt(doc, path) {
  let v = doc;
  for (const k of path) v = v == null ? undefined : v[k];
  return typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
}

/** `given_name=Erika, address.locality=Koeln`. */
function claimsText(doc, paths) {
  if (!paths.length) return "no claims (only what the credential always shows)";
  return paths.map((p) => `${p.join(".")}=${valueAt(doc, p)}`).join(", ");
}

/** How the service checked who the verifier is. */
function checkedAs(v) {
  const id = v.clientId.slice(v.clientId.indexOf(":") + 1);
  if (v.prefix === "decentralized_identifier") return `request signed by a key of ${id}`;
  if (v.prefix === "x509_san_dns") return `request signed with a certificate for ${id}`;
  return `unsigned request; answers go to ${id}`;
}

/**
 * The presentation requests section, built from the console's helpers: returns `load()`, which
 * lists the org's OpenID4VP requests into `#oid4vp-requests`, and `receive(link)`.
 */
export function presentationRequests({ api, jsonOf, el, facts, problem, act, showPage, org, q }) {
  const $ = (id) => document.getElementById(id);

  /** The stored credentials a page of requests refers to: their claims by id. */
  async function claimsOf(records) {
    const wanted = new Map();
    for (const r of records) {
      for (const query of r.queries) {
        for (const m of query.matches) wanted.set(m.credentialId, m.format);
      }
    }
    const out = new Map();
    await Promise.all([...wanted].map(async ([id, format]) => {
      const path = format === "ldp_vc" ? "w3c-credentials" : "sd-jwt-credentials";
      const res = await api(`/orgs/${q(org())}/${path}/${q(id)}`);
      const body = await jsonOf(res);
      if (res.ok) out.set(id, format === "ldp_vc" ? body.credential : body.claims);
    }));
    return out;
  }

  /**
   * One credential query: what it asks for, and what answering with the chosen match shows. An
   * optional query (one of several alternatives, or an optional set) is sent only when included.
   */
  function queryBlock(r, query, claims, selection, included) {
    const open = r.state === "request-received";
    const block = el("div", { class: "descriptor", "data-query": query.id });
    block.append(facts([["Asks for", `${query.id} (${query.required ? "needed" : "optional"})`]]));
    if (open && !query.required && query.matches.length) {
      const box = el("input", { type: "checkbox", id: `include-${r.id}-${query.id}` });
      box.addEventListener("change", () => {
        if (box.checked) included.add(query.id);
        else included.delete(query.id);
      });
      block.append(
        el("label", { class: "inline", for: box.id }, box, ` Include ${query.id} in the answer`),
      );
    }
    if (!query.matches.length) {
      block.append(el("p", { class: "muted", text: "No stored credential matches." }));
      return block;
    }
    const presented = r.presented?.find((p) => p.queryId === query.id)?.credentialId;
    if (!open && !presented) return block;
    const discloses = el("p", { class: "carries" });
    const show = (id) => {
      const m = query.matches.find((x) => x.credentialId === id);
      const doc = claims.get(id) ?? {};
      const verb = open
        ? (query.required ? "Would disclose" : "If included, would disclose")
        : "Disclosed";
      discloses.textContent = `${verb} from ${
        m.format === "ldp_vc" ? "JSON-LD credential (whole)" : "SD-JWT credential"
      } ${id}: ${claimsText(doc, m.disclosedClaims)}`;
    };
    if (open && query.matches.length > 1) {
      const select = el("select", { "aria-label": `Credential for ${query.id}` });
      for (const m of query.matches) {
        select.append(el("option", { value: m.credentialId, text: m.credentialId }));
      }
      select.addEventListener("change", () => {
        selection[query.id] = select.value;
        show(select.value);
      });
      block.append(el("label", { text: "Credential" }), select);
    }
    selection[query.id] = presented ?? query.matches[0].credentialId;
    show(selection[query.id]);
    block.append(discloses);
    return block;
  }

  async function load() {
    await showPage(
      "oid4vp-requests",
      `/orgs/${q(org())}/openid4vp/requests?limit=20`,
      "No OpenID4VP presentation requests yet.",
      async (data) => {
        const claims = await claimsOf(data);
        return data.map((r) => {
          const v = r.verifier;
          const item = el(
            "li",
            { "data-presentation": r.id, "data-state": r.state },
            facts([
              ["Verifier", v.name ? `${v.name} (${v.clientId})` : v.clientId],
              ["Checked", checkedAs(v)],
              ["State", r.state],
              ["Answer by", r.responseMode],
              ["Updated", r.updatedAt],
              ["Verifier sent you to", r.redirectUri],
              ["Error", r.errorMessage],
            ]),
          );
          const selection = {};
          const included = new Set();
          for (const query of r.queries) {
            item.append(queryBlock(r, query, claims, selection, included));
          }
          if (r.state === "request-received" && r.queries.some((x) => !x.required)) {
            item.append(el("p", {
              class: "muted",
              text: "Where the verifier offers alternatives and none is included, the service " +
                "answers with the first one the stored credentials can meet.",
            }));
          }
          if (r.state !== "request-received") return item;
          const base = `/orgs/${q(org())}/openid4vp/requests/${q(r.id)}`;
          const label = v.name ?? v.clientId;
          item.append(el(
            "div",
            { class: "actions" },
            el("button", {
              type: "button",
              text: "Accept and present",
              "aria-label": `Present to ${label}`,
              onclick: (ev) =>
                act(
                  ev.currentTarget,
                  `${base}/accept`,
                  { selection: pick(r, selection, included) },
                  load,
                ),
            }),
            el("button", {
              type: "button",
              class: "secondary",
              text: "Decline",
              "aria-label": `Decline the request of ${label}`,
              onclick: (ev) => act(ev.currentTarget, `${base}/decline`, {}, load),
            }),
          ));
          return item;
        });
      },
    );
  }

  /** The selection shown: needed queries, and optional ones the person included. */
  function pick(r, selection, included) {
    const out = {};
    for (const query of r.queries) {
      if (!query.matches.length || !selection[query.id]) continue;
      if (query.required || included.has(query.id)) out[query.id] = selection[query.id];
    }
    return out;
  }

  async function receive(link) {
    const res = await api(`/orgs/${q(org())}/openid4vp/requests`, {
      method: "POST",
      body: { request: link },
    });
    const out = await jsonOf(res);
    $("console-msg").textContent = res.ok ? "Presentation request received." : problem(res, out);
    await load();
    return res.ok;
  }

  return { load, receive };
}
