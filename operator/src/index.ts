/**
 * @pelita/operator as a library: what tests, the chart's tests and the bench use. The process is
 * `node operator/dist/main.js`; nothing here starts anything.
 */

// The PlatformInstall resource
export {
  API_VERSION,
  GROUP,
  KIND,
  MAX_INSTALL_NAME_LENGTH,
  PLURAL,
  SERVICE_NAMES,
  VERSION,
  parseSpec,
  type Condition,
  type PlatformInstall,
  type PlatformInstallSpec,
  type PlatformInstallSpecInput,
  type PlatformInstallStatus,
  type SecretKeyRef,
  type ServiceName,
} from './crd/platform-install';

// The operator's settings and inputs
export { settingsSchema, type Settings } from './config';
export { loadPolicies } from './policies';

// Rendering the desired children
export { renderDesired, childName, type PolicyFiles, type RenderInput } from './render';
export { MANAGED_BY } from './render/meta';
export { DESIRED_HASH_ANNOTATION } from './controller/drift';

// Sending a rendered object through client-node (its models rename a few fields)
export { toClientModel } from './kube/client';

// The kinds it watches
export {
  CHILD_KINDS,
  PLATFORM_INSTALL,
  SERVICE_MONITOR,
  collectionPath,
  kindKey,
  type KindRef,
  type WatchedKind,
} from './kube/kinds';
