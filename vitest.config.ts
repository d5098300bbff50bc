import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Alias, defineConfig } from 'vitest/config';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/**
 * The @agent-tts packages import one another by name; in this workspace those names resolve to the
 * TypeScript sources, so a test runs the code beside it, not the last build. The map is read from each
 * package's `exports` (its `agent-tts-source` targets). Aliases, not a resolve condition: vitest hands
 * its conditions to Node as --conditions, and worker threads started under a test (the synthesis pool
 * runs built JavaScript) would then be sent to .ts files Node cannot load.
 */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function workspaceSources(): Alias[] {
  const { workspaces } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  const aliases: Alias[] = [];
  for (const dir of workspaces) {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, unknown> };
    for (const [key, target] of Object.entries(pkg.exports ?? {})) {
      const source = typeof target === 'object' && target !== null ? (target as Record<string, string>)['agent-tts-source'] : undefined;
      if (!source) continue;
      const specifier = pkg.name + key.slice(1);
      const find = new RegExp(`^${escapeRegExp(specifier).replace('\\*', '(.+)')}$`);
      aliases.push({ find, replacement: join(ROOT, dir, source).replace('*', '$1') });
    }
  }
  return aliases;
}

export default defineConfig({
  resolve: { alias: workspaceSources() },
  test: {
    include: ['src/**/*.test.ts', 'conformance/**/*.test.ts', 'mock/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // The fault suite runs on its own (vitest.faults.config.ts, `npm run test:faults`).
    exclude: ['**/node_modules/**', 'test/fault-*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: end-to-end files start servers and synthesis pools of their own.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
