import type { FastifyReply } from 'fastify';

/**
 * The answer of a route that accepts work with `202` and answers a dry run (`dry_run: true` in the
 * answer, which changes nothing) with `200`: backfills, bulk actions and recover share the rule.
 */
export function withDryRunStatus<T extends object>(reply: FastifyReply, answer: T): T {
  if ((answer as { dry_run?: unknown }).dry_run === true) {
    void reply.status(200);
  }
  return answer;
}
