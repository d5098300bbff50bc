import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * The release configuration (.changeset/config.json, scripts/publish-order.mjs, docs/releasing.md) held
 * to the workspace: a package added, made private or given a dependency on another must show up there.
 */
interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  publishConfig?: { access?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as T;
const workspaces = readJson<{ workspaces: string[] }>('package.json').workspaces;
const manifests = workspaces.map((dir) => ({
  dir,
  ...readJson<Manifest>(join(dir, 'package.json')),
}));
const byName = new Map(manifests.map((m) => [m.name, m]));
const published = manifests.filter((m) => m.private !== true).map((m) => m.name);
const privates = manifests.filter((m) => m.private === true).map((m) => m.name);
const config = readJson<{
  fixed: string[][];
  linked: string[][];
  ignore: string[];
  access: string;
  baseBranch: string;
  changelog: string;
  updateInternalDependencies: string;
}>('.changeset/config.json');

/** The dependencies of a package on other workspace packages, with the range it names. */
function internalDependencies(m: Manifest): [string, string][] {
  const all = {
    ...m.dependencies,
    ...m.devDependencies,
    ...m.optionalDependencies,
    ...m.peerDependencies,
  };
  return Object.entries(all).filter(([name]) => byName.has(name));
}

describe('release configuration', () => {
  it('puts every published workspace package in the one fixed group, and nothing else', () => {
    expect(published.length).toBeGreaterThan(0);
    expect(config.fixed).toHaveLength(1);
    expect([...(config.fixed[0] ?? [])].sort()).toEqual([...published].sort());
    expect(config.linked ?? []).toEqual([]);
  });

  it('ignores every private workspace package, and only those', () => {
    expect(privates).toContain('@agent-tts/bench');
    expect([...config.ignore].sort()).toEqual([...privates].sort());
  });

  it('publishes publicly from main with the plain changelog', () => {
    expect(config.access).toBe('public');
    expect(config.baseBranch).toBe('main');
    expect(config.changelog).toBe('@changesets/cli/changelog');
    expect(config.updateInternalDependencies).toBe('patch');
    for (const name of published) expect(byName.get(name)?.publishConfig?.access, name).toBe('public');
  });

  it('gives the published packages one version', () => {
    expect(new Set(published.map((name) => byName.get(name)?.version)).size).toBe(1);
  });

  it('names each internal dependency by the exact version of the package it names', () => {
    const pairs = manifests.flatMap((m) =>
      internalDependencies(m).map(([dep, range]) => ({
        from: m.name,
        dep,
        range,
      })),
    );
    expect(pairs.length).toBeGreaterThan(0);
    for (const { from, dep, range } of pairs) {
      expect(range, `${from} -> ${dep}`).toBe(byName.get(dep)?.version);
    }
  });

  it('has no published package depend on a private one', () => {
    for (const name of published) {
      for (const [dep] of internalDependencies(byName.get(name) as Manifest)) {
        expect(privates, `${name} -> ${dep}`).not.toContain(dep);
      }
    }
  });

  it('names only published packages in the pending changesets', () => {
    const files = readdirSync(join(ROOT, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    for (const file of files) {
      const front = readFileSync(join(ROOT, '.changeset', file), 'utf8').split('---')[1] ?? '';
      const named = [...front.matchAll(/^"([^"]+)":\s*(patch|minor|major)\s*$/gm)].map((m) => m[1]);
      expect(named.length, file).toBeGreaterThan(0);
      for (const name of named) expect(published, `${file}: ${name}`).toContain(name);
    }
  });
});

describe('publishing order', () => {
  const printed = execFileSync(process.execPath, ['scripts/publish-order.mjs'], { cwd: ROOT, encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.split('\t') as [dir: string, name: string, version: string]);
  const order = printed.map(([, name]) => name);

  it('lists every published package once, with its folder and version', () => {
    expect([...order].sort()).toEqual([...published].sort());
    for (const [dir, name, version] of printed) {
      expect(byName.get(name)?.dir).toBe(dir);
      expect(byName.get(name)?.version).toBe(version);
    }
  });

  it('puts every package after the workspace packages it depends on', () => {
    for (const name of order) {
      for (const [dep] of internalDependencies(byName.get(name) as Manifest)) {
        expect(order.indexOf(dep), `${dep} before ${name}`).toBeLessThan(order.indexOf(name));
      }
    }
  });

  it('is the order docs/releasing.md gives', () => {
    const doc = readFileSync(join(ROOT, 'docs/releasing.md'), 'utf8');
    const section = doc.split(/^## /m).find((s) => s.startsWith('Publishing order')) ?? '';
    const documented = [...section.matchAll(/^\d+\. `(@agent-tts\/[a-z-]+)`/gm)].map((m) => m[1]);
    expect(documented).toEqual(order);
  });

  it('every published package carries the licence (npm packs the LICENSE of the package folder, not the root one)', () => {
    const licence = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    for (const m of manifests.filter((p) => p.private !== true)) {
      expect(readFileSync(join(ROOT, m.dir, 'LICENSE'), 'utf8'), m.dir).toBe(licence);
    }
  });
});
