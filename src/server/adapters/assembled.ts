/**
 * A base class whose instances carry, as their own members, those of the object given to its
 * constructor, typed as such: a store adapter assembles its repositories (one module per aggregate)
 * into one object and stays a class (`new SqliteStore(path)`, `new RedisStore(client, prefix)`).
 */
export function assembled<T extends object>(): new (parts: T) => T {
  return class {
    constructor(parts: T) {
      Object.assign(this, parts);
    }
  } as new (
    parts: T,
  ) => T;
}
