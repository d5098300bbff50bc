import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PINNED_AWS_SDK } from './aws-sdk-warning.js';

const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

/**
 * `engines` accepts Node 20, and the AWS SDK's versions published after the first week of January 2027
 * require Node 22: the SDK is pinned to a version known to run on Node 20, and the lockfile holds no
 * part of it that asks for more.
 */
describe('the AWS SDK pin', () => {
  it('is exact, the same in the server package and the workspace, and the version the start-up warning names', () => {
    const server = read('../package.json');
    const root = read('../../../package.json');
    expect(server.engines.node).toBe('^20.19.0 || ^24.15.0');
    // Optional peer dependencies of the server (compose.ts, OPTIONAL_PARTS), installed in the workspace.
    expect(server.peerDependencies['@aws-sdk/client-s3']).toBe(PINNED_AWS_SDK);
    expect(server.peerDependencies['@aws-sdk/lib-storage']).toBe(PINNED_AWS_SDK);
    expect(root.devDependencies['@aws-sdk/client-s3']).toBe(PINNED_AWS_SDK);
    expect(root.devDependencies['@aws-sdk/lib-storage']).toBe(PINNED_AWS_SDK);
  });

  it('resolves in the lockfile to packages whose engines accept Node 20', () => {
    const lock = read('../../../package-lock.json') as { packages: Record<string, { version?: string; engines?: { node?: string } }> };
    expect(lock.packages['node_modules/@aws-sdk/client-s3']?.version).toBe(PINNED_AWS_SDK);
    expect(lock.packages['node_modules/@aws-sdk/lib-storage']?.version).toBe(PINNED_AWS_SDK);
    const sdk = Object.entries(lock.packages).filter(([path]) => /node_modules\/@(aws-sdk|smithy|aws-crypto)\//.test(path));
    expect(sdk.length).toBeGreaterThan(10);
    const needMore = sdk.filter(([, entry]) => entry.engines?.node !== undefined && !/^>=\s*(1\d|20)(\.\d+)*(\.\d+)?$/.test(entry.engines.node.trim()));
    expect(needMore.map(([path, entry]) => `${path}: ${entry.engines?.node}`)).toEqual([]);
  });
});
