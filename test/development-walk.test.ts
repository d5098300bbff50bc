import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/** docs/development.md walks a POST and a poll through the files: every file it names exists. */
describe("the development guide's walk of a request", () => {
  it('names only files that exist', () => {
    const text = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
    const start = text.indexOf("## A request's path through the files");
    const end = text.indexOf('\n## ', start + 1);
    expect(start).toBeGreaterThan(0);
    const walk = text.slice(start, end);
    const named = [...walk.matchAll(/`((?:src\/)?[a-z0-9-]+(?:\/[a-z0-9.-]+)*\.ts)`/g)].map((m) => m[1] ?? '');
    expect(named.length).toBeGreaterThan(30);
    const missing = named.filter((file) => !existsSync(join(ROOT, file.startsWith('src/') ? file : `src/server/${file}`)));
    expect(missing).toEqual([]);
    // The folders it names, too.
    for (const folder of [...walk.matchAll(/`([a-z]+\/[a-z]+\/)`/g)].map((m) => m[1] ?? '')) {
      expect(existsSync(join(ROOT, folder.startsWith('src/') ? folder : `src/server/${folder}`)), folder).toBe(true);
    }
  });
});
