import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PKI for the TLS tests, made with `openssl` into a temporary folder at test time (no
 * key is ever committed): a trusted CA, a server certificate for `localhost`/127.0.0.1 and a
 * client certificate under it; a second, untrusted CA with a client certificate (the "wrong"
 * one) and a server certificate (the "untrusted server"); and an expired client certificate from
 * the trusted CA. Every member is `{ cert, key }` paths (the CAs: `cert` only matters).
 */
export interface TestPki {
  dir: string;
  ca: { cert: string; key: string };
  server: { cert: string; key: string };
  client: { cert: string; key: string };
  otherCa: { cert: string; key: string };
  wrongClient: { cert: string; key: string };
  rogueServer: { cert: string; key: string };
  expiredClient: { cert: string; key: string };
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pki-'));
  const paths = (name: string) => ({ cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string) => {
    openssl(dir, [
      'req',
      '-x509',
      ...newKey,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=svc test ${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    return paths(name);
  };
  const leaf = (name: string, issuer: string, extensions: string, days = 2) => {
    openssl(dir, ['req', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${issuer}.crt`,
      '-CAkey',
      `${issuer}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      String(days),
      '-extfile',
      `${name}.ext`,
    ]);
    return paths(name);
  };
  const serverExt = 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n';
  const clientExt = 'extendedKeyUsage=clientAuth\n';
  const pki: TestPki = {
    dir,
    ca: ca('ca'),
    otherCa: ca('other-ca'),
    server: leaf('server', 'ca', serverExt),
    client: leaf('client', 'ca', clientExt),
    wrongClient: leaf('wrong-client', 'other-ca', clientExt),
    rogueServer: leaf('rogue-server', 'other-ca', serverExt),
    // -days 0: valid until the second it was signed.
    expiredClient: leaf('expired-client', 'ca', clientExt, 0),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  return pki;
}
