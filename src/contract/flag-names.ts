/**
 * Flag names shared by every command of the package (docs/configuration.md, "Flag names"): `--out <file>` for the one
 * file a command writes, `--out-dir <dir>` for a directory of reports, `--fixtures <file>` for a
 * fixtures file a command reads. Names a command used before that convention still work: each is
 * rewritten to its new name before parsing, and the first use of each says so on stderr, in one line.
 */
export function renameOldFlags(argv: readonly string[], renamed: Readonly<Record<string, string>>, notice: (line: string) => void): string[] {
  const result: string[] = [];
  const told = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      // Everything after the terminator is an operand, never a flag.
      result.push(...argv.slice(i));
      break;
    }
    const match = /^--([^=]+)(=[\s\S]*)?$/.exec(arg);
    const old = match?.[1];
    if (old === undefined || !Object.hasOwn(renamed, old)) {
      result.push(arg);
      continue;
    }
    const now = renamed[old]!;
    if (!told.has(old)) {
      told.add(old);
      notice(oldFlagNotice(old, now));
    }
    result.push(`--${now}${match![2] ?? ''}`);
  }
  return result;
}

/** `--output-dir is now --out-dir; the old name still works for now.` */
function oldFlagNotice(old: string, now: string): string {
  return `--${old} is now --${now}; the old name still works for now.`;
}
