import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { CONFIG_VARIABLES } from '../src/server/config/settings.js';
import { DISTRIBUTED_VARIABLES } from '../src/server/config/distributed.js';

/** Every anchor of docs/api-rules.md that the repository cites names a heading of that page. */
const root = fileURLToPath(new URL('..', import.meta.url));

function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  // Headings outside fenced code blocks (a "# comment" in a shell example is no heading).
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, title] of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    found.add(
      title!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return found;
}

const tracked = (pattern: string): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', pattern], { cwd: root, encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((f) => f !== '' && existsSync(join(root, f)));

describe('references to docs/api-rules.md', () => {
  it('point at headings that exist', () => {
    const known = anchors(readFileSync(`${root}docs/api-rules.md`, 'utf8'));
    const files = execFileSync('git', ['grep', '-l', 'docs/api-rules.md#'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(root + file, 'utf8');
      for (const [, anchor] of text.matchAll(/docs\/api-rules\.md#([a-z0-9-]+)/g)) {
        if (!known.has(anchor!)) broken.push(`${file}: #${anchor}`);
      }
    }
    expect(files.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });
});

/** The README, the guides under docs/ and the package READMEs link each other by relative path and anchor. */
describe('links between the docs', () => {
  const markdown = tracked('*.md').filter((f) => !f.startsWith('bench/results/') && !f.includes('node_modules/'));

  it('name files that exist and headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(join(root, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // http(s), mailto
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path === '' ? file : normalize(join(dirname(file), path));
        if (!existsSync(join(root, resolved))) {
          broken.push(`${file}: ${target} (no file ${resolved})`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(join(root, resolved), 'utf8')).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor})`);
        }
      }
    }
    expect(markdown.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });
});

/** Docs that fit a reader: the root README stays short, each package's README too; reference lives in docs/. */
describe('README sizes', () => {
  const lines = (file: string) => readFileSync(join(root, file), 'utf8').split('\n').length - 1;
  const PACKAGES = ['src/client', 'src/mcp', 'src/contract', 'src/server', 'src/sandbox', 'src/load', 'conformance', 'mock', 'bench'];

  it('the root README is at most 200 lines', () => {
    expect(lines('README.md')).toBeLessThanOrEqual(200);
  });

  it.each(PACKAGES)('%s/README.md exists and is at most 150 lines', (dir) => {
    expect(existsSync(join(root, dir, 'README.md')), `${dir}/README.md`).toBe(true);
    expect(lines(`${dir}/README.md`)).toBeLessThanOrEqual(150);
  });

  it('each published package README says how to install it', () => {
    for (const dir of PACKAGES.filter((d) => d !== 'bench')) {
      const name = (JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string }).name;
      expect(readFileSync(join(root, dir, 'README.md'), 'utf8'), dir).toMatch(new RegExp(`npm install (-g |-D |--save-dev )?${name.replace('/', '\\/')}`));
    }
  });

  it('the root README keeps the two set-up commands', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });
});

/** docs/configuration.md names every variable the server reads, with the range the code allows. */
describe('docs/configuration.md', () => {
  const text = readFileSync(join(root, 'docs/configuration.md'), 'utf8');

  it('documents every setting of the server', () => {
    const named = new Set([...text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    // `PLAN_MINUTES_FREE` / `_PRO` / `_ULTIMATE`: one prefix, several suffixes.
    for (const [, prefix, , rest] of text.matchAll(/`([A-Z][A-Z0-9_]*)_([A-Z]+)`((?:\s*\/\s*`_[A-Z]+`)+)/g)) {
      for (const [, suffix] of rest!.matchAll(/`_([A-Z]+)`/g)) named.add(`${prefix}_${suffix}`);
    }
    const missing = [...CONFIG_VARIABLES, ...DISTRIBUTED_VARIABLES].filter((name) => !named.has(name));
    expect(missing).toEqual([]);
  });

  it("gives each numeric setting's range as the code checks it", () => {
    const rows = text.split('\n').filter((line) => line.startsWith('| `'));
    const wrong: string[] = [];
    let numeric = 0;
    for (const name of [...CONFIG_VARIABLES, ...DISTRIBUTED_VARIABLES].filter((n) => n !== 'DATA_DIR')) {
      let message = '';
      try {
        // A DATA_DIR whose parent is missing: refused after the settings table, so nothing is created.
        loadConfig({ DATA_DIR: join(root, '.tmp-never-used', 'data'), REDIS_URL: 'redis://127.0.0.1:1/0', [name]: 'x' });
      } catch (error) {
        message = (error as Error).message;
      }
      const range = new RegExp(`${name}: must be a (?:whole )?number from (\\d+) to (\\d+)`).exec(message);
      if (!range) continue;
      numeric++;
      const suffix = name.replace(/^(PLAN_MINUTES|RETENTION_DAYS)_/, '_');
      const row = rows.find(
        (r) => r.includes(`\`${name}\``) || (suffix !== name && r.includes(`\`${name.replace(suffix, '')}`) && r.includes(`\`${suffix}\``)),
      );
      if (!row?.includes(`${range[1]}–${range[2]}`)) wrong.push(`${name}: ${range[1]}–${range[2]}`);
    }
    expect(numeric).toBeGreaterThan(25);
    expect(wrong).toEqual([]);
  });
});
