// One trace across the hops of a role change: the administrator's request to the user service
// writes the change with its outbox row, which carries the request's traceparent; the outbox's
// delivery continues that trace when it calls policy-sync, which pushes the new role data to
// OPA. Each runs as its own process, as deployed (the user service and policy-sync from their
// dist/main.js, OPA from OPA_BIN), all exporting to one OTLP receiver; their log lines carry the
// same trace id.
import { randomBytes } from 'node:crypto';
import { waitFor } from '@pelita/testenv';
import {
  CLIENT,
  CONSUMER,
  SERVER,
  childOf,
  descendants,
  startAuthPlatform,
  startTracedProcesses,
  type AuthPlatform,
  type TracedProcesses,
} from '../observability/traced-processes';

let processes: TracedProcesses;
let platform: AuthPlatform | undefined;

beforeAll(async () => {
  processes = await startTracedProcesses();
  platform = await startAuthPlatform(processes);
}, 120_000);

afterAll(async () => {
  await processes?.stop();
  await platform?.drop();
});

it('follows a role change from the admin request through policy-sync into OPA in one trace', async () => {
  const { user } = platform!;
  const token = await platform!.login();
  const created = await fetch(`${user.url}/roles`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: `traced-${randomBytes(3).toString('hex')}`, level: 50 }),
  });
  expect(created.status).toBe(201);

  // The administrator's request (a user-service server span, the root: the test's call is not
  // traced) → the outbox's delivery (a consumer span, the child of a span of that request) → its
  // call (client) → policy-sync's server span → policy-sync's push → OPA's server span.
  const hop = await waitFor(
    () => {
      const request = processes.receiver.spans.find(
        (s) =>
          s.serviceName === 'user-service' &&
          s.kind === SERVER &&
          !s.parentSpanId &&
          s.name === 'POST /roles',
      );
      if (!request) return undefined;
      const trace = processes.receiver.spans.filter((s) => s.traceId === request.traceId);
      const delivery = childOf(trace, descendants(trace, [request]), 'user-service', CONSUMER);
      const calls = childOf(trace, delivery, 'user-service', CLIENT);
      const syncs = childOf(trace, calls, 'policy-sync', SERVER);
      const pushes = descendants(trace, syncs).filter(
        (s) => s.serviceName === 'policy-sync' && s.kind === CLIENT,
      );
      const opa = childOf(trace, pushes, 'opa', SERVER);
      if (opa.length === 0) return undefined;
      return { traceId: request.traceId, trace, delivery };
    },
    {
      what: 'a trace admin request → outbox → policy-sync → OPA',
      timeoutMs: 30_000,
      intervalMs: 200,
    },
  );
  expect(hop.delivery.map((s) => s.name)).toContain('policy-sync outbox');
  const services = new Set(hop.trace.map((s) => s.serviceName));
  expect([...services].sort()).toEqual(
    expect.arrayContaining(['opa', 'policy-sync', 'user-service']),
  );

  // Log lines of both Node services carry the trace id of that trace.
  await waitFor(
    () =>
      ['user-service', 'policy-sync'].every((name) =>
        processes.byName(name).logs.some((line) => line.trace_id === hop.traceId),
      ),
    { what: `log lines with trace_id ${hop.traceId} from both services`, timeoutMs: 10_000 },
  );
});
