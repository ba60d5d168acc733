import { ScheduledJobsConfigError } from '../src/errors';
import { buildJobSet, describeApplyFields, durationMs, JOB_KEY_HEADER } from '../src/job-set';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('the job set of the discovered methods', () => {
  it('should map each method to one apply entry: a webhook to the receiver with its key in a header', () => {
    const entries = buildJobSet(
      [
        {
          methodName: 'BillingService.closeDay',
          options: {
            key: 'billing.close-day',
            schedule: 'every day at 23:55',
            timezone: 'Europe/Paris',
            timeout: '10s',
          },
        },
        { methodName: 'ReportService.send', options: { key: 'reports', schedule: 'every 5 seconds', tags: ['r'] } },
      ],
      'https://app.example.com/scheduled-jobs',
      SECRET,
    );
    expect(entries).toEqual([
      {
        key: 'billing.close-day',
        name: 'BillingService.closeDay',
        schedule: { expr: 'every day at 23:55', timezone: 'Europe/Paris' },
        sink: {
          kind: 'webhook',
          config: {
            url: 'https://app.example.com/scheduled-jobs',
            method: 'POST',
            headers: { [JOB_KEY_HEADER]: 'billing.close-day' },
          },
        },
        signing_secret: SECRET,
        timeout: '10s',
      },
      {
        key: 'reports',
        name: 'ReportService.send',
        schedule: { expr: 'every 5 seconds' },
        sink: {
          kind: 'webhook',
          config: {
            url: 'https://app.example.com/scheduled-jobs',
            method: 'POST',
            headers: { [JOB_KEY_HEADER]: 'reports' },
          },
        },
        signing_secret: SECRET,
        tags: ['r'],
      },
    ]);
  });

  it('should refuse one key on two methods, naming both', () => {
    const build = () =>
      buildJobSet(
        [
          { methodName: 'A.one', options: { key: 'same', schedule: 'every hour' } },
          { methodName: 'B.two', options: { key: 'same', schedule: 'every day' } },
        ],
        'http://x',
        SECRET,
      );
    expect(build).toThrow(ScheduledJobsConfigError);
    expect(build).toThrow('B.two: key "same" is already declared by A.one');
  });

  it("should name the method in the service's validation fields", () => {
    const jobs = [
      { methodName: 'ReportService.send', options: { key: 'a', schedule: 'every hour' } },
      { methodName: 'BillingService.closeDay', options: { key: 'b', schedule: 'every mondy' } },
    ];
    expect(describeApplyFields({ 'jobs[1].schedule.expr': 'unknown word "mondy"' }, jobs)).toBe(
      'BillingService.closeDay: unknown word "mondy"',
    );
    expect(describeApplyFields({ managed_by: 'required', 'jobs[0].timeout': 'too long' }, jobs)).toBe(
      'managed_by: required; ReportService.send: too long',
    );
  });

  it('should read durations as the service writes them', () => {
    expect(durationMs('30s')).toBe(30_000);
    expect(durationMs('1m30s')).toBe(90_000);
    expect(durationMs('1500ms')).toBe(1500);
    expect(durationMs('soon')).toBeNull();
    expect(durationMs('30s later')).toBeNull();
  });
});
