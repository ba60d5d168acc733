import { Module } from '@nestjs/common';
import { AuthController } from './auth.controller';
import { SessionsService } from './sessions.service';
import { SignInProviders } from './sign-in-providers.service';

/** Dashboard sessions (issue #11): sign-in, sign-out, and the session lookup ApiKeyGuard uses. */
@Module({ controllers: [AuthController], providers: [SessionsService, SignInProviders], exports: [SessionsService] })
export class AuthModule {}
