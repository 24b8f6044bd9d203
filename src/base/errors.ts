/** One error type for the whole service: a stable code, an HTTP status and a sentence for a person. */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: { path: string; message: string }[];
  readonly headers?: Record<string, string>;

  constructor(
    code: string,
    status: number,
    message: string,
    opts: {
      cause?: unknown;
      details?: { path: string; message: string }[];
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    this.status = status;
    this.details = opts.details;
    this.headers = opts.headers;
  }
}

/** 400: the request is not valid. */
export const badRequest = (message: string, details?: { path: string; message: string }[]) =>
  new AppError("bad_request", 400, message, { details });

/** 404: nothing with that identity is visible to the caller. */
export const notFound = (message: string) => new AppError("not_found", 404, message);

/** 409: the request conflicts with the current state. */
export const conflict = (message: string) => new AppError("conflict", 409, message);

/** 409: a record is not in the state an action needs; the sentence names both states. */
export const wrongState = (what: string, id: string, state: string, needed: string) =>
  conflict(`${what} "${id}" is in state "${state}"; it must be "${needed}".`);

/** 401 with the RFC 6750 challenge. `invalid` adds error="invalid_token". */
export const unauthorized = (message: string, invalid: boolean) =>
  new AppError("unauthorized", 401, message, {
    headers: {
      "www-authenticate": invalid ? 'Bearer error="invalid_token"' : "Bearer",
    },
  });

/** 403: authenticated, but without the needed role. */
export const forbidden = (message: string) => new AppError("forbidden", 403, message);

/** Thrown when an atomic KV commit failed its check: somebody else changed the record. */
export class ConflictError extends AppError {
  constructor(message = "The record was changed by another request; try again.") {
    super("conflict", 409, message);
  }
}

/** `s` cut to at most `max` characters, "..." marking the cut: for echoing input in messages. */
export function clip(s: string, max = 120): string {
  return s.length > max ? s.slice(0, max - 3) + "..." : s;
}
