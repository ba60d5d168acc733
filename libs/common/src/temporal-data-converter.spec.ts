import { ApplicationFailure, defaultPayloadConverter, type FailureConverter } from '@temporalio/common';
import { buildConfig } from './config';
import { AesGcmPayloadCodec } from './payload-codec';
import { dataConverterOptions, payloadCodecFromConfig } from './temporal-data-converter';

const KEY_1 = Buffer.from('payload codec test key number 1!').toString('base64');

describe('dataConverterOptions', () => {
  it('should add nothing with the codec off (no codec, no failure converter in the payload path)', () => {
    const config = buildConfig({}, {});
    expect(dataConverterOptions(config)).toEqual({});
    expect(payloadCodecFromConfig(config)).toBeNull();
  });

  it('should give the AES-GCM codec and a failure converter that moves messages and stacks into payloads', () => {
    const config = buildConfig({}, { TEMPORAL_CODEC_KEYS: `k1=${KEY_1}` });
    const { dataConverter } = dataConverterOptions(config);
    expect(dataConverter?.payloadCodecs).toHaveLength(1);
    expect(dataConverter?.payloadCodecs?.[0]).toBeInstanceOf(AesGcmPayloadCodec);
    // The SDK loads this path with require(), as here.
    const { failureConverter } = require(dataConverter!.failureConverterPath!) as {
      failureConverter: FailureConverter;
    };
    const failure = failureConverter.errorToFailure(
      ApplicationFailure.create({ message: 'POST https://hooks.example.com/secret → 503' }),
      defaultPayloadConverter,
    );
    expect(failure.message).toBe('Encoded failure');
    expect(failure.stackTrace).toBe('');
    expect(defaultPayloadConverter.fromPayload(failure.encodedAttributes!)).toMatchObject({
      message: 'POST https://hooks.example.com/secret → 503',
    });
  });
});
