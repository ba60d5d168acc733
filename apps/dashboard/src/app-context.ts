import type { DashboardConfig, Me } from './api';

/** What the shell hands to pages that need the signed-in session; its own module so pages never import `main.tsx`. */
export interface AppContext {
  me: Me;
  workspaceId: string;
  config: DashboardConfig;
  /** Reads `/me` again (e.g. after the workspace was renamed). */
  reload: () => void;
}
