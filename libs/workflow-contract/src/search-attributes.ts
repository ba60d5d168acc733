import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { SEARCH_ATTRIBUTES, type RunWorkflowInput } from './definitions';

export const JOB_ID_KEY = defineSearchAttributeKey(SEARCH_ATTRIBUTES.jobId, SearchAttributeType.KEYWORD);
export const WORKSPACE_ID_KEY = defineSearchAttributeKey(SEARCH_ATTRIBUTES.workspaceId, SearchAttributeType.KEYWORD);
export const JOB_KEY_KEY = defineSearchAttributeKey(SEARCH_ATTRIBUTES.jobKey, SearchAttributeType.KEYWORD);
export const TRIGGER_KEY = defineSearchAttributeKey(SEARCH_ATTRIBUTES.trigger, SearchAttributeType.KEYWORD);

/** Search attributes of a run workflow, so the Temporal Web UI can filter runs by job and workspace. */
export function runSearchAttributes(
  input: Pick<RunWorkflowInput, 'jobId' | 'workspaceId' | 'trigger'>,
): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: JOB_ID_KEY, value: input.jobId },
    { key: WORKSPACE_ID_KEY, value: input.workspaceId },
    { key: TRIGGER_KEY, value: input.trigger },
  ]);
}
