// The workflows the worker registers (bundled from this file).
export { jobWorkflow } from './job.workflow';
export { runWorkflow } from './run.workflow';
export { alertWorkflow, channelVerificationWorkflow } from './alert.workflow';
export { bulkOperationWorkflow } from './bulk-operation.workflow';
export { backfillWorkflow } from './backfill.workflow';
