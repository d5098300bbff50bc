import type { Config } from '../config.js';
import type { Logger } from 'pino';

/**
 * The AWS SDK's versions published after the first week of January 2027 require Node 22; on Node 20
 * (which `engines` still accepts) every S3 client it makes prints an 8-line NodeVersionSupportWarning
 * through process.emitWarning, outside the JSON log. The package pins @aws-sdk/client-s3 and
 * @aws-sdk/lib-storage to 3.1169.0, a version that runs on Node 20 (docs/operations.md, Requirements),
 * so the warning tells the operator nothing to do today: it is turned off with the SDK's own variable
 * and said once, as one JSON line, when `log` is given (the server and the worker; the admin's output
 * is not a log, and the line would only be noise there). An operator's own setting of the variable wins.
 * `env` is the process's environment, which the entry point hands in (the SDK reads the variable there).
 */
/** The version of @aws-sdk/client-s3 and @aws-sdk/lib-storage the package pins (src/server/package.json). */
export const PINNED_AWS_SDK = '3.1169.0';

export function sayAwsSdkNodeWarning(config: Config, log: Logger | undefined, env: NodeJS.ProcessEnv, version = process.version): void {
  if (!config.s3 || env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED !== undefined) return;
  const major = Number(/^v(\d+)\./.exec(version)?.[1]);
  if (!(major < 22)) return;
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  log?.warn(
    { node: version, aws_sdk: PINNED_AWS_SDK },
    `Node 20: the AWS SDK for JavaScript requires Node 22 in its versions published after the first week of January 2027; this package pins ${PINNED_AWS_SDK}, which runs on Node 20. Move to Node 24 (docs/operations.md, Requirements)`,
  );
}
