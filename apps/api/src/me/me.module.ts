import { Module } from '@nestjs/common';
import { MeController } from './me.controller';
import { MeService } from './me.service';

/** `GET /api/v1/me`. */
@Module({ controllers: [MeController], providers: [MeService] })
export class MeModule {}
