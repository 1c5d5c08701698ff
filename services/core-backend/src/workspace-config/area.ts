/**
 * The workspace configuration area: system prompts, models, messaging integrations and chat
 * widgets (iframes), their routes, and the widget's public config. Chats read the prompts and
 * models (`systemPrompts`, `workspaceModels`) for a workspace already decided; the embed area
 * serves the widgets (`iframes`), the messaging area the integrations' webhooks
 * (`integrations`, `bridge`).
 */
import type { TargetPolicy } from '@pelita/kit';
import type pg from 'pg';
import type { Area } from '../area';
import type { ModelClient } from '../chats/model-client';
import type { Settings } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { MemberCheck } from '../workspaces/actor';
import type { CallerOf } from '../workspaces/caller';
import { createIframeRepository } from './iframe-repository';
import { createIframes } from './iframes';
import { integrationRoutes } from './integration-routes';
import { createIntegrationRepository } from './integration-repository';
import { createIntegrations } from './integrations';
import { createMessagingBridge } from './messaging-bridge';
import { workspaceConfigRoutes } from './routes';
import { createSystemPromptRepository } from './system-prompt-repository';
import { createSystemPrompts } from './system-prompts';
import { createWorkspaceConfig } from './workspace-config';
import { createWorkspaceModelRepository } from './workspace-model-repository';
import { createWorkspaceModels, type InstallModel } from './workspace-models';

export function workspaceConfigArea(deps: {
  pool: pg.Pool;
  box: SecretBox;
  workspaces: MemberCheck;
  models: Pick<ModelClient, 'listModels'>;
  targetPolicy: TargetPolicy;
  /** The install's own model, when it has one (a workspace without models uses it). */
  installModel: InstallModel | undefined;
  settings: Pick<Settings, 'WHATSAPP_TIMEOUT'>;
  callerOf: CallerOf;
}) {
  const { pool, box, workspaces, callerOf } = deps;
  const systemPrompts = createSystemPrompts(createSystemPromptRepository(pool));
  const workspaceModels = createWorkspaceModels(
    createWorkspaceModelRepository(pool),
    box,
    deps.installModel,
  );
  const iframes = createIframes(createIframeRepository(pool), workspaces);
  const bridge = createMessagingBridge({
    timeoutMs: deps.settings.WHATSAPP_TIMEOUT,
    targetPolicy: deps.targetPolicy,
  });
  const integrations = createIntegrations(
    createIntegrationRepository(pool),
    box,
    bridge,
    workspaces,
  );
  const area: Area = {
    routes: [
      ...workspaceConfigRoutes({
        workspaceConfig: createWorkspaceConfig({
          workspaces,
          systemPrompts,
          workspaceModels,
          models: deps.models,
        }),
        callerOf,
      }),
      ...integrationRoutes({ integrations, iframes, callerOf }),
    ],
  };
  return { area, systemPrompts, workspaceModels, iframes, integrations, bridge };
}
