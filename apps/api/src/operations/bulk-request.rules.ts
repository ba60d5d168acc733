import { TRIGGERABLE, USER_TRANSITIONS } from '@svc/orchestration';
import type { BulkAction, BulkJobFilterDto, BulkJobsDto, RecoverRunsDto } from './dto/operations.dto';

/** How far ahead a maintenance window may end. */
const RESUME_AT_MAX_AHEAD_MS = 366 * 86_400_000;

/** The job states each bulk action applies to (the lifecycle's own rules); `delete` takes any. */
function statesOf(action: BulkAction): readonly string[] | null {
  switch (action) {
    case 'pause':
    case 'resume':
    case 'enable':
      return [USER_TRANSITIONS[action].from];
    case 'trigger':
      return TRIGGERABLE;
    case 'delete':
      return null;
  }
}

/** Whether a filter names nothing (every job); a field given as null counts as absent. */
export function isEmptyFilter(filter: object): boolean {
  return Object.values(filter).every((value) => value === undefined || value === null);
}

/**
 * What is wrong with a bulk action's request beyond each field's own rules, as the
 * 400's `fields`: an empty filter without `all: true` (or `all` beside a filter), a `state` the
 * action never applies to, a `resume_at` on another action, in the past or over a year ahead.
 */
export function bulkJobsProblems(dto: BulkJobsDto, now: Date): Record<string, string> {
  const fields: Record<string, string> = {};
  const empty = isEmptyFilter(dto.filter);
  if (empty && dto.all !== true) {
    fields.filter = 'An empty filter matches every job of the workspace: give a filter, or `all: true` to mean it';
  }
  if (!empty && dto.all === true) {
    fields.all = '`all: true` means every job of the workspace: it cannot be combined with a filter';
  }
  const states = statesOf(dto.action);
  const state = (dto.filter as BulkJobFilterDto).state;
  if (states && state !== undefined && !states.includes(state)) {
    fields['filter.state'] =
      `${dto.action} applies only to ${states.join(' or ')} jobs; a ${state} job would refuse it`;
  }
  if (dto.resume_at !== undefined) {
    const at = Date.parse(dto.resume_at);
    if (dto.action !== 'pause') {
      fields.resume_at = 'Only a pause has a maintenance window to end';
    } else if (at <= now.getTime()) {
      fields.resume_at = 'must be in the future';
    } else if (at - now.getTime() > RESUME_AT_MAX_AHEAD_MS) {
      fields.resume_at = 'must be at most 366 days ahead';
    }
  }
  return fields;
}

/** A recover's request beyond each field's own rules: `to` after `from`. */
export function recoverProblems(dto: RecoverRunsDto): Record<string, string> {
  const { from, to } = dto.filter;
  if (from !== undefined && to !== undefined && Date.parse(to) <= Date.parse(from)) {
    return { 'filter.to': 'must be after `from`' };
  }
  return {};
}
