import { REGISTERED_WORKFLOW_TYPES } from '@svc/workflow-contract/definitions';
import * as registered from '../workflows';

/**
 * The contract names every workflow type the worker registers (the exports of
 * temporal/workflows/index.ts, which the worker bundles): libs read the list from the contract
 * (`serviceWorkflows` keeps them off limits to `temporal_workflow` jobs) and never import the
 * workflow code itself, so a workflow added to the index fails here until the list names it.
 */
describe('REGISTERED_WORKFLOW_TYPES', () => {
  it('should be exactly the workflow functions temporal/workflows/index.ts exports', () => {
    const exported = Object.entries(registered)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);
    expect([...REGISTERED_WORKFLOW_TYPES].sort()).toEqual(exported.sort());
  });
});
