/**
 * GitLab's pipeline-trigger API (v4): `POST /api/v4/projects/:id/triggers` (with a
 * `PRIVATE-TOKEN`) creates a trigger token; `POST /api/v4/projects/:id/trigger/pipeline` with
 * that `token` and a `ref` (form or JSON, as GitLab accepts both) starts a pipeline.
 */
import { randomBytes } from 'node:crypto';
import { startDoubleServer, type DoubleServer } from './double-server';

export interface TriggeredPipeline {
  id: number;
  projectId: string;
  ref: string;
  token: string;
}

export interface GitlabDouble extends DoubleServer {
  /** Trigger tokens created, by project. */
  triggers: Array<{ id: number; projectId: string; token: string; description: string }>;
  pipelines: TriggeredPipeline[];
}

export async function startGitlabDouble(options: { privateToken: string }): Promise<GitlabDouble> {
  const triggers: GitlabDouble['triggers'] = [];
  const pipelines: TriggeredPipeline[] = [];
  let nextId = 1;

  const { server } = await startDoubleServer((app) => {
    app.post('/api/v4/projects/:id/triggers', (req, res) => {
      if (req.headers['private-token'] !== options.privateToken) {
        res.status(401).json({ message: '401 Unauthorized' });
        return;
      }
      const body = (req.body ?? {}) as Record<string, unknown>;
      const trigger = {
        id: nextId++,
        projectId: req.params.id,
        token: `glptt-${randomBytes(20).toString('hex')}`,
        description: typeof body.description === 'string' ? body.description : '',
      };
      triggers.push(trigger);
      res.status(201).json({
        id: trigger.id,
        description: trigger.description,
        token: trigger.token,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
        last_used: null,
        owner: { id: 1, username: 'pelita-bot' },
      });
    });
    app.post('/api/v4/projects/:id/trigger/pipeline', (req, res) => {
      const body = { ...req.query, ...((req.body ?? {}) as Record<string, unknown>) };
      const trigger = triggers.find((t) => t.projectId === req.params.id && t.token === body.token);
      if (!trigger) {
        res.status(404).json({ message: '404 Not Found' });
        return;
      }
      if (typeof body.ref !== 'string' || body.ref === '') {
        res.status(400).json({ error: 'ref is missing' });
        return;
      }
      const pipeline = {
        id: nextId++,
        projectId: req.params.id,
        ref: body.ref,
        token: trigger.token,
      };
      pipelines.push(pipeline);
      res.status(201).json({
        id: pipeline.id,
        project_id: Number(req.params.id) || req.params.id,
        ref: pipeline.ref,
        status: 'created',
        source: 'trigger',
        web_url: `${server.url}/project/${req.params.id}/-/pipelines/${pipeline.id}`,
      });
    });
  });
  return { ...server, triggers, pipelines };
}
