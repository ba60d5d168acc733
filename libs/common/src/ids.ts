/**
 * FROZEN fixture support: the prefixed ULIDs live in the workflow contract
 * (`@svc/workflow-contract/ids`). This re-export is kept only because the frozen v1 workflow copy
 * (`test/fixtures/workflows-v1/job.workflow.ts`) imports `@svc/common/ids` and may not be edited;
 * it goes with that copy (`workflows-v1` in temporal/workflows/patches.ts). Nothing else imports
 * it (`test/import-graph.spec.ts`), and it is not in `@svc/common`'s index.
 */
export * from '@svc/workflow-contract/ids';
