// Records ⇄ hashes. Numbers are stored as decimal strings; absent optional fields are absent fields.

/** A Redis hash as read (HGETALL): field → value; empty when the key does not exist. */
export type Hash = Record<string, string>;

/** A record's defined fields as a flat field/value list (HSET's and the scripts' arguments). */
export function pairs(record: object): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(record)) {
    if (value !== undefined && value !== null) out.push(name, String(value));
  }
  return out;
}

/** A field every record of its kind is written with (by its create script); absent only if the hash was corrupted. */
export function requiredField(hash: Hash, name: string): string {
  const value = hash[name];
  if (value === undefined) throw new Error(`Redis hash has no ${name} field, which its create script always writes`);
  return value;
}

/** A record's defined fields as a hash. */
export function hashOf(record: object): Hash {
  const flat = pairs(record);
  const hash: Hash = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
  return hash;
}

export function isEmpty(hash: Hash): boolean {
  return Object.keys(hash).length === 0;
}
