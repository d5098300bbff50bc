import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Path of the Prism CLI script, resolved from this package's own dependencies (not a global
 * install, not npx), so the mock is the Prism version the package pins.
 */
export function prismCliPath(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@stoplight/prism-cli/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin.prism;
  if (!bin) throw new Error(`@stoplight/prism-cli at ${manifestPath} declares no prism bin`);
  return join(dirname(manifestPath), bin);
}
