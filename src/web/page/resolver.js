// The page's resolver (CONTRACT "Web pages"): a DID or DID URL resolved through `/dids/` or
// `/1.0/identifiers/`, its answer shown (document, metadata, status, time taken, servedFromCache),
// and an example for every method. Everything from the network is set as text.

/**
 * The resolver section, built from the page's helpers: returns `resolve(input)` and
 * `loadExamples()`.
 */
export function resolver({ api, jsonOf, el, problem }) {
  const $ = (id) => document.getElementById(id);

  /** True when the input is a DID URL (path, query or fragment after the DID). */
  function isDidUrl(s) {
    return /[?#]/.test(s) || /^did:[a-z0-9]+:[^/]*\//.test(s);
  }

  /** The request path: `?` and `#` are sent percent-encoded, the rest as written. */
  function pathFor(prefix, input) {
    return prefix + input.replace(/[?#\s]/g, (c) => encodeURIComponent(c));
  }

  async function resolve(input) {
    const did = input.trim();
    if (!did) return;
    const prefix = document.querySelector('input[name="api"]:checked').value;
    const button = $("resolve");
    button.disabled = true;
    $("r-live").textContent = "Resolving…";
    const accept = isDidUrl(did)
      ? "application/did-url-dereferencing"
      : "application/did-resolution";
    const t0 = performance.now();
    let res;
    try {
      res = await api(pathFor(prefix, did), { headers: { accept } });
    } catch (err) {
      showResult({ status: "network error", error: String(err.message ?? err) });
      button.disabled = false;
      return;
    }
    const ms = performance.now() - t0;
    button.disabled = false;
    if (res.type === "opaqueredirect") {
      showResult({
        status: "303 See Other",
        ms,
        note: "The DID URL selects a service endpoint; the service answered with a redirect to " +
          "it, which this page does not follow.",
      });
      return;
    }
    const body = await jsonOf(res);
    const meta = body?.didResolutionMetadata ?? body?.dereferencingMetadata ?? {};
    const doc = body?.didDocument !== undefined ? body.didDocument : body?.contentStream;
    const rest = {};
    for (const [k, v] of Object.entries(body ?? {})) {
      if (k !== "didDocument" && k !== "contentStream") rest[k] = v;
    }
    showResult({
      status: `${res.status} ${res.statusText || ""}`.trim(),
      ms,
      cache: meta.servedFromCache,
      type: res.headers.get("content-type") ?? "",
      error: res.ok
        ? undefined
        : (meta.error ? `${meta.error}: ${meta.message ?? ""}` : problem(res, body)),
      doc,
      meta: rest,
    });
  }

  function showResult(r) {
    $("result").hidden = false;
    $("r-status").textContent = r.status;
    $("r-time").textContent = r.ms === undefined ? "–" : `${r.ms.toFixed(1)} ms`;
    $("r-cache").textContent = r.cache === undefined ? "–" : String(r.cache);
    $("r-type").textContent = r.type || "–";
    $("r-error").textContent = r.error ?? r.note ?? "";
    $("r-error").className = r.error ? "error" : "muted";
    $("r-doc").textContent = r.doc === undefined || r.doc === null
      ? "(none)"
      : JSON.stringify(r.doc, null, 2);
    $("r-meta").textContent = r.meta ? JSON.stringify(r.meta, null, 2) : "";
    $("r-live").textContent = `Done: ${r.status}`;
  }

  async function loadExamples() {
    const list = $("examples");
    list.replaceChildren();
    let res;
    try {
      res = await api("/1.0/testIdentifiers");
    } catch {
      $("examples-note").textContent = "Examples could not be loaded.";
      return;
    }
    const body = await jsonOf(res);
    if (!res.ok) {
      $("examples-note").textContent = res.status === 401
        ? "Paste a token above to load an example for every method."
        : `Examples could not be loaded (${problem(res, body)}).`;
      return;
    }
    $("examples-note").textContent = "";
    for (const [method, dids] of Object.entries(body ?? {})) {
      const did = dids[0];
      if (!did) continue;
      list.append(el("li", {}, exampleButton(`did:${method}`, did)));
      // A DID URL too: the first verification method of a did:key, by its fragment.
      if (method === "key") {
        const frag = did.slice("did:key:".length);
        list.append(el("li", {}, exampleButton("did:key verification method", `${did}#${frag}`)));
      }
    }
  }

  function exampleButton(label, did) {
    return el("button", {
      type: "button",
      title: did,
      "data-did": did,
      text: label,
      onclick: () => {
        $("did").value = did;
        resolve(did);
      },
    });
  }

  return { resolve, loadExamples };
}
