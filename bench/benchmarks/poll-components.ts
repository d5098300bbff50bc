import type { ComponentRules } from '../harness/profile.js';

/**
 * Where a poll's time goes in the server, for --profile: each profile sample is put to the component of
 * the innermost frame these rules name (see ComponentRules).
 */
export const POLL_COMPONENTS: ComponentRules = {
  primary: [
    { component: 'GC', match: /^\(garbage collector\) / },
    // Native socket writes (the response; in Redis mode also the commands): the system calls themselves.
    { component: 'socket write system calls (writev, write)', match: /^(writev|writeString|writeBuffer|writeUtf8String|writeLatin1String|writeAsciiString) $/ },
    // @redis/client gives every command an AbortSignal.timeout: set per command, and each fires (building
    // a DOMException) after its command is long done.
    { component: 'AbortSignal.timeout per Redis command (set, then fired)', match: / node:internal\/(abort_controller|per_context\/domexception)/ },
    {
      component: 'request logging (pino, request line)',
      match:
        /\/node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|safe-stable-stringify|on-exit-leak-free|atomic-sleep)\/|\/src\/server\/log\.js|^redactKeys /,
    },
    {
      component: 'metrics middleware (prom-client)',
      match: /\/node_modules\/prom-client\/|\/node_modules\/hono\/dist\/helper\/route\/|\/src\/server\/http\/routes\/ops\.js|\/src\/server\/metrics\.js/,
    },
    { component: 'URL signing (HMAC)', match: /\/src\/server\/domain\/signing\.js/ },
    {
      component: 'rate limiter',
      match: /\/src\/server\/adapters\/(memory-rate-limiter|redis\/rate-limiter)\.js|\/src\/server\/http\/rate-headers\.js|^getBucket /,
    },
    {
      component: 'store reads (SQLite or Redis)',
      match: /\/node_modules\/better-sqlite3\/|\/src\/server\/adapters\/(sqlite-store|sqlite-driver|redis\/store)\.js/,
    },
    { component: 'auth (key parse, SHA-256, compare, key usage)', match: /\/src\/server\/domain\/(auth|keys|key-usage)\.js|^principalOf / },
    {
      component: 'job view and JSON body (jobView, sendJson, c.json)',
      match: /\/src\/server\/domain\/(jobs|usage)\.js|\/src\/server\/http\/(job-bodies|context|routes\/jobs)\.js|\/node_modules\/hono\/dist\/context\.js/,
    },
    {
      component: "request validation (zod: the contract's query and header schemas)",
      match: /\/node_modules\/(zod|@hono\/zod-openapi|@hono\/zod-validator)\/|\/node_modules\/hono\/dist\/validator\/|\/src\/server\/http\/validation\.js/,
    },
    { component: 'Node adapter, response write (@hono/node-server)', match: /\/node_modules\/@hono\/node-server\// },
    { component: 'Hono routing and dispatch', match: /\/node_modules\/hono\/dist\// },
    {
      component: 'request id, CORS, auth middleware, handler glue (create-app.js, middleware/)',
      match: /\/src\/server\/http\/(create-app|middleware\/[a-z-]+)\.js/,
    },
    { component: 'lean handler: all its own work (auth, SQLite, window, HMAC, JSON)', match: /\/bench\/harness\/lean-poll\.js/ },
  ],
  fallback: [
    { component: 'Redis client (commands, replies)', match: /\/node_modules\/(@redis\/|redis\/|cluster-key-slot\/)/ },
    { component: 'Node HTTP parsing and sockets', match: / node:(_http_|net|stream|internal\/(streams|http|stream_base_commons|js_stream_socket))/ },
  ],
  other: 'other (event loop, timers, microtasks)',
};
