/**
 * One clear line for a failed Temporal connection: from whatever the gRPC client
 * (`@temporalio/client`, grpc-js + OpenSSL) or the worker's native connection (Rust: tonic +
 * rustls) threw, the cause an operator can act on and the setting to look at. Pure: no I/O, no
 * clock (the caller passes `now`), no SDK import.
 *
 * Never repeats key material: PEM blocks, `Bearer` credentials and the strings in
 * `context.secrets` (the API key) are cut from anything quoted from the error.
 */

export type TemporalFailureCause =
  | 'untrusted_server'
  | 'server_name_mismatch'
  | 'server_certificate_expired'
  | 'client_certificate_required'
  | 'client_certificate_rejected'
  | 'client_certificate_expired'
  | 'api_key_rejected'
  | 'unauthenticated'
  | 'permission_denied'
  | 'namespace_not_found'
  | 'tls_not_spoken'
  | 'tls_expected'
  | 'unreachable'
  | 'unknown';

export interface TemporalConnectionContext {
  address: string;
  namespace: string;
  /** TLS is on for this connection. */
  tls: boolean;
  /** A client certificate is configured (mTLS). */
  clientCert: boolean;
  /** An API key is configured. */
  apiKey: boolean;
  /** `validTo` of the configured client certificate (ISO), to tell an expired one apart. */
  clientCertExpiresAt?: string | null;
  /** The instant of the failure (for the expiry check); without it expiry is not judged locally. */
  now?: Date;
  /** Strings never to print (the API key). */
  secrets?: string[];
}

export interface TemporalConnectionFailure {
  cause: TemporalFailureCause;
  /** One line: `Temporal at <address>: <what is wrong>; <what to set>`. */
  message: string;
  /**
   * True when waiting may cure it (the frontend is down or restarting); false for a
   * configuration or credential problem that only a change of settings (or of the server) fixes.
   */
  transient: boolean;
}

const GRPC_CODES: Record<string, number> = {
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  UNAUTHENTICATED: 16,
  UNAVAILABLE: 14,
  DEADLINE_EXCEEDED: 4,
};

/** tonic's `Code` descriptions, as the native connection's errors spell them. */
const TONIC_CODES: Array<[RegExp, number]> = [
  [/does not have valid authentication credentials/i, 16],
  [/caller does not have permission/i, 7],
  [/some requested entity was not found/i, 5],
  [/service is currently unavailable/i, 14],
];

/** Every message, `details` and `cause` of an error chain, and the first gRPC status code in it. */
function flatten(err: unknown): { text: string; code: number | null; detail: string | null } {
  const texts: string[] = [];
  let code: number | null = null;
  let detail: string | null = null;
  let node: unknown = err;
  for (let depth = 0; node !== undefined && node !== null && depth < 6; depth++) {
    if (typeof node !== 'object') {
      texts.push(String(node));
      break;
    }
    const e = node as { message?: unknown; details?: unknown; code?: unknown; cause?: unknown };
    if (typeof e.message === 'string') {
      texts.push(e.message);
    }
    if (typeof e.details === 'string' && e.details !== '') {
      texts.push(e.details);
      detail ??= e.details;
    }
    if (code === null && typeof e.code === 'number' && e.code > 0 && e.code <= 16) {
      code = e.code;
    }
    node = e.cause;
  }
  const text = texts.join(' | ');
  if (code === null) {
    const named = /\b(\d{1,2}) (NOT_FOUND|PERMISSION_DENIED|UNAUTHENTICATED|UNAVAILABLE|DEADLINE_EXCEEDED)\b/.exec(
      text,
    );
    if (named) {
      code = GRPC_CODES[named[2]];
    } else {
      code = TONIC_CODES.find(([pattern]) => pattern.test(text))?.[1] ?? null;
    }
  }
  // The server's own words: grpc-js puts them in `details`, tonic in `message: "…"`.
  detail ??= /message: "([^"]*)"/.exec(text)?.[1] ?? (err instanceof Error ? err.message : null);
  return { text, code, detail };
}

/** Cuts key material and noise from a quoted error, and keeps it to one short line. */
export function sanitizeErrorText(text: string, secrets: string[] = []): string {
  let out = text.replace(/-----BEGIN [A-Z ]+-----[\s\S]*?(-----END [A-Z ]+-----|$)/g, '[PEM]');
  out = out.replace(/(Bearer|Basic)\s+\S+/gi, '$1 [redacted]');
  for (const secret of secrets) {
    if (secret.length >= 4) {
      out = out.split(secret).join('[redacted]');
    }
  }
  out = out
    .replace(/\.?\s*Resolution note:\s*/g, '')
    .replace(/:\.\.\/deps\/openssl\S*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > 240 ? `${out.slice(0, 237)}...` : out;
}

function unreachableReason(text: string): string | null {
  if (/ECONNREFUSED|Connection refused/i.test(text)) {
    return 'connection refused';
  }
  if (/ENOTFOUND|EAI_AGAIN|dns error|failed to lookup address|Name or service not known/i.test(text)) {
    return 'host not found';
  }
  if (/ECONNRESET|connection reset|broken pipe|EPIPE|connection closed|socket hang up/i.test(text)) {
    return 'connection reset';
  }
  if (/EHOSTUNREACH|ENETUNREACH|No route to host|Network is unreachable/i.test(text)) {
    return 'no route to host';
  }
  if (/deadline|timed? ?out|ETIMEDOUT/i.test(text)) {
    return 'no answer in time';
  }
  return null;
}

/**
 * Classifies a connection or call failure against Temporal into one line naming the cause.
 *
 * @param err     what `Connection.connect`, `NativeConnection.connect` or a call on either threw
 * @param context the connection's settings (no secrets needed except in `secrets`, to redact)
 */
export function classifyTemporalConnectionError(
  err: unknown,
  context: TemporalConnectionContext,
): TemporalConnectionFailure {
  const { text, code, detail } = flatten(err);
  const secrets = context.secrets ?? [];
  const quoted = (value: string | null) => sanitizeErrorText(value ?? text, secrets);
  const squashed = text.toLowerCase().replace(/[\s_-]/g, '');
  const line = (cause: TemporalFailureCause, what: string, transient = false): TemporalConnectionFailure => ({
    cause,
    message: `Temporal at ${context.address}: ${what}`,
    transient,
  });
  const certPath = 'TEMPORAL_TLS_CLIENT_CERT_PATH (temporal.tls.client_cert_path)';
  const expired =
    context.clientCertExpiresAt && context.now && Date.parse(context.clientCertExpiresAt) < context.now.getTime()
      ? context.clientCertExpiresAt
      : null;

  // The server's TLS alerts: it refused the client's certificate (or its absence).
  const alert =
    /alert(?:received\(|:)?(badcertificate|unknownca|certificaterequired|certificateexpired|certificaterevoked|certificateunknown|unsupportedcertificate|accessdenied)/.exec(
      squashed,
    )?.[1];
  // A TLS-terminating front (nginx, …) answers a refused client certificate with HTTP 400/495/496.
  const frontRefusedCert =
    context.tls && /HTTP status code (400|495|496)|status: (400|495|496) /i.test(text) && code !== 16 && code !== 7;
  if (alert === 'certificaterequired' || ((alert || frontRefusedCert) && !context.clientCert)) {
    return line(
      'client_certificate_required',
      `the server requires a client certificate (mTLS); set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (temporal.tls.client_cert_path, client_key_path)`,
    );
  }
  if (alert === 'certificateexpired' || ((alert || frontRefusedCert) && expired)) {
    return line(
      'client_certificate_expired',
      `the server rejected the client certificate: it has expired${expired ? ` (${expired})` : ''}; renew ${certPath}`,
    );
  }
  if (alert || frontRefusedCert) {
    return line(
      'client_certificate_rejected',
      `the server rejected the client certificate (not signed by a CA it trusts, revoked or wrong); check ${certPath}`,
    );
  }
  // The client's own verification of the server's certificate.
  if (
    /NotValidForName|ERR_TLS_CERT_ALTNAME_INVALID|does not match certificate|Hostname\/IP does not match/i.test(text)
  ) {
    return line(
      'server_name_mismatch',
      `the server's certificate does not hold the name the client checks; set TEMPORAL_TLS_SERVER_NAME (temporal.tls.server_name) to a name in it`,
    );
  }
  if (/certificate has expired|CERT_HAS_EXPIRED|InvalidCertificate\(Expired/i.test(text)) {
    return line('server_certificate_expired', `the server's certificate has expired`);
  }
  if (
    /UnknownIssuer|unable to verify the first certificate|self[- ]signed certificate|unable to get local issuer|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|certificate verify failed|BadSignature|InvalidCertificate/i.test(
      text,
    )
  ) {
    return line(
      'untrusted_server',
      `the server's certificate is not trusted (unknown issuer); set the CA that signed it: TEMPORAL_TLS_SERVER_CA_CERT_PATH (temporal.tls.server_ca_cert_path)`,
    );
  }
  if (
    context.tls &&
    /wrong version number|InvalidContentType|WRONG_VERSION_NUMBER|packet length too long|CorruptMessage/i.test(text)
  ) {
    return line(
      'tls_not_spoken',
      `TLS is on but the server does not speak TLS there; use its TLS endpoint or turn TLS off (TEMPORAL_TLS=false)`,
    );
  }
  if (
    !context.tls &&
    /Protocol error|FRAME_SIZE_ERROR|h2 protocol error|HTTP status code 400|status: 400 /i.test(text) &&
    code !== 16 &&
    code !== 7 &&
    code !== 5
  ) {
    return line(
      'tls_expected',
      `the server does not answer plaintext gRPC (a TLS endpoint?); set TEMPORAL_TLS=true (and TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA)`,
    );
  }
  // The server answered: credentials and namespace.
  if (code === 16) {
    return context.apiKey
      ? line(
          'api_key_rejected',
          `the server rejected the API key (Unauthenticated: ${quoted(detail)}); check TEMPORAL_API_KEY (temporal.api_key)`,
        )
      : line(
          'unauthenticated',
          `the server requires credentials (Unauthenticated: ${quoted(detail)}); set TEMPORAL_API_KEY or a client certificate`,
        );
  }
  if (code === 7) {
    return line(
      'permission_denied',
      `the credentials may not use namespace ${context.namespace} (PermissionDenied: ${quoted(detail)}); check the key's or certificate's namespace access`,
    );
  }
  if (code === 5 && /namespace/i.test(text)) {
    return line(
      'namespace_not_found',
      `namespace ${context.namespace} does not exist on this server (NotFound); check TEMPORAL_NAMESPACE (temporal.namespace)`,
    );
  }
  const reason = unreachableReason(text);
  if (reason || code === 14 || code === 4) {
    return line('unreachable', `cannot reach the server (${reason ?? quoted(detail)})`, true);
  }
  return line('unknown', quoted(text), true);
}
