import { Inject, Injectable } from '@nestjs/common';
import { type AppConfig, ValidationFailedError } from '@svc/common';
import {
  type AesGcmPayloadCodec,
  ENCODING_KEY,
  ENCRYPTED_ENCODING,
  isCodecKeyId,
  isPayloadDecryptionFailure,
  KEY_ID_KEY,
  PAYLOAD_DECRYPTION_FAILURE,
} from '@svc/common/payload-codec';
import { payloadCodecFromConfig } from '@svc/common/temporal-data-converter';
import { ApplicationFailure, type Payload } from '@temporalio/common';
import { APP_CONFIG } from '../config/config.module';
import type { CodecPayloadDto } from './dto/codec-payloads.dto';

/** A payload in protobuf JSON, as the codec-server protocol carries it. */
export interface WirePayload {
  metadata: Record<string, string>;
  data: string;
}

// Object.fromEntries defines own properties, so a metadata name such as `__proto__` stays a name.
function fromWire(payload: CodecPayloadDto): Payload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, Buffer.from(value, 'base64')]),
  );
  return { metadata, data: Buffer.from(payload.data ?? '', 'base64') };
}

function toWire(payload: Payload): WirePayload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([name, value]) => [
      name,
      Buffer.from(value ?? new Uint8Array()).toString('base64'),
    ]),
  );
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

/**
 * The codec server (docs/operations.md → Payload encryption and the codec server): the same codec
 * the API's and the worker's Temporal clients use, over HTTP, for the Temporal Web UI and the
 * `temporal` CLI (`--codec-endpoint`). With the codec off, encode and decode change nothing, and an
 * encrypted payload is refused as one of an unknown key.
 */
@Injectable()
export class CodecService {
  private readonly codec: AesGcmPayloadCodec | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.codec = payloadCodecFromConfig(config);
  }

  async encode(payloads: CodecPayloadDto[]): Promise<{ payloads: WirePayload[] }> {
    const plain = payloads.map(fromWire);
    const encoded = this.codec ? await this.codec.encode(plain) : plain;
    return { payloads: encoded.map(toWire) };
  }

  /**
   * Decrypts each encrypted payload; others come back unchanged.
   * @throws ValidationFailedError (400) naming each payload that cannot be decrypted here (unknown
   * key id, tampered, malformed) in `fields` (`payloads.<i>`).
   */
  async decode(payloads: CodecPayloadDto[]): Promise<{ payloads: WirePayload[] }> {
    const fields: Record<string, string> = {};
    const decoded: Payload[] = [];
    for (const [index, wire] of payloads.entries()) {
      const payload = fromWire(wire);
      try {
        decoded.push(this.codec ? (await this.codec.decode([payload]))[0] : this.passThrough(payload));
      } catch (err) {
        if (!isPayloadDecryptionFailure(err)) {
          throw err;
        }
        fields[`payloads.${index}`] = err.message;
      }
    }
    const problems = Object.values(fields);
    if (problems.length > 0) {
      throw new ValidationFailedError(fields, `Cannot decode: ${problems[0]}`);
    }
    return { payloads: decoded.map(toWire) };
  }

  /** With the codec off: plain payloads unchanged; an encrypted one is refused, naming its key id. */
  private passThrough(payload: Payload): Payload {
    if (Buffer.from(payload.metadata?.[ENCODING_KEY] ?? new Uint8Array()).toString() !== ENCRYPTED_ENCODING) {
      return payload;
    }
    const keyId = Buffer.from(payload.metadata?.[KEY_ID_KEY] ?? new Uint8Array()).toString();
    throw ApplicationFailure.create({
      type: PAYLOAD_DECRYPTION_FAILURE,
      message: `payload encrypted with key id ${isCodecKeyId(keyId) ? `"${keyId}"` : '(malformed)'}, but the payload codec is off (temporal.codec.keys is not set)`,
    });
  }
}
