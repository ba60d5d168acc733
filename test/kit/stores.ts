import type { AlertChannelRow, AlertRuleRow, AlertRuleValues, CalendarEntity, NewAlertChannel } from '@svc/persistence';
import type {
  CreateSessionInput,
  MembershipRole,
  OperationEntity,
  OperationItemEntity,
  UserEntity,
} from '@svc/persistence';
import { newId } from '@svc/workflow-contract/ids';
import type { InMemoryDatabase } from './in-memory-database';

/**
 * The workspace's own resources as repositories over kit tables (`InMemoryDatabase.table`, rolled
 * back with a transaction), with the scoping of the real ones: another workspace's row is not there.
 */

/** A secret row: its value as the service gave it (encrypted). */
export interface SecretRow {
  workspaceId: string;
  name: string;
  value: Buffer;
  createdAt: Date;
  updatedAt: Date;
}

function secretMetadata({ value: _value, ...metadata }: SecretRow) {
  return metadata;
}

/** `SecretsRepository`: values as given (the service encrypts them), reference candidates from the jobs. */
export function secretsStore(db: InMemoryDatabase) {
  const secrets = () => db.table<SecretRow>('secrets');
  return {
    lockWorkspace: async () => undefined,
    lockExisting: async (workspaceId: string, names: readonly string[]) =>
      names.filter((name) => secrets().has(`${workspaceId}/${name}`)),
    findForUpdate: async (workspaceId: string, name: string) => {
      const row = secrets().get(`${workspaceId}/${name}`);
      return row ? secretMetadata(row) : null;
    },
    countInWorkspace: async (workspaceId: string) =>
      [...secrets().values()].filter((row) => row.workspaceId === workspaceId).length,
    insert: async (workspaceId: string, name: string, value: Buffer) => {
      const at = new Date();
      const row = { workspaceId, name, value, createdAt: at, updatedAt: at };
      secrets().set(`${workspaceId}/${name}`, row);
      return secretMetadata(row);
    },
    replaceValue: async (workspaceId: string, name: string, value: Buffer) => {
      const row = secrets().get(`${workspaceId}/${name}`)!;
      Object.assign(row, { value, updatedAt: new Date(row.updatedAt.getTime() + 1_000) });
      return secretMetadata(row);
    },
    delete: async (workspaceId: string, name: string) => void secrets().delete(`${workspaceId}/${name}`),
    findReferenceCandidates: async (workspaceId: string, name: string) =>
      [...db.tables.jobs.values()]
        .filter((job) => job.workspaceId === workspaceId && JSON.stringify(job.sinkConfig).includes(`secret.${name}`))
        .sort((a, b) => a.id.localeCompare(b.id))
        .map(({ id, name: jobName, sinkKind, sinkConfig }) => ({ id, name: jobName, sinkKind, sinkConfig })),
    listPage: async (workspaceId: string, page: { afterName?: string; limit: number }) =>
      [...secrets().values()]
        .filter((row) => row.workspaceId === workspaceId && (page.afterName === undefined || row.name > page.afterName))
        .sort((a, b) => a.name.localeCompare(b.name))
        .slice(0, page.limit)
        .map(secretMetadata),
  };
}

/** `CalendarsRepository` (the jobs using a calendar read from the kit's jobs, as its SQL does). */
export function calendarsStore(db: InMemoryDatabase) {
  const calendars = () => db.table<CalendarEntity>('calendars');
  const store = {
    list: async (workspaceId: string) =>
      [...calendars().values()]
        .filter((row) => row.workspaceId === workspaceId)
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((row) => ({ ...row })),
    datesByName: async (workspaceId: string) =>
      Object.fromEntries((await store.list(workspaceId)).map((row) => [row.name, row.dates])),
    get: async (workspaceId: string, name: string) => {
      const row = calendars().get(`${workspaceId}/${name}`);
      return row ? { ...row } : null;
    },
    lockWorkspace: async () => undefined,
    countInWorkspace: async (workspaceId: string) => (await store.list(workspaceId)).length,
    upsert: async (workspaceId: string, name: string, dates: string[]) => {
      const existing = calendars().get(`${workspaceId}/${name}`);
      const at = new Date();
      calendars().set(`${workspaceId}/${name}`, {
        workspaceId,
        name,
        dates: [...dates],
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      });
      return existing === undefined;
    },
    delete: async (workspaceId: string, name: string) => void calendars().delete(`${workspaceId}/${name}`),
    jobsUsing: async (workspaceId: string, name: string, limit: number) =>
      [...db.tables.jobs.values()]
        .filter(
          (job) =>
            job.workspaceId === workspaceId &&
            (job.excludeCalendars.includes(name) ||
              (job.scheduleKind === 'natural' && job.scheduleExpr.toLowerCase().includes(name))),
        )
        .sort((a, b) => a.id.localeCompare(b.id))
        .slice(0, limit)
        .map(({ id, name: jobName, scheduleExpr, excludeCalendars }) => ({
          id,
          name: jobName,
          scheduleExpr,
          excludeCalendars,
        })),
  };
  return store;
}

type StoredChannel = AlertChannelRow & { signingSecret: string | null };

/** `AlertChannelsRepository`: a delete takes the channel out of the workspace's rules, as its SQL does. */
export function alertChannelsStore(db: InMemoryDatabase) {
  const channels = () => db.table<StoredChannel>('alert_channels');
  const row = ({ signingSecret: _secret, ...channel }: StoredChannel): AlertChannelRow => structuredClone(channel);
  const mine = (workspaceId: string, id: string) => {
    const channel = channels().get(id);
    return channel && channel.workspaceId === workspaceId ? channel : undefined;
  };
  return {
    listPage: async (workspaceId: string, page: { beforeId?: string; limit: number }) =>
      [...channels().values()]
        .filter((c) => c.workspaceId === workspaceId && (page.beforeId === undefined || c.id < page.beforeId))
        .sort((a, b) => b.id.localeCompare(a.id))
        .slice(0, page.limit)
        .map(row),
    findById: async (workspaceId: string, id: string) => {
      const channel = mine(workspaceId, id);
      return channel ? row(channel) : null;
    },
    getForUpdate: async (workspaceId: string, id: string) => {
      const channel = mine(workspaceId, id);
      return channel ? row(channel) : null;
    },
    findWithSecret: async (workspaceId: string, id: string) => {
      const channel = mine(workspaceId, id);
      return channel ? structuredClone(channel) : null;
    },
    insert: async (channel: NewAlertChannel) => {
      const at = new Date();
      channels().set(channel.id, { ...channel, verificationSentAt: null, createdAt: at, updatedAt: at });
      return row(channels().get(channel.id)!);
    },
    update: async (
      workspaceId: string,
      id: string,
      change: { name: string; config: AlertChannelRow['config']; verified: boolean; readdressed?: boolean },
    ) => {
      const channel = mine(workspaceId, id);
      if (!channel) {
        return null;
      }
      Object.assign(channel, { name: change.name, config: change.config, verified: change.verified });
      channel.updatedAt = new Date();
      if (change.readdressed) {
        channel.verificationSentAt = null;
      }
      return row(channel);
    },
    delete: async (workspaceId: string, id: string) => {
      if (!mine(workspaceId, id)) {
        return false;
      }
      channels().delete(id);
      for (const rule of db.table<AlertRuleRow>('alert_rules').values()) {
        if (rule.workspaceId === workspaceId) {
          rule.channelIds = rule.channelIds.filter((channelId) => channelId !== id);
        }
      }
      return true;
    },
    lockExisting: async (workspaceId: string, ids: readonly string[]) =>
      ids.filter((id) => mine(workspaceId, id) !== undefined),
    markVerified: async (id: string, address: string) => {
      const channel = channels().get(id);
      if (!channel || channel.kind !== 'email' || channel.config.address !== address) {
        return null;
      }
      const changed = !channel.verified;
      channel.verified = true;
      return { channel: row(channel), changed };
    },
    claimVerificationSend: async (workspaceId: string, id: string, now: Date, minGapMs: number) => {
      const channel = mine(workspaceId, id);
      if (!channel || (channel.verificationSentAt && channel.verificationSentAt.getTime() > now.getTime() - minGapMs)) {
        return false;
      }
      channel.verificationSentAt = now;
      return true;
    },
  };
}

/** `AlertRulesRepository`; `existingJobIds` reads the kit's jobs. */
export function alertRulesStore(db: InMemoryDatabase) {
  const rules = () => db.table<AlertRuleRow>('alert_rules');
  const mine = (workspaceId: string, id: string) => {
    const rule = rules().get(id);
    return rule && rule.workspaceId === workspaceId ? structuredClone(rule) : null;
  };
  return {
    listPage: async (workspaceId: string, page: { beforeId?: string; limit: number }) =>
      [...rules().values()]
        .filter((r) => r.workspaceId === workspaceId && (page.beforeId === undefined || r.id < page.beforeId))
        .sort((a, b) => b.id.localeCompare(a.id))
        .slice(0, page.limit)
        .map((rule) => structuredClone(rule)),
    findById: async (workspaceId: string, id: string) => mine(workspaceId, id),
    getForUpdate: async (workspaceId: string, id: string) => mine(workspaceId, id),
    insert: async (workspaceId: string, id: string, values: AlertRuleValues) => {
      const at = new Date();
      rules().set(id, { id, workspaceId, ...structuredClone(values), createdAt: at, updatedAt: at });
      return mine(workspaceId, id)!;
    },
    update: async (workspaceId: string, id: string, values: AlertRuleValues) => {
      const rule = rules().get(id);
      if (!rule || rule.workspaceId !== workspaceId) {
        return null;
      }
      Object.assign(rule, structuredClone(values), { updatedAt: new Date() });
      return mine(workspaceId, id);
    },
    delete: async (workspaceId: string, id: string) => mine(workspaceId, id) !== null && rules().delete(id),
    existingJobIds: async (workspaceId: string, ids: readonly string[]) =>
      ids.filter((id) => db.tables.jobs.get(id)?.workspaceId === workspaceId),
  };
}

/** `OperationsRepository` (bulk actions and recover): the operation and its items, as the worker leaves them. */
export function operationsStore(db: InMemoryDatabase) {
  const operations = () => db.table<OperationEntity>('operations');
  const items = () => db.table<OperationItemEntity>('operation_items');
  const itemsOf = (id: string) =>
    [...items().values()].filter((item) => item.operationId === id).sort((a, b) => a.seq - b.seq);
  const mine = (workspaceId: string, id: string) => {
    const operation = operations().get(id);
    return operation && operation.workspaceId === workspaceId ? { ...operation } : null;
  };
  return {
    create: async (operation: OperationEntity, targetIds: string[]) => {
      const at = new Date();
      operations().set(operation.id, { ...operation, createdAt: at, updatedAt: at });
      targetIds.forEach((targetId, i) =>
        items().set(`${operation.id}/${i + 1}`, {
          operationId: operation.id,
          seq: i + 1,
          targetId,
          status: 'pending',
          error: null,
          resultId: null,
          resumedAt: null,
        } as OperationItemEntity),
      );
    },
    delete: async (id: string) => {
      operations().delete(id);
      for (const item of itemsOf(id)) {
        items().delete(`${id}/${item.seq}`);
      }
    },
    getById: async (workspaceId: string, id: string) => mine(workspaceId, id),
    progress: async (id: string) => ({
      pending: itemsOf(id).filter((item) => item.status === 'pending').length,
      done: itemsOf(id).filter((item) => item.status === 'done').length,
      failed: itemsOf(id).filter((item) => item.status === 'failed').length,
      resumed: itemsOf(id).filter((item) => item.resumedAt !== null).length,
    }),
    failedItems: async (id: string, limit: number) =>
      itemsOf(id)
        .filter((item) => item.status === 'failed')
        .slice(0, limit),
    requestCancel: async (workspaceId: string, id: string, at: Date) => {
      const operation = operations().get(id);
      if (!operation || operation.workspaceId !== workspaceId || !['running', 'waiting'].includes(operation.status)) {
        return null;
      }
      operation.cancelRequestedAt ??= at;
      operation.updatedAt = new Date();
      return { ...operation };
    },
    /** The items of an operation, in order (for a spec to read or finish). */
    itemsOf,
  };
}

interface MembershipRow {
  workspaceId: string;
  userId: string;
  role: MembershipRole;
  seq: number;
}

/** `UsersRepository` (users and memberships; a membership's workspace read from the kit's workspaces). */
export function usersStore(db: InMemoryDatabase) {
  const users = () => db.table<UserEntity>('users');
  const memberships = () => db.table<MembershipRow>('memberships');
  const withWorkspace = async (row: MembershipRow) => ({
    role: row.role,
    workspace: await db.workspaces.findById(row.workspaceId),
  });
  return {
    findOrCreateByEmail: async (email: string, name: string) => {
      const normalized = email.toLowerCase();
      const existing = [...users().values()].find((user) => user.email === normalized);
      if (existing) {
        return { user: { ...existing }, created: false };
      }
      const user = { id: newId('user'), email: normalized, name, createdAt: new Date() } as UserEntity;
      users().set(user.id, user);
      return { user: { ...user }, created: true };
    },
    findById: async (id: string) => {
      const user = users().get(id);
      return user ? { ...user } : null;
    },
    listMemberships: async (userId: string) =>
      Promise.all(
        [...memberships().values()]
          .filter((row) => row.userId === userId)
          .sort((a, b) => a.seq - b.seq)
          .map(withWorkspace),
      ),
    findMembership: async (userId: string, ref: string) => {
      for (const row of memberships().values()) {
        const workspace = await db.workspaces.findById(row.workspaceId);
        if (row.userId === userId && (ref.startsWith('ws_') ? workspace.id === ref : workspace.slug === ref)) {
          return { role: row.role, workspace };
        }
      }
      return null;
    },
    addMembership: async (workspaceId: string, userId: string, role: MembershipRole) => {
      const key = `${workspaceId}/${userId}`;
      if (!memberships().has(key)) {
        memberships().set(key, { workspaceId, userId, role, seq: memberships().size });
      }
    },
  };
}

/** `SessionsRepository`: sessions by token hash, with their user. */
export function sessionsStore(db: InMemoryDatabase) {
  const sessions = () => db.table<CreateSessionInput>('sessions');
  return {
    create: async (input: CreateSessionInput) => void sessions().set(input.tokenHash, { ...input }),
    findActiveByHash: async (tokenHash: string, now: Date = new Date()) => {
      const session = sessions().get(tokenHash);
      const user = session && db.table<UserEntity>('users').get(session.userId);
      return session && user && session.expiresAt > now ? { session: { ...session }, user: { ...user } } : null;
    },
    delete: async (tokenHash: string) => void sessions().delete(tokenHash),
    deleteExpiredOfUser: async (userId: string, now: Date = new Date()) => {
      for (const [hash, session] of sessions()) {
        if (session.userId === userId && session.expiresAt < now) {
          sessions().delete(hash);
        }
      }
    },
  };
}

/** An idempotency record as `IdempotencyRepository` keeps it. */
export interface IdempotencyRow {
  workspaceId: string;
  scope: string;
  key: string;
  requestHash: string;
  statusCode: number | null;
  responseBody: unknown;
  createdAt: Date;
}

/** `IdempotencyRepository`: records keyed `workspace scope key`, outside any transaction. */
export function idempotencyStore(records: Map<string, IdempotencyRow>) {
  return {
    claim: async (workspaceId: string, scope: string, key: string, requestHash: string) => {
      const id = `${workspaceId} ${scope} ${key}`;
      if (records.has(id)) {
        return false;
      }
      records.set(id, {
        workspaceId,
        scope,
        key,
        requestHash,
        statusCode: null,
        responseBody: null,
        createdAt: new Date(),
      });
      return true;
    },
    find: async (workspaceId: string, scope: string, key: string) => {
      const record = records.get(`${workspaceId} ${scope} ${key}`);
      return record ? { ...record } : null;
    },
    complete: async (workspaceId: string, scope: string, key: string, statusCode: number, body: unknown) => {
      const record = records.get(`${workspaceId} ${scope} ${key}`);
      if (record) {
        Object.assign(record, { statusCode, responseBody: structuredClone(body) });
      }
    },
    release: async (workspaceId: string, scope: string, key: string) => {
      records.delete(`${workspaceId} ${scope} ${key}`);
    },
    releaseIfOlder: async (workspaceId: string, scope: string, key: string, before: Date) => {
      const id = `${workspaceId} ${scope} ${key}`;
      if ((records.get(id)?.createdAt ?? before) < before) {
        records.delete(id);
      }
    },
  };
}
