import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/** The README's worked example of the sandbox is examples/sandbox.test.ts, word for word (that file runs with the tests). */
describe('README: the sandbox example', () => {
  it('quotes examples/sandbox.test.ts exactly', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const quoted = /<!-- examples\/sandbox\.test\.ts -->\n```ts\n([\s\S]*?)```\n/.exec(readme)?.[1];
    expect(quoted).toBe(readFileSync(join(ROOT, 'examples/sandbox.test.ts'), 'utf8'));
  });
});
