import { addLogFields, createLogger, type LogLevelName } from '@svc/common/logging';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { activityLogInterceptor, logFieldsOfInput, TemporalPinoLogger } from './logging';

function capture(level: LogLevelName = 'trace') {
  const lines: string[] = [];
  const logger = createLogger({ name: 'worker', level, destination: { write: (line: string) => lines.push(line) } });
  return { logger, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, any>), lines };
}

describe('worker logging (docs/operations.md → Logs)', () => {
  describe('TemporalPinoLogger', () => {
    it("should write the SDK's lines as JSON with snake_case attributes, the run named, the task token dropped", () => {
      const { logger, parsed, lines } = capture();
      const temporal = new TemporalPinoLogger(logger);
      temporal.warn('Activity failed', {
        sdkComponent: 'worker',
        workflowId: 'run_01KAAAAAAAAAAAAAAAAAAAAAAA',
        workflowType: 'runWorkflow',
        workflowRunId: '0198-temporal-uuid',
        activityType: 'runAttempt',
        taskToken: 'dGFzay10b2tlbi1ieXRlcw==',
        attempt: 4,
        durationMs: 12,
        error: new Error('HTTP 503'),
      });
      temporal.info('Workflow started', { workflowId: 'job_01KBBBBBBBBBBBBBBBBBBBBBBB', workflowType: 'jobWorkflow' });
      const [failed, started] = parsed();
      expect(failed).toMatchObject({
        level: 'warn',
        msg: 'Activity failed',
        sdk_component: 'worker',
        workflow_id: 'run_01KAAAAAAAAAAAAAAAAAAAAAAA',
        workflow_type: 'runWorkflow',
        temporal_run_id: '0198-temporal-uuid',
        activity_type: 'runAttempt',
        duration_ms: 12,
        activity_attempt: 4,
        run_id: 'run_01KAAAAAAAAAAAAAAAAAAAAAAA',
        err: { type: 'Error', message: 'HTTP 503' },
      });
      expect(failed.task_token).toBeUndefined();
      expect(failed.attempt).toBeUndefined(); // Temporal's retry counter is not the run's attempt number
      expect(lines[0]).not.toContain('dGFzay10b2tlbi1ieXRlcw==');
      expect(started).toMatchObject({ level: 'info', job_id: 'job_01KBBBBBBBBBBBBBBBBBBBBBBB' });
    });

    it("should skip levels below the logger's", () => {
      const { logger, parsed } = capture('warn');
      const temporal = new TemporalPinoLogger(logger);
      temporal.debug('Activity started');
      temporal.log('INFO', 'Worker state changed');
      temporal.error('Worker failed');
      expect(parsed().map((line) => line.msg)).toEqual(['Worker failed']);
    });

    it("should write the SDK's 'Workflow failed' of a run that failed (RunFailed) at info, any other at warn", () => {
      const { logger, parsed } = capture('debug');
      const temporal = new TemporalPinoLogger(logger);
      const meta = { workflowId: 'run_01KAAAAAAAAAAAAAAAAAAAAAAA', workflowType: 'runWorkflow' };
      temporal.warn('Workflow failed', { ...meta, error: ApplicationFailure.nonRetryable('HTTP 500', 'RunFailed') });
      temporal.warn('Workflow failed', { ...meta, error: ApplicationFailure.nonRetryable('boom', 'TypeError') });
      expect(parsed().map((line) => [line.msg, line.level])).toEqual([
        ['Workflow failed', 'info'],
        ['Workflow failed', 'warn'],
      ]);
    });

    it("should write the SDK's warning about the parked worker's missing activities at debug, as intended", () => {
      const { logger, parsed } = capture('debug');
      const temporal = new TemporalPinoLogger(logger);
      temporal.warn('No activities registered, not polling for activity tasks', { taskQueue: 'svc-jobs-parked' });
      temporal.warn('Activity failed');
      expect(parsed().map((line) => [line.level, line.msg])).toEqual([
        ['debug', 'No activities registered, not polling for activity tasks'],
        ['warn', 'Activity failed'],
      ]);
    });
  });

  it('should read the ids an activity input names', () => {
    expect(logFieldsOfInput({ runId: 'run_1', jobId: 'job_1', workspaceId: 'ws_1', trigger: 'manual' })).toEqual({
      run_id: 'run_1',
      job_id: 'job_1',
      workspace_id: 'ws_1',
    });
    expect(logFieldsOfInput({ jobId: 'job_1', workspaceId: 'ws_1', run: { runId: 'run_2' } })).toEqual({
      run_id: 'run_2',
      job_id: 'job_1',
      workspace_id: 'ws_1',
    });
    expect(logFieldsOfInput({ eventId: 'ev_1' })).toEqual({});
    expect(logFieldsOfInput(undefined)).toEqual({});
    expect(logFieldsOfInput('run_1')).toEqual({});
  });

  it("should put the activity's ids and attempt on its own lines and on the SDK's attributes", async () => {
    const { logger, parsed } = capture();
    const { inbound, outbound } = activityLogInterceptor({} as never);
    const input = { args: [{ runId: 'run_1', jobId: 'job_1', workspaceId: 'ws_1' }], headers: {} } as unknown;
    await inbound!.execute!(input as ActivityExecuteInput, async () => {
      logger.info('claimed');
      addLogFields({ attempt: 2 });
      await Promise.resolve();
      logger.warn('attempt failed; retrying');
    });
    logger.info('outside the activity');
    expect(parsed().map((line) => [line.msg, line.run_id, line.job_id, line.workspace_id, line.attempt])).toEqual([
      ['claimed', 'run_1', 'job_1', 'ws_1', undefined],
      ['attempt failed; retrying', 'run_1', 'job_1', 'ws_1', 2],
      ['outside the activity', undefined, undefined, undefined, undefined],
    ]);
    // The SDK's "Activity failed", written after the activity returned, outside its context.
    const attributes = outbound!.getLogAttributes!(
      { attempt: 3, taskToken: 'secret-token', activityType: 'runAttempt' },
      (a) => a,
    );
    new TemporalPinoLogger(logger).warn('Activity failed', attributes);
    expect(parsed()[3]).toMatchObject({
      msg: 'Activity failed',
      activity_type: 'runAttempt',
      activity_attempt: 3,
      run_id: 'run_1',
      job_id: 'job_1',
      workspace_id: 'ws_1',
      attempt: 2,
    });
    expect(parsed()[3].task_token).toBeUndefined();
  });
});
