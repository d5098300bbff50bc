import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { risenBudgets } from '../scripts/non-null-budget-check.mjs';
import { ROOT } from './helpers/server.js';

/** The CI check that the `!` budget (.non-null-budget.json) only falls (.ci/run changeset). */
describe('non-null budget check', () => {
  it('names each count that rose, and only those', () => {
    expect(risenBudgets({ code: 10, tests: 20 }, { code: 10, tests: 19 })).toEqual([]);
    expect(risenBudgets({ code: 10, tests: 20 }, { code: 11, tests: 19 })).toEqual(['code: 10 → 11']);
    expect(risenBudgets({ code: 10 }, { code: 9, tests: 1 })).toEqual(['tests: 0 → 1']);
  });

  describe('in a repository', () => {
    let repo: string;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    const check = (base: string) => spawnSync(process.execPath, [join(ROOT, 'scripts/non-null-budget-check.mjs'), base], { cwd: repo, encoding: 'utf8' });
    const budget = (counts: Record<string, number>) => writeFile(join(repo, '.non-null-budget.json'), JSON.stringify(counts));
    const commit = (message: string) => {
      git('add', '-A');
      git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', message);
      return git('rev-parse', 'HEAD');
    };

    beforeAll(async () => {
      repo = await mkdtemp(join(tmpdir(), 'non-null-budget-check-'));
      git('init', '-q');
      await writeFile(join(repo, 'README.md'), 'x\n');
    });
    afterAll(() => rm(repo, { recursive: true, force: true }));

    it('passes a base without a budget, a budget that holds or falls, and fails one that rises', async () => {
      const empty = commit('no budget yet');
      await budget({ code: 10, tests: 20 });
      expect(check(empty).status).toBe(0);
      const base = commit('a budget');
      expect(check(base).status).toBe(0);

      await budget({ code: 8, tests: 20 });
      expect(check(base).status).toBe(0);

      await budget({ code: 8, tests: 21 });
      const risen = check(base);
      expect(risen.status).toBe(1);
      expect(risen.stderr).toContain('tests: 20 → 21');
      // Committed or not, the working tree's budget is what is judged.
      commit('raise it');
      expect(check(base).status).toBe(1);
    });
  });
});
