import { html } from 'hono/html';
import { DASHBOARD_PATH, type DashboardView, type KeyView, formatDuration } from '../../../domain/dashboard.js';
import { KEY_NAME_MAX } from './forms.js';
import { type Html, page, when } from './layout.js';

/** What the account page shows besides the view: a notice, an error, or a key just created (shown this once). */
export interface AccountPageExtra {
  notice?: string;
  error?: string;
  newKey?: string;
}

/** Seconds to at most 3 decimals (an HTML duration allows no more). */
const round3 = (seconds: number) => String(Math.round(seconds * 1000) / 1000);

/** One key's row: its display key, name, times, calls and status, with rename and revoke while it is active. */
function keyRow(key: KeyView, csrf: string): Html {
  const id = key.displayKey;
  return html`<tr>
    <td data-label="Key"><code>${id}</code></td>
    <td data-label="Name">${key.name}</td>
    <td data-label="Created">${when(key.createdAt)}</td>
    <td data-label="Last used">${when(key.lastUsedAt)}</td>
    <td data-label="Calls">${key.callCount}</td>
    <td data-label="Status" class="status-${key.active ? 'active' : 'revoked'}">${key.active ? 'active' : html`revoked ${when(key.revokedAt)}`}</td>
    <td data-label="Actions">
      ${
        key.active
          ? html`<form class="inline" method="post" action="${DASHBOARD_PATH}/keys/${id}/rename">
              <input type="hidden" name="csrf" value="${csrf}" />
              <label for="rename-${id}" class="sr-only">New name for ${id}</label>
              <input type="text" id="rename-${id}" name="name" value="${key.name}" required maxlength="${KEY_NAME_MAX}" size="14" />
              <button class="secondary" type="submit">Rename</button>
            </form>
            <p><a class="button danger" href="${DASHBOARD_PATH}/keys/${id}/revoke">Revoke…</a></p>`
          : ''
      }
    </td>
  </tr>`;
}

/** The key just created, with the warning that it is shown once. */
function newKeySection(newKey: string): Html {
  return html`<section class="once" aria-labelledby="new-key-title">
        <h2 id="new-key-title">Your new API key</h2>
        <p><strong>Copy this key now. It will not be shown again</strong>: only a hash of it is kept, so it cannot be recovered.</p>
        <div class="key-value">
          <label for="new-key" class="sr-only">New API key</label>
          <input id="new-key" type="text" readonly value="${newKey}" spellcheck="false" autocomplete="off" />
          <button type="button" data-copy="new-key" data-status="copy-status" hidden>Copy</button>
        </div>
        <p id="copy-status" role="status" class="muted"></p>
      </section>`;
}

/** The keys table and the create form (disabled while the account has an active key). */
function keysSection(view: DashboardView, csrf: string): Html {
  return html`<section id="keys" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      ${
        view.keys.length
          ? html`<table>
            <thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Calls</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
            <tbody>${view.keys.map((k) => keyRow(k, csrf))}</tbody>
          </table>`
          : html`<p class="muted">No keys yet.</p>`
      }
      <h3>Create a key</h3>
      ${
        view.hasActiveKey
          ? html`<p class="muted" id="create-hint">This account has an active key, and an account can have only one. Revoke it first, then create another.</p>`
          : ''
      }
      <form class="inline" method="post" action="${DASHBOARD_PATH}/keys">
        <input type="hidden" name="csrf" value="${csrf}" />
        <label for="new-key-name">Name</label>
        ${
          view.hasActiveKey
            ? html`<input type="text" id="new-key-name" name="name" value="default" required maxlength="${KEY_NAME_MAX}" size="16" disabled aria-describedby="create-hint" />
              <button type="submit" disabled aria-describedby="create-hint">Create key</button>`
            : html`<input type="text" id="new-key-name" name="name" value="default" required maxlength="${KEY_NAME_MAX}" size="16" />
              <button type="submit">Create key</button>`
        }
      </form>
    </section>`;
}

/** This month's usage: plan, minutes used of the limit (a meter), reset date, retention and the billing link. */
function usageSection(usage: DashboardView['usage']): Html {
  return html`<section id="usage" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage this month</h2>
      <dl class="usage">
        <dt>Plan</dt><dd>${usage.plan}</dd>
        <dt>Subscription</dt><dd>${usage.subscription}</dd>
        <dt id="minutes-label">Minutes</dt>
        <dd>
          <meter aria-labelledby="minutes-label" min="0" max="${Math.max(usage.limitMinutes, 0.01)}" low="${usage.limitMinutes * 0.75}"
            high="${usage.limitMinutes * 0.9}" optimum="0" value="${usage.usedMinutes}">${usage.usedMinutes} of ${usage.limitMinutes}</meter>
          <div><span data-field="used">${usage.usedMinutes}</span> used of <span data-field="limit">${usage.limitMinutes}</span>,
            <span data-field="remaining">${usage.remainingMinutes}</span> remaining</div>
        </dd>
        <dt>Resets</dt><dd>${when(usage.resetsAt)}</dd>
        <dt>Audio kept for</dt><dd>${usage.retentionDays} ${usage.retentionDays === 1 ? 'day' : 'days'}</dd>
        <dt>Billing</dt><dd><a href="${usage.billingUrl}">Manage plan and billing</a></dd>
      </dl>
    </section>`;
}

/** Download links of a job's captions and word timings (the signed URLs, named after the job). */
function captionLinks(id: string, captions: NonNullable<DashboardView['jobs'][number]['captions']>): Html {
  const link = (url: string, format: string, label: string, what: string) =>
    html`<a href="${url}" download="${id}.${format}" aria-label="${what} of job ${id}">${label}</a>`;
  return html`<p class="captions">Captions: ${link(captions.vtt_url, 'vtt', 'WebVTT', 'WebVTT captions')} · ${link(captions.srt_url, 'srt', 'SRT', 'SRT captions')} · ${link(
    captions.json_url,
    'json',
    'JSON',
    'Word timings',
  )}</p>`;
}

/**
 * A job's player: the finished file of a completed job; for a job still processing, its stream URL,
 * which plays the audio made so far and the rest as it is made (the page itself is not refreshed: a
 * reload shows the finished job). The stream is opened only when played (preload none), so a list of
 * running jobs holds no connection open for nobody.
 */
function audioCell(j: DashboardView['jobs'][number]): Html {
  if (j.audioUrl) return html`<audio controls preload="none" src="${j.audioUrl}" aria-label="Audio of job ${j.id}"></audio>`;
  if (j.streamUrl) {
    return html`<audio controls preload="none" src="${j.streamUrl}" data-stream aria-label="Audio of job ${j.id}, as it is made"></audio>
      <p class="muted stream-note">Plays while the job runs.</p>`;
  }
  return html`<span class="muted">—</span>`;
}

/** One job's row: short id, text snippet while kept, status, voice, duration, its audio player and, when it asked for them, its captions. */
function jobRow(j: DashboardView['jobs'][number]): Html {
  return html`<tr>
              <td data-label="Job"><code class="job-id" title="${j.id}" data-job-id="${j.id}">${j.id.slice(0, 8)}</code></td>
              <td data-label="Text" class="text">${
                j.textSnippet ? j.textSnippet : html`<span class="muted" title="A job's text is deleted when the job finishes.">not kept</span>`
              }</td>
              <td data-label="Status" class="status-${j.status}">${j.status}</td>
              <td data-label="Voice"><code>${j.voice}</code></td>
              <td data-label="Duration">${
                j.durationSeconds === undefined
                  ? '—'
                  : html`<time datetime="PT${round3(j.durationSeconds)}S" title="${round3(j.durationSeconds)} s">${formatDuration(j.durationSeconds)}</time>`
              }</td>
              <td data-label="Created">${when(j.createdAt)}</td>
              <td data-label="Audio">${audioCell(j)}${j.captions ? captionLinks(j.id, j.captions) : ''}</td>
            </tr>`;
}

/** The recent jobs, as a table. */
function jobsSection(jobs: DashboardView['jobs']): Html {
  const table = jobs.length
    ? html`<table class="jobs">
        <thead><tr><th scope="col">Job</th><th scope="col">Text</th><th scope="col">Status</th><th scope="col">Voice</th><th scope="col">Duration</th><th scope="col">Created</th><th scope="col">Audio</th></tr></thead>
        <tbody>
          ${jobs.map(jobRow)}
        </tbody>
      </table>`
    : html`<p class="muted">No jobs yet.</p>`;
  return html`<section id="jobs" aria-labelledby="jobs-title">
      <h2 id="jobs-title">Recent jobs</h2>
      ${table}
    </section>`;
}

/** The account page: the keys, this month's usage and the recent jobs, every form with the session's CSRF token. */
export function accountPage(view: DashboardView, csrf: string, extra: AccountPageExtra = {}): Html {
  const body = html`<h1>${view.account.name}</h1>
    ${extra.notice ? html`<p class="notice" role="status">${extra.notice}</p>` : ''}
    ${extra.error ? html`<p class="error" role="alert">${extra.error}</p>` : ''}
    ${extra.newKey ? newKeySection(extra.newKey) : ''}
    ${keysSection(view, csrf)}
    ${usageSection(view.usage)}
    ${jobsSection(view.jobs)}`;
  return page('Dashboard', body, { account: view.account, csrf });
}
