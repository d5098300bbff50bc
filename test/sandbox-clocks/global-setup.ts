import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The origin of the sandbox every file of this project shares. */
    sandboxUrl: string;
  }
}

/** Starts one sandbox (the bin, from dist/) for every file, and stops it once they are done. */
export default async function setup(project: TestProject): Promise<() => void> {
  const bin = fileURLToPath(new URL('../../src/sandbox/bin/agent-tts-sandbox.js', import.meta.url));
  const child = spawn(process.execPath, [bin, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const url = /agent-tts sandbox on (http:\/\/\S+)/.exec(out)?.[1];
      if (url && /Started in \d+ ms/.test(out)) resolve(url);
    });
    child.stderr!.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`agent-tts-sandbox exited (${code}) before starting: ${out}`)));
  });
  project.provide('sandboxUrl', baseUrl);
  return () => {
    child.kill('SIGTERM');
  };
}
