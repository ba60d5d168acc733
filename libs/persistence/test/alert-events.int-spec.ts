import { alertEventId, newAlertEvent } from '@svc/common/alert-events';
import { newId } from '@svc/workflow-contract/ids';
import { AlertChannelsRepository, AlertEventsRepository, AlertRulesRepository } from '../src/repositories';
import { createWorkspace, insertJob } from './fixtures';
import { useScratchDatabase } from './scratch-database';

/** Issue 10: alert events recorded once, planned once, cooldown per rule, job and type, the SLA watch. */
describe('alert events repository', () => {
  const scratch = useScratchDatabase('alerts', { poolSize: 4 });
  let events: AlertEventsRepository;
  let channels: AlertChannelsRepository;
  let rules: AlertRulesRepository;

  beforeAll(async () => {
    events = new AlertEventsRepository(scratch.ds);
    channels = new AlertChannelsRepository(scratch.ds);
    rules = new AlertRulesRepository(scratch.ds);
  });

  async function setup(rule: { events?: string[]; cooldownMs?: number; tags?: string[] | null } = {}) {
    const ws = await createWorkspace(scratch.ds);
    const channelId = newId('channel');
    const unverifiedId = newId('channel');
    const ruleId = newId('rule');
    await scratch.ds.transaction(async (m) => {
      await channels.insert(
        {
          id: channelId,
          workspaceId: ws.id,
          name: 'hook',
          kind: 'webhook',
          config: { url: 'http://x' },
          verified: true,
          signingSecret: 'whsec_AAAA',
        },
        m,
      );
      await channels.insert(
        {
          id: unverifiedId,
          workspaceId: ws.id,
          name: 'mail',
          kind: 'email',
          config: { address: 'a@b.c' },
          verified: false,
          signingSecret: null,
        },
        m,
      );
      await rules.insert(
        ws.id,
        ruleId,
        {
          name: 'r',
          enabled: true,
          channelIds: [channelId, unverifiedId],
          events: rule.events ?? ['run.failed'],
          jobIds: null,
          tags: rule.tags ?? null,
          cooldownMs: rule.cooldownMs ?? 0,
        },
        m,
      );
    });
    return { workspaceId: ws.id, channelId, unverifiedId, ruleId };
  }

  function failed(workspaceId: string, runId: string, at: Date, tags: string[] = []) {
    return newAlertEvent('run.failed', at, {
      workspaceId,
      job: { id: 'job_1', name: 'nightly', timezone: 'Europe/Berlin', tags },
      run: {
        id: runId,
        scheduled_at: at.toISOString(),
        trigger: 'schedule',
        status: 'failed',
        attempts: 3,
        last_error: 'HTTP 500',
        finished_at: at.toISOString(),
      },
    });
  }

  it('should record an occurrence once, and nothing for a workspace with no rule for the type', async () => {
    const { workspaceId } = await setup();
    const event = failed(workspaceId, newId('run'), new Date());
    expect(await events.record([event])).toEqual([event.id]);
    expect(await events.record([event])).toEqual([]);
    expect(event.id).toBe(alertEventId('run.failed', event.runId!));

    const quiet = await setup({ events: ['job.recovered'] });
    expect(await events.record([failed(quiet.workspaceId, newId('run'), new Date())])).toEqual([]);
  });

  it('should plan once: verified channels only, and a second plan changes nothing', async () => {
    const { workspaceId, channelId } = await setup();
    const event = failed(workspaceId, newId('run'), new Date());
    await events.record([event]);
    const first = await events.plan(event.id);
    expect(first?.pendingChannelIds).toEqual([channelId]);
    await events.recordAttempt(event.id, channelId, { status: 'sent', error: null, at: new Date() });
    const again = await events.plan(event.id);
    expect(again?.pendingChannelIds).toEqual([]);
    expect(await events.deliveries(event.id)).toEqual([{ channelId, status: 'sent', attempts: 1, lastError: null }]);
  });

  it('should let one event per rule, job and type through a cooldown window, whichever worker plans it', async () => {
    const { workspaceId, channelId } = await setup({ cooldownMs: 60_000 });
    const t0 = new Date('2026-01-01T00:00:00Z');
    const a = failed(workspaceId, newId('run'), t0);
    const b = failed(workspaceId, newId('run'), new Date(t0.getTime() + 30_000));
    const c = failed(workspaceId, newId('run'), new Date(t0.getTime() + 61_000));
    await events.record([a, b, c]);
    const plans = await Promise.all([events.plan(a.id), events.plan(b.id)]);
    expect(plans.map((p) => p!.pendingChannelIds.length).sort()).toEqual([0, 1]);
    expect((await events.plan(c.id))!.pendingChannelIds).toEqual([channelId]);
  });

  it('should match rules by tag', async () => {
    const { workspaceId, channelId } = await setup({ tags: ['prod'] });
    const other = failed(workspaceId, newId('run'), new Date(), ['dev']);
    const prod = failed(workspaceId, newId('run'), new Date(), ['prod', 'eu']);
    await events.record([other, prod]);
    expect((await events.plan(other.id))!.pendingChannelIds).toEqual([]);
    expect((await events.plan(prod.id))!.pendingChannelIds).toEqual([channelId]);
  });

  it('should mark in-flight runs past their SLA once and record one event each', async () => {
    const { workspaceId } = await setup({ events: ['run.sla_breached'] });
    const jobId = await insertJob(scratch.ds, workspaceId, {
      name: 'slow',
      timezone: 'Asia/Tokyo',
      slaThresholdMs: 60_000,
      tags: ['a'],
    });
    const late = newId('run');
    const onTime = newId('run');
    const now = new Date();
    for (const [id, ageMs] of [
      [late, 120_000],
      [onTime, 10_000],
    ] as const) {
      await scratch.ds.query(
        `INSERT INTO runs (id, workspace_id, job_id, job_version, scheduled_at, trigger, status, claimed_at)
         VALUES ($1, $2, $3, 1, $4, 'schedule', 'deferred', now())`,
        [id, workspaceId, jobId, new Date(now.getTime() - ageMs)],
      );
    }
    expect(await events.markSlaBreachesInFlight(now, 300_000, 100)).toEqual({
      marked: 1,
      eventIds: [alertEventId('run.sla_breached', late)],
    });
    expect(await events.markSlaBreachesInFlight(now, 300_000, 100)).toEqual({ marked: 0, eventIds: [] });
    const rows: Array<{ id: string; sla_breached: boolean }> = await scratch.ds.query(
      `SELECT id, sla_breached FROM runs WHERE job_id = $1 ORDER BY id`,
      [jobId],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.sla_breached]))).toEqual({ [late]: true, [onTime]: false });
    const planned = await events.plan(alertEventId('run.sla_breached', late));
    expect(planned?.event.details).toMatchObject({
      job: { id: jobId, name: 'slow', timezone: 'Asia/Tokyo', tags: ['a'] },
      run: { id: late, status: 'deferred' },
      sla_threshold_ms: 60_000,
      still_running: true,
    });
  });

  it('should record a service event once per listening workspace, and cool it down per rule and dependency', async () => {
    const a = await setup({ events: ['service.degraded', 'service.recovered'], cooldownMs: 60_000, tags: ['prod'] });
    const b = await setup({ events: ['service.degraded'] });
    await setup({ events: ['run.failed'] });
    const details = (dependency: string, began: Date) => ({
      service: {
        dependency,
        cause: 'down',
        began_at: began.toISOString(),
        degraded_at: new Date(began.getTime() + 30_000).toISOString(),
        ended_at: null,
        duration_ms: null,
        observed_by: 'host:1',
      },
    });
    const began = new Date('2026-11-28T10:00:00Z');
    const at = new Date(began.getTime() + 30_000);
    const ids = await events.recordServiceEvent('service.degraded', at, details('temporal', began));
    expect(ids).toHaveLength(2);
    expect(await events.recordServiceEvent('service.degraded', at, details('temporal', began))).toEqual([]);
    const stored: Array<{ workspace_id: string; job_id: string | null }> = await scratch.ds.query(
      `SELECT workspace_id, job_id FROM alert_events WHERE id = ANY($1::text[]) ORDER BY workspace_id`,
      [ids],
    );
    expect(stored.map((row) => row.workspace_id).sort()).toEqual([a.workspaceId, b.workspaceId].sort());
    expect(stored.every((row) => row.job_id === null)).toBe(true);
    // The rule's tags narrow jobs, not the service: A's rule (tags: prod) still routes it.
    const planned = await Promise.all(ids.map((id) => events.plan(id)));
    expect(planned.map((p) => p!.pendingChannelIds).sort()).toEqual([[a.channelId], [b.channelId]].sort());

    // A second worker telling the same outage moments later: held back by A's cooldown (60 s);
    // B's rule has none.
    const later = new Date(began.getTime() + 2_000);
    const second = await events.recordServiceEvent(
      'service.degraded',
      new Date(at.getTime() + 2_000),
      details('temporal', later),
    );
    const replanned = await Promise.all(second.map((id) => events.plan(id)));
    const byWorkspace = new Map(replanned.map((p) => [p!.event.workspaceId, p!.pendingChannelIds]));
    expect(byWorkspace.get(a.workspaceId)).toEqual([]);
    expect(byWorkspace.get(b.workspaceId)).toEqual([b.channelId]);
    // Another dependency has its own window.
    const pg = await events.recordServiceEvent('service.degraded', at, details('postgres', began));
    const pgPlanned = await Promise.all(pg.map((id) => events.plan(id)));
    expect(pgPlanned.find((p) => p!.event.workspaceId === a.workspaceId)!.pendingChannelIds).toEqual([a.channelId]);
  });

  it('should take a deleted channel out of every rule', async () => {
    const { workspaceId, channelId, ruleId } = await setup();
    await scratch.ds.transaction((m) => channels.delete(workspaceId, channelId, m));
    expect((await rules.findById(workspaceId, ruleId))!.channelIds).not.toContain(channelId);
  });
});
