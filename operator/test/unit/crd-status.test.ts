import { buildCrd } from '../../src/crd/generate-crd';

type Schema = { [key: string]: unknown; properties?: Record<string, Schema>; items?: Schema };

const version = (buildCrd() as any).spec.versions[0] as {
  additionalPrinterColumns: Array<{ name: string; jsonPath: string }>;
  schema: { openAPIV3Schema: Schema };
};
const status = version.schema.openAPIV3Schema.properties!.status!;

describe('the CRD status schema and printer columns (API conventions)', () => {
  it('keys conditions by type, so server-side apply merges them per type', () => {
    const conditions = status.properties!.conditions!;
    expect(conditions['x-kubernetes-list-type']).toBe('map');
    expect(conditions['x-kubernetes-list-map-keys']).toEqual(['type']);
    expect(conditions.items!.required).toContain('type');
  });

  it('declares lastTransitionTime a date-time', () => {
    const condition = status.properties!.conditions!.items!;
    expect(condition.properties!.lastTransitionTime).toMatchObject({
      type: 'string',
      format: 'date-time',
    });
  });

  it('shows Ready, Reason, Tenant and ready/desired services in kubectl get', () => {
    const columns = Object.fromEntries(
      version.additionalPrinterColumns.map((c) => [c.name, c.jsonPath]),
    );
    expect(columns).toMatchObject({
      Ready: '.status.conditions[?(@.type=="Ready")].status',
      Reason: '.status.conditions[?(@.type=="Ready")].reason',
      Tenant: '.spec.tenant.id',
      Services: '.status.readyServices',
    });
    expect(status.properties!.readyServices).toMatchObject({ type: 'string' });
  });
});
