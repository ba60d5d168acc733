import { Module } from '@nestjs/common';
import { AuthController } from './auth.controller';
import { OidcService } from './oidc.service';
import { SessionsService } from './sessions.service';

/** Dashboard sessions (issue #11): sign-in, sign-out, and the session lookup ApiKeyGuard uses. */
@Module({ controllers: [AuthController], providers: [SessionsService, OidcService], exports: [SessionsService] })
export class AuthModule {}
