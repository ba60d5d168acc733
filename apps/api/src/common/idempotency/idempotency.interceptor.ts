import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { callerCredentialOf, sealedFieldReplay } from './caller-seal';
import { idempotentOptions } from './idempotent.decorator';
import { IdempotencyService } from './idempotency.service';

/** Authenticated by ApiKeyGuard, which ran before (it sets `auth` and remembers the credential). */
type IdempotentRequest = FastifyRequest & { auth: { workspaceId: string } };

/**
 * `Idempotency-Key` for every `@Idempotent()` route, so their handlers stay one call deep
 * (style.md rule 1): the record is per workspace, route (method and path, the path's ids as sent)
 * and key; IdempotencyService claims it, runs the handler, and replays or refuses. A replay
 * answers with the route's status, the one the first answer had. Guards ran before (the caller
 * is known); the body's validation runs in the handler's pipes, inside the claim, so a refused
 * body releases its key.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const options = idempotentOptions(context.getHandler());
    const request = context.switchToHttp().getRequest<IdempotentRequest>();
    const key = request.headers['idempotency-key'] as string | undefined;
    if (options === undefined || key === undefined) {
      return next.handle();
    }
    const { auth } = request;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const codec =
      options.sealed === undefined
        ? undefined
        : sealedFieldReplay<Record<string, unknown>>(
            options.sealed,
            callerCredentialOf(request),
            `${auth.workspaceId}\n${key}`,
          );
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return from(
      this.idempotency.execute(
        auth,
        routeScope(request),
        key,
        options.fingerprint ? options.fingerprint(body) : body,
        () => lastValueFrom(next.handle(), { defaultValue: undefined }) as Promise<Record<string, unknown>>,
        codec,
        () => reply.statusCode,
      ),
    );
  }
}

/** `POST /api/v1/jobs/job_01…/trigger`: the method and the route with its parameters as sent. */
function routeScope(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, string>;
  const path = request.routeOptions.url ?? request.url.split('?')[0];
  return `${request.method} ${path.replace(/:(\w+)/g, (whole, name: string) => params[name] ?? whole)}`;
}
