import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppContext, AppEnv } from '../../context.js';
import { landing, problemPage } from './pages.js';
import { render } from './respond.js';

/** The longest key name, in characters. */
export const KEY_NAME_MAX = 64;

/**
 * A form sent from another site is refused: a present `Origin` must be this deployment's, either
 * PUBLIC_BASE_URL's origin (behind a proxy that ends TLS) or the origin the request was addressed to
 * (a browser sets Host itself, so another site cannot make it match its own Origin). An absent
 * Origin (older browsers, curl) is let through: the CSRF token still guards the session's forms.
 */
export function sameOrigin(publicOrigin: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== publicOrigin && origin !== new URL(c.req.url).origin) {
      return render(
        c,
        problemPage(
          'Request refused',
          'This form was sent from another site, so it was refused and nothing was changed. Open the dashboard and use its own forms.',
        ),
        403,
      );
    }
    await next();
  };
}

/** Every form body is bounded: a larger one is answered 413 with the sign-in page. */
export const formLimit = bodyLimit({
  maxSize: 16 * 1024,
  onError: (c) => render(c as AppContext, landing({ error: true, text: 'The form is too large.' }), 413),
});

/** The form's fields; a body that is not a form reads as none. */
export function readForm(c: AppContext): Promise<Record<string, unknown>> {
  return c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
}

/** The form's key name, trimmed: 1 to KEY_NAME_MAX characters without a control character, else undefined. */
export function keyNameOf(form: Record<string, unknown>): string | undefined {
  const name = typeof form.name === 'string' ? form.name.trim() : '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a key name with a control character in it is refused
  return name.length >= 1 && name.length <= KEY_NAME_MAX && !/[\u0000-\u001f\u007f]/.test(name) ? name : undefined;
}
