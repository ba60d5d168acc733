import { Type } from 'class-transformer';
import { IsArray, IsBase64, IsOptional, ValidateNested } from 'class-validator';
import { IsBase64Map } from '../../common/validators';

/**
 * One Temporal `Payload` in protobuf JSON (Temporal's codec-server protocol): metadata values and
 * data are base64. Both may be absent (protobuf JSON leaves out empty fields).
 */
export class CodecPayloadDto {
  /** Metadata: name → base64 bytes (e.g. `encoding`, `encryption-key-id`). */
  @IsOptional()
  @IsBase64Map()
  metadata?: Record<string, string> | null;

  /** The payload's bytes, base64. */
  @IsOptional()
  @IsBase64()
  data?: string | null;
}

/** `POST /codec/encode` and `/codec/decode`: `{payloads: [...]}`, as the Temporal Web UI sends it. */
export class CodecPayloadsDto {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => CodecPayloadDto)
  payloads: CodecPayloadDto[];
}
