/** Where a setting of the command came from: the flag, the environment, the config file, or the default. */
type Source = 'flag' | 'env' | 'config' | 'default';

/** A setting of the command (base URL, key) with where it came from, for messages that name the setting at fault. */
export interface Setting {
  value?: string;
  source?: Source;
  /** Where exactly: the flag or variable name, or the config path. */
  origin?: string;
}
