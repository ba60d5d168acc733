import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createTestPki, type TestPki } from './pki';
import { freePort } from './processes';
import { sleep } from './receiver';

/**
 * A TLS-terminating gRPC front for the Temporal dev server (which has no TLS of its own): Debian's
 * nginx with `grpc_pass`, started and stopped by the test itself on free loopback ports, its
 * config and a throwaway PKI (./pki.ts) in a temporary folder. scripts/test.sh installs nginx when
 * it is missing. Three listeners, all in front of the same dev server:
 *
 * - `mtlsAddress`: TLS with `ssl_verify_client on` against the test CA (mTLS, as a self-hosted
 *   cluster); nginx answers a certificate it does not accept with HTTP 400;
 * - `apiKeyAddress`: TLS, and the request must carry `authorization: Bearer <apiKey>`, else a gRPC
 *   `UNAUTHENTICATED` "Request unauthorized." (what Temporal Cloud answers a bad key);
 * - `untrustedAddress`: TLS with a server certificate from a CA the clients do not trust.
 *
 * Connect to `127.0.0.1:<port>` with server name `localhost`.
 */
export interface TlsFront {
  pki: TestPki;
  mtlsAddress: string;
  apiKeyAddress: string;
  untrustedAddress: string;
  apiKey: string;
  /** Stops nginx (fast shutdown: every connection is cut); `start()` brings it back on the same ports. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops nginx and removes the PKI and the config. */
  close(): Promise<void>;
}

function nginxBinary(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx']) {
    if (existsSync(candidate)) {
      return candidate;
    }
  }
  try {
    return execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'nginx is not installed: scripts/test.sh installs Debian nginx-light (apt-get install nginx-light)',
    );
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

export async function startTlsFront(upstream: string): Promise<TlsFront> {
  const nginx = nginxBinary();
  const pki = createTestPki();
  const dir = join(pki.dir, 'nginx');
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  const [mtls, apiKeyPort, untrusted] = [await freePort(), await freePort(), await freePort()];
  const apiKey = `test-key-${Math.random().toString(36).slice(2)}`;
  // Long polls hold a stream for about a minute: nginx's 60 s defaults would cut them.
  const common = [
    'grpc_read_timeout 300s;',
    'grpc_send_timeout 300s;',
    'client_max_body_size 0;',
    // As strict as the fronts we meet (HAProxy allows 100 streams a connection, nginx 128): the
    // worker's long polls must leave streams for the calls that complete its tasks.
    'http2_max_concurrent_streams 100;',
    `ssl_certificate_key ${pki.server.key};`,
  ].join(' ');
  const conf = `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp; proxy_temp_path ${dir}/tmp; fastcgi_temp_path ${dir}/tmp;
  uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
  upstream temporal { server ${upstream}; keepalive 16; }
  server {
    listen 127.0.0.1:${mtls} ssl http2;
    ssl_certificate ${pki.server.cert}; ${common}
    ssl_client_certificate ${pki.ca.cert};
    ssl_verify_client on;
    location / { grpc_pass grpc://temporal; }
  }
  server {
    listen 127.0.0.1:${apiKeyPort} ssl http2;
    ssl_certificate ${pki.server.cert}; ${common}
    location / {
      if ($http_authorization != "Bearer ${apiKey}") {
        add_header grpc-status 16 always;
        add_header grpc-message "Request unauthorized." always;
        add_header content-type application/grpc always;
        return 200;
      }
      grpc_pass grpc://temporal;
    }
  }
  server {
    listen 127.0.0.1:${untrusted} ssl http2;
    ssl_certificate ${pki.rogueServer.cert};
    ssl_certificate_key ${pki.rogueServer.key};
    grpc_read_timeout 300s;
    location / { grpc_pass grpc://temporal; }
  }
}
`;
  const confPath = join(dir, 'nginx.conf');
  writeFileSync(confPath, conf);
  let child: ChildProcess | null = null;
  let output = '';

  const start = async () => {
    output = '';
    const started = spawn(nginx, ['-p', dir, '-c', confPath, '-e', join(dir, 'error.log'), '-g', 'daemon off;'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (started.exitCode !== null) {
        throw new Error(`nginx exited with ${started.exitCode}: ${output}`);
      }
      const up = await Promise.all([mtls, apiKeyPort, untrusted].map(listening));
      if (up.every(Boolean)) {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`nginx did not listen within 15 s: ${output}`);
      }
      await sleep(100);
    }
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (running && running.exitCode === null) {
      const exited = new Promise((done) => running.once('exit', done));
      running.kill('SIGTERM');
      await exited;
    }
  };
  // Never outlive the test process, even when it exits without reaching afterAll (a crash).
  process.once('exit', () => child?.kill('SIGKILL'));
  await start();
  return {
    pki,
    mtlsAddress: `127.0.0.1:${mtls}`,
    apiKeyAddress: `127.0.0.1:${apiKeyPort}`,
    untrustedAddress: `127.0.0.1:${untrusted}`,
    apiKey,
    stop,
    start,
    close: async () => {
      await stop();
      pki.remove();
    },
  };
}
