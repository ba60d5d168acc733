import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '@svc/common';
import { AuditRepository, DestinationsRepository, Transactions } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import type { DestinationLimitsDto } from './dto/destination-limits.dto';
import { toDestinationResponse } from './destinations.mapper';

/**
 * Destination limits (docs/delivery.md → Destination limits): per workspace, how many
 * attempts one destination gets at once and per minute, and whether a `Retry-After` holds it for
 * every job. The worker enforces them; this service writes them and reads their shared state.
 */
@Injectable()
export class DestinationsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly destinations: DestinationsRepository,
    private readonly audit: AuditRepository,
  ) {}

  async list(auth: AuthContext) {
    return { data: (await this.destinations.list(auth.workspaceId)).map(toDestinationResponse) };
  }

  async get(auth: AuthContext, destination: string) {
    const row = await this.destinations.get(auth.workspaceId, destination);
    if (!row) {
      throw new NotFoundError('Destination');
    }
    return toDestinationResponse(row);
  }

  /** `PUT /destinations/{destination}`: creates or replaces its limits (leases and a hold stay). */
  async put(auth: AuthContext, destination: string, dto: DestinationLimitsDto) {
    // `null` counts as absent (class-validator's IsOptional lets it through).
    const settings = {
      maxInFlight: dto.max_in_flight ?? null,
      perMinute: dto.per_minute ?? null,
      on429: dto.on_429 ?? null,
    };
    if (settings.maxInFlight === null && settings.perMinute === null && settings.on429 === null) {
      throw new ValidationFailedError({
        max_in_flight: 'set at least one of max_in_flight, per_minute and on_429',
      });
    }
    return this.transactions.run(async (tx) => {
      const created = await this.destinations.upsert(auth.workspaceId, destination, settings, tx);
      await this.audit.insert(
        auth.workspaceId,
        {
          actor: auth.actor,
          action: created ? 'destination.create' : 'destination.update',
          target: destination,
          details: { max_in_flight: settings.maxInFlight, per_minute: settings.perMinute, on_429: settings.on429 },
        },
        tx,
      );
      const row = (await this.destinations.get(auth.workspaceId, destination, tx))!;
      return { created, destination: toDestinationResponse(row) };
    });
  }

  /** `DELETE /destinations/{destination}`: its attempts are no longer limited (workers see it within seconds). */
  async remove(auth: AuthContext, destination: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      if (!(await this.destinations.delete(auth.workspaceId, destination, tx))) {
        throw new NotFoundError('Destination');
      }
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'destination.delete', target: destination },
        tx,
      );
    });
  }
}
