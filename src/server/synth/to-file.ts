import { randomUUID } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { SynthesisRequest, SynthesisResult, SynthesisRunOptions, Synthesizer } from '../ports/index.js';
import { toSynthesisError } from './errors.js';

/**
 * Synthesizes into a file with any Synthesizer (its `synthesize` into a file sink), for the
 * benchmarks and the tests that decode what an engine made; the server itself synthesizes into the
 * audio storage. The file is written as `.<name>.<uuid>.part` in `tempDir` (default: beside
 * `outPath`, on its file system), renamed into place once complete and removed on any failure.
 */
export async function synthesizeToFile(
  synth: Pick<Synthesizer, 'synthesize'>,
  req: SynthesisRequest,
  outPath: string,
  opts: SynthesisRunOptions & { tempDir?: string } = {},
): Promise<SynthesisResult> {
  const { tempDir, ...run } = opts;
  const tempPath = join(tempDir ?? dirname(outPath), `.${basename(outPath)}.${randomUUID()}.part`);
  const file = await open(tempPath, 'wx').catch((error: unknown) => {
    throw toSynthesisError(error, `Cannot create ${tempPath}`);
  });
  try {
    const result = await synth.synthesize(req, { write: async (bytes) => void (await file.write(bytes)) }, run);
    await file.close();
    await rename(tempPath, outPath);
    return result;
  } catch (error) {
    await file.close().catch(() => undefined);
    await unlink(tempPath).catch(() => undefined);
    throw error;
  }
}
