import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The client core must load in browsers: only node.ts (the file helpers) may import Node built-ins. */
describe('client core', () => {
  const dir = new URL('./', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'node.ts');

  it.each(files)('%s imports no Node built-ins and nothing outside the client and the plain contract files', (file) => {
    const source = readFileSync(new URL(file, dir), 'utf8');
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    for (const spec of imports) {
      expect(spec.startsWith('node:')).toBe(false);
      if (spec.startsWith('.'))
        expect(
          ['./', '../contract/errors.js', '../contract/limits.js', '../contract/ratelimit-headers.js', '../contract/voices.js'].some((ok) =>
            spec.startsWith(ok),
          ),
        ).toBe(true);
      else expect(['openapi-fetch'].includes(spec)).toBe(true);
    }
  });

  it('index does not re-export the Node helpers', () => {
    expect(readFileSync(new URL('index.ts', dir), 'utf8')).not.toMatch(/from '\.\/node\.js'/);
  });
});
