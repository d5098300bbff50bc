// Builds what @agent-tts/sandbox publishes: one self-contained build, as a stub server is one binary.
//
// The sandbox is the reference server's API with instant synthesis. Installed with @agent-tts/server as a
// dependency it brought the whole server's tree (eSpeak's WebAssembly build, the MP3 encoder, the thread
// pool, Swagger UI's files and its install script: 52 packages, 76 MB) for code paths it never runs. So
// its published dist/index.js and dist/cli.js are an esbuild bundle of its entry points in which the code
// of @agent-tts/server and @agent-tts/conformance it uses is inlined (their sources, through the
// `agent-tts-source` condition), and its package.json lists as dependencies only the packages the bundle
// leaves external; the server and the conformance suite are devDependencies. Inside the repository the
// tests run the sources, as before; only the published build differs.
//
// The server's heavy parts (ENGINE_ONLY below) are imported lazily where the sandbox's paths do not
// need them (synthesis-setup.ts imports the engine when it makes one; the sandbox brings its own), and
// stay external: this script fails when an entry point reaches one of them through static imports, or
// when the bundle imports a package the sandbox's package.json does not list. The files the server reads
// beside its modules (the committed OpenAPI document) are found in the package's openapi/ folder, which
// scripts/copy-assets.mjs fills; the API reference page's Swagger UI files are not shipped (/docs says so).
//
// Runs after `tsc -b` (npm run build), which emits the declarations and the modules the bundle replaces.
import { readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sandbox = join(root, 'src/sandbox');
const dist = join(sandbox, 'dist');

/** Inlined from their sources: the packages the sandbox is built from. */
const INLINED = /^@agent-tts\/(server|conformance)(\/|$)/;
/** The server's parts the sandbox never runs: external, and reachable only through dynamic imports that do not run. */
const ENGINE_ONLY =
  /^(@echogarden\/espeak-ng-emscripten|wasm-media-encoders|piscina|swagger-ui-dist|koffi|better-sqlite3|redis|bullmq|@aws-sdk\/client-s3|@aws-sdk\/lib-storage)$/;

const ENTRY_POINTS = ['index.ts', 'cli.ts'];
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const builtins = new Set(builtinModules);

/** Every bare import but the inlined packages' stays an import of the installed package. */
const externals = {
  name: 'externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (INLINED.test(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * The server's modules that only a setting the sandbox refuses would load (REDIS_URL, AUDIO_STORE=s3://…)
 * or that only a composition without its own synthesizer loads (the engine): their dynamic imports
 * become a module that throws, so that no Redis, queue, object-store or engine code is shipped at all.
 */
const NOT_IN_SANDBOX = /^\.\/(adapters\/redis\/index|adapters\/s3-blob-storage|adapters\/s3\/client|synth\/synthesizer)\.js$/;
const notInSandbox = {
  name: 'not-in-sandbox',
  setup(build) {
    build.onResolve({ filter: NOT_IN_SANDBOX }, (args) =>
      args.kind === 'dynamic-import' && args.importer.includes(`${join('src', 'server')}/`) ? { path: args.path, namespace: 'not-in-sandbox' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'not-in-sandbox' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} (of @agent-tts/server) is not part of @agent-tts/sandbox, whose settings never load it`)});`,
      loader: 'js',
    }));
  },
};

rmSync(join(dist, 'chunks'), { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: sandbox,
  entryPoints: ENTRY_POINTS,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  conditions: ['agent-tts-source'],
  outdir: dist,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [notInSandbox, externals],
  metafile: true,
  logLevel: 'warning',
});

const problems = [];
const { outputs } = result.metafile;
// The outputs an entry point loads before it runs: the static imports' closure.
const loaded = new Set();
const pending = Object.keys(outputs).filter((file) => ENTRY_POINTS.includes(outputs[file].entryPoint));
while (pending.length > 0) {
  const file = pending.pop();
  if (loaded.has(file)) continue;
  loaded.add(file);
  for (const i of outputs[file].imports) {
    if (i.kind !== 'import-statement') continue;
    if (i.external) {
      if (ENGINE_ONLY.test(packageName(i.path))) problems.push(`${file} imports ${i.path} statically`);
    } else pending.push(i.path);
  }
}
const manifest = JSON.parse(readFileSync(join(sandbox, 'package.json'), 'utf8'));
const declared = new Set(Object.keys(manifest.dependencies ?? {}));
for (const [file, output] of Object.entries(outputs)) {
  for (const i of output.imports) {
    if (!i.external || i.path.startsWith('node:') || builtins.has(i.path)) continue;
    const name = packageName(i.path);
    if (!declared.has(name) && !ENGINE_ONLY.test(name)) problems.push(`${file} imports ${i.path}, which package.json's dependencies do not list`);
  }
}
// The published declarations: index.d.ts and what it imports, each listed in package.json's "files",
// naming no package but those its dependencies list (the server and the suite are not installed).
const shipped = new Set(manifest.files);
const declarations = ['index.d.ts'];
for (const file of declarations) {
  if (!shipped.has(`dist/${file}`)) problems.push(`dist/${file} is a published declaration that package.json's "files" does not list`);
  const text = readFileSync(join(dist, file), 'utf8');
  for (const [, specifier] of text.matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)) {
    if (specifier.startsWith('./')) {
      const next = specifier.slice(2).replace(/\.js$/, '.d.ts');
      if (!declarations.includes(next)) declarations.push(next);
    } else if (!specifier.startsWith('node:') && !declared.has(packageName(specifier)))
      problems.push(`dist/${file} imports ${specifier}, which package.json's dependencies do not list`);
  }
}
for (const [file, output] of Object.entries(outputs)) {
  for (const i of output.imports)
    if (i.external && ENGINE_ONLY.test(packageName(i.path))) problems.push(`${file} imports ${i.path}: no engine or adapter code is shipped`);
}
for (const input of Object.keys(result.metafile.inputs)) {
  if (input.includes('node_modules/')) problems.push(`${input} is inlined; only the @agent-tts packages' sources are`);
}
if (problems.length > 0) {
  console.error(`build-sandbox: the sandbox's bundle is not self-contained:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
