import type { BeforeApplicationShutdown, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { dataConverterOptions } from '@svc/common/temporal-data-converter';

/** Injection tokens of the worker's providers that are values rather than classes. */
export const WORKER_CONFIG = Symbol('WORKER_CONFIG');
/** The data converter of every client and worker of the process (`{}` with the payload codec off). */
export const DATA_CONVERTER = Symbol('DATA_CONVERTER');
export type DataConverterOptions = ReturnType<typeof dataConverterOptions>;
/** A client over the worker's own connection: runs started there come back to this worker (eager start). */
export const WORKER_CLIENT = Symbol('WORKER_CLIENT');
/** The `JobWorkflowGateway` over `WORKER_CLIENT`, for the activities that start runs. */
export const EAGER_JOB_GATEWAY = Symbol('EAGER_JOB_GATEWAY');
/** The worker's Prometheus instruments (`WorkerMetrics`). */
export const WORKER_METRICS = Symbol('WORKER_METRICS');
/** The activities of the job task queue (`createActivities`). */
export const JOB_ACTIVITIES = Symbol('JOB_ACTIVITIES');
/** The activities of the alerts task queue (`createAlertActivities`). */
export const ALERT_ACTIVITIES = Symbol('ALERT_ACTIVITIES');
/** The logger context of the worker's own lines (start-up, passes, activity warnings). */
export const WORKER_LOG_CONTEXT = 'Worker';

/**
 * A part of the worker started at bootstrap and stopped in two steps: `beforeApplicationShutdown`
 * stops what starts new work (timers, polling), `onApplicationShutdown` awaits the work in flight
 * before the connections close. The periodic passes, the health monitor and the queue workers.
 */
export type StartedAtBootstrap = OnApplicationBootstrap & BeforeApplicationShutdown & OnApplicationShutdown;
