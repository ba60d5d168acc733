import { formatPlan, planHasChanges } from './plan-output';

describe('plan output (issue 42)', () => {
  const plan = {
    created: ['report'],
    updated: [{ key: 'billing', changes: ['schedule.expr', 'retry.max_attempts'] }],
    unchanged: ['a', 'b', 'c'],
    deleted: ['legacy'],
    kept: [{ key: 'a', reason: 'paused' }],
  };

  it('should print a readable diff: + created, ~ updated with paths, - deleted, = unchanged, ! kept', () => {
    expect(formatPlan(plan, { dryRun: false, managedBy: 'git:infra/jobs.yaml' })).toBe(
      [
        '+ report',
        '~ billing: schedule.expr, retry.max_attempts',
        '- legacy',
        '= 3 unchanged',
        '! a kept: paused',
        'applied (managed by git:infra/jobs.yaml): 1 created, 1 updated, 1 deleted, 3 unchanged',
        '',
      ].join('\n'),
    );
  });

  it('should say that a dry run wrote nothing', () => {
    const empty = { created: [], updated: [], unchanged: ['a'], deleted: [] };
    expect(formatPlan(empty, { dryRun: true })).toBe(
      '= 1 unchanged\ndry run: 0 to create, 0 to update, 0 to delete, 1 unchanged; nothing written\n',
    );
  });

  it('should count only created, updated and deleted as changes', () => {
    expect(planHasChanges(plan)).toBe(true);
    expect(
      planHasChanges({
        created: [],
        updated: [],
        unchanged: ['a'],
        deleted: [],
        kept: [{ key: 'a', reason: 'paused' }],
      }),
    ).toBe(false);
    expect(planHasChanges({ created: [], updated: [], unchanged: [], deleted: ['x'] })).toBe(true);
  });
});
