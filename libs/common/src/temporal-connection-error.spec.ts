import { classifyTemporalConnectionError, type TemporalConnectionContext } from './temporal-connection-error';

/**
 * The error shapes below are the ones the SDK really throws (recorded against the dev server
 * behind an nginx TLS front, test/e2e/temporal-tls.e2e-spec.ts, and from the TLS alerts of a Go
 * server): grpc-js for `@temporalio/client`, tonic/rustls for the worker's `NativeConnection`.
 */
function grpcJs(code: number, details: string): Error {
  const names: Record<number, string> = {
    5: 'NOT_FOUND',
    7: 'PERMISSION_DENIED',
    13: 'INTERNAL',
    14: 'UNAVAILABLE',
    16: 'UNAUTHENTICATED',
  };
  return Object.assign(new Error(`${code} ${names[code]}: ${details}`), { code, details });
}
function serviceError(cause: Error): Error {
  return Object.assign(new Error('Failed to connect to Temporal server'), { name: 'ServiceError', cause });
}
function native(message: string): Error {
  return Object.assign(new Error(message), { name: 'TransportError' });
}

const mtls: TemporalConnectionContext = {
  address: 'temporal.internal:7233',
  namespace: 'jobs',
  tls: true,
  clientCert: true,
  apiKey: false,
};
const apiKey: TemporalConnectionContext = { ...mtls, clientCert: false, apiKey: true, secrets: ['sekret-api-key'] };
const plain: TemporalConnectionContext = { ...mtls, tls: false, clientCert: false };

/** `err` under `context` classifies as exactly `cause` with `message` (not transient unless told). */
function expectClassified(
  err: Error,
  context: TemporalConnectionContext,
  cause: ReturnType<typeof classifyTemporalConnectionError>['cause'],
  message: string,
  transient = false,
): void {
  expect(classifyTemporalConnectionError(err, context)).toEqual({ cause, message, transient });
}

describe('classifyTemporalConnectionError', () => {
  describe('the server does not accept the client certificate', () => {
    it.each([
      ['grpc-js via a TLS front (HTTP 400)', serviceError(grpcJs(13, 'Received HTTP status code 400'))],
      [
        'tonic via a TLS front (HTTP 400)',
        native(
          `Failed to call GetSystemInfo: code: 'Internal error', message: "protocol error: received message with invalid compression flag: 60 (valid flags are 0 and 1) while receiving response with status: 400 Bad Request"`,
        ),
      ],
      [
        'grpc-js, TLS alert of a Go server',
        grpcJs(
          14,
          'No connection established. Last error: Error: C0:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 42',
        ),
      ],
      [
        'tonic, TLS alert of a Go server',
        native(
          'tonic::transport::Error(Transport, ConnectError(Custom { kind: InvalidData, error: AlertReceived(UnknownCA) }))',
        ),
      ],
    ])('%s', (_, err) => {
      expectClassified(
        err,
        mtls,
        'client_certificate_rejected',
        'Temporal at temporal.internal:7233: the server rejected the client certificate (not signed by a CA it trusts, revoked or wrong); check TEMPORAL_TLS_CLIENT_CERT_PATH (temporal.tls.client_cert_path)',
      );
    });

    it('should say "expired" when the configured certificate has expired', () => {
      const failure = classifyTemporalConnectionError(serviceError(grpcJs(13, 'Received HTTP status code 400')), {
        ...mtls,
        clientCertExpiresAt: '2026-01-01T00:00:00.000Z',
        now: new Date('2026-06-01T00:00:00Z'),
      });
      expect(failure.cause).toBe('client_certificate_expired');
      expect(failure.message).toContain('it has expired (2026-01-01T00:00:00.000Z)');
      expect(classifyTemporalConnectionError(native('received fatal alert: CertificateExpired'), mtls).cause).toBe(
        'client_certificate_expired',
      );
    });

    it('should ask for a client certificate when none is configured', () => {
      expect(classifyTemporalConnectionError(grpcJs(13, 'Received HTTP status code 400'), apiKey).cause).toBe(
        'client_certificate_required',
      );
      expect(
        classifyTemporalConnectionError(native('tonic: received fatal alert: CertificateRequired'), mtls).cause,
      ).toBe('client_certificate_required');
    });
  });

  describe("the client does not trust the server's certificate", () => {
    it.each([
      [
        'grpc-js',
        grpcJs(
          14,
          'No connection established. Last error: Error: unable to verify the first certificate. Resolution note: ',
        ),
      ],
      ['grpc-js, self-signed', grpcJs(14, 'No connection established. Last error: Error: self-signed certificate')],
      [
        'tonic',
        native(
          'tonic::transport::Error(Transport, ConnectError(Custom { kind: InvalidData, error: InvalidCertificate(UnknownIssuer) }))',
        ),
      ],
    ])('%s', (_, err) => {
      expectClassified(
        err,
        apiKey,
        'untrusted_server',
        "Temporal at temporal.internal:7233: the server's certificate is not trusted (unknown issuer); set the CA that signed it: TEMPORAL_TLS_SERVER_CA_CERT_PATH (temporal.tls.server_ca_cert_path)",
      );
    });

    it('should tell a name mismatch and an expired server certificate apart', () => {
      expect(
        classifyTemporalConnectionError(
          grpcJs(
            14,
            "No connection established. Last error: Error [ERR_TLS_CERT_ALTNAME_INVALID]: Hostname/IP does not match certificate's altnames",
          ),
          mtls,
        ).cause,
      ).toBe('server_name_mismatch');
      expect(
        classifyTemporalConnectionError(
          native(
            'ConnectError(Custom { kind: InvalidData, error: InvalidCertificate(NotValidForNameContext { expected: DnsName("x") }) })',
          ),
          mtls,
        ).cause,
      ).toBe('server_name_mismatch');
      expect(
        classifyTemporalConnectionError(
          grpcJs(14, 'No connection established. Last error: Error: certificate has expired'),
          mtls,
        ).cause,
      ).toBe('server_certificate_expired');
    });
  });

  describe('the server answered: credentials and namespace', () => {
    it('should say the API key was rejected, quoting the server but never the key', () => {
      for (const err of [
        serviceError(grpcJs(16, 'Request unauthorized.')),
        native(
          `Failed to call GetSystemInfo: code: 'The request does not have valid authentication credentials', message: "Request unauthorized."`,
        ),
      ]) {
        expectClassified(
          err,
          apiKey,
          'api_key_rejected',
          'Temporal at temporal.internal:7233: the server rejected the API key (Unauthenticated: Request unauthorized.); check TEMPORAL_API_KEY (temporal.api_key)',
        );
      }
      const echoing = grpcJs(16, 'invalid token sekret-api-key (Bearer sekret-api-key)');
      const { message } = classifyTemporalConnectionError(echoing, apiKey);
      expect(message).not.toContain('sekret-api-key');
      expect(message).toContain('invalid token [redacted] (Bearer [redacted])');
    });

    it('should ask for credentials when none are configured', () => {
      expect(classifyTemporalConnectionError(grpcJs(16, 'Request unauthorized.'), plain).cause).toBe('unauthenticated');
    });

    it('should name the namespace the credentials may not use, and one that does not exist', () => {
      expect(classifyTemporalConnectionError(grpcJs(7, 'Request unauthorized.'), apiKey).message).toBe(
        "Temporal at temporal.internal:7233: the credentials may not use namespace jobs (PermissionDenied: Request unauthorized.); check the key's or certificate's namespace access",
      );
      for (const err of [
        grpcJs(5, 'Namespace jobs is not found.'),
        Object.assign(new Error('Namespace jobs is not found.'), { name: 'ServiceError', code: 5, details: '' }),
      ]) {
        expectClassified(
          err,
          mtls,
          'namespace_not_found',
          'Temporal at temporal.internal:7233: namespace jobs does not exist on this server (NotFound); check TEMPORAL_NAMESPACE (temporal.namespace)',
        );
      }
    });
  });

  describe('TLS on one side only', () => {
    it('should say the server does not speak TLS', () => {
      for (const err of [
        grpcJs(
          14,
          'No connection established. Last error: Error: 80:error:0A00010B:SSL routines:ssl3_get_record:wrong version number',
        ),
        native('ConnectError(Custom { kind: InvalidData, error: InvalidMessage(InvalidContentType) })'),
      ]) {
        expect(classifyTemporalConnectionError(err, mtls).cause).toBe('tls_not_spoken');
      }
    });

    it('should say the server expects TLS', () => {
      for (const err of [
        grpcJs(14, 'No connection established. Last error: Protocol error (2026-11-26T02:36:54.631Z)'),
        native(
          `code: 'Unknown error', message: "h2 protocol error: http2 error", source: hyper::Error(Http2, Error { kind: GoAway(b"", FRAME_SIZE_ERROR, Library) })`,
        ),
      ]) {
        expect(classifyTemporalConnectionError(err, plain).cause).toBe('tls_expected');
      }
    });
  });

  describe('the server cannot be reached (transient)', () => {
    it.each([
      [
        'refused (grpc-js)',
        grpcJs(14, 'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:7233'),
        'connection refused',
      ],
      [
        'refused (tonic)',
        native(
          'ConnectError("tcp connect error", 127.0.0.1:18999, Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })',
        ),
        'connection refused',
      ],
      ['no answer', new Error('Failed to connect before the deadline'), 'no answer in time'],
      ['dns', native('dns error: failed to lookup address information'), 'host not found'],
    ])('%s', (_, err, reason) => {
      expectClassified(
        err,
        mtls,
        'unreachable',
        `Temporal at temporal.internal:7233: cannot reach the server (${reason})`,
        true,
      );
    });
  });

  it('should quote anything else on one line, without key material', () => {
    const err = new Error('strange\nfailure -----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY----- end');
    expectClassified(err, mtls, 'unknown', 'Temporal at temporal.internal:7233: strange failure [PEM] end', true);
  });
});
