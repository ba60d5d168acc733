/**
 * The payload codec's own cost (issue #20, docs/operations.md → Payload encryption): encode and
 * decode of one payload per call, for payload sizes like ours (a run workflow's input is a few
 * hundred bytes, an attempt result up to a few KiB with a response body excerpt). Not a test.
 * Run: node -r @swc-node/register bench/payload-codec.ts
 * The end-to-end cost on deliveries is `npm run bench:load` against a service started with
 * TEMPORAL_CODEC_KEYS set (API and worker).
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { AesGcmPayloadCodec, generateCodecKey } from '@svc/common/payload-codec';

const codec = AesGcmPayloadCodec.create({ keys: { k1: generateCodecKey() }, encryptKeyId: 'k1' });

async function perSecond(fn: () => Promise<unknown>, ms = 700): Promise<number> {
  for (let i = 0; i < 200; i++) {
    await fn();
  } // warm-up
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 50; i++) {
      await fn();
    }
    ops += 50;
    now = performance.now();
  }
  return (ops * 1000) / (now - start);
}

async function main(): Promise<void> {
  const rows: Array<Record<string, string>> = [];
  for (const bytes of [200, 1_024, 16_384]) {
    const payload: Payload = defaultPayloadConverter.toPayload({ body: 'x'.repeat(bytes - 11) });
    const [encrypted] = await codec.encode([payload]);
    const encode = await perSecond(() => codec.encode([payload]));
    const decode = await perSecond(() => codec.decode([encrypted]));
    rows.push({
      payload: `${payload.data!.length} B`,
      'encrypted data': `${encrypted.data!.length} B`,
      'encode µs': (1e6 / encode).toFixed(1),
      'decode µs': (1e6 / decode).toFixed(1),
    });
  }
  console.table(rows);
}

void main();
