import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { round } from './stats.js';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  startTime: number;
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface ProfileRow {
  function: string;
  /** File relative to the repository or package, with the line (1-based). */
  where: string;
  self_pct: number;
  total_pct: number;
}

/**
 * A span of the monotonic clock in microseconds, as `process.hrtime` reads it in any process of the
 * machine; V8 stamps profile samples on the same clock, so samples outside the load are left out.
 */
export interface ProfileWindow {
  startUs: number;
  endUs: number;
}

export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export interface ProfileSummary {
  file: string;
  /** Only samples inside the load window count (start-up and seeding are left out). */
  window_s?: number;
  /** Milliseconds the main thread was busy (not idle) while profiled. */
  busy_ms: number;
  gc_pct: number;
  top_self: ProfileRow[];
  /** The server's own functions by inclusive time (their callees included). */
  top_total_own_code: ProfileRow[];
  /** Self time per area: the server's code, each package, Node internals. */
  by_area: { area: string; self_pct: number }[];
  /** Busy time per component of the path, when the caller gave rules (see ComponentRules). */
  components?: { component: string; ms: number; pct: number }[];
}

/**
 * How to split a profile's busy time into the components of a path. Each sample goes to the component
 * of the innermost frame of its stack that a `primary` rule matches, else the innermost that a
 * `fallback` rule matches, else `other`; frames no rule matches (native code, Node internals such as
 * crypto) count as their caller's. A rule matches `<function name> <file URL>`; the first matching rule
 * in its list names the frame's component.
 */
export interface ComponentRules {
  primary: { component: string; match: RegExp }[];
  fallback: { component: string; match: RegExp }[];
  other: string;
}

function shortUrl(url: string): string {
  // Inline WebAssembly (a base64 data: URL of megabytes): its type is all that is worth showing.
  if (url.startsWith('data:')) return `(inline ${url.slice(5, url.search(/[;,]/)) || 'data'})`;
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  const dist = path.indexOf('/dist/');
  if (dist >= 0) return path.slice(dist + '/dist/'.length);
  return path;
}

function areaOf(url: string): string {
  if (url === '') return '(native / V8)';
  if (url.startsWith('node:')) return 'node: internals';
  if (url.startsWith('data:')) return shortUrl(url);
  const short = shortUrl(url);
  if (url.includes('/node_modules/')) return short.startsWith('@') ? short.split('/').slice(0, 2).join('/') : short.split('/')[0]!;
  if (short.startsWith('src/')) return short.split('/').slice(0, 3).join('/');
  return short;
}

const keyOf = (n: CpuProfileNode) => `${n.callFrame.functionName || '(anonymous)'}\u0000${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

/**
 * The component of a sampled node: that of the innermost frame on its stack a primary rule names, else
 * a fallback rule, else `other` (memoized per node). Empty without rules.
 */
function componentClassifier(byId: Map<number, CpuProfileNode>, parent: Map<number, number>, components: ComponentRules | undefined) {
  const componentOf = new Map<number, string>();
  return (leaf: CpuProfileNode): string => {
    let found = componentOf.get(leaf.id);
    if (found !== undefined || !components) return found ?? '';
    for (const rules of [components.primary, components.fallback]) {
      for (let id: number | undefined = leaf.id; id !== undefined && found === undefined; id = parent.get(id)) {
        const frame = byId.get(id)!.callFrame;
        found = rules.find((r) => r.match.test(`${frame.functionName} ${frame.url}`))?.component;
      }
      if (found !== undefined) break;
    }
    found ??= components.other;
    componentOf.set(leaf.id, found);
    return found;
  };
}

/**
 * Summarizes V8 .cpuprofiles (one thread each; several are added up, e.g. the synthesis workers): self
 * time and inclusive time per function, from the sample time deltas. Idle and "(program)" time are
 * left out of the percentages.
 */
function summarizeProfile(profiles: CpuProfile[], file: string, window?: ProfileWindow, components?: ComponentRules, top = 15): ProfileSummary {
  const self = new Map<string, number>();
  const byComponent = new Map<string, number>();
  const total = new Map<string, number>();
  const area = new Map<string, number>();
  let busy = 0;
  let gc = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const classify = componentClassifier(byId, parent, components);
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      at += profile.timeDeltas[i] ?? 0;
      if (window && (at < window.startUs || at > window.endUs)) continue;
      const node = byId.get(profile.samples[i]!);
      const dt = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
      if (!node) continue;
      const name = node.callFrame.functionName;
      if (name === '(idle)' || name === '(program)' || name === '(root)') continue;
      busy += dt;
      if (name === '(garbage collector)') gc += dt;
      const key = keyOf(node);
      self.set(key, (self.get(key) ?? 0) + dt);
      const a = areaOf(node.callFrame.url);
      area.set(a, (area.get(a) ?? 0) + dt);
      if (components) {
        const c = classify(node);
        byComponent.set(c, (byComponent.get(c) ?? 0) + dt);
      }
      const seen = new Set<string>();
      for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
        const k = keyOf(byId.get(id)!);
        if (seen.has(k)) continue;
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + dt);
      }
    }
  }
  const pct = (ms: number) => (busy > 0 ? round((100 * ms) / busy, 1) : 0);
  const row = (key: string): ProfileRow => {
    const [fn, where] = key.split('\u0000') as [string, string];
    return { function: fn, where, self_pct: pct(self.get(key) ?? 0), total_pct: pct(total.get(key) ?? 0) };
  };
  const own = (key: string) => key.split('\u0000')[1]!.startsWith('src/');
  return {
    file,
    window_s: window ? round((window.endUs - window.startUs) / 1e6, 1) : undefined,
    busy_ms: Math.round(busy),
    gc_pct: pct(gc),
    top_self: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k]) => row(k)),
    top_total_own_code: [...total]
      .filter(([k]) => own(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k]) => row(k)),
    by_area: [...area]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([a, ms]) => ({ area: a, self_pct: pct(ms) })),
    components: components && [...byComponent].sort((a, b) => b[1] - a[1]).map(([c, ms]) => ({ component: c, ms: Math.round(ms), pct: pct(ms) })),
  };
}

/**
 * Reads the profiles a process wrote into `dir`: the main thread's, or all its worker threads' added up.
 * Every thread writes its own file, `CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile`; the main
 * thread's id is 0.
 */
export async function readProfile(
  dir: string,
  window?: ProfileWindow,
  threads: 'main' | 'workers' = 'main',
  components?: ComponentRules,
): Promise<ProfileSummary | undefined> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => {
    const tid = /^CPU\.\d+\.\d+\.\d+\.(\d+)\.\d+\.cpuprofile$/.exec(f)?.[1];
    return tid !== undefined && (threads === 'main' ? tid === '0' : tid !== '0');
  });
  if (files.length === 0) return undefined;
  const profiles = await Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as CpuProfile));
  const label = threads === 'main' ? join(dir, files[0]!) : `${files.length} worker-thread profiles in ${dir}`;
  return summarizeProfile(profiles, label, window, components);
}

/** `requests`: requests the process served inside the window, to put the components in µs per request. */
export function profileMarkdown(summary: ProfileSummary, requests?: number): string {
  const perRequest = (ms: number) => (requests ? ` | ${round((ms * 1000) / requests, 1)}` : '');
  const lines = [
    `CPU profile (\`${summary.file}\`)${summary.window_s ? `, the ${summary.window_s} s under load only` : ''}: ` +
      `${summary.busy_ms} ms busy, GC ${summary.gc_pct}% (percentages are of busy time).`,
    '',
    '| Self % | Total % | Function | Where |',
    '| ---: | ---: | --- | --- |',
    ...summary.top_self.map((r) => `| ${r.self_pct} | ${r.total_pct} | \`${r.function}\` | ${r.where} |`),
    '',
    "The server's own functions by inclusive time:",
    '',
    '| Total % | Self % | Function | Where |',
    '| ---: | ---: | --- | --- |',
    ...summary.top_total_own_code.map((r) => `| ${r.total_pct} | ${r.self_pct} | \`${r.function}\` | ${r.where} |`),
    '',
    `Self time by area: ${summary.by_area.map((a) => `${a.area} ${a.self_pct}%`).join(', ')}.`,
  ];
  if (summary.components) {
    lines.push(
      '',
      `Busy time by component${requests ? ` (${requests} requests in the window: ${round((summary.busy_ms * 1000) / requests, 1)} µs busy per request)` : ''}:`,
      '',
      `| Component | % of busy | ms${requests ? ' | µs per request' : ''} |`,
      `| --- | ---: | ---:${requests ? ' | ---:' : ''} |`,
      ...summary.components.map((c) => `| ${c.component} | ${c.pct} | ${c.ms}${perRequest(c.ms)} |`),
    );
  }
  return lines.join('\n');
}
