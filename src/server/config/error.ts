/** A setting that stops the start: the message names the variable, never a secret value (exit code 2). */
export class ConfigError extends Error {}
