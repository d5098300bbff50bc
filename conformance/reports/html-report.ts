import type { RunResult } from '../results.js';
import { basisLabel } from '../rule.js';
import { type ReportExchange, toReportExchange } from './report-exchange.js';
import { clockLine } from './console-report.js';

const esc = (s: string) => s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);

const COLOURS = { pass: '#1a7f37', fail: '#cf222e', error: '#9a6700', skip: '#57606a', disabled: '#8c959f' } as const;

function exchangeHtml(e: ReportExchange): string {
  const head = (h: Record<string, string>) =>
    Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
  const request = `${e.request.method} ${e.request.url}\n${head(e.request.headers)}${e.request.body !== undefined ? `\n\n${e.request.body}` : ''}`;
  const response = e.response
    ? `HTTP ${e.response.status}\n${head(e.response.headers)}\n\n${e.response.body}`
    : e.dropped
      ? '(connection dropped by the suite after sending: a simulated transport failure)'
      : `(no answer: ${e.error})`;
  return `<details class="x"><summary>#${e.seq} ${esc(e.label ?? '')} — ${esc(e.request.method)} ${esc(new URL(e.request.url).pathname)} → ${e.response ? e.response.status : e.dropped ? 'dropped' : 'error'} <small>${e.ms} ms, ${esc(e.owner)}</small></summary>
<div class="pair"><pre>${esc(request)}</pre><pre>${esc(response)}</pre></div></details>`;
}

/** A self-contained HTML page: the summary, then each rule with the request and response behind it. */
export function htmlReport(run: RunResult): string {
  const bySeq = new Map(run.exchanges.map((e) => [e.seq, toReportExchange(e)]));
  const rows = run.rules
    .map((r) => {
      const exchanges = r.exchanges.map((s) => bySeq.get(s)).filter((e): e is ReportExchange => !!e);
      return `<details class="rule ${r.outcome}"${r.outcome === 'fail' || r.outcome === 'error' ? ' open' : ''}>
<summary><span class="badge" style="background:${COLOURS[r.outcome]}">${r.outcome}</span> <code>${esc(r.id)}</code> ${esc(r.title)} <small>${esc(basisLabel(r.basis, r.section))}${r.binding ? '' : ' · advisory at level api'} · ${r.durationMs} ms</small></summary>
${r.message ? `<p class="msg">${esc(r.message)}</p>` : ''}${r.reproduction ? `<pre class="repro">${esc(r.reproduction)}</pre>` : ''}${r.notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}
${exchanges.map(exchangeHtml).join('\n')}
</details>`;
    })
    .join('\n');
  const counts = Object.entries(run.counts)
    .map(([k, v]) => `<span class="badge" style="background:${COLOURS[k as keyof typeof COLOURS]}">${v} ${k}</span>`)
    .join(' ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agent-tts conformance report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1f2328}
.badge{color:#fff;border-radius:4px;padding:1px 6px;font-size:12px;text-transform:uppercase}
details.rule{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:4px 10px}
details.rule>summary{cursor:pointer}
.msg{color:#cf222e;white-space:pre-wrap}.note{color:#57606a}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:8px}
pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:24rem;white-space:pre-wrap;word-break:break-all;font-size:12px}
details.x{margin:4px 0 4px 1rem}
</style></head><body>
<h1>agent-tts conformance report</h1>
<p>Target <code>${esc(run.target.baseUrl)}</code>${run.target.voicesUrl ? `, voices <code>${esc(run.target.voicesUrl)}</code>` : ''} · level <b>${run.level}</b> · profile <b>${run.profile}</b> · started ${esc(run.startedAt)} · ${(run.durationMs / 1000).toFixed(1)} s · ${run.exchanges.length} exchanges</p>
<p>${counts}</p>
${run.clock ? `<p>${esc(clockLine(run.clock))}</p>` : ''}
<p><small>API keys appear only as <code>tts_&lt;public_id&gt;</code>.</small></p>
${rows}
</body></html>
`;
}
