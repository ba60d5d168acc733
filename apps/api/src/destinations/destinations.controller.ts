import { Body, Controller, Get, Param, Put, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { ApiOperation, createdOrReplaced, ServerChecks } from '../common/openapi/openapi.decorators';
import { DestinationToFindPipe, DestinationToWritePipe } from './destination.pipe';
import { DESTINATION_LIST_SCHEMA, DESTINATION_SCHEMA } from './destination-response.schema';
import { DestinationsService } from './destinations.service';
import { DestinationLimitsDto } from './dto/destination-limits.dto';
import { DeleteRoute, GetRoute } from '../auth/route.decorators';

const DESTINATION_CHECK = {
  destination: 'a port, when given, from 1 to 65535',
  path: 'at most 128 characters of destination as sent (a percent-encoded character counts 3)',
};
const LIMITS_BODY =
  '`{destination}` is a webhook URL’s `host:port` (the scheme’s default port filled in: `hooks.example.com:443`) ' +
  'or a name jobs set in `sink.config.destination`. Every attempt of every job of the workspace towards it counts, ' +
  'on every worker; an attempt that must wait leaves its run `deferred` (`deferred_reason`) and spends no retry. ' +
  'Limits of 0 or less are refused (`400` naming the field); workers apply a change within 5 seconds.';

/** Destination limits: shared by every job and worker of the workspace. */
@Controller('api/v1/destinations')
export class DestinationsController {
  constructor(private readonly destinations: DestinationsService) {}

  @Get()
  @Scopes('jobs:read')
  @ApiOperation('List the workspace’s destination limits with what is in flight, waiting and held now', {
    200: DESTINATION_LIST_SCHEMA,
  })
  list(@Auth() auth: AuthContext) {
    return this.destinations.list(auth);
  }

  @ServerChecks(DESTINATION_CHECK)
  @GetRoute(
    ':destination',
    'jobs:read',
    'A destination’s limits with what is in flight, waiting and held now',
    DESTINATION_SCHEMA,
  )
  get(@Auth() auth: AuthContext, @Param('destination', DestinationToFindPipe) destination: string) {
    return this.destinations.get(auth, destination);
  }

  @ServerChecks(DESTINATION_CHECK)
  @Put(':destination')
  @Scopes('jobs:write')
  @ApiOperation('Set (201) or replace (200) a destination’s limits', createdOrReplaced(DESTINATION_SCHEMA), LIMITS_BODY)
  async put(
    @Auth() auth: AuthContext,
    @Param('destination', DestinationToWritePipe) destination: string,
    @Body() body: DestinationLimitsDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { created, destination: written } = await this.destinations.put(auth, destination, body);
    void reply.status(created ? 201 : 200);
    return written;
  }

  @ServerChecks(DESTINATION_CHECK)
  @DeleteRoute(':destination', 'jobs:write', 'Remove a destination’s limits (its attempts are no longer counted)')
  async remove(@Auth() auth: AuthContext, @Param('destination', DestinationToFindPipe) destination: string) {
    await this.destinations.remove(auth, destination);
  }
}
