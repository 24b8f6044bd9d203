/**
 * Credential exchange routes (holder): accept-credential (interface 4.1, also under `/didcomm`),
 * accept-offer, decline-offer, reading exchange records (the credentials they bring are read
 * through `credentials/`).
 *
 * Check order: 401 (token) → 400 (body/params) → 404 (unknown, or another org's record) →
 * 409 (state). Org-scoped lists: 403 for a non-member of the named org.
 *
 * @module
 */
import {
  createRouter,
  jsonContent as json,
  memberRecordRoutes,
  orgRecordRoutes,
  RecordIdParam,
} from "../http/mod.ts";
import type { CredentialHolder } from "./holder.ts";
import {
  AcceptOfferBody,
  CredentialExchangeList,
  CredentialExchangeRecordSchema,
  ListQuery,
  RecordIdBody,
} from "./schemas.ts";

/** What the Issue Credential routes use. */
export interface IssueCredentialRoutesDeps {
  holder: CredentialHolder;
}

/** The Issue Credential routes. */
export function issueCredentialRoutes({ holder }: IssueCredentialRoutesDeps) {
  const app = createRouter();
  const tags = ["credentials"];
  const exchanges = memberRecordRoutes(app, tags, {
    find: (id) => holder.find(id),
    missing: (id) => `No credential exchange record "${id}" exists.`,
  });
  const orgs = orgRecordRoutes(app, tags);

  for (
    const [path, operationId] of [
      ["/credentials/accept-credential", "acceptCredential"],
      ["/didcomm/credentials/accept-credential", "acceptCredentialDidcommAlias"],
    ] as const
  ) {
    exchanges.act({
      path,
      operationId,
      summary: "Accept a received credential: state done, ack sent to the issuer",
      description: "Only from `credential-received`. The state change and the outgoing " +
        "`issue-credential/2.0/ack` commit together; the ack is then delivered at least once.",
      body: RecordIdBody,
      idField: "credentialRecordId",
      ok: json(CredentialExchangeRecordSchema, "The record, now in state done."),
    }, (orgId, id) => holder.acceptCredential(orgId, id));
  }

  exchanges.act({
    path: "/credentials/accept-offer",
    operationId: "acceptCredentialOffer",
    summary: "Accept a credential offer: the request is sent to the issuer",
    body: AcceptOfferBody,
    idField: "credentialRecordId",
    ok: json(CredentialExchangeRecordSchema, "The record, now in state request-sent."),
  }, (orgId, id, { bindSubjectDid }) => holder.acceptOffer(orgId, id, { bindSubjectDid }));

  exchanges.act({
    path: "/credentials/decline-offer",
    operationId: "declineCredentialOffer",
    summary: "Decline a credential offer: state declined, problem report sent",
    body: RecordIdBody,
    idField: "credentialRecordId",
    ok: json(CredentialExchangeRecordSchema, "The record, now in state declined."),
  }, (orgId, id) => holder.declineOffer(orgId, id));

  exchanges.read({
    path: "/credentials/{id}",
    operationId: "getCredentialExchange",
    summary: "One credential exchange record",
    params: RecordIdParam,
    ok: json(CredentialExchangeRecordSchema, "The record."),
  }, (_orgId, _id, found) => Promise.resolve(found.record));

  orgs.list({
    path: "/orgs/{orgId}/credentials",
    operationId: "listCredentialExchanges",
    summary: "The org's credential exchange records, newest first",
    query: ListQuery,
    page: json(CredentialExchangeList, "A page of records."),
  }, (orgId, query) => holder.list(orgId, query));

  return app;
}
