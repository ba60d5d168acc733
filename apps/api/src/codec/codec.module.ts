import { Module } from '@nestjs/common';
import { CodecCorsHook } from './codec-cors.hook';
import { CodecController } from './codec.controller';
import { CodecService } from './codec.service';

/** The codec server: `POST /codec/encode`, `/codec/decode` and their CORS. */
@Module({ controllers: [CodecController], providers: [CodecService, CodecCorsHook] })
export class CodecModule {}
