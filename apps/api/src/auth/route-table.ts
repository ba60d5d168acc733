import { RequestMethod, type DynamicModule, type Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { PUBLIC_ROUTE, REQUIRED_SCOPES } from './auth.decorators';
import type { ScopeRequirement } from './scopes';

/** One Nest route as the guard sees it. */
export interface RouteInfo {
  /** `GET`, `POST`, … */
  method: string;
  /** Fastify's route template, e.g. `/api/v1/jobs/:id`. */
  path: string;
  /** `@Public()`: no authentication, hence no scope. */
  public: boolean;
  /** `@Scopes(…)` or `@AnyKey()`; undefined when the route declares neither (refused by the guard). */
  requirement: ScopeRequirement | undefined;
  /** `JobsController.create`, for messages. */
  handler: string;
  /** The controller class and its method, for reading the handler's other metadata (OpenAPI). */
  controller: Type;
  methodName: string;
}

type ModuleRef = Type | DynamicModule | Promise<DynamicModule> | { forwardRef: () => Type };

function toPaths(value: unknown): string[] {
  if (Array.isArray(value)) {
    return value.map(String);
  }
  return [typeof value === 'string' ? value : ''];
}

function joinPath(...parts: string[]): string {
  const path = parts
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter((part) => part.length > 0)
    .join('/');
  return `/${path}`;
}

/** Reads the same metadata, with the same precedence (handler over class), as the guard does. */
function metadataOf<T>(key: string, handler: object, controller: Type): T | undefined {
  const own = Reflect.getMetadata(key, handler) as T | undefined;
  return own !== undefined ? own : (Reflect.getMetadata(key, controller) as T | undefined);
}

/** Every route of a controller class, from its decorators (no instance needed). */
export function routesOfController(controller: Type): RouteInfo[] {
  const routes: RouteInfo[] = [];
  const seen = new Set<string>();
  for (let proto = controller.prototype as object | null; proto && proto !== Object.prototype;) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = (proto as Record<string, unknown>)[name];
      if (name === 'constructor' || seen.has(name) || typeof handler !== 'function') {
        continue;
      }
      seen.add(name);
      const methodPath = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
      if (methodPath === undefined) {
        continue;
      }
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] ?? 'GET';
      for (const base of toPaths(Reflect.getMetadata(PATH_METADATA, controller))) {
        for (const sub of toPaths(methodPath)) {
          routes.push({
            method,
            path: joinPath(base, sub),
            public: metadataOf<boolean>(PUBLIC_ROUTE, handler, controller) === true,
            requirement: metadataOf<ScopeRequirement>(REQUIRED_SCOPES, handler, controller),
            handler: `${controller.name}.${name}`,
            controller,
            methodName: name,
          });
        }
      }
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return routes;
}

/**
 * Every Nest route reachable from a module, by walking `imports` and `controllers` metadata
 * statically (nothing is instantiated, so unit tests can check the whole API's declarations).
 */
export function routesOfModule(root: ModuleRef, seen = new Set<unknown>()): RouteInfo[] {
  if ('forwardRef' in root && typeof root.forwardRef === 'function') {
    return routesOfModule(root.forwardRef(), seen);
  }
  if (root instanceof Promise) {
    throw new TypeError('routesOfModule cannot walk an async dynamic module');
  }
  const dynamic = (root as DynamicModule).module ? (root as DynamicModule) : undefined;
  const type = dynamic ? dynamic.module : (root as Type);
  const identity = dynamic ?? type;
  if (seen.has(identity)) {
    return [];
  }
  seen.add(identity);
  const controllers = [
    ...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, type) as Type[] | undefined) ?? []),
    ...(dynamic?.controllers ?? []),
  ];
  const imports = [
    ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, type) as ModuleRef[] | undefined) ?? []),
    ...((dynamic?.imports as ModuleRef[] | undefined) ?? []),
  ];
  return [
    ...controllers.flatMap((controller) => routesOfController(controller)),
    ...imports.filter(Boolean).flatMap((module) => routesOfModule(module, seen)),
  ];
}
