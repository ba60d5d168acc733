import {
  type ClientConfigProfile,
  type ClientConfigTLS,
  type ConfigDataSource,
  fromTomlProfile,
  loadClientConfigProfile,
} from '@temporalio/envconfig';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * How the API, the worker and `svc` reach Temporal (docs/operations.md → Connecting to Temporal).
 *
 * Three layers, each field taken from the first that sets it:
 *
 * 1. the standard environment variables, read by `@temporalio/envconfig` exactly as the `temporal`
 *    CLI reads them: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS`,
 *    `TEMPORAL_TLS_*`, `TEMPORAL_GRPC_META_*`;
 * 2. the service's YAML file, section `temporal:` — the same keys as a TOML profile (`address`,
 *    `namespace`, `api_key`, `tls.*`, `grpc_meta`);
 * 3. a profile of the Temporal config file (TOML): `TEMPORAL_PROFILE` or `temporal.profile`
 *    (default `default`) in `TEMPORAL_CONFIG_FILE`, `temporal.config_file` or
 *    `~/.config/temporalio/temporal.toml`;
 *
 * then the defaults `localhost:7233` and `default`. Environment over file is the rule of every
 * other setting of this service and of envconfig itself (its variables override its profile).
 * TLS is on when any `tls` setting is present (unless `disabled`), or with an API key (the SDK's
 * rule); off otherwise.
 */
export interface TemporalConnectionSettings {
  /** The TOML profile in use, or null when no Temporal config file was read. */
  profile: string | null;
  /** Never logged: the `authorization: Bearer` credential. */
  api_key: string | null;
  /** null: plaintext gRPC. Certificate and key bytes are read (and checked) at start-up. */
  tls: {
    server_name: string | null;
    server_ca_cert: Buffer | null;
    client_cert: Buffer | null;
    client_key: Buffer | null;
    /** `validTo` of the client certificate, so a failure can say "expired" (ISO). */
    client_cert_expires_at: string | null;
  } | null;
  /** Extra gRPC metadata (`grpc_meta`, `TEMPORAL_GRPC_META_*`); values are never logged. */
  grpc_meta: Record<string, string>;
}

export interface ResolvedTemporal {
  address: string;
  namespace: string;
  connection: TemporalConnectionSettings;
}

/** The options both `Connection.connect/lazy` (client) and `NativeConnection.connect` (worker) take. */
export interface TemporalConnectOptions {
  address: string;
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
  };
  apiKey?: string;
  metadata?: Record<string, string>;
}

type Layer = 'env' | 'yaml' | 'profile';
type TlsField = 'clientCert' | 'clientKey' | 'serverCACert';

const TOML_FIELD: Record<TlsField, string> = {
  clientCert: 'client_cert',
  clientKey: 'client_key',
  serverCACert: 'server_ca_cert',
};

/** The setting a value came from, as an operator would write it (error messages name it). */
function settingName(layer: Layer, field: string, source?: ConfigDataSource, profile?: string): string {
  const suffix = source ? ('path' in source ? '_path' : '_data') : '';
  const toml = field === 'api_key' || field === 'address' || field === 'namespace' ? field : `tls.${field}${suffix}`;
  switch (layer) {
    case 'env':
      return `TEMPORAL_${toml.replace('.', '_').toUpperCase()}`;
    case 'yaml':
      return `temporal.${toml}`;
    case 'profile':
      return `profile "${profile}" ${toml} (Temporal config file)`;
  }
}

/**
 * The environment for envconfig. An empty variable counts as unset, as for every other setting of
 * this service (compose files write `TEMPORAL_API_KEY: ${KEY:-}`); only an empty
 * `TEMPORAL_GRPC_META_*` keeps its envconfig meaning (drop that header of the profile).
 */
function stringEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && (value !== '' || key.startsWith('TEMPORAL_GRPC_META_'))) {
      out[key] = value;
    }
  }
  return out;
}

/**
 * Resolves the connection from the three layers above; every problem goes to `problems` with the
 * name of its setting (never its value), so start-up reports them all at once. Reads the Temporal
 * config file and the certificate and key files (pure apart from those reads).
 *
 * @param yaml the `temporal:` section of the service's YAML file (before environment overrides)
 * @param env  the environment (`process.env` in production)
 */
export function resolveTemporal(
  yaml: Record<string, unknown>,
  env: Record<string, string | undefined>,
  problems: string[],
): ResolvedTemporal {
  const envVars = stringEnv(env);
  const profileName = env.TEMPORAL_PROFILE || stringOrUndefined(yaml.profile) || undefined;
  const configFile = env.TEMPORAL_CONFIG_FILE || stringOrUndefined(yaml.config_file) || undefined;
  const layers: Array<[Layer, ClientConfigProfile]> = [];

  // The environment, exactly as envconfig reads it (file reading off: the profile is layer 3).
  try {
    layers.push(['env', loadClientConfigProfile({ disableFile: true, overrideEnvVars: envVars })]);
  } catch (err) {
    problems.push(`TEMPORAL_* environment: ${(err as Error).message}`);
  }
  // The YAML section: a TOML profile's keys, converted by envconfig itself.
  try {
    layers.push(['yaml', fromTomlProfile(yamlProfile(yaml, problems))]);
  } catch (err) {
    problems.push(`temporal: ${(err as Error).message.replace(/^Cannot specify/, 'cannot specify')}`);
  }
  let profileUsed: string | null = null;
  if (configFile) {
    try {
      readFileSync(configFile);
    } catch (err) {
      problems.push(
        `${env.TEMPORAL_CONFIG_FILE ? 'TEMPORAL_CONFIG_FILE' : 'temporal.config_file'}: cannot read ${configFile} (${errorCode(err)})`,
      );
    }
  }
  try {
    const fromFile = loadClientConfigProfile({
      profile: profileName,
      configSource: configFile ? { path: configFile } : undefined,
      disableEnv: true,
      configFileStrict: false,
      overrideEnvVars: envVars,
    });
    if (Object.keys(fromFile).length > 0 || profileName) {
      profileUsed = profileName ?? 'default';
    }
    layers.push(['profile', fromFile]);
  } catch (err) {
    const setting = env.TEMPORAL_PROFILE
      ? 'TEMPORAL_PROFILE'
      : profileName
        ? 'temporal.profile'
        : 'Temporal config file';
    problems.push(`${setting}: ${(err as Error).message}`);
  }

  const pick = <K extends 'address' | 'namespace' | 'apiKey'>(key: K) => {
    for (const [layer, profile] of layers) {
      const value = profile[key];
      if (value !== undefined && value !== '') {
        return { value, layer };
      }
    }
    return null;
  };
  const address = pick('address');
  const namespace = pick('namespace');
  const apiKey = pick('apiKey');
  if (address && !/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/.test(address.value)) {
    problems.push(`${settingName(address.layer, 'address', undefined, profileUsed ?? '')}: expected host:port`);
  }

  // TLS: present in any layer (and not disabled by the first layer that says), or an API key.
  let tlsPresent = false;
  let disabled: boolean | undefined;
  let serverName: string | undefined;
  const sources: Partial<Record<TlsField, { source: ConfigDataSource; layer: Layer }>> = {};
  for (const [layer, profile] of layers) {
    const tls: ClientConfigTLS | undefined = profile.tls;
    if (!tls) {
      continue;
    }
    tlsPresent = true;
    disabled ??= tls.disabled;
    serverName ??= tls.serverName || undefined;
    for (const field of Object.keys(TOML_FIELD) as TlsField[]) {
      const source = tls[field];
      if (source && !sources[field]) {
        sources[field] = { source, layer };
      }
    }
  }
  const tlsOn = disabled === true ? false : tlsPresent || apiKey !== null;
  const read = (field: TlsField): Buffer | null => {
    const found = sources[field];
    if (!found) {
      return null;
    }
    const name = settingName(found.layer, TOML_FIELD[field], found.source, profileUsed ?? '');
    let bytes: Buffer;
    if ('path' in found.source) {
      try {
        bytes = readFileSync(found.source.path);
      } catch (err) {
        problems.push(`${name}: cannot read ${found.source.path} (${errorCode(err)})`);
        return null;
      }
    } else {
      bytes = Buffer.from(found.source.data);
    }
    const problem = field === 'clientKey' ? keyProblem(bytes) : certificateProblem(bytes);
    if (problem) {
      problems.push(`${name}: ${problem}`);
      return null;
    }
    return bytes;
  };
  let tls: TemporalConnectionSettings['tls'] = null;
  if (tlsOn) {
    const clientCert = read('clientCert');
    const clientKey = read('clientKey');
    const serverCa = read('serverCACert');
    if (sources.clientCert && !sources.clientKey) {
      problems.push(
        `${settingName(sources.clientCert.layer, 'client_cert', sources.clientCert.source, profileUsed ?? '')}: a client certificate needs its key (TEMPORAL_TLS_CLIENT_KEY_PATH or temporal.tls.client_key_path)`,
      );
    }
    if (sources.clientKey && !sources.clientCert) {
      problems.push(
        `${settingName(sources.clientKey.layer, 'client_key', sources.clientKey.source, profileUsed ?? '')}: a client key needs its certificate (TEMPORAL_TLS_CLIENT_CERT_PATH or temporal.tls.client_cert_path)`,
      );
    }
    let expiresAt: string | null = null;
    if (clientCert && clientKey) {
      const certificate = new X509Certificate(clientCert);
      if (!certificate.checkPrivateKey(createPrivateKey(clientKey))) {
        problems.push(
          `${settingName(sources.clientKey!.layer, 'client_key', sources.clientKey!.source, profileUsed ?? '')}: the key does not belong to the client certificate`,
        );
      }
      expiresAt = new Date(certificate.validTo).toISOString();
    }
    tls = {
      server_name: serverName ?? null,
      server_ca_cert: serverCa,
      client_cert: clientCert,
      client_key: clientKey,
      client_cert_expires_at: expiresAt,
    };
  }
  const grpcMeta: Record<string, string> = {};
  for (const [, profile] of [...layers].reverse()) {
    Object.assign(grpcMeta, profile.grpcMeta ?? {});
  }
  return {
    address: address?.value ?? 'localhost:7233',
    namespace: namespace?.value ?? 'default',
    connection: { profile: profileUsed, api_key: apiKey?.value ?? null, tls, grpc_meta: grpcMeta },
  };
}

/** The YAML `temporal:` section as a TOML profile (only the profile's keys; the rest are ours). */
function yamlProfile(yaml: Record<string, unknown>, problems: string[]): Parameters<typeof fromTomlProfile>[0] {
  const profile: Record<string, unknown> = {};
  for (const key of ['address', 'namespace', 'api_key'] as const) {
    if (yaml[key] !== undefined && yaml[key] !== null) {
      profile[key] = String(yaml[key] as string);
    }
  }
  const tls = yaml.tls;
  if (tls !== undefined && tls !== null) {
    if (typeof tls !== 'object' || Array.isArray(tls)) {
      problems.push('temporal.tls: expected a map (client_cert_path, client_key_path, server_ca_cert_path, …)');
    } else {
      const allowed = [
        'disabled',
        'client_cert_path',
        'client_cert_data',
        'client_key_path',
        'client_key_data',
        'server_ca_cert_path',
        'server_ca_cert_data',
        'server_name',
      ];
      for (const key of Object.keys(tls)) {
        if (!allowed.includes(key)) {
          problems.push(`temporal.tls.${key}: unknown key (expected one of ${allowed.join(', ')})`);
        }
      }
      const t = tls as Record<string, unknown>;
      if (t.disabled !== undefined && typeof t.disabled !== 'boolean') {
        problems.push('temporal.tls.disabled: expected true or false');
      }
      profile.tls = t;
    }
  }
  const meta = yaml.grpc_meta;
  if (meta !== undefined && meta !== null) {
    if (typeof meta !== 'object' || Array.isArray(meta)) {
      problems.push('temporal.grpc_meta: expected a map of header names to values');
    } else {
      profile.grpc_meta = meta;
    }
  }
  return profile;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'unreadable';
}

function certificateProblem(bytes: Buffer): string | null {
  if (!bytes.toString('latin1').includes('-----BEGIN CERTIFICATE-----')) {
    return 'not a PEM certificate (expected -----BEGIN CERTIFICATE-----)';
  }
  try {
    new X509Certificate(bytes);
    return null;
  } catch {
    return 'not a readable PEM certificate';
  }
}

function keyProblem(bytes: Buffer): string | null {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(bytes.toString('latin1'))) {
    return 'not a PEM private key (expected -----BEGIN … PRIVATE KEY-----)';
  }
  try {
    createPrivateKey(bytes);
    return null;
  } catch {
    return 'not a readable PEM private key (encrypted keys are not supported)';
  }
}

/**
 * The one home of the connection rule: the options for both `Connection.connect/lazy`
 * (`@temporalio/client`) and `NativeConnection.connect` (`@temporalio/worker`). Pure.
 */
export function temporalConnectOptions(temporal: ResolvedTemporal): TemporalConnectOptions {
  const { tls, api_key: apiKey, grpc_meta: metadata } = temporal.connection;
  return {
    address: temporal.address,
    ...(tls
      ? {
          tls: {
            ...(tls.server_name ? { serverNameOverride: tls.server_name } : {}),
            ...(tls.server_ca_cert ? { serverRootCACertificate: tls.server_ca_cert } : {}),
            ...(tls.client_cert && tls.client_key
              ? { clientCertPair: { crt: tls.client_cert, key: tls.client_key } }
              : {}),
          },
        }
      : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/**
 * How the connection is made, for a log line: address, namespace, TLS kind, whether an API key
 * is sent and the profile — never a key, a certificate or a metadata value.
 */
export function describeTemporalConnection(temporal: ResolvedTemporal): string {
  const { tls, api_key: apiKey, profile } = temporal.connection;
  const parts = [`namespace ${temporal.namespace}`];
  parts.push(tls ? (tls.client_cert ? 'mTLS' : 'TLS') : 'no TLS');
  if (apiKey) {
    parts.push('API key');
  }
  if (profile) {
    parts.push(`profile ${profile}`);
  }
  return `${temporal.address} (${parts.join(', ')})`;
}

/**
 * What `classifyTemporalConnectionError` needs to know of this connection (and the API key, only
 * so that it is cut from anything quoted).
 */
export function temporalFailureContext(temporal: ResolvedTemporal, now?: Date) {
  const { tls, api_key: apiKey } = temporal.connection;
  return {
    address: temporal.address,
    namespace: temporal.namespace,
    tls: tls !== null,
    clientCert: Boolean(tls?.client_cert),
    apiKey: apiKey !== null,
    clientCertExpiresAt: tls?.client_cert_expires_at ?? null,
    now,
    secrets: apiKey ? [apiKey] : [],
  };
}
