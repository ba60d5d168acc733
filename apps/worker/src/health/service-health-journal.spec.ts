import { ServiceAlertOutbox, type ServiceHealthTransition } from '@svc/common/service-health';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_ALERTS_FILE, ServiceHealthJournal, STATE_LOCK_FILE } from './service-health-journal';

const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 10, 0, s));

const degraded: ServiceHealthTransition = {
  dependency: 'postgres',
  kind: 'degraded',
  since: at(0),
  degradedAt: at(30),
  at: at(30),
  cause: 'connect ECONNREFUSED 127.0.0.1:5432',
};
const recovered: ServiceHealthTransition = { ...degraded, kind: 'recovered', at: at(180) };

describe('ServiceHealthJournal', () => {
  let dir: string;
  let warnings: string[];
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'svc-journal-')), 'worker');
    warnings = [];
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  const journal = (pid?: number) => new ServiceHealthJournal(dir, (m) => warnings.push(m), pid);

  it('should keep waiting transitions and told degradations for the next process in the folder', () => {
    const first = journal();
    expect(first.open()).toEqual({ alerts: [], degradations: [], unreadable: 0 });
    const outbox = new ServiceAlertOutbox(100, first);
    outbox.add(degraded);
    first.saveDegradations([{ dependency: 'postgres', since: at(0), degradedAt: at(30), cause: 'refused' }]);
    // Killed here: nothing closed. The next process takes the folder up.
    const second = journal();
    const kept = second.open();
    expect(kept?.degradations).toEqual([
      { dependency: 'postgres', since: at(0), degradedAt: at(30), cause: 'refused' },
    ]);
    const restored = new ServiceAlertOutbox(100, second);
    restored.restore(kept!.alerts);
    restored.add(recovered);
    expect(restored.pending().map((a) => [a.type, a.beganAt, a.endedAt])).toEqual([
      ['service.degraded', at(0), at(180)],
      ['service.recovered', at(0), at(180)],
    ]);
    // Recorded: the file keeps only what still waits.
    restored.recorded(2);
    expect(readFileSync(join(dir, SERVICE_ALERTS_FILE), 'utf8')).toBe('');
    expect(journal().open()?.alerts).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('should leave out a line a crash cut short', () => {
    const first = journal();
    first.open();
    new ServiceAlertOutbox(100, first).add(degraded);
    appendFileSync(join(dir, SERVICE_ALERTS_FILE), '{"id":"service.recovered:postgres:2026-11-28T10:00:00.000Z","ty');
    const kept = journal().open();
    expect(kept?.alerts.map((a) => a.type)).toEqual(['service.degraded']);
    expect(kept?.unreadable).toBe(1);
  });

  it('should stay off (memory only, with a warning) while another live worker holds the folder', () => {
    journal().open();
    writeFileSync(join(dir, STATE_LOCK_FILE), `${process.ppid}\n`);
    const second = journal();
    expect(second.open()).toBeNull();
    expect(second.active).toBe(false);
    expect(warnings[0]).toMatch(new RegExp(`used by worker pid ${process.ppid}.*own worker.state_dir`));
    new ServiceAlertOutbox(100, second).add(degraded);
    expect(existsSync(join(dir, SERVICE_ALERTS_FILE))).toBe(false);
  });

  it('should take over a folder whose worker is gone', () => {
    const first = journal();
    first.open();
    new ServiceAlertOutbox(100, first).add(degraded);
    writeFileSync(join(dir, STATE_LOCK_FILE), '2147483646\n');
    expect(journal().open()?.alerts).toHaveLength(1);
    expect(readFileSync(join(dir, STATE_LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
  });

  it('should warn and keep to memory when the folder cannot be made', () => {
    writeFileSync(join(dir, '..', 'file'), '');
    const blocked = new ServiceHealthJournal(join(dir, '..', 'file', 'worker'), (m) => warnings.push(m));
    expect(blocked.open()).toBeNull();
    expect(warnings[0]).toMatch(/cannot keep transitions in .*file\/worker .*memory only/);
  });
});
