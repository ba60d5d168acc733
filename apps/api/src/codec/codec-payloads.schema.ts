import { arrayOf, named, object, string } from '../common/openapi/schema';

/** `{payloads: [{metadata, data}]}`: Temporal payloads in protobuf JSON (metadata values and data base64). */
export const CODEC_PAYLOADS_SCHEMA = named(
  'CodecPayloads',
  object({
    payloads: arrayOf(
      object({
        metadata: {
          type: 'object',
          additionalProperties: { type: 'string', contentEncoding: 'base64' },
          description: 'Names to base64 bytes (`encoding`, and `encryption-key-id` on encrypted payloads).',
        },
        data: { ...string, contentEncoding: 'base64', description: 'The payload’s bytes, base64.' },
      }),
    ),
  }),
);
