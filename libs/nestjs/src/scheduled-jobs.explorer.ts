import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { DiscoveredJob } from './job-set';
import { type ScheduledJobContext, SCHEDULED_JOB_METADATA, type ScheduledJobOptions } from './scheduled-job.decorator';

/** A decorated method found on a provider instance, callable with its `this`. */
export interface ExploredJob extends DiscoveredJob {
  call(context: ScheduledJobContext): unknown;
}

/** Finds every `@ScheduledJob` method on the app's singleton providers and controllers. */
@Injectable()
export class ScheduledJobsExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  explore(): ExploredJob[] {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    const seen = new Set<object>();
    return wrappers.flatMap((wrapper) => {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      // Request-scoped providers have no instance to call at an occurrence; aliases repeat one.
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic() || seen.has(instance)) {
        return [];
      }
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance) as object;
      return this.scanner.getAllMethodNames(prototype).flatMap((name) => {
        const method = instance[name] as ((context: ScheduledJobContext) => unknown) | undefined;
        const options =
          typeof method === 'function'
            ? this.reflector.get<ScheduledJobOptions | undefined>(SCHEDULED_JOB_METADATA, method)
            : undefined;
        if (options === undefined || method === undefined) {
          return [];
        }
        return [
          {
            methodName: `${instance.constructor.name}.${name}`,
            options,
            call: (context: ScheduledJobContext) => method.call(instance, context),
          },
        ];
      });
    });
  }
}
