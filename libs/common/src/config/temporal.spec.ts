import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestPki, type TestPki } from '../../../../test/utils/pki';
import { buildConfig } from './config';
import { describeTemporalConnection, temporalConnectOptions } from './temporal';

/** The problems buildConfig reports, one per line (it throws them all at once). */
function problemsOf(file: Record<string, unknown>, env: Record<string, string>): string[] {
  try {
    buildConfig(file, env);
    return [];
  } catch (err) {
    return (err as Error).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
}

describe('Temporal connection settings (envconfig + temporal: + profile)', () => {
  let pki: TestPki;
  let toml: string;

  beforeAll(() => {
    pki = createTestPki();
    toml = join(pki.dir, 'temporal.toml');
    writeFileSync(
      toml,
      [
        '[profile.default]',
        'address = "default.example:7233"',
        '',
        '[profile.prod]',
        'address = "prod.example:7233"',
        'namespace = "prod-ns"',
        '[profile.prod.tls]',
        `client_cert_path = "${pki.client.cert}"`,
        `client_key_path = "${pki.client.key}"`,
        `server_ca_cert_path = "${pki.ca.cert}"`,
        'server_name = "localhost"',
        '[profile.prod.grpc_meta]',
        'x-team = "scheduling"',
      ].join('\n'),
    );
  });

  afterAll(() => pki.remove());

  it('should default to plaintext localhost:7233, namespace default', () => {
    const { temporal } = buildConfig({}, {});
    expect(temporal).toMatchObject({ address: 'localhost:7233', namespace: 'default' });
    expect(temporal.connection).toEqual({ profile: null, api_key: null, tls: null, grpc_meta: {} });
    expect(temporalConnectOptions(temporal)).toEqual({ address: 'localhost:7233' });
  });

  it('should count an empty variable as unset (compose files write ${KEY:-})', () => {
    const { temporal } = buildConfig(
      {},
      { TEMPORAL_ADDRESS: '', TEMPORAL_API_KEY: '', TEMPORAL_TLS_CLIENT_CERT_PATH: '', TEMPORAL_PROFILE: '' },
    );
    expect(temporalConnectOptions(temporal)).toEqual({ address: 'localhost:7233' });
  });

  it('should turn TLS on with the system roots when only an API key is set (Temporal Cloud)', () => {
    const { temporal } = buildConfig(
      {},
      { TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'ns.acct', TEMPORAL_API_KEY: 'key-123' },
    );
    expect(temporalConnectOptions(temporal)).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      tls: {},
      apiKey: 'key-123',
    });
    expect(temporal.namespace).toBe('ns.acct');
    expect(describeTemporalConnection(temporal)).toBe('ns.acct.tmprl.cloud:7233 (namespace ns.acct, TLS, API key)');
  });

  it('should read mTLS from the TEMPORAL_TLS_* variables into one set of options for client and worker', () => {
    const { temporal } = buildConfig(
      {},
      {
        TEMPORAL_ADDRESS: '127.0.0.1:7233',
        TEMPORAL_TLS_CLIENT_CERT_PATH: pki.client.cert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: pki.client.key,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.ca.cert,
        TEMPORAL_TLS_SERVER_NAME: 'localhost',
        TEMPORAL_GRPC_META_X_TEAM: 'scheduling',
      },
    );
    expect(temporalConnectOptions(temporal)).toEqual({
      address: '127.0.0.1:7233',
      tls: {
        serverNameOverride: 'localhost',
        serverRootCACertificate: readFileSync(pki.ca.cert),
        clientCertPair: { crt: readFileSync(pki.client.cert), key: readFileSync(pki.client.key) },
      },
      metadata: { 'x-team': 'scheduling' },
    });
    expect(describeTemporalConnection(temporal)).toBe('127.0.0.1:7233 (namespace default, mTLS)');
  });

  it('should take certificates given as data (TEMPORAL_TLS_*_DATA)', () => {
    const { temporal } = buildConfig(
      {},
      {
        TEMPORAL_TLS_CLIENT_CERT_DATA: readFileSync(pki.client.cert, 'utf8'),
        TEMPORAL_TLS_CLIENT_KEY_DATA: readFileSync(pki.client.key, 'utf8'),
      },
    );
    expect(temporal.connection.tls?.client_cert?.equals(readFileSync(pki.client.cert))).toBe(true);
    expect(temporal.connection.tls?.client_cert_expires_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('should use a profile of the Temporal config file (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE)', () => {
    const { temporal } = buildConfig({}, { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod' });
    expect(temporal.address).toBe('prod.example:7233');
    expect(temporal.namespace).toBe('prod-ns');
    expect(temporal.connection.profile).toBe('prod');
    expect(temporalConnectOptions(temporal).tls?.clientCertPair?.crt.equals(readFileSync(pki.client.cert))).toBe(true);
    expect(temporalConnectOptions(temporal).metadata).toEqual({ 'x-team': 'scheduling' });
    // The default profile when none is named.
    expect(buildConfig({}, { TEMPORAL_CONFIG_FILE: toml }).temporal.address).toBe('default.example:7233');
  });

  it('should rank the environment over temporal: over the profile, field by field', () => {
    const file = { temporal: { config_file: toml, profile: 'prod', address: 'yaml.example:7233' } };
    const fromYaml = buildConfig(file, {}).temporal;
    expect(fromYaml.address).toBe('yaml.example:7233');
    expect(fromYaml.namespace).toBe('prod-ns'); // not set in YAML: the profile's
    const fromEnv = buildConfig(file, {
      TEMPORAL_ADDRESS: 'env.example:7233',
      TEMPORAL_TLS_SERVER_NAME: 'env-name',
    }).temporal;
    expect(fromEnv.address).toBe('env.example:7233');
    expect(fromEnv.connection.tls?.server_name).toBe('env-name');
    expect(fromEnv.connection.tls?.client_cert).not.toBeNull(); // the rest of the profile's TLS stays
    expect(buildConfig(file, { TEMPORAL_TLS: 'false' }).temporal.connection.tls).toBeNull();
  });

  it('should read the same keys as a TOML profile from the YAML temporal: section', () => {
    const { temporal } = buildConfig(
      { temporal: { api_key: 'yaml-key', tls: { server_ca_cert_path: pki.ca.cert, server_name: 'localhost' } } },
      {},
    );
    expect(temporalConnectOptions(temporal)).toEqual({
      address: 'localhost:7233',
      tls: { serverNameOverride: 'localhost', serverRootCACertificate: readFileSync(pki.ca.cert) },
      apiKey: 'yaml-key',
    });
  });

  describe('bad settings', () => {
    it('should name an unreadable certificate path', () => {
      expect(
        problemsOf(
          {},
          { TEMPORAL_TLS_CLIENT_CERT_PATH: '/nonexistent/client.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: pki.client.key },
        ),
      ).toEqual(['TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read /nonexistent/client.pem (ENOENT)']);
    });

    it('should refuse a certificate without its key, and a key without its certificate', () => {
      expect(problemsOf({}, { TEMPORAL_TLS_CLIENT_CERT_PATH: pki.client.cert })).toEqual([
        'TEMPORAL_TLS_CLIENT_CERT_PATH: a client certificate needs its key (TEMPORAL_TLS_CLIENT_KEY_PATH or temporal.tls.client_key_path)',
      ]);
      expect(problemsOf({ temporal: { tls: { client_key_path: pki.client.key } } }, {})).toEqual([
        'temporal.tls.client_key_path: a client key needs its certificate (TEMPORAL_TLS_CLIENT_CERT_PATH or temporal.tls.client_cert_path)',
      ]);
    });

    it('should refuse a key of another certificate, and files that are not PEM', () => {
      expect(
        problemsOf(
          {},
          { TEMPORAL_TLS_CLIENT_CERT_PATH: pki.client.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: pki.wrongClient.key },
        ),
      ).toEqual(['TEMPORAL_TLS_CLIENT_KEY_PATH: the key does not belong to the client certificate']);
      expect(problemsOf({}, { TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.ca.key })).toEqual([
        'TEMPORAL_TLS_SERVER_CA_CERT_PATH: not a PEM certificate (expected -----BEGIN CERTIFICATE-----)',
      ]);
      expect(
        problemsOf(
          {},
          { TEMPORAL_TLS_CLIENT_CERT_PATH: pki.client.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: pki.client.cert },
        ),
      ).toEqual(['TEMPORAL_TLS_CLIENT_KEY_PATH: not a PEM private key (expected -----BEGIN … PRIVATE KEY-----)']);
    });

    it('should never repeat key material given as data in its message', () => {
      const key = readFileSync(pki.client.key, 'utf8');
      const problems = problemsOf({}, { TEMPORAL_TLS_CLIENT_CERT_DATA: key, TEMPORAL_TLS_CLIENT_KEY_DATA: key });
      expect(problems).toEqual([
        'TEMPORAL_TLS_CLIENT_CERT_DATA: not a PEM certificate (expected -----BEGIN CERTIFICATE-----)',
      ]);
      expect(problems.join('\n')).not.toContain('PRIVATE KEY');
    });

    it('should name an unknown profile, a missing config file, a bad address and an unknown tls key', () => {
      expect(problemsOf({}, { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'staging' })).toEqual([
        "TEMPORAL_PROFILE: Profile 'staging' not found in config data",
      ]);
      expect(problemsOf({}, { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' })).toEqual([
        'TEMPORAL_CONFIG_FILE: cannot read /nonexistent/temporal.toml (ENOENT)',
      ]);
      expect(problemsOf({}, { TEMPORAL_ADDRESS: 'https://temporal.example.com' })).toEqual([
        'TEMPORAL_ADDRESS: expected host:port',
      ]);
      expect(problemsOf({ temporal: { tls: { ca_path: '/x' } } }, {})).toEqual([
        expect.stringMatching(/^temporal\.tls\.ca_path: unknown key \(expected one of disabled, client_cert_path/),
      ]);
    });
  });
});
