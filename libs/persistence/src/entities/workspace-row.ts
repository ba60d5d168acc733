import { BelongsTo, IdColumn, TextColumn } from './columns';
import { WorkspaceEntity } from './workspace.entity';

/**
 * The base of a workspace's resource with its own id (`<prefix>_<ulid>`): `id` (`pk_<table>`),
 * `workspace_id`, and the workspace it is deleted with (`fk_<table>_workspace`), over `Base`'s
 * columns (its timestamps).
 */
export function WorkspaceRow<Base extends abstract new (...args: any[]) => object>(table: string, Base: Base) {
  abstract class WorkspaceRowEntity extends Base {
    @IdColumn(table)
    id: string;

    @TextColumn('workspace_id')
    workspaceId: string;

    @BelongsTo(table, 'workspace', () => WorkspaceEntity)
    workspace?: WorkspaceEntity;
  }
  return WorkspaceRowEntity;
}
