/**
 * The one KV size limit, and what each kind of stored data may take of it. Deno KV stores at most
 * 64 KiB in one value (serialized); the service keeps a piece of data (a part of an SD-JWT VC, a
 * JSON-LD context, a status list, a presentation request with its matches) to {@link KV_DATA_MAX}
 * bytes, which leaves room for the record's own fields around it. Data that is larger is split
 * over several values (SD-JWT VCs, the attachments of a credential exchange) or refused.
 *
 * @module
 */

/** The most Deno KV stores in one value. */
export const KV_VALUE_LIMIT = 64 * 1024;

/** The most bytes of one piece of data kept in one value (the limit, less the record around it). */
export const KV_DATA_MAX = 60_000;
