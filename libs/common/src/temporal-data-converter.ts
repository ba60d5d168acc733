import type { DataConverter } from '@temporalio/common';
import type { AppConfig } from './config';
import { AesGcmPayloadCodec } from './payload-codec';

/**
 * The payload codec of a process from its configuration (`temporal.codec`), or null when the codec
 * is off. The API's codec server and `dataConverterOptions` use it.
 * @throws Error naming the bad setting (never a key) when the keys do not make a codec.
 */
export function payloadCodecFromConfig(config: Pick<AppConfig, 'temporal'>): AesGcmPayloadCodec | null {
  const codec = config.temporal.codec;
  if (!codec) {
    return null;
  }
  try {
    return AesGcmPayloadCodec.create({ keys: codec.keys, encryptKeyId: codec.encrypt_key_id });
  } catch (err) {
    throw new Error(`Invalid configuration:\n  temporal.codec: ${(err as Error).message}`);
  }
}

/**
 * The one place every Temporal client and worker of the service gets its data converter
 * (API, worker, CLI): `{}` with the codec off, so nothing is added to any payload's path; with it
 * on, the AES-256-GCM codec (payload-codec.ts) and the failure converter that moves failure
 * messages and stacks into payloads (encrypted-failure-converter.ts).
 *
 * Spread it into `new Client({...})` and `Worker.create({...})`. Search attributes are not
 * payloads the codec sees: they carry only ids (job, workspace, trigger) and stay plain.
 */
export function dataConverterOptions(config: Pick<AppConfig, 'temporal'>): { dataConverter?: DataConverter } {
  const codec = payloadCodecFromConfig(config);
  if (!codec) {
    return {};
  }
  return {
    dataConverter: {
      payloadCodecs: [codec],
      failureConverterPath: require.resolve('./encrypted-failure-converter'),
    },
  };
}
