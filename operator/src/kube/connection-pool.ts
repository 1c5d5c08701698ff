/**
 * One pool of keep-alive connections for the operator's API requests. client-node gives every
 * request an agent of its own (KubeConfig.applySecurityAuthentication makes a new one per call),
 * so no connection was ever reused: each apply opened a TCP connection, built a TLS context from
 * the kubeconfig's CA and made a full handshake. A cold start over N installs sends about 35 such
 * requests an install; the native memory their TLS contexts churned through stayed with the
 * process (glibc keeps what they fragmented), most of its RSS per install.
 *
 * Watches keep client-node's agent per watch: aborting a watch destroys its agent's sockets,
 * which on a shared agent would cut every other request's connection.
 */
import http from 'node:http';
import https from 'node:https';
import {
  createConfiguration,
  KubernetesObjectApi,
  ServerConfiguration,
  type Configuration,
  type KubeConfig,
  type RequestContext,
  type SecurityAuthentication,
} from '@kubernetes/client-node';

type ApiType<T> = new (configuration: Configuration) => T;

export class ConnectionPool implements SecurityAuthentication {
  private agent: http.Agent | undefined;

  constructor(private readonly config: KubeConfig) {}

  getName(): string {
    return 'pelita-connection-pool';
  }

  /** The kubeconfig's credentials, applied per request (a token may be refreshed), on the pool's agent. */
  async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await this.config.applySecurityAuthentication(context);
    const agent = this.shared(context.getAgent());
    if (agent) context.setAgent(agent);
  }

  /**
   * The pool's agent, made once from the first per-request agent client-node built (its TLS
   * settings are the kubeconfig's, the same for every request) with keep-alive on. A proxy's
   * agent (the kubeconfig's proxy-url) is another class: that one is shared as it is.
   */
  shared(fresh: http.Agent | undefined): http.Agent | undefined {
    if (this.agent || !fresh) return this.agent ?? fresh;
    const options = (fresh as http.Agent & { options?: https.AgentOptions }).options ?? {};
    if (fresh.constructor === https.Agent) {
      this.agent = new https.Agent({ ...options, keepAlive: true });
    } else if (fresh.constructor === http.Agent) {
      this.agent = new http.Agent({ ...options, keepAlive: true });
    } else {
      this.agent = fresh;
    }
    return this.agent;
  }

  /** A generated API client (CoreV1Api, ...) whose requests go through the pool. */
  api<T>(type: ApiType<T>): T {
    return new type(this.configuration());
  }

  /** KubernetesObjectApi through the pool, with the kubeconfig's default namespace. */
  objectApi(): KubernetesObjectApi {
    return new PooledObjectApi(this.configuration(), this.config);
  }

  /** Closes the idle connections (they hold no event loop open: Node unrefs idle sockets). */
  close(): void {
    this.agent?.destroy();
  }

  private configuration(): Configuration {
    const server = this.config.getCurrentCluster()?.server;
    if (!server) throw new Error('the kubeconfig names no current cluster');
    return createConfiguration({
      baseServer: new ServerConfiguration(server, {}),
      authMethods: { default: this },
    });
  }
}

class PooledObjectApi extends KubernetesObjectApi {
  constructor(configuration: Configuration, config: KubeConfig) {
    super(configuration);
    this.setDefaultNamespace(config); // what KubernetesObjectApi.makeApiClient does
  }
}
