import { Inject, Injectable } from '@nestjs/common';
import { type AppConfig, ForbiddenError, type SignInProviderId, UnauthorizedError } from '@svc/common';
import {
  type MembershipWithWorkspace,
  SessionsRepository,
  Transactions,
  type Tx,
  type UserEntity,
  UsersRepository,
  WorkspacesRepository,
} from '@svc/persistence';
import { randomBytes } from 'node:crypto';
import { APP_CONFIG } from '../config/config.module';
import type { AuthContext } from './auth.decorators';
import { scopesOfRole } from './scopes';
import { csrfTokenFor, generateSessionToken, hashSessionToken, requireCsrfToken } from './session-cookie';

/** A person as a sign-in provider vouches for them. */
export interface SignInIdentity {
  email: string;
  name?: string;
}

export interface SignedIn {
  /** The cookie's value; returned to set the cookie, never stored or logged. */
  token: string;
  user: UserEntity;
  memberships: MembershipWithWorkspace[];
  csrfToken: string;
  maxAgeSeconds: number;
}

/**
 * Dashboard sessions (decisions.md → Sessions): sign-in creates the user on first sight and
 * gives them a workspace, a random token goes into the `svc_session` cookie and only its SHA-256
 * into PostgreSQL; each request resolves the token and the active workspace (`Svc-Workspace`)
 * into the same AuthContext an API key yields, with the membership role's scopes.
 */
@Injectable()
export class SessionsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly workspaces: WorkspacesRepository,
  ) {}

  async signIn(identity: SignInIdentity, provider: 'dev' | SignInProviderId): Promise<SignedIn> {
    const email = identity.email.trim().toLowerCase();
    const name = identity.name?.trim() || identity.email.trim().split('@')[0];
    const token = generateSessionToken();
    const ttl = this.config.auth.session_ttl_ms;
    const { user, memberships } = await this.transactions.run(async (tx) => {
      const { user } = await this.users.findOrCreateByEmail(email, name, tx);
      let memberships = await this.users.listMemberships(user.id, tx);
      if (memberships.length === 0) {
        await this.giveFirstWorkspace(user, tx);
        memberships = await this.users.listMemberships(user.id, tx);
      }
      await this.sessions.deleteExpiredOfUser(user.id, new Date(), tx);
      await this.sessions.create(
        { tokenHash: hashSessionToken(token), userId: user.id, provider, expiresAt: new Date(Date.now() + ttl) },
        tx,
      );
      return { user, memberships };
    });
    return { token, user, memberships, csrfToken: csrfTokenFor(token), maxAgeSeconds: ttl / 1000 };
  }

  /**
   * A first-time user joins `auth.join_workspace` with `auth.join_role` (a self-hosted team's
   * workspace; created when missing), else gets a workspace of their own as its owner.
   */
  private async giveFirstWorkspace(user: UserEntity, tx: Tx): Promise<void> {
    const plan = this.config.default_plan;
    const joinSlug = this.config.auth.join_workspace;
    if (joinSlug) {
      const { workspace } = await this.workspaces.findOrCreateBySlug({ name: joinSlug, slug: joinSlug, plan }, tx);
      await this.users.addMembership(workspace.id, user.id, this.config.auth.join_role, tx);
      return;
    }
    const base =
      user.email
        .split('@')[0]
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'ws';
    const slug = `${base.slice(0, 40)}-${randomBytes(3).toString('hex')}`;
    const workspace = await this.workspaces.create({ name: `${user.name}'s workspace`, slug, plan }, tx);
    await this.users.addMembership(workspace.id, user.id, 'owner', tx);
  }

  /**
   * The AuthContext of a session token: 401 for an unknown or expired session; 403 when the user
   * is not a member of the workspace named by `Svc-Workspace` (its id or slug). Without the
   * header, the user's first workspace.
   */
  async authenticate(token: string, workspaceRef: string | undefined): Promise<AuthContext> {
    const active = await this.sessions.findActiveByHash(hashSessionToken(token));
    if (!active) {
      throw new UnauthorizedError('Invalid or expired session; sign in again');
    }
    const { user } = active;
    let membership: MembershipWithWorkspace | null;
    if (workspaceRef) {
      membership = await this.users.findMembership(user.id, workspaceRef);
      if (!membership) {
        throw new ForbiddenError('You are not a member of the workspace named by Svc-Workspace');
      }
    } else {
      [membership = null] = await this.users.listMemberships(user.id);
      if (!membership) {
        throw new ForbiddenError('You are not a member of any workspace');
      }
    }
    return {
      workspaceId: membership.workspace.id,
      keyId: null,
      userId: user.id,
      scopes: scopesOfRole(membership.role),
      suspended: membership.workspace.suspendedAt !== null,
      actor: `user:${user.id}`,
      csrfToken: csrfTokenFor(token),
    };
  }

  /**
   * Sign-out: ends the session of this token. A live session needs its `X-CSRF-Token` like every
   * mutation (`403` otherwise); an unknown or expired one has nothing left to end.
   */
  async signOut(token: string, sentCsrfToken: string | string[] | undefined): Promise<void> {
    const tokenHash = hashSessionToken(token);
    if (!(await this.sessions.findActiveByHash(tokenHash))) {
      return;
    }
    requireCsrfToken(sentCsrfToken, csrfTokenFor(token));
    await this.sessions.delete(tokenHash);
  }
}
