import { type DynamicModule, Global, Injectable, Module, type OnModuleInit, type Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import type { AppConfig } from '@svc/common';
import {
  type AnySinkKind,
  BUILT_IN_SINK_KIND_TYPES,
  builtInSinkKinds,
  setProcessSinkRegistry,
  SinkRegistry,
} from '@svc/delivery';
import { isAbsolute, resolve } from 'node:path';

/**
 * Marks a provider as a sink kind (an implementation of `SinkKind` from `@svc/delivery`): the
 * registry of the API and of the worker pick it up from whatever module provides it.
 */
export const SinkKindProvider = DiscoveryService.createDecorator<void>();

/** A built-in kind's class as a provider marked `@SinkKindProvider()`. */
function builtInProvider(kind: new () => AnySinkKind): Type<AnySinkKind> {
  @SinkKindProvider()
  @Injectable()
  class BuiltInSinkKind extends kind {}
  return BuiltInSinkKind;
}

/** The built-in kinds, provided exactly as an extension module provides its own. */
@Module({ providers: BUILT_IN_SINK_KIND_TYPES.map(builtInProvider) })
export class BuiltInSinkKindsModule {}

/** The registry, filled once every provider exists with each one marked `@SinkKindProvider()`. */
@Injectable()
class DiscoveredSinkRegistry extends SinkRegistry implements OnModuleInit {
  constructor(private readonly discovery: DiscoveryService) {
    super();
  }

  onModuleInit(): void {
    const providers = this.discovery
      .getProviders({ metadataKey: SinkKindProvider.KEY })
      .map((wrapper) => wrapper.instance as AnySinkKind | undefined)
      .filter((instance): instance is AnySinkKind => Boolean(instance));
    // Built-ins first (stable order for the OpenAPI document and the dashboard), then the rest by name.
    const builtIn = builtInSinkKinds().map((kind) => kind.kind);
    providers.sort(
      (a, b) =>
        (builtIn.indexOf(a.kind) + 1 || 99) - (builtIn.indexOf(b.kind) + 1 || 99) || a.kind.localeCompare(b.kind),
    );
    for (const kind of providers) {
      this.register(kind);
    }
    setProcessSinkRegistry(this);
  }
}

function isNestModule(value: unknown): value is Type {
  return (
    typeof value === 'function' &&
    Object.values(MODULE_METADATA).some((key) => Reflect.getMetadata(key, value) !== undefined)
  );
}

/**
 * The Nest modules exported by the files `sinks.modules` names (its default export, or every
 * exported class that is a Nest module). A path that cannot be loaded stops the process.
 */
export function loadSinkModules(paths: readonly string[], cwd = process.cwd()): Type[] {
  return paths.flatMap((path) => {
    const file = isAbsolute(path) || !path.startsWith('.') ? path : resolve(cwd, path);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exported = require(file) as Record<string, unknown>;
    const modules = exported.default && isNestModule(exported.default) ? [exported.default] : [];
    const found = modules.length > 0 ? modules : Object.values(exported).filter(isNestModule);
    if (found.length === 0) {
      throw new Error(`sinks.modules: ${path} exports no Nest module`);
    }
    return found as Type[];
  });
}

/**
 * Sink kinds for the API and the worker: the built-ins, the modules of `sinks.modules` and any
 * `extraModules` (an embedding application's own), with the `SinkRegistry` they fill (global: any
 * provider may inject it). Without `config` (route listings in tests) only the built-ins.
 */
@Global()
@Module({})
export class SinkKindsModule {
  static forRoot(config?: Pick<AppConfig, 'sinks'>, extraModules: readonly Type[] = []): DynamicModule {
    return {
      module: SinkKindsModule,
      imports: [
        DiscoveryModule,
        BuiltInSinkKindsModule,
        ...loadSinkModules(config?.sinks.modules ?? []),
        ...extraModules,
      ],
      providers: [DiscoveredSinkRegistry, { provide: SinkRegistry, useExisting: DiscoveredSinkRegistry }],
      exports: [SinkRegistry],
    };
  }
}
