/**
 * The OpenID4VP holder service: receives presentation requests (checked by
 * `authorization_request.ts`, evaluated against the org's credentials by `dcql_match.ts`),
 * answers them with exactly the requested claims (`credentials/`'s presentations,
 * `response.ts`), or declines them. Each record change commits with its
 * `presentation.state_changed` event.
 *
 * @module
 */
import type { Wallet } from "../agents/mod.ts";
import {
  createDocumentLoader,
  type CredentialStore,
  type DocumentLoader,
  type RemoteContexts,
} from "../credentials/mod.ts";
import type { DidResolver } from "../did/mod.ts";
import { badRequest, conflict, notFound, wrongState } from "../base/mod.ts";
import { keys, type Page, uuidv7, withLease } from "../kv/mod.ts";
import {
  checkOutboundUrl,
  type HostLookup,
  type OutboundPolicy,
  type SafeFetch,
} from "../outbound/mod.ts";
import type { Dispatcher } from "../outbox/mod.ts";
import { readAuthorizationRequest } from "./authorization_request.ts";
import { candidatesOf, chooseCredentials, matchQuery } from "./dcql_match.ts";
import { openid4vpLibs } from "./libs.ts";
import { buildVpToken } from "./presentation.ts";
import type {
  PresentationRequestRecord,
  PresentationState,
  StoredPresentationRequest,
} from "./record.ts";
import { SKEW_S } from "./request_signature.ts";
import { declineForm, responseForm } from "./response.ts";
import {
  addNewRequest,
  listRequests,
  MAX_STORED_BYTES,
  readRequest,
  updateRequest,
} from "./store.ts";
import { describeAnswer, VerifierHttp, VerifierUnreachable } from "./verifier_http.ts";
import type { TrustAnchors } from "./x509.ts";

/** What the holder uses. */
export interface Oid4vpHolderDeps {
  kv: Deno.Kv;
  wallet: Wallet;
  resolver: DidResolver;
  safeFetch: SafeFetch;
  dispatcher: Dispatcher;
  now: () => number;
  /**
   * The org's stored credentials: those a presentation may use (checked now: revoked and suspended
   * ones are neither offered nor presented).
   */
  credentials: Pick<CredentialStore, "presentable">;
  /** The outbound policy a verifier's `response_uri` must pass. */
  outbound: OutboundPolicy;
  /** How a `response_uri`'s host is resolved for that check (default: the system's DNS). */
  resolveHost?: HostLookup;
  /** JSON-LD contexts kept under `JSONLD_CONTEXT_ALLOW` (presentations of credentials on them). */
  contexts?: RemoteContexts;
  /** `OID4VP_X509_TRUST_ANCHORS`, parsed; undefined: x509_san_dns requests are refused. */
  anchors?: TrustAnchors;
}

const LEASE_MS = 60_000;

/** The OpenID4VP holder of every configured org. */
export class Oid4vpHolder {
  readonly #d: Oid4vpHolderDeps;
  readonly #http: VerifierHttp;
  /** Reads the contexts of JSON-LD credentials (their types answer `type_values`). */
  readonly #loader: DocumentLoader;

  constructor(deps: Oid4vpHolderDeps) {
    this.#d = deps;
    this.#http = new VerifierHttp(deps.safeFetch);
    this.#loader = createDocumentLoader({ remote: deps.contexts });
  }

  /** 409 unless the org has an agent: its wallet holds the keys that sign presentations. */
  async #requireAgent(orgId: string): Promise<void> {
    await this.#d.wallet.requireIdentity(orgId, "the keys that sign presentations");
  }

  /** Reads and checks a request, evaluates its query, stores a `request-received` record. */
  async receive(orgId: string, link: string): Promise<PresentationRequestRecord> {
    await this.#requireAgent(orgId);
    const req = await readAuthorizationRequest(link, {
      http: this.#http,
      resolver: this.#d.resolver,
      anchors: this.#d.anchors,
      now: this.#d.now,
      checkUrl: (url) => checkOutboundUrl(url, this.#d.outbound, this.#d.resolveHost),
    });
    const { queries } = await this.#evaluate(orgId, req.dcqlQuery);
    const now = this.#d.now();
    const at = new Date(now).toISOString();
    const record: PresentationRequestRecord = {
      id: uuidv7(now),
      orgId,
      state: "request-received",
      verifier: {
        clientId: req.clientId,
        prefix: req.prefix,
        ...(req.verifierName ? { name: req.verifierName } : {}),
      },
      responseMode: req.responseMode,
      responseUri: req.responseUri,
      queries,
      ...(req.expiresAt ? { expiresAt: new Date(req.expiresAt).toISOString() } : {}),
      createdAt: at,
      updatedAt: at,
    };
    const stored: StoredPresentationRequest = {
      record,
      params: {
        nonce: req.nonce,
        ...(req.state !== undefined ? { state: req.state } : {}),
        dcqlQuery: req.dcqlQuery,
        ...(req.clientMetadata ? { clientMetadata: req.clientMetadata } : {}),
        audience: req.audience,
      },
    };
    if (new TextEncoder().encode(JSON.stringify(stored)).length > MAX_STORED_BYTES) {
      throw badRequest(
        "The presentation request (its query, metadata and matches) is too large to keep; nothing was sent to the verifier.",
      );
    }
    await addNewRequest(this.#d.kv, stored, now);
    this.#d.dispatcher.wake();
    return record;
  }

  async #entry(orgId: string, id: string): Promise<Deno.KvEntry<StoredPresentationRequest>> {
    const entry = await readRequest(this.#d.kv, orgId, id);
    if (!entry) {
      throw notFound(`No presentation request "${id}" exists in organization "${orgId}".`);
    }
    return entry;
  }

  /** The request, still `request-received` (another request may have changed it meanwhile). */
  async #openEntry(
    orgId: string,
    id: string,
  ): Promise<Deno.KvEntry<StoredPresentationRequest>> {
    const entry = await this.#entry(orgId, id);
    const { state } = entry.value.record;
    if (state !== "request-received") {
      throw wrongState("Presentation request", id, state, "request-received");
    }
    return entry;
  }

  /** Runs `answer` holding the request's answering lease (409 while another answer holds it). */
  async #answering<T>(
    orgId: string,
    id: string,
    answer: (entry: Deno.KvEntry<StoredPresentationRequest>) => Promise<T>,
  ): Promise<T> {
    await this.#openEntry(orgId, id);
    const lease = {
      ms: LEASE_MS,
      now: this.#d.now,
      busy: () => conflict(`Presentation request "${id}" is being answered by another request.`),
    };
    return await withLease(
      this.#d.kv,
      keys.oid4vpAnswering(orgId, id),
      lease,
      async () => await answer(await this.#openEntry(orgId, id)),
    );
  }

  async #commit(
    entry: Deno.KvEntry<StoredPresentationRequest>,
    change: Partial<PresentationRequestRecord> & { state: PresentationState },
  ): Promise<PresentationRequestRecord> {
    const now = this.#d.now();
    const at = new Date(now).toISOString();
    const record = await updateRequest(
      this.#d.kv,
      entry,
      (r) => ({ ...r, ...change, updatedAt: at }),
      now,
    );
    this.#d.dispatcher.wake();
    return record;
  }

  /**
   * Answers a request with the selected credentials (default: the newest match of each query the
   * answer needs). 409 when a needed query has no match or the request is past its `exp`
   * (nothing is sent); 502 when the verifier cannot be reached (the record stays
   * `request-received`); the verifier's refusal → `failed`.
   */
  async accept(
    orgId: string,
    id: string,
    opts: { selection?: Record<string, string> } = {},
  ): Promise<PresentationRequestRecord> {
    await this.#requireAgent(orgId);
    return await this.#answering(orgId, id, async (entry) => {
      this.#mustNotBeExpired(entry.value.record);
      const { params } = entry.value;
      const { libs, credentials, queries } = await this.#evaluate(orgId, params.dcqlQuery);
      const selection = opts.selection ?? {};
      for (const [queryId, credentialId] of Object.entries(selection)) {
        const q = queries.find((x) => x.id === queryId);
        if (!q) {
          throw badRequest(
            `selection names "${queryId}", which is not a credential query of this request.`,
          );
        }
        if (!q.matches.some((m) => m.credentialId === credentialId)) {
          throw conflict(
            `Credential "${credentialId}" does not answer credential query "${queryId}"; nothing was sent.`,
          );
        }
      }
      const choice = chooseCredentials(params.dcqlQuery, queries, selection);
      if ("unmet" in choice) {
        throw conflict(
          `No stored credential answers the ${choice.unmet} of presentation request "${id}"; nothing was sent to the verifier.`,
        );
      }
      const vpToken = await buildVpToken(this.#d, libs, {
        orgId,
        stored: entry.value,
        chosen: choice.chosen,
        credentials,
      });
      const form = await responseForm(libs, entry.value, vpToken);
      const res = await this.#post("presentation", entry.value, form);
      const presented = [...choice.chosen].map(([queryId, m]) => ({
        queryId,
        credentialId: m.credentialId,
      }));
      if (res.status >= 200 && res.status < 300) {
        const redirect = redirectUriOf(res.body);
        return await this.#commit(entry, {
          state: "done",
          presented,
          ...(redirect ? { redirectUri: redirect } : {}),
        });
      }
      return await this.#commit(entry, {
        state: "failed",
        errorMessage: `The verifier refused the presentation: ${describeAnswer(res)}.`,
      });
    });
  }

  /**
   * 409 for a request past its `exp`: it is refused on receipt then, so nothing is sent for it
   * later either (it can still be declined).
   */
  #mustNotBeExpired(record: PresentationRequestRecord): void {
    const exp = record.expiresAt;
    if (exp && Date.parse(exp) + SKEW_S * 1000 < this.#d.now()) {
      throw conflict(
        `Presentation request "${record.id}" expired at ${exp}; nothing was sent to the verifier. Decline it, or ask the verifier for a new request.`,
      );
    }
  }

  /**
   * A DCQL query evaluated against the org's credentials as they are now (on receipt, and again on
   * accept): the libraries, the presentable credentials, and each credential query's matches.
   */
  async #evaluate(orgId: string, dcqlQuery: Record<string, unknown>) {
    const libs = await openid4vpLibs();
    const stored = await this.#d.credentials.presentable(orgId);
    const credentials = await candidatesOf(orgId, stored, this.#loader);
    return { libs, credentials, queries: matchQuery(libs, dcqlQuery, credentials) };
  }

  /** Posts a form to the request's `response_uri`; 5xx and no answer are 502. */
  async #post(what: string, stored: StoredPresentationRequest, form: Record<string, string>) {
    const uri = stored.record.responseUri;
    const res = await this.#http.postForm(what, uri, form, (m) => {
      throw badRequest(`The ${what} cannot be sent: ${m}.`);
    });
    if (res.status >= 500) {
      throw new VerifierUnreachable(
        `The verifier could not take the ${what} (${uri}): it answered ${
          describeAnswer(res)
        }. The request is still open; try again.`,
      );
    }
    return res;
  }

  /**
   * Declines a request: the verifier is told `access_denied` at its `response_uri`; the record is
   * `declined` whatever the verifier answers (Credo answers 400, expecting a `vp_token`).
   */
  async decline(orgId: string, id: string): Promise<PresentationRequestRecord> {
    return await this.#answering(orgId, id, async (entry) => {
      let note: string | undefined;
      try {
        await this.#post("decline", entry.value, declineForm(entry.value));
      } catch (err) {
        if (!(err instanceof VerifierUnreachable)) throw err;
        note = `The verifier was not told: ${err.message}`;
      }
      return await this.#commit(entry, {
        state: "declined",
        ...(note ? { errorMessage: note } : {}),
      });
    });
  }

  /** One request of the org. */
  async get(orgId: string, id: string): Promise<PresentationRequestRecord> {
    return (await this.#entry(orgId, id)).value.record;
  }

  /** A page of the org's requests, newest first. */
  list(
    orgId: string,
    q: { limit: number; cursor?: string; state?: PresentationState },
  ): Promise<Page<PresentationRequestRecord>> {
    return listRequests(this.#d.kv, orgId, q);
  }
}

/** `redirect_uri` of the verifier's JSON answer, when it gives one. */
function redirectUriOf(body: Uint8Array): string | undefined {
  try {
    const v = JSON.parse(new TextDecoder().decode(body));
    return typeof v?.redirect_uri === "string" ? v.redirect_uri.slice(0, 2000) : undefined;
  } catch {
    return undefined;
  }
}
