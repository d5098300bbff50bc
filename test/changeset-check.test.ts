import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesetPackages, isShipped, missingChangesets } from '../scripts/changeset-check.mjs';
import { ROOT } from './helpers/server.js';

/** The CI step that asks for a changeset when a published package's shipped files change (.ci/run changeset). */
describe('changeset check', () => {
  it('counts what a package ships, not its tests, fixtures or contract suites', () => {
    expect(isShipped('http/routes/jobs.ts')).toBe(true);
    expect(isShipped('adapters/sqlite/schema.sql')).toBe(true);
    expect(isShipped('bin/agent-tts.js')).toBe(true);
    expect(isShipped('README.md')).toBe(true);
    expect(isShipped('package.json')).toBe(true);
    expect(isShipped('http/routes/jobs.test.ts')).toBe(false);
    expect(isShipped('adapters/store.contract.ts')).toBe(false);
    expect(isShipped('__fixtures__/a.json')).toBe(false);
    expect(isShipped('testing/faulty-proxy.ts')).toBe(false);
    expect(isShipped('tsconfig.json')).toBe(false);
  });

  it('reads the packages a changeset names from its front matter', () => {
    expect(changesetPackages('---\n"@agent-tts/client": minor\n\'@agent-tts/server\': patch\n---\n\nText: @agent-tts/load is not named.')).toEqual([
      '@agent-tts/client',
      '@agent-tts/server',
    ]);
    expect(changesetPackages('no front matter')).toEqual([]);
  });

  it('names each package changed without a changeset, and only those', () => {
    const packages = [
      { dir: 'src/client', name: '@agent-tts/client' },
      { dir: 'src/server', name: '@agent-tts/server' },
    ];
    const changed = ['src/client/retry.ts', 'src/server/http/x.test.ts', 'docs/clients.md'];
    expect(missingChangesets(packages, changed, []).map((p) => p.name)).toEqual(['@agent-tts/client']);
    expect(missingChangesets(packages, changed, ['---\n"@agent-tts/client": patch\n---\n'])).toEqual([]);
  });

  describe('in a repository', () => {
    let repo: string;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    const check = (base: string) => spawnSync(process.execPath, [join(ROOT, 'scripts/changeset-check.mjs'), base], { cwd: repo, encoding: 'utf8' });
    const write = async (file: string, text: string) => {
      await mkdir(dirname(join(repo, file)), { recursive: true });
      await writeFile(join(repo, file), text);
    };
    const commit = (message: string) => {
      git('add', '-A');
      git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', message);
      return git('rev-parse', 'HEAD');
    };

    beforeAll(async () => {
      repo = await mkdtemp(join(tmpdir(), 'changeset-check-'));
      git('init', '-q');
      await write('package.json', JSON.stringify({ private: true, workspaces: ['pkg', 'bench'] }));
      await write('pkg/package.json', JSON.stringify({ name: '@x/pkg' }));
      await write('bench/package.json', JSON.stringify({ name: '@x/bench', private: true }));
      await write('pkg/index.ts', 'export const a = 1;\n');
    });
    afterAll(() => rm(repo, { recursive: true, force: true }));

    it('fails a change to shipped files without a changeset, passes tests-only and private changes, and passes once one is added', async () => {
      const base = commit('base');
      await write('pkg/index.test.ts', 'test\n');
      await write('bench/run.ts', 'run\n');
      commit('tests and bench only');
      expect(check(base).status).toBe(0);

      await write('pkg/index.ts', 'export const a = 2;\n');
      commit('a shipped change');
      const refused = check(base);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('@x/pkg: pkg/index.ts');

      await write('.changeset/a.md', '---\n"@x/pkg": patch\n---\n\nA is 2.\n');
      const named = commit('its changeset');
      expect(check(base).status).toBe(0);

      // A release consumes the changeset: the range that holds the release still counts it.
      await rm(join(repo, '.changeset/a.md'));
      await write('pkg/package.json', JSON.stringify({ name: '@x/pkg', version: '0.0.1' }));
      commit('release');
      expect(check(base).status).toBe(0);
      expect(check(named).status).toBe(1);
    });
  });
});
