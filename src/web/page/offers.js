// The console's OpenID4VCI offers and stored SD-JWT credentials: an offer link received, each
// offer accepted (with the transaction code when it needs one) or declined, and the credentials
// received with their claims (the SD-JWT VC's own claims left out). Everything from the network is
// set as text.

/**
 * The offers section, built from the console's helpers: returns `load()` (the offers),
 * `loadCredentials()` (the stored SD-JWT VCs) and `receive()` (the link in `#offer-uri`).
 */
export function credentialOffers({ api, jsonOf, el, facts, problem, act, showPage, org, q }) {
  const $ = (id) => document.getElementById(id);

  async function loadOffers() {
    await showPage(
      "oid4vc-offers",
      `/orgs/${q(org())}/openid4vc/offers?limit=20`,
      "No OpenID4VCI offers yet.",
      (data) =>
        data.map((x) => {
          const item = el(
            "li",
            { "data-offer": x.id },
            facts([
              ["State", x.state],
              [
                "Issuer",
                x.issuerName ? `${x.issuerName} (${x.credentialIssuer})` : x.credentialIssuer,
              ],
              ["Credentials", x.credentialConfigurationIds.join(", ")],
              ["Updated", x.updatedAt],
              ["Error", x.errorMessage],
            ]),
          );
          if (x.state !== "offer-received") return item;
          const base = `/orgs/${q(org())}/openid4vc/offers/${q(x.id)}`;
          const actions = el("div", { class: "actions" });
          const tx = el("input", {
            type: "text",
            "aria-label": "Transaction code",
            placeholder: "Transaction code",
            autocomplete: "off",
          });
          if (x.txCodeRequired) actions.append(tx);
          const reload = () => Promise.all([loadOffers(), loadSdJwtCredentials()]);
          actions.append(
            el("button", {
              type: "button",
              text: "Accept offer",
              onclick: (ev) =>
                act(
                  ev.currentTarget,
                  `${base}/accept`,
                  x.txCodeRequired ? { txCode: tx.value } : {},
                  reload,
                ),
            }),
            el("button", {
              type: "button",
              class: "secondary",
              text: "Decline",
              onclick: (ev) => act(ev.currentTarget, `${base}/decline`, {}, loadOffers),
            }),
          );
          item.append(actions);
          return item;
        }),
    );
  }

  async function loadSdJwtCredentials() {
    const hidden = new Set(["iss", "vct", "iat", "cnf", "nbf", "exp", "status"]);
    const show = (v) => typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
    await showPage(
      "sd-jwt-credentials",
      `/orgs/${q(org())}/sd-jwt-credentials?limit=20`,
      "No SD-JWT credentials yet.",
      (data) =>
        data.map((x) =>
          el(
            "li",
            { "data-sd-jwt": x.id },
            facts([
              ["Type", x.vct],
              ["Issuer", x.issuer],
              [
                "Claims",
                Object.entries(x.claims).filter(([k]) => !hidden.has(k)).map(([k, v]) =>
                  `${k}=${show(v)}`
                )
                  .join(", "),
              ],
              ["Received", x.createdAt],
            ]),
          )
        ),
    );
  }

  async function receiveOffer() {
    const uri = $("offer-uri").value.trim();
    if (!uri) return;
    const res = await api(`/orgs/${q(org())}/openid4vc/offers`, {
      method: "POST",
      body: { credentialOffer: uri },
    });
    const out = await jsonOf(res);
    $("console-msg").textContent = res.ok ? "Offer received." : problem(res, out);
    if (res.ok) $("offer-uri").value = "";
    await loadOffers();
  }

  return { load: loadOffers, loadCredentials: loadSdJwtCredentials, receive: receiveOffer };
}
