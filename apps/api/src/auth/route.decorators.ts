import { applyDecorators, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { AnyKey, Scopes } from './auth.decorators';
import { ANY_KEY, type Scope } from './scopes';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import type { JsonSchema } from '../common/openapi/schema';

/** Who may call a route: keys with that scope (`*` always may), or `ANY_KEY`: any key of the workspace. */
export type RouteAccess = Scope | typeof ANY_KEY;

const allow = (access: RouteAccess) => (access === ANY_KEY ? AnyKey() : Scopes(access));

/** `GET path` (`''`: the controller's own path) for `access`, answering `200` with `schema`. */
export const GetRoute = (path: string, access: RouteAccess, summary: string, schema: JsonSchema) =>
  applyDecorators(Get(path), allow(access), ApiOperation(summary, { 200: schema }));

/** `POST path` for `access`, answering `status` (not Nest's default `201`) with `schema`. */
export const PostRoute = (path: string, status: 200 | 202, access: RouteAccess, summary: string, schema: JsonSchema) =>
  applyDecorators(Post(path), HttpCode(status), allow(access), ApiOperation(summary, { [status]: schema }));

/** `DELETE path` for `access`, answering `204` with no body. */
export const DeleteRoute = (path: string, access: RouteAccess, summary: string) =>
  applyDecorators(Delete(path), HttpCode(204), allow(access), ApiOperation(summary, { 204: null }));
