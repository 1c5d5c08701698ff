/**
 * The environment page (seed 001 D): `/infisical-env?id={mapping id}` shows every secret of the
 * mapping from Infisical in a form; `POST /save-infisical` writes the edited values back (and for
 * a `frontend` mapping runs its pipeline). Values are shown to those allowed to read secrets and
 * go nowhere else: not in logs, not in the activity log.
 */
import type { RouteDefinition } from '@pelita/kit';
import { HttpError } from '@pelita/kit';
import type { Environments } from '../records/environment';
import { html } from './html';
import { csrfInput, layout } from './layout';
import { pageRoute, type PageEnvironment } from './page-route';

const FIELD_PREFIX = 'secret:';

export function environmentPages(
  env: PageEnvironment,
  environments: Environments,
): RouteDefinition[] {
  return [
    pageRoute(env, {
      method: 'get',
      path: '/infisical-env',
      summary: "A mapping's secrets from the secret store, editable",
      access: 'secrets.read',
      handler: async (ctx) => {
        const id = ctx.query.id ?? '';
        const { mapping, secrets } = await environments.read(id);
        const canWrite = ctx.viewer!.permissions.includes('secrets.write');
        const done = ctx.query.saved
          ? `Saved ${ctx.query.saved} secret${ctx.query.saved === '1' ? '' : 's'}.${ctx.query.pipeline ? ` Pipeline ${ctx.query.pipeline} started on ${String(mapping.branch_source)}.` : ''}`
          : undefined;
        const body = html`<p>
            <a href="/clients/${String(mapping.client_ref)}/mappings">Back to the mappings</a>
          </p>
          <dl class="card">
            <dt>Project</dt>
            <dd>${String(mapping.project_id)}</dd>
            <dt>Environment</dt>
            <dd>${String(mapping.client_env)}</dd>
            <dt>Path</dt>
            <dd>${String(mapping.path)}</dd>
            <dt>Type</dt>
            <dd>
              ${String(mapping.type)}${mapping.type === 'frontend' ? html` (saving runs the pipeline of <code>${String(mapping.branch_source)}</code>)` : ''}
            </dd>
          </dl>
          <form method="post" action="/save-infisical" class="card">
            ${csrfInput(ctx.viewer!.csrfToken)}
            <input type="hidden" name="id" value="${mapping.id}" />
            ${
              secrets.length
                ? secrets.map(
                    (s, i) =>
                      html`<div class="field">
                        <label for="s-${i}">${s.key}</label
                        ><input
                          id="s-${i}"
                          name="${FIELD_PREFIX}${s.key}"
                          value="${s.value}"
                          autocomplete="off"
                          spellcheck="false"
                          ${canWrite ? '' : html` readonly`}
                        />
                      </div>`,
                  )
                : html`<p>This path holds no secrets.</p>`
            }
            ${canWrite && secrets.length ? html`<p><button type="submit">Save secrets</button></p>` : ''}
          </form>`;
        return {
          html: layout({
            title: 'Environment secrets',
            viewer: ctx.viewer,
            body,
            flash: done,
            current: '/clients',
          }),
        };
      },
    }),
    pageRoute(env, {
      method: 'post',
      path: '/save-infisical',
      summary: "Saves a mapping's edited secrets (and runs a frontend mapping's pipeline)",
      access: 'secrets.write',
      handler: async (ctx) => {
        const id = typeof ctx.form.id === 'string' ? ctx.form.id : '';
        if (!id) throw new HttpError(400, 'bad_request', 'Which mapping? The form has no id.');
        const submitted = new Map<string, string>();
        for (const [name, value] of Object.entries(ctx.form)) {
          if (name.startsWith(FIELD_PREFIX) && typeof value === 'string')
            submitted.set(name.slice(FIELD_PREFIX.length), value);
        }
        const outcome = await environments.save(ctx.actor, id, submitted);
        const pipeline = outcome.pipelineId === undefined ? '' : `&pipeline=${outcome.pipelineId}`;
        return {
          redirect: `/infisical-env?id=${encodeURIComponent(id)}&saved=${outcome.changedKeys.length}${pipeline}`,
        };
      },
    }),
  ];
}
