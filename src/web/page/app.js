// The resolver page and org console (CONTRACT "Web pages"). Plain DOM, no framework, no build.
// - The token lives in this module's memory only: never in a URL, cookie, storage or log.
// - Everything shown that came from the network is set with textContent (never innerHTML).
// - Resolution asks the service, not the browser cache (`cache: "no-cache"`), so
//   servedFromCache is the service's own answer; redirects are not followed (they may lead
//   to other hosts).

import { credentialOffers } from "./offers.js";
import { presentationRequests } from "./presentations.js";
import { proofRequests } from "./proofs.js";
import { resolver } from "./resolver.js";

let token = "";

const $ = (id) => document.getElementById(id);

/** An element with text and attributes (text is always textContent). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k === "onclick") node.addEventListener("click", v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

/** A definition list from [term, value] pairs (values shown as text). */
function facts(pairs) {
  const dl = el("dl");
  for (const [k, v] of pairs) {
    if (v === undefined || v === null || v === "") continue;
    dl.append(el("dt", { text: k }), el("dd", { text: String(v) }));
  }
  return dl;
}

/** fetch with the token (when there is one), no browser cache, no cookies, no redirects. */
async function api(path, init = {}) {
  const headers = { ...(init.headers ?? {}) };
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  return await fetch(path, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    cache: "no-cache",
    credentials: "omit",
    redirect: "manual",
  });
}

/** The JSON body of a response, or undefined when there is none or it is not JSON. */
async function jsonOf(res) {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A readable sentence for a failed API call. */
function problem(res, body) {
  if (res.status === 401) return "The service needs a valid token (paste one above).";
  if (res.status === 403) return "This token has no owner or admin role in that organization.";
  const msg = body && (body.message ?? body.didResolutionMetadata?.message ??
    body.dereferencingMetadata?.message);
  return `${res.status} ${res.statusText || ""}${msg ? `: ${msg}` : ""}`.trim();
}

const resolution = resolver({ api, jsonOf, el, problem });

// ---------------------------------------------------------------------------------------------
// Token and console

async function useToken(value) {
  token = value.trim();
  $("token").value = "";
  $("who").textContent = "";
  $("console").hidden = true;
  await resolution.loadExamples();
  if (!token) return;
  const res = await api("/me");
  const me = await jsonOf(res);
  if (!res.ok) {
    $("who").textContent = problem(res, me);
    return;
  }
  const admin = Object.entries(me.orgs ?? {})
    .filter(([, roles]) => roles.includes("owner") || roles.includes("admin"))
    .map(([org]) => org);
  $("who").textContent = `Signed in as ${me.sub}` +
    (admin.length ? `; owner or admin of ${admin.join(", ")}.` : "; no org to administer.");
  const select = $("org");
  select.replaceChildren(...admin.map((org) => el("option", { value: org, text: org })));
  if (admin.length) {
    $("console").hidden = false;
    await loadConsole();
  }
}

function forget() {
  token = "";
  $("token").value = "";
  $("who").textContent = "Token forgotten.";
  $("console").hidden = true;
  for (
    const id of [
      "agent",
      "webhook",
      "deliveries",
      "connections",
      "exchanges",
      "oid4vc-offers",
      "sd-jwt-credentials",
      "oid4vp-requests",
      "proofs",
    ]
  ) {
    $(id).replaceChildren();
  }
  resolution.loadExamples();
}

const org = () => $("org").value;
const q = (s) => encodeURIComponent(s);

async function loadConsole() {
  $("console-msg").textContent = "";
  await Promise.all([
    loadAgent(),
    loadWebhook(),
    loadDeliveries(),
    loadConnections(),
    loadExchanges(),
    offers.load(),
    offers.loadCredentials(),
    presentations.load(),
    loadProofs(),
  ]);
}

async function loadAgent() {
  const box = $("agent");
  const res = await api(`/orgs/${q(org())}/agents`);
  const a = await jsonOf(res);
  if (res.status === 404) {
    return box.replaceChildren(el("p", { class: "muted", text: "No agent configured." }));
  }
  if (!res.ok) return box.replaceChildren(el("p", { class: "error", text: problem(res, a) }));
  box.replaceChildren(facts([
    ["Wallet", a.walletName],
    ["Endpoint", a.agentEndpoint],
    ["DID", a.did],
    ["Auto-accept", a.autoAcceptCredentials],
    ["Auto-accept proofs", a.autoAcceptProofs],
    ["Configured", a.createdAt],
    ["API key", "stored hashed; never shown"],
  ]));
}

async function loadWebhook() {
  const box = $("webhook");
  const res = await api(`/notification/webhook-endpoint?orgId=${q(org())}`);
  const w = await jsonOf(res);
  if (res.status === 404) {
    return box.replaceChildren(
      el("p", { class: "muted", text: "No webhook endpoint registered." }),
    );
  }
  if (!res.ok) return box.replaceChildren(el("p", { class: "error", text: problem(res, w) }));
  box.replaceChildren(facts([
    ["URL", w.notificationWebhook],
    ["Enabled", String(w.enabled)],
    ["Disabled because", w.disabledReason],
    ["Secret created", w.secretCreatedAt],
    ["Registered", w.createdAt],
  ]));
}

async function loadDeliveries() {
  await showPage(
    "deliveries",
    `/notification/deliveries?orgId=${q(org())}&limit=20`,
    "No deliveries yet.",
    (data) =>
      data.map((d) => {
        const item = el(
          "li",
          { "data-delivery": d.id, "data-status": d.status },
          facts([
            ["Event", d.eventType],
            [
              "Status",
              d.skipped
                ? "succeeded without a request: no endpoint was registered (or it was disabled)"
                : d.status,
            ],
            ["Attempts", d.attemptCount],
            ["Last answer", d.lastStatus ?? d.lastError],
            ["Created", d.createdAt],
            ["Next attempt", d.nextAttemptAt],
          ]),
        );
        if (d.status === "dead") {
          item.append(el(
            "div",
            { class: "actions" },
            el("button", {
              type: "button",
              text: "Re-send",
              "aria-label": `Re-send the ${d.eventType} delivery of ${d.createdAt}`,
              onclick: (ev) =>
                act(
                  ev.currentTarget,
                  `/notification/deliveries/${q(d.id)}/retry`,
                  { orgId: org() },
                  loadDeliveries,
                ),
            }),
          ));
        }
        return item;
      }),
  );
}

async function loadConnections() {
  await showPage(
    "connections",
    `/orgs/${q(org())}/connections?limit=20`,
    "No connections yet.",
    (data) =>
      data.map((c) =>
        el(
          "li",
          {},
          facts([
            ["Label", c.theirLabel],
            ["State", c.state],
            ["Their DID", c.theirDid],
            ["Protocol", c.protocol],
            ["Created", c.createdAt],
          ]),
        )
      ),
  );
}

async function loadExchanges() {
  await showPage(
    "exchanges",
    `/orgs/${q(org())}/credentials?limit=20`,
    "No credential exchanges yet.",
    (data) =>
      data.map((x) => {
        const attrs = (x.credentialAttributes ?? []).map((a) => `${a.name}=${a.value}`).join(", ");
        const item = el(
          "li",
          { "data-exchange": x.id },
          facts([
            ["State", x.state],
            ["Connection", x.connectionId],
            ["Attributes", attrs],
            ["Updated", x.updatedAt],
            ["Error", x.errorMessage],
          ]),
        );
        const actions = el("div", { class: "actions" });
        const body = { credentialRecordId: x.id };
        if (x.state === "offer-received") {
          actions.append(
            el("button", {
              type: "button",
              text: "Accept offer",
              onclick: (ev) =>
                act(ev.currentTarget, "/credentials/accept-offer", body, loadExchanges),
            }),
            el("button", {
              type: "button",
              class: "secondary",
              text: "Decline",
              onclick: (ev) =>
                act(ev.currentTarget, "/credentials/decline-offer", body, loadExchanges),
            }),
          );
        } else if (x.state === "credential-received") {
          actions.append(
            el("button", {
              type: "button",
              text: "Accept credential",
              onclick: (ev) =>
                act(ev.currentTarget, "/credentials/accept-credential", body, loadExchanges),
            }),
          );
        }
        if (actions.childElementCount) item.append(actions);
        return item;
      }),
  );
}

const offers = credentialOffers({ api, jsonOf, el, facts, problem, act, showPage, org, q });

const presentations = presentationRequests({
  api,
  jsonOf,
  el,
  facts,
  problem,
  act,
  showPage,
  org,
  q,
});

async function receivePresentationRequest() {
  const link = $("vp-request").value.trim();
  if (!link) return;
  if (await presentations.receive(link)) $("vp-request").value = "";
}
const loadProofs = proofRequests({ api, jsonOf, el, facts, problem, act, showPage, org, q });

/**
 * Fills list `#id` with the page the API answers at `path`: the items `render(data)` makes (it may
 * be async), a line saying the problem when the call failed, or `empty` when there are none.
 */
async function showPage(id, path, empty, render) {
  const list = $(id);
  const res = await api(path);
  const page = await jsonOf(res);
  if (!res.ok) return list.replaceChildren(el("li", { class: "error", text: problem(res, page) }));
  if (!page.data.length) return list.replaceChildren(el("li", { class: "muted", text: empty }));
  list.replaceChildren(...await render(page.data));
}

/** POSTs an action, says how it went, then reloads its list. */
async function act(button, path, body, reload) {
  button.disabled = true;
  const res = await api(path, { method: "POST", body });
  const out = await jsonOf(res);
  $("console-msg").textContent = res.ok ? `Done: ${button.textContent}.` : problem(res, out);
  await reload();
}

// ---------------------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("resolve-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    resolution.resolve($("did").value);
  });
  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    useToken($("token").value);
  });
  $("forget").addEventListener("click", forget);
  $("refresh").addEventListener("click", loadConsole);
  $("offer-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    offers.receive();
  });
  $("vp-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    receivePresentationRequest();
  });
  $("org").addEventListener("change", loadConsole);
  resolution.loadExamples();
});
