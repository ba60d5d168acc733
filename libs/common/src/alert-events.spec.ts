import { alertEventId, ALERT_EVENT_TYPES, ruleMatches, serviceAlertEventId } from './alert-events';

describe('alert events', () => {
  describe('alertEventId', () => {
    it('should give one occurrence (type, run) always the same id', () => {
      expect(alertEventId('run.failed', 'run_01J0000000000000000000000A')).toBe(
        alertEventId('run.failed', 'run_01J0000000000000000000000A'),
      );
    });

    it('should give each type and each run its own id, in the evt_ + 26 Crockford characters form', () => {
      const ids = new Set<string>();
      for (const type of ALERT_EVENT_TYPES) {
        for (const run of ['run_A', 'run_B']) {
          const id = alertEventId(type, run);
          expect(id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
          ids.add(id);
        }
      }
      expect(ids.size).toBe(ALERT_EVENT_TYPES.length * 2);
    });
  });

  describe('serviceAlertEventId', () => {
    const began = new Date('2026-11-28T10:00:00.000Z');

    it('should give one transition of one dependency in one workspace always the same id', () => {
      expect(serviceAlertEventId('service.degraded', 'ws_1', 'temporal', began)).toBe(
        serviceAlertEventId('service.degraded', 'ws_1', 'temporal', new Date(began.getTime())),
      );
      expect(serviceAlertEventId('service.degraded', 'ws_1', 'temporal', began)).toMatch(
        /^evt_[0-9A-HJKMNP-TV-Z]{26}$/,
      );
    });

    it('should tell types, workspaces, dependencies and streaks apart', () => {
      const ids = new Set([
        serviceAlertEventId('service.degraded', 'ws_1', 'temporal', began),
        serviceAlertEventId('service.recovered', 'ws_1', 'temporal', began),
        serviceAlertEventId('service.degraded', 'ws_2', 'temporal', began),
        serviceAlertEventId('service.degraded', 'ws_1', 'postgres', began),
        serviceAlertEventId('service.degraded', 'ws_1', 'temporal', new Date(began.getTime() + 1)),
      ]);
      expect(ids.size).toBe(5);
    });
  });

  describe('ruleMatches', () => {
    const rule = { enabled: true, events: ['run.failed'], jobIds: null, tags: null };

    it('should match every job of a listed type when no filter is set', () => {
      expect(ruleMatches(rule, 'run.failed', 'job_1', [])).toBe(true);
      expect(ruleMatches({ ...rule, jobIds: [], tags: [] }, 'run.failed', 'job_1', [])).toBe(true);
    });

    it('should not match a disabled rule or an unlisted type', () => {
      expect(ruleMatches({ ...rule, enabled: false }, 'run.failed', 'job_1', [])).toBe(false);
      expect(ruleMatches(rule, 'job.recovered', 'job_1', [])).toBe(false);
    });

    it('should narrow by job_ids and by any shared tag, both when both are set', () => {
      expect(ruleMatches({ ...rule, jobIds: ['job_1'] }, 'run.failed', 'job_2', [])).toBe(false);
      expect(ruleMatches({ ...rule, tags: ['prod', 'eu'] }, 'run.failed', 'job_2', ['eu'])).toBe(true);
      expect(ruleMatches({ ...rule, tags: ['prod'] }, 'run.failed', 'job_2', ['dev'])).toBe(false);
      const both = { ...rule, jobIds: ['job_1'], tags: ['prod'] };
      expect(ruleMatches(both, 'run.failed', 'job_1', ['prod'])).toBe(true);
      expect(ruleMatches(both, 'run.failed', 'job_1', ['dev'])).toBe(false);
    });

    it('should match service events by type alone: job_ids and tags narrow jobs, not the service', () => {
      const service = { enabled: true, events: ['service.degraded'], jobIds: ['job_1'], tags: ['prod'] };
      expect(ruleMatches(service, 'service.degraded', null, [])).toBe(true);
      expect(ruleMatches(service, 'service.recovered', null, [])).toBe(false);
      expect(ruleMatches({ ...service, enabled: false }, 'service.degraded', null, [])).toBe(false);
    });
  });
});
