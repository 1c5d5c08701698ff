/** @pelita/kit: what every Pelita service shares. Tracing has its own entries (`./tracing`, `./instrument`). */

// Building and running a service
export { createService, type ServiceOptions } from './create-service';
export { rawBodyOf } from './raw-body';
export { serve, type RunningServer, type ServeOptions } from './serve';
export {
  runService,
  runMain,
  serveInProcess,
  type InProcessOptions,
  type Service,
  type ServiceContext,
  type ServiceDefinition,
} from './run-service';
export { defineRoute, type RouteDefinition, type ResponseSpec, type HttpMethod } from './route';
export {
  Deleted,
  pageOf,
  Paging,
  collectionRoute,
  itemRoute,
  resourceRoutes,
  type CrudModule,
  type Resource,
  type ResourceOperations,
} from './resource-routes';
export type { ReadinessCheck } from './health';

// Multipart uploads into a per-request temporary directory
export {
  multipartUpload,
  requestWorkspace,
  workspaceOf,
  uploadedFile,
  UploadedFile,
  type MultipartUploadOptions,
} from './upload';

// Work done for one request stops when its client leaves
export { clientGoneSignal } from './client-gone';

// At most n tasks at once, the others waiting in arrival order
export { createConcurrencyLimit, type ConcurrencyLimit } from './concurrency-limit';

// Command-line tools in their own process group, with a time limit
export { runTool, ToolError, type ToolFailure, type ToolOptions } from './run-tool';

// What a document file is (PDF, office file, image), by its name and first bytes
export { inputKind, UnsupportedInputError, type InputKind } from './input-kind';

// Trace context carried in queue messages (W3C traceparent)
export { currentTraceparent, inSpan, inTraceOf } from './trace-context';

// Outbound calls to user-given URLs (SSRF protection): only public addresses unless allowlisted,
// checked on the address actually connected to; downloads of user-given URLs under that policy
export {
  allowedTargetsSetting,
  parseAllowedTargets,
  type AllowedTargets,
} from './target-policy/allowed-targets';
export { createTargetPolicy, type TargetPolicy } from './target-policy/target-policy';
export { createGuardedLookup } from './target-policy/guarded-lookup';
export { TargetForbiddenError } from './target-policy/target-forbidden-error';
export {
  downloadToFile,
  DownloadError,
  type DownloadOptions,
  type DownloadResult,
  type DownloadFailure,
} from './safe-download';

// Settings
export {
  loadConfig,
  baseSettings,
  commaList,
  booleanSetting,
  optionalSetting,
  httpUrl,
  optionalHttpUrl,
  optionalPort,
  pemSetting,
  positiveInt,
  MIB,
  ConfigError,
  type BaseSettings,
} from './config';

// PostgreSQL schema migrations under a start-up advisory lock
export { migrate, withStartupLock } from './postgres-migrations';

// One PostgreSQL transaction around a piece of work; a client left in doubt is discarded
export { inTransaction, loggingIdleErrors, type Db } from './postgres-transaction';

// Polling loops that space out while there is nothing to do, so idle pools close their connections
export {
  createIdleBackoff,
  createPollLoop,
  idlePollSettings,
  type IdleBackoff,
  type PollLoop,
  type PollOutcome,
} from './poll-loop';

// Every service's PostgreSQL pool: sizes from DATABASE_POOL_*, no minimum, errors logged, metrics
export {
  createPostgresPool,
  postgresPoolSettings,
  type PostgresPoolOptions,
  type PostgresPoolSettings,
} from './postgres-pool';

// An OpenSearch client from the OPENSEARCH_* settings (Redis and S3: entries `./redis-client`, `./object-store`)
export {
  createIndexUnlessExists,
  createOpenSearchClient,
  openSearchSettings,
  searchLayoutSettings,
  type OpenSearchSettings,
} from './opensearch-client';

// The one way to query and write an index: scoped to the install's tenant when it is shared
export {
  searchLayout,
  tenantIndex,
  type ScopedHit,
  type SearchLayout,
  type TenantIndex,
} from './tenant-index';
export { moveInBackground, moveLegacyIndex } from './legacy-index-move';

// Text stored in PostgreSQL (no NUL characters)
export { storedText } from './stored-text';
// The e-mail address check every service's schemas use
export { emailAddress } from './email-address';

// Errors
export { errorMessage } from './error-message';
export {
  HttpError,
  badRequest,
  unauthorized,
  forbidden,
  notFound,
  conflict,
  defaultErrorBody,
  ErrorBodySchema,
  toHttpError,
  type ErrorBody,
  type ErrorDetail,
} from './errors';
// A route's request validation, for middleware that must read a part before the route does
export { parseRequest } from './validate';
// Socket error codes of an unreachable peer and of a lost connection (dependency-failure.ts)
export { CONNECTION_LOST_CODES, UNREACHABLE_CODES } from './dependency-failure';

// Calls to OpenAI-compatible model servers: what failed, and the HTTP answer it becomes
export {
  ModelOutputError,
  isModelFailure,
  isAbort,
  outcomeOf,
  describeModelError,
  toUpstreamHttpError,
  type CallOutcome,
} from './model-errors';

// JSON answers of model servers: one zod schema per answer, sent as response_format and used to
// validate; json_schema → json_object → prompt-only per model; max_tokens within the context
export {
  STRUCTURED_OUTPUT_MODES,
  defineAnswerShape,
  responseFormatOf,
  parseStructuredAnswer,
  createStructuredOutputModes,
  answerTokenCap,
  estimatePromptTokens,
  contextLengthOf,
  type StructuredOutputMode,
  type ResponseFormat,
  type AnswerShape,
  type StructuredOutputModes,
} from './structured-output';
export { stripReasoning } from './model-json';

// Logs and metrics
export { createLogger, type Logger, type LoggerOptions } from './logger';
export { addToAccessLog } from './request-context';
export { redact, redactString, isSensitiveKey, REDACTED } from './redact';
export { createMetrics, type Metrics } from './metrics';
// A service's own series, declared as one table (key → kind, name, help, labels, buckets)
export {
  declareSeries,
  type CounterSpec,
  type DeclaredSeries,
  type GaugeSpec,
  type HistogramSpec,
} from './metric-series';
export {
  poolMetrics,
  observePgPool,
  type PoolMetrics,
  type PoolSnapshot,
  type PgPoolLike,
  type WaitOutcome,
} from './pool-metrics';

// OpenAPI
export {
  buildOpenApiDocument,
  type OpenApiDocument,
  type ApiInfo,
  type DocumentOptions,
} from './openapi';

// Authentication and authorisation of protected routes
export { requireAuth, type RequireAuthOptions, type SessionLookup } from './auth/require-auth';
export { requireServiceToken, bearerMatches } from './auth/service-token';
export {
  opaDecision,
  queryOpaRule,
  type OpaDecisionOptions,
  type OpaRuleOptions,
  type OpaRuleQuery,
  type DecideAccess,
  type AuthorizationInput,
} from './auth/opa-decision';
export {
  AccessClaims,
  ACCESS_TOKEN_ALGORITHM,
  ACCESS_TOKEN_ISSUER,
  InvalidTokenError,
  sessionKey,
  verifyAccessToken,
} from './auth/access-token';

// Stored password hashes (scrypt; the user service's and the license service's accounts)
export {
  OWASP_SCRYPT,
  scryptPasswords,
  type PasswordHasher,
  type ScryptParams,
} from './password-hash';

// The summarizer service's client (ocr-service documents, core-backend transcripts).
export {
  createSummarizerClient,
  SummarizerError,
  type SummarizerClient,
  type SummarizerClientOptions,
  type SummaryFile,
} from './summarizer-client';
export {
  createActivityLog,
  withActivityLog,
  type ActivityLog,
  type ActivityLogOptions,
  type ActivityUser,
} from './activity-log/activity-log';
export {
  describeChanges,
  recordChanges,
  MASKED_VALUE,
  type ActivityChange,
} from './activity-log/activity-changes';
export {
  createActivityRepository,
  toActivityDocument,
  type ActivityDocument,
  type ActivityEntry,
  type ActivityQuery,
  type ActivityRepository,
} from './activity-log/activity-repository';

// The secret store (Infisical): universal-auth login, secrets by project, environment and path
export {
  createInfisicalClient,
  SecretStoreError,
  type InfisicalClient,
  type InfisicalClientOptions,
  type SecretScope,
  type StoredSecret,
} from './secret-store/infisical-client';
export {
  openSettingsSource,
  secretStoreSettings,
  withStoreValues,
  type SettingsSource,
} from './secret-store/settings-source';
