/**
 * What the Ingress lets the outside reach of core-backend: the paths users and their programs
 * call (services/core-backend/README.md), never the operational endpoints every service has
 * (`/metrics`, `/api-docs`, `/health`, `/ready`) nor what only the install's own services call.
 * Paths are matched as the Ingress API defines them, so the test reads like a request.
 */
import type { V1Ingress } from '@kubernetes/client-node';
import { renderIngress } from '../../src/render';
import { makeInstall } from './fixtures';

const install = makeInstall({ ingress: { enabled: true, host: 'acme.example.com' } });

/**
 * Whether a request path reaches the backend: `Exact` is the whole path; `Prefix` matches whole
 * path elements (`/api` matches `/api` and `/api/x`, not `/api-docs`), a trailing `/` ignored.
 */
function routed(ingress: V1Ingress | null, requestPath: string): boolean {
  const elements = (p: string) => p.split('/').filter(Boolean);
  const paths = ingress?.spec?.rules?.flatMap((rule) => rule.http?.paths ?? []) ?? [];
  return paths.some(({ path = '/', pathType }) => {
    if (pathType === 'Exact') return path === requestPath;
    const prefix = elements(path);
    return prefix.every((element, i) => elements(requestPath)[i] === element);
  });
}

describe('the Ingress to core-backend', () => {
  const ingress = renderIngress(install, 'core-backend');

  it.each([
    ['/', 'the start page (redirects to the chat page)'],
    ['/chat', 'the chat page'],
    ['/assets/chat.css', "the pages' scripts and styles"],
    ['/auth/login', 'the sign-in relay'],
    ['/auth/refresh', 'the sign-in relay'],
    ['/api/workspaces', 'the API'],
    ['/api/workspaces/w1/rooms/r1/messages', 'the API'],
    ['/embed/i1', 'the widget page'],
    ['/embed/i1/config', "the widget's look"],
    ['/embed/i1/messages', "the widget's questions"],
    ['/open-api/models', 'the OpenAI-compatible API'],
    ['/open-api/chat/completions', 'the OpenAI-compatible API'],
    ['/v1/api/open-api/workspaces/w1/history', 'the chat history open API'],
  ])('routes %s (%s)', (path) => {
    expect(routed(ingress, path)).toBe(true);
  });

  it.each([
    ['/metrics', 'Prometheus scrapes it inside the cluster'],
    ['/api-docs', 'the interactive OpenAPI document'],
    ['/api-docs/', 'the interactive OpenAPI document'],
    ['/api-docs.json', 'the OpenAPI document'],
    ['/health', "the kubelet's probe"],
    ['/ready', "the kubelet's probe"],
    ['/utils/update-user-name/u1', "the user service's call, with its service token"],
    ['/chat/x', 'nothing'],
  ])('does not route %s (%s)', (path) => {
    expect(routed(ingress, path)).toBe(false);
  });

  it('sends every path to core-backend, with the TLS and class of spec.ingress', () => {
    const secure = renderIngress(
      makeInstall({
        ingress: { enabled: true, host: 'acme.example.com', tlsSecretName: 't', className: 'c' },
      }),
      'core-backend',
    );
    const paths = secure?.spec?.rules?.[0]?.http?.paths ?? [];
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      expect(path.backend).toEqual({
        service: { name: 'acme-core-backend', port: { number: 3000 } },
      });
    }
    expect(secure?.spec?.tls).toEqual([{ hosts: ['acme.example.com'], secretName: 't' }]);
    expect(secure?.spec?.ingressClassName).toBe('c');
  });
});
