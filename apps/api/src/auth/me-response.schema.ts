import { MEMBERSHIP_ROLES } from '@svc/persistence';
import { arrayOf, enumOf, idOf, named, nullable, object, string } from '../common/openapi/schema';
import { SCOPES } from './scopes';

/** `GET /me` in decisions.md's shape (me.mapper.ts); `csrf_token` only for cookie sessions. */
export const ME_SCHEMA = named(
  'Me',
  object(
    {
      user: nullable(object({ id: string, email: string, name: string })),
      key: nullable(
        object({
          id: idOf('key'),
          name: string,
          prefix: string,
          scopes: arrayOf(enumOf(SCOPES)),
        }),
      ),
      workspaces: arrayOf(
        object({ id: idOf('ws'), name: string, slug: string, plan: string, role: enumOf(MEMBERSHIP_ROLES) }),
      ),
      csrf_token: string,
    },
    ['csrf_token'],
  ),
);
