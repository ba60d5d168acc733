import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './api-key.guard';
import { AuthController } from './auth.controller';
import { SessionsService } from './sessions.service';
import { SignInProviders } from './sign-in-providers.service';

/**
 * Who is calling (docs/api.md, decisions.md → Sessions): `ApiKeyGuard` on every route (API keys,
 * session cookies, the CSRF check, scopes), dashboard sign-in and sign-out, and the sessions
 * behind them. Routes declare what they need with `auth.decorators.ts`.
 */
@Module({
  controllers: [AuthController],
  providers: [SessionsService, SignInProviders, { provide: APP_GUARD, useClass: ApiKeyGuard }],
})
export class AuthModule {}
