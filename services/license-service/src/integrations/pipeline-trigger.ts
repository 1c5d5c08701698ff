/**
 * GitLab pipelines of `frontend` mappings: after their secrets are saved, a pipeline runs on the
 * mapping's `branch_source` so the front end is rebuilt with them. The seed's dashboard created a
 * new trigger token on every save and left them all behind; here each mapping gets one token,
 * created on its first save, stored with it and reused. When GitLab no longer knows a stored
 * token (revoked), one new token replaces it.
 */
import { HttpError } from '@pelita/kit';

export interface PipelineTriggerOptions {
  baseUrl: string;
  token: string | undefined;
  projectId: string | undefined;
  timeoutMs: number;
}

export interface PipelineTrigger {
  configured: boolean;
  /**
   * Runs a pipeline on `ref` with the stored trigger token, or a new one (handed to `keep` as
   * soon as GitLab made it, so a later failure does not lose it) when there is none or GitLab
   * no longer knows it.
   */
  run(
    ref: string,
    stored: string | null,
    description: string,
    keep: (token: string) => Promise<void>,
  ): Promise<{ pipelineId: number }>;
}

const failed = (what: string, status?: number) =>
  new HttpError(
    502,
    'pipeline_failed',
    `GitLab ${what}${status ? ` answered ${status}` : ' did not answer'}`,
  );

export function createPipelineTrigger(options: PipelineTriggerOptions): PipelineTrigger {
  const { token, projectId } = options;
  const project = encodeURIComponent(projectId ?? '');
  const api = `${options.baseUrl}/api/v4/projects/${project}`;

  async function post(
    url: string,
    init: RequestInit,
    what: string,
  ): Promise<{ status: number; body: unknown }> {
    let res: Response;
    try {
      res = await fetch(url, {
        ...init,
        method: 'POST',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch {
      throw failed(what);
    }
    const body: unknown = await res.json().catch(() => undefined);
    return { status: res.status, body };
  }

  async function createToken(description: string): Promise<string> {
    const { status, body } = await post(
      `${api}/triggers`,
      {
        headers: { 'private-token': token ?? '', 'content-type': 'application/json' },
        body: JSON.stringify({ description }),
      },
      'creating a trigger token',
    );
    const created = (body as { token?: unknown } | undefined)?.token;
    if (status !== 201 || typeof created !== 'string')
      throw failed('creating a trigger token', status);
    return created;
  }

  async function trigger(triggerToken: string, ref: string) {
    return post(
      `${api}/trigger/pipeline`,
      {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: triggerToken, ref }),
      },
      'triggering a pipeline',
    );
  }

  return {
    configured: token !== undefined && projectId !== undefined,
    async run(ref, stored, description, keep) {
      if (!token || !projectId) {
        throw new HttpError(
          503,
          'pipeline_unconfigured',
          'GITLAB_TOKEN and GITLAB_PROJECT_ID are not set',
        );
      }
      const fresh = async () => {
        const created = await createToken(description);
        await keep(created);
        return created;
      };
      let answer = await trigger(stored ?? (await fresh()), ref);
      if (stored && (answer.status === 404 || answer.status === 401 || answer.status === 403)) {
        answer = await trigger(await fresh(), ref);
      }
      const id = (answer.body as { id?: unknown } | undefined)?.id;
      if (answer.status !== 201 || typeof id !== 'number')
        throw failed('triggering a pipeline', answer.status);
      return { pipelineId: id };
    },
  };
}
