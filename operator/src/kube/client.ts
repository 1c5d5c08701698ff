/**
 * Every request the operator sends to the Kubernetes API goes through here: one field manager for
 * server-side apply, one place that counts requests (`pelita_operator_kube_requests_total`) and
 * one way of reading an API error's status code.
 */
import http from 'node:http';
import https from 'node:https';
import {
  ApiException,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObjectApi,
  Observable,
  PatchStrategy,
  setHeaderOptions,
  type ConfigurationOptions,
  type CoreV1Event,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1Lease,
  type V1Secret,
} from '@kubernetes/client-node';
import { errorMessage } from '@pelita/kit';
import type { OperatorMetrics } from '../metrics';
import { ConnectionPool } from './connection-pool';
import { collectionPath, PLATFORM_INSTALL, type WatchedKind } from './kinds';

/** Items per page of a list (client-go's pager asks for as many). */
const LIST_PAGE_SIZE = 500;
const LIST_PAGE_TIMEOUT_MS = 60_000;

export const FIELD_MANAGER = 'pelita-operator';

export type Verb = 'apply' | 'patch' | 'delete' | 'list' | 'watch' | 'get' | 'create' | 'update';

/** Name, namespace and (optionally) uid of an object of a known apiVersion and kind. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

/** The HTTP status of a failed API call, or undefined for a transport error. */
export function apiStatus(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined;
}

/** A short, log-safe description of an API error (the API's own message, never a header). */
export function describeApiError(err: unknown): string {
  if (err instanceof ApiException) {
    const body = parseBody(err.body);
    return `${err.code} ${body?.reason ?? ''}: ${body?.message ?? 'no message'}`.replace(/ :/, ':');
  }
  return errorMessage(err);
}

function parseBody(body: unknown): { reason?: string; message?: string } | undefined {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as { reason?: string; message?: string };
    } catch {
      return { message: body };
    }
  }
  return typeof body === 'object' && body !== null ? body : undefined;
}

interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One GET, its body read whole; fails after LIST_PAGE_TIMEOUT_MS without an answer. */
function httpGet(url: URL, options: https.RequestOptions): Promise<HttpAnswer> {
  const send = url.protocol === 'http:' ? http.request : https.request;
  return new Promise((resolve, reject) => {
    const request = send(url, { ...options, method: 'GET' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    // A list that hangs would keep its informer from ever syncing: fail it, the informer retries.
    request.setTimeout(LIST_PAGE_TIMEOUT_MS, () =>
      request.destroy(
        new Error(`GET ${url.pathname}: no answer within ${LIST_PAGE_TIMEOUT_MS} ms`),
      ),
    );
    request.on('error', reject);
    request.end();
  });
}

/** Request options that abort the request when `signal` does (a time-out, typically). */
function abortingOn(signal: AbortSignal | undefined): ConfigurationOptions | undefined {
  if (!signal) return undefined;
  return {
    middleware: [
      {
        pre: (context) => {
          context.setSignal(signal);
          return new Observable(Promise.resolve(context));
        },
        post: (response) => new Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: 'append',
  };
}

/**
 * client-node serialises a kind it knows through its generated model, dropping any field the
 * model does not name. The model's names are the API's except where those clash with
 * TypeScript: a NetworkPolicy rule's `from` is `_from`. The renderers write the API's JSON (the
 * cache holds it and the drift check compares with it); this renames for the serialiser, which
 * writes `from` again. Without it the rules would be sent without their peers: open to anyone.
 */
export function toClientModel<T extends KubernetesObject>(object: T): T {
  if (object.kind !== 'NetworkPolicy') return object;
  const spec = (object as { spec?: { ingress?: Array<Record<string, unknown>> } }).spec;
  if (!spec?.ingress) return object;
  const ingress = spec.ingress.map(({ from, ...rule }) =>
    from === undefined ? rule : { ...rule, _from: from },
  );
  return { ...object, spec: { ...spec, ingress } };
}

export class KubeClient {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly coordination: CoordinationV1Api;
  private readonly pool: ConnectionPool;

  constructor(
    readonly config: KubeConfig,
    private readonly metrics: Pick<OperatorMetrics, 'kubeRequests'>,
  ) {
    this.pool = new ConnectionPool(config);
    this.objects = this.pool.objectApi();
    this.core = this.pool.api(CoreV1Api);
    this.apps = this.pool.api(AppsV1Api);
    this.custom = this.pool.api(CustomObjectsApi);
    this.coordination = this.pool.api(CoordinationV1Api);
  }

  /** Closes the pooled connections left idle (at shutdown, once no request is under way). */
  close(): void {
    this.pool.close();
  }

  /** Counts a request sent outside this class (the informers' watches). */
  count(verb: Verb): void {
    this.metrics.kubeRequests.inc({ verb });
  }

  /** Server-side apply, forcing ownership of the fields we set (we are their only writer). */
  apply<T extends KubernetesObject>(object: T): Promise<T> {
    this.count('apply');
    return this.objects.patch(
      toClientModel(object),
      undefined,
      undefined,
      FIELD_MANAGER,
      true,
      PatchStrategy.ServerSideApply,
    );
  }

  /**
   * A JSON patch (RFC 6902) of one object: removals server-side apply cannot make (fields another
   * manager owns), and the install's finalizer. The kinds it is used on only.
   */
  async patchJson(ref: ObjectRef, patch: readonly object[]): Promise<void> {
    this.count('patch');
    const { name, namespace = '' } = ref;
    const options = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
    const body = patch as object[];
    switch (`${ref.apiVersion}/${ref.kind}`) {
      case 'v1/ConfigMap':
        await this.core.patchNamespacedConfigMap({ name, namespace, body }, options);
        return;
      case 'apps/v1/Deployment':
        await this.apps.patchNamespacedDeployment({ name, namespace, body }, options);
        return;
      case 'apps/v1/StatefulSet':
        await this.apps.patchNamespacedStatefulSet({ name, namespace, body }, options);
        return;
      case `${PLATFORM_INSTALL.apiVersion}/${PLATFORM_INSTALL.kind}`: {
        const [group = '', version = ''] = PLATFORM_INSTALL.apiVersion.split('/');
        await this.custom.patchNamespacedCustomObject(
          { group, version, plural: PLATFORM_INSTALL.plural, namespace, name, body },
          options,
        );
        return;
      }
      default:
        throw new Error(`no JSON patch for ${ref.kind}`);
    }
  }

  /**
   * Deletes one object; already gone is fine. With `uid` the API refuses to delete a namesake
   * created since we looked (409), so we never remove what we do not own. `Foreground`: the
   * object stays (with its deletionTimestamp) until its dependents, the pods, are gone.
   */
  async remove(
    ref: ObjectRef,
    propagation: 'Background' | 'Foreground' = 'Background',
  ): Promise<void> {
    this.count('delete');
    try {
      await this.objects.delete(
        {
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          metadata: { name: ref.name, namespace: ref.namespace },
        },
        undefined,
        undefined,
        undefined,
        undefined,
        propagation,
        ref.uid ? { preconditions: { uid: ref.uid } } : undefined,
      );
    } catch (err) {
      if (apiStatus(err) !== 404) throw err;
    }
  }

  /**
   * Lists a collection as the API's JSON, 500 items a page (client-go's pager), each item handed
   * through `each` as its page arrives: a re-list of thousands of objects is never held whole.
   * Not client-node's typed list: that turns items into its models, which rename fields (a
   * NetworkPolicy rule's `from` becomes `_from`) and dates; the drift check compares with the
   * rendered API JSON, so after every restart each listed NetworkPolicy looked drifted and was
   * applied again.
   */
  async list(
    kind: WatchedKind,
    namespace: string | undefined,
    selectors: { labelSelector?: string; fieldSelector?: string; pageSize?: number } = {},
    each: (item: KubernetesObject) => KubernetesObject = (item) => item,
  ): Promise<KubernetesListObject<KubernetesObject>> {
    const items: KubernetesObject[] = [];
    let resourceVersion: string | undefined;
    let continueToken: string | undefined;
    do {
      const query = new URLSearchParams({ limit: String(selectors.pageSize ?? LIST_PAGE_SIZE) });
      if (selectors.labelSelector) query.set('labelSelector', selectors.labelSelector);
      if (selectors.fieldSelector) query.set('fieldSelector', selectors.fieldSelector);
      if (continueToken) query.set('continue', continueToken);
      this.count('list');
      const page = (await this.getJson(
        `${collectionPath(kind, namespace)}?${query.toString()}`,
      )) as {
        items?: KubernetesObject[];
        metadata?: { resourceVersion?: string; continue?: string };
      };
      for (const item of page.items ?? []) items.push(each(item));
      // The list's resourceVersion is the first page's: later pages are of that same snapshot.
      resourceVersion ??= page.metadata?.resourceVersion;
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken);
    return {
      apiVersion: kind.apiVersion,
      kind: `${kind.kind}List`,
      metadata: { resourceVersion },
      items,
    };
  }

  /** One GET answered with JSON; a non-2xx answer is an ApiException, as client-node's are. */
  private async getJson(path: string): Promise<unknown> {
    const server = this.config.getCurrentCluster()?.server;
    if (!server) throw new Error('the kubeconfig names no current cluster');
    const url = new URL(`${server}${path}`);
    const options: https.RequestOptions = { headers: { accept: 'application/json' } };
    await this.config.applyToHTTPSOptions(options); // credentials, CA and agent of the kubeconfig
    if (typeof options.agent === 'object') options.agent = this.pool.shared(options.agent);
    const { status, headers, body } = await httpGet(url, options);
    if (status < 200 || status > 299) {
      const flat = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name, String(value)]),
      );
      throw new ApiException(status, 'Unsuccessful HTTP Request', parseBody(body), flat);
    }
    return JSON.parse(body);
  }

  /** Server-side apply of a custom resource's status subresource. */
  async applyStatus(
    target: { group: string; version: string; plural: string; kind: string },
    ref: { name: string; namespace: string },
    status: unknown,
  ): Promise<void> {
    this.count('apply');
    await this.custom.patchNamespacedCustomObjectStatus(
      {
        group: target.group,
        version: target.version,
        plural: target.plural,
        namespace: ref.namespace,
        name: ref.name,
        body: {
          apiVersion: `${target.group}/${target.version}`,
          kind: target.kind,
          metadata: { name: ref.name, namespace: ref.namespace },
          status,
        },
        fieldManager: FIELD_MANAGER,
        force: true,
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
  }

  async createEvent(namespace: string, event: CoreV1Event): Promise<void> {
    this.count('create');
    await this.core.createNamespacedEvent({ namespace, body: event });
  }

  /**
   * One Secret by name (RBAC: `get` only, no list or watch, so the operator can read no Secret
   * it was not told the name of); undefined when it does not exist.
   */
  async readSecret(namespace: string, name: string): Promise<V1Secret | undefined> {
    this.count('get');
    try {
      return await this.core.readNamespacedSecret({ namespace, name });
    } catch (err) {
      if (apiStatus(err) === 404) return undefined;
      throw err;
    }
  }

  /** Creates a Secret; 409 when one of that name exists (never replaced: no update verb). */
  createSecret(namespace: string, secret: V1Secret): Promise<V1Secret> {
    this.count('create');
    return this.core.createNamespacedSecret({ namespace, body: secret });
  }

  /** Lease requests take a signal: leader election must never wait on the API unbounded. */
  async readLease(
    namespace: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<V1Lease | undefined> {
    this.count('get');
    try {
      return await this.coordination.readNamespacedLease({ namespace, name }, abortingOn(signal));
    } catch (err) {
      if (apiStatus(err) === 404) return undefined;
      throw err;
    }
  }

  createLease(namespace: string, lease: V1Lease, signal?: AbortSignal): Promise<V1Lease> {
    this.count('create');
    return this.coordination.createNamespacedLease({ namespace, body: lease }, abortingOn(signal));
  }

  /** Replace with the read resourceVersion: a concurrent writer makes it fail with 409. */
  replaceLease(namespace: string, lease: V1Lease, signal?: AbortSignal): Promise<V1Lease> {
    this.count('update');
    return this.coordination.replaceNamespacedLease(
      { namespace, name: lease.metadata?.name ?? '', body: lease },
      abortingOn(signal),
    );
  }
}
