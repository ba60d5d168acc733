import { authFor, InMemoryDatabase, OTHER_WORKSPACE } from '../../../../test/kit';
import { AlertRulesService } from './alert-rules.service';
import type { CreateAlertRuleDto, UpdateAlertRuleDto } from './dto/alert-rule.dto';

/**
 * AlertRulesService over the in-memory kit: the channels and jobs a rule names must be the
 * workspace's (400 naming each), defaults, PATCH merge (null cooldown = the default), audit
 * entries and tenant isolation.
 */
describe('AlertRulesService', () => {
  const auth = authFor();
  let db: InMemoryDatabase;
  let service: AlertRulesService;
  let channelId: string;

  beforeEach(async () => {
    db = new InMemoryDatabase();
    const { transactions, alertRules, alertChannels, audit } = db.repositories;
    service = new AlertRulesService(transactions, alertRules, alertChannels, audit);
    channelId = await channel(auth.workspaceId, 'chn_mine');
  });

  const channel = async (workspaceId: string, id: string) => {
    await db.alertChannels.insert({
      id,
      workspaceId,
      name: id,
      kind: 'webhook',
      config: { url: 'https://example.com/alerts' },
      verified: true,
      signingSecret: 'whsec_x',
    });
    return id;
  };

  const rule = (extra: Partial<CreateAlertRuleDto> = {}) =>
    ({ name: 'failures', channel_ids: [channelId], events: ['run.failed'], ...extra }) as CreateAlertRuleDto;

  describe('create', () => {
    it('should store the rule enabled, for every job, at the 15m cooldown, and audit it', async () => {
      const created = await service.create(auth, rule());
      expect(created).toMatchObject({
        name: 'failures',
        enabled: true,
        channel_ids: [channelId],
        events: ['run.failed'],
        job_ids: null,
        tags: null,
        cooldown: '15m',
      });
      expect(db.audited()).toEqual([
        {
          actor: auth.actor,
          action: 'alert_rule.create',
          target: created.id,
          details: { name: 'failures', enabled: true, events: ['run.failed'], channel_ids: [channelId] },
        },
      ]);
    });

    it('should refuse channels and jobs not in the workspace (400 naming each) and write nothing', async () => {
      const theirChannel = await channel(OTHER_WORKSPACE, 'chn_theirs');
      const theirJob = db.addJob('active', { workspaceId: OTHER_WORKSPACE });
      const refused = service.create(auth, rule({ channel_ids: [channelId, theirChannel], job_ids: [theirJob.id] }));
      await expect(refused).rejects.toMatchObject({
        status: 400,
        body: {
          code: 'validation_failed',
          fields: { channel_ids: 'unknown alert channel: chn_theirs', job_ids: `unknown job: ${theirJob.id}` },
        },
      });
      expect(db.table('alert_rules').size).toBe(0);
      expect(db.tables.audit).toEqual([]);
    });

    it('should accept the jobs of the workspace', async () => {
      const job = db.addJob('active');
      await expect(service.create(auth, rule({ job_ids: [job.id], cooldown: '1h' }))).resolves.toMatchObject({
        job_ids: [job.id],
        cooldown: '1h',
      });
    });
  });

  describe('update', () => {
    it('should merge the PATCH, reset a null cooldown to the default, and audit what was sent', async () => {
      const { id } = await service.create(auth, rule({ cooldown: '1h', tags: ['prod'] }));
      const updated = await service.update(auth, id, {
        enabled: false,
        cooldown: null,
      } as unknown as UpdateAlertRuleDto);
      expect(updated).toMatchObject({ enabled: false, cooldown: '15m', tags: ['prod'], name: 'failures' });
      expect(db.audited()[1]).toMatchObject({
        action: 'alert_rule.update',
        target: id,
        details: { changed: ['enabled', 'cooldown'], enabled: false },
      });
    });

    it('should check only the lists a PATCH sends: a job deleted since stays harmless', async () => {
      const job = db.addJob('active');
      const { id } = await service.create(auth, rule({ job_ids: [job.id] }));
      db.tables.jobs.delete(job.id);
      await expect(service.update(auth, id, { name: 'renamed' } as UpdateAlertRuleDto)).resolves.toMatchObject({
        name: 'renamed',
      });
      await expect(service.update(auth, id, { job_ids: [job.id] } as UpdateAlertRuleDto)).rejects.toMatchObject({
        status: 400,
        body: { fields: { job_ids: `unknown job: ${job.id}` } },
      });
    });
  });

  describe('another workspace', () => {
    it('should not find, update or delete its rule (404), nor list it', async () => {
      const theirChannel = await channel(OTHER_WORKSPACE, 'chn_theirs');
      const theirs = await service.create(authFor(OTHER_WORKSPACE), rule({ channel_ids: [theirChannel] }));
      const notFound = { status: 404, body: { code: 'not_found', message: 'Alert rule not found' } };
      await expect(service.get(auth, theirs.id)).rejects.toMatchObject(notFound);
      await expect(service.update(auth, theirs.id, { name: 'x' } as UpdateAlertRuleDto)).rejects.toMatchObject(
        notFound,
      );
      await expect(service.remove(auth, theirs.id)).rejects.toMatchObject(notFound);
      await expect(service.list(auth, {})).resolves.toEqual({ data: [], next_cursor: null });
      expect(db.table('alert_rules').size).toBe(1);
    });
  });

  describe('remove', () => {
    it('should delete the rule and audit it with its name', async () => {
      const { id } = await service.create(auth, rule());
      await service.remove(auth, id);
      await expect(service.get(auth, id)).rejects.toMatchObject({ status: 404 });
      expect(db.audited()[1]).toEqual({
        actor: auth.actor,
        action: 'alert_rule.delete',
        target: id,
        details: { name: 'failures' },
      });
    });
  });
});
