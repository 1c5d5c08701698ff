import type { V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import { removeAddedFields } from '../../src/controller/added-fields';

const configMap = (data: Record<string, string>, binaryData?: Record<string, string>) =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'acme-db-proxy', namespace: 't' },
    data,
    ...(binaryData ? { binaryData } : {}),
  }) satisfies V1ConfigMap;

const deployment = (env: Record<string, string[]>): V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'acme-db-proxy', namespace: 't' },
  spec: {
    selector: {},
    template: {
      spec: {
        containers: Object.entries(env).map(([name, names]) => ({
          name,
          env: names.map((n) => ({ name: n, value: 'v' })),
        })),
      },
    },
  },
});

describe('removeAddedFields', () => {
  it('removes nothing from a child holding only what is desired (and what the API adds)', () => {
    const live = { ...configMap({ PORT: '3000' }), metadata: { name: 'x', uid: 'u' } };
    expect(removeAddedFields(configMap({ PORT: '3000' }), live)).toEqual([]);
    expect(removeAddedFields(configMap({ PORT: '3000' }), undefined)).toEqual([]);
    const pods = deployment({ 'db-proxy': ['PORT'] });
    expect(removeAddedFields(pods, structuredClone(pods))).toEqual([]);
  });

  it('removes a ConfigMap key someone added, testing its value first', () => {
    const live = configMap({ PORT: '3000', 'EXTRA/KEY~1': 'injected' }, { blob: 'AA==' });
    expect(removeAddedFields(configMap({ PORT: '3000' }), live)).toEqual([
      { op: 'test', path: '/data/EXTRA~1KEY~01', value: 'injected' },
      { op: 'remove', path: '/data/EXTRA~1KEY~01' },
      { op: 'test', path: '/binaryData/blob', value: 'AA==' },
      { op: 'remove', path: '/binaryData/blob' },
    ]);
  });

  it('leaves a changed value to the drift check (it is a desired key)', () => {
    expect(removeAddedFields(configMap({ PORT: '3000' }), configMap({ PORT: '1' }))).toEqual([]);
  });

  it('removes env entries added to a rendered container, last first', () => {
    const live = deployment({ 'db-proxy': ['A', 'PORT', 'B'], sidecar: ['C'] });
    const ops = removeAddedFields(deployment({ 'db-proxy': ['PORT'] }), live);
    const container = '/spec/template/spec/containers/0';
    expect(ops).toEqual([
      { op: 'test', path: `${container}/name`, value: 'db-proxy' },
      { op: 'test', path: `${container}/env/2/name`, value: 'B' },
      { op: 'remove', path: `${container}/env/2` },
      { op: 'test', path: `${container}/name`, value: 'db-proxy' },
      { op: 'test', path: `${container}/env/0/name`, value: 'A' },
      { op: 'remove', path: `${container}/env/0` },
    ]);
  });

  it('leaves containers it does not render and kinds it does not cover alone', () => {
    const live = deployment({ 'db-proxy': ['PORT'], injected: ['X'] });
    expect(removeAddedFields(deployment({ 'db-proxy': ['PORT'] }), live)).toEqual([]);
    const service: V1Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } };
    const labelled = { ...service, metadata: { name: 's', labels: { extra: 'x' } } };
    expect(removeAddedFields(service, labelled)).toEqual([]);
  });
});
