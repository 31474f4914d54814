/**
 * What can go wrong calling the Tessera API, as typed errors a CLI or dashboard can explain: no credentials,
 * an endpoint that does not answer, and the API's own answers (400 with field messages, 403, 404, 409, …).
 */

/** A field the server (or the local schema check) rejected, and the rule it broke. */
export interface FieldIssue {
  readonly field: string;
  readonly rule: string;
}

export class TesseraClientError extends Error {
  override readonly name: string = 'TesseraClientError';
}

/** The default credential chain found nothing (no env keys, profile, SSO, container or instance role). */
export class NoCredentialsError extends TesseraClientError {
  override readonly name = 'NoCredentialsError';
}

/** No endpoint was given, or a stack has no API URL output. */
export class EndpointNotConfiguredError extends TesseraClientError {
  override readonly name = 'EndpointNotConfiguredError';
}

/** The endpoint did not answer (refused, DNS, timeout) or answered something that is not the Tessera API. */
export class EndpointUnreachableError extends TesseraClientError {
  override readonly name = 'EndpointUnreachableError';
  constructor(
    readonly endpoint: string,
    detail: string,
  ) {
    super(`cannot reach the Tessera API at ${endpoint}: ${detail}${localHint(endpoint, detail)}`);
  }
}

/** A refused connection on this machine is almost always a local cloud that is not running (yet). */
const localHint = (endpoint: string, detail: string): string => {
  if (detail !== 'ECONNREFUSED') return '';
  const host = URL.canParse(endpoint) ? new URL(endpoint).hostname : '';
  return ['127.0.0.1', 'localhost', '[::1]'].includes(host)
    ? ' — nothing listens there: is the local cloud running (`npm start`, which prints its API address)?'
    : '';
};

/** An HTTP error answer of the API. */
export class ApiError extends TesseraClientError {
  override readonly name: string = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: readonly FieldIssue[] = [],
  ) {
    super(message);
  }
}

/** 400: the request (usually the job spec) broke a rule; `issues` names each field. */
export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';
}

/** 403: the request was not signed, or the credentials may not call the API. */
export class ForbiddenError extends ApiError {
  override readonly name = 'ForbiddenError';
}

/** 404: no such job (or another tenant's), or no such route — usually a wrong endpoint. */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
}

/** 409: the job cannot change that way (already finished, client token reused). */
export class ConflictError extends ApiError {
  override readonly name = 'ConflictError';
}

/** The typed error for an API answer with status `status` and JSON body `body`. */
export const apiErrorFor = (status: number, body: unknown, fallback: string): ApiError => {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const code = typeof record.error === 'string' ? record.error : `Http${status}`;
  const text =
    typeof record.message === 'string'
      ? record.message
      : typeof record.Message === 'string'
        ? record.Message
        : fallback;
  const issues = Array.isArray(record.issues)
    ? (record.issues as unknown[]).filter(
        (i): i is FieldIssue =>
          typeof i === 'object' && i !== null && 'field' in i && 'rule' in i && typeof i.field === 'string',
      )
    : [];
  switch (status) {
    case 400:
      return new BadRequestError(status, code, text, issues);
    case 403:
      return new ForbiddenError(status, code, `forbidden: ${text}`, issues);
    case 404:
      return new NotFoundError(status, code, text, issues);
    case 409:
      return new ConflictError(status, code, text, issues);
    default:
      return new ApiError(status, code, `HTTP ${status}: ${text}`, issues);
  }
};
