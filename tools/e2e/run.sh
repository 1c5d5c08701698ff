#!/usr/bin/env bash
# `make e2e`: the whole platform as real pods on the real node of `testenv up e2e` (server `node`:
# containerd, kubelet, kube-proxy, CoreDNS). Builds the images (make images; imported into the
# node's containerd), installs the operator with its Helm chart, applies a tenant whose
# dependencies are the test servers (reached from pods at the node's address), waits for it to be
# Ready, then drives the platform through its pods (tools/e2e/drive.mjs, the same script the kind
# workflow runs): a document uploaded to core-backend crosses the document pipeline and is cited
# in a chat, an OCR worker is killed mid-task, and a user-service pod is killed to see it
# replaced; then the attack phase (attack-phase.sh) probes the install's NetworkPolicies from pods
# of its own. On failure it writes pod logs, events and descriptions to $ARTIFACTS_DIR.
#
# Every run starts clean: the e2e namespaces and the tenant's database are removed first.
# Settings (environment): PELITA_TESTENV_DIR (/tmp/pelita-testenv), ARTIFACTS_DIR
# (/tmp/pelita-e2e), SKIP_BUILD=1 (use the images already built), KEEP=1 (leave the install up).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

ENV_FILE=${PELITA_TESTENV_DIR:-/tmp/pelita-testenv}/testenv.env
ARTIFACTS_DIR=${ARTIFACTS_DIR:-/tmp/pelita-e2e}
TAG=0.0.0-e2e
OPERATOR_NS=pelita-e2e-system
# Its own release name: the chart's cluster-wide objects (ClusterRole...) are named after it, and
# the chart's integration tests install theirs in the same apiserver.
RELEASE=pelita-e2e
NS=pelita-e2e
INSTALL=e2e
# The tenant's own database and Redis database: nothing shared with the integration tests.
DATABASE=pelita_e2e
REDIS_DB=7
LLM_STUB_PORT=58100
LICENSE_API_PORT=58101
LICENSE_CLIENT_ID=5b0c6f2e-1a7e-4c55-9a39-0d6f3f3b1c22
# The OCR worker's work volume: the node has no provisioner, so a hostPath volume bound to the
# StatefulSet's claim (named <template>-<statefulset>-<ordinal>).
WORK_PV=pelita-e2e-ocr-work-0
WORK_CLAIM=work-$INSTALL-ocr-worker-0
started=$SECONDS

log() { printf '\n== [%4d s] %s\n' "$((SECONDS - started))" "$*"; }

setting() {
  local value
  value=$(sed -n "s/^$1=//p" "$ENV_FILE" | tail -n 1)
  if [[ -z $value ]]; then
    echo "e2e: $1 is not in $ENV_FILE: run testenv up e2e as root (make e2e does)" >&2
    exit 1
  fi
  printf '%s\n' "$value"
}

[[ -f $ENV_FILE ]] || { echo "e2e: no $ENV_FILE: run make e2e" >&2; exit 1; }
KUBECONFIG=$(setting KUBECONFIG)
KUBECTL_BIN=$(setting KUBECTL_BIN)
HELM_BIN=$(setting HELM_BIN)
NODE=$(setting REAL_NODE_ADDRESS)
NODE_SELECTOR=$(setting REAL_NODE_SELECTOR)
NODE_TAINT_KEY=$(setting REAL_NODE_TAINT)
NODE_TAINT_KEY=${NODE_TAINT_KEY%%=*}
# The attack phase needs policies enforced on the node (testenv's network-policy server).
NETWORK_POLICY_AGENT=$(setting NETWORK_POLICY_AGENT)
POSTGRES_URL=$(setting POSTGRES_URL)
S3_ACCESS_KEY=$(setting S3_ACCESS_KEY)
S3_SECRET_KEY=$(setting S3_SECRET_KEY)
export KUBECONFIG
kubectl() { "$KUBECTL_BIN" "$@"; }
# shellcheck source=tools/e2e/phases.sh
source "$ROOT/tools/e2e/phases.sh"
# shellcheck source=tools/e2e/attack-phase.sh
source "$ROOT/tools/e2e/attack-phase.sh"
# shellcheck source=tools/e2e/tenant-data.sh
source "$ROOT/tools/e2e/tenant-data.sh"
helm() { "$HELM_BIN" "$@"; }

collect_diagnostics() {
  mkdir -p "$ARTIFACTS_DIR"
  log "collecting diagnostics in $ARTIFACTS_DIR"
  kubectl get all,platforminstalls,configmaps,endpointslices -n "$NS" -o wide >"$ARTIFACTS_DIR/get-$NS.txt" 2>&1 || true
  kubectl get all -n "$OPERATOR_NS" -o wide >"$ARTIFACTS_DIR/get-$OPERATOR_NS.txt" 2>&1 || true
  kubectl get pv,pvc -A -o wide >"$ARTIFACTS_DIR/get-volumes.txt" 2>&1 || true
  kubectl get platforminstalls -n "$NS" -o yaml >"$ARTIFACTS_DIR/platforminstalls.yaml" 2>&1 || true
  for ns in "$OPERATOR_NS" "$NS"; do
    kubectl get events -n "$ns" --sort-by=.lastTimestamp >"$ARTIFACTS_DIR/events-$ns.txt" 2>&1 || true
    kubectl describe pods -n "$ns" >"$ARTIFACTS_DIR/describe-pods-$ns.txt" 2>&1 || true
    for pod in $(kubectl get pods -n "$ns" -o name 2>/dev/null); do
      kubectl logs -n "$ns" "$pod" --all-containers --prefix --timestamps \
        >"$ARTIFACTS_DIR/logs-$ns-${pod#pod/}.txt" 2>&1 || true
      kubectl logs -n "$ns" "$pod" --all-containers --prefix --timestamps --previous \
        >"$ARTIFACTS_DIR/logs-$ns-${pod#pod/}-previous.txt" 2>/dev/null || true
    done
  done
  cp "${PELITA_TESTENV_DIR:-/tmp/pelita-testenv}"/node/*.log "$ARTIFACTS_DIR/" 2>/dev/null || true
  kubectl logs -n "$OPERATOR_NS" -l "app.kubernetes.io/instance=$RELEASE" --tail=10 2>&1 || true
}

llm_stub_pid=
license_api_pid=
on_exit() {
  local status=$?
  if [[ $status -ne 0 ]]; then
    collect_diagnostics
    echo "e2e: FAILED (exit $status) after $((SECONDS - started)) s; diagnostics in $ARTIFACTS_DIR" >&2
  fi
  for pid in $llm_stub_pid $license_api_pid; do kill "$pid" 2>/dev/null || true; done
  exit "$status"
}
trap on_exit EXIT

# The images of the services this tenant runs (license-service is `make images`' business): a cold
# build of each takes minutes on a small machine, office-converter's (LibreOffice) the longest.
E2E_IMAGES=(operator user-service policy-sync http-proxy db-proxy summarizer core-backend
  ocr-service office-converter ocr-engine)
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  log "building the images: ${E2E_IMAGES[*]}"
  images/build.sh "${E2E_IMAGES[@]}"
fi

log 'removing what a previous run left'
# An install left by a failed or KEEP=1 run holds the data-deletion finalizer, and its operator
# goes first: without this the namespace would wait for it for ever.
tenant_release_finalizers
helm uninstall "$RELEASE" --namespace "$OPERATOR_NS" --wait >/dev/null 2>&1 || true
# Again once the operator is gone: a running one puts the finalizer back at its next reconcile.
tenant_release_finalizers
kubectl delete namespace "$NS" "$OPERATOR_NS" --ignore-not-found --wait --timeout=3m
kubectl delete persistentvolume "$WORK_PV" --ignore-not-found --wait --timeout=1m
WORK_DIR=${PELITA_TESTENV_DIR:-/tmp/pelita-testenv}/e2e/ocr-work-0
rm -rf "$WORK_DIR"
# The worker runs as 10001, and a pod's fsGroup does not reach a hostPath volume.
install -d -m 0700 -o 10001 -g 10001 "$WORK_DIR"
PSQL_URL=${POSTGRES_URL%/*}/postgres
psql "$PSQL_URL" -v ON_ERROR_STOP=1 -q -c "DROP DATABASE IF EXISTS $DATABASE WITH (FORCE)" \
  -c "CREATE DATABASE $DATABASE"
redis-cli -p 56379 -n "$REDIS_DB" FLUSHDB >/dev/null

# Namespaces first, annotated so every pod created in them goes to the real node (the apiserver's
# PodNodeSelector and PodTolerationRestriction admission plugins), whoever creates the pods.
for ns in "$OPERATOR_NS" "$NS"; do
  kubectl apply -f - <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $ns
  annotations:
    scheduler.alpha.kubernetes.io/node-selector: $NODE_SELECTOR
    scheduler.alpha.kubernetes.io/defaultTolerations: '[{"key":"$NODE_TAINT_KEY","operator":"Exists","effect":"NoSchedule"}]'
EOF
done

kubectl apply -f - <<EOF
apiVersion: v1
kind: PersistentVolume
metadata: { name: $WORK_PV }
spec:
  capacity: { storage: 1Gi }
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: { path: $WORK_DIR, type: Directory }
  claimRef: { namespace: $NS, name: $WORK_CLAIM }
EOF

# The LLM stand-in, on the host at the node's address (the pods' only way to the host).
log "starting the LLM stand-in at http://$NODE:$LLM_STUB_PORT"
mkdir -p "$ARTIFACTS_DIR"
HOST=$NODE PORT=$LLM_STUB_PORT node tools/llm-stub/dist/main.js >"$ARTIFACTS_DIR/llm-stub.log" 2>&1 &
llm_stub_pid=$!
# The license API the user service checks at login: a stand-in answering one valid license.
HOST=$NODE PORT=$LICENSE_API_PORT CLIENT_ID=$LICENSE_CLIENT_ID USERNAME=e2e PASSWORD=e2e-license-password \
  node tools/e2e/license-api.mjs >"$ARTIFACTS_DIR/license-api.log" 2>&1 &
license_api_pid=$!

log 'installing the operator chart'
# The CRD is shared with the operator's and the chart's integration tests on this apiserver (and
# outlives any release): applied as they do, not owned by this release.
kubectl apply --server-side --force-conflicts --field-manager=pelita-test \
  -f crds/platforminstalls.pelita.io.yaml
# In a pod, the apiserver's certificate names kubernetes.default.svc, not the Service's IP. The
# operator watches the tenant's namespace only: the operator tests' installs are theirs.
helm upgrade --install "$RELEASE" charts/pelita-operator --namespace "$OPERATOR_NS" \
  --set crds.install=false --set "watchNamespace=$NS" \
  --set "image.repository=pelita/operator,image.tag=$TAG,image.pullPolicy=Never" \
  --set 'extraEnv[0].name=KUBERNETES_SERVICE_HOST,extraEnv[0].value=kubernetes.default.svc' \
  --wait --timeout 3m
kubectl wait --for=condition=Established crd/platforminstalls.pelita.io --timeout 1m

log "applying the tenant $NS/$INSTALL"
kubectl apply -f - <<EOF
apiVersion: v1
kind: Secret
metadata: { name: e2e-dependencies, namespace: $NS }
stringData:
  postgres-username: pelita
  postgres-password: pelita
  s3-access-key: $S3_ACCESS_KEY
  s3-secret-key: $S3_SECRET_KEY
  llm-api-key: e2e-llm-key
---
apiVersion: v1
kind: Secret
metadata: { name: e2e-license, namespace: $NS }
stringData: { username: e2e, password: e2e-license-password }
---
apiVersion: v1
kind: Secret
metadata: { name: e2e-admin, namespace: $NS }
stringData: { email: admin@e2e.pelita.test, password: e2e-admin-password }
---
apiVersion: pelita.io/v1alpha1
kind: PlatformInstall
metadata: { name: $INSTALL, namespace: $NS }
spec:
  tenant: { id: e2e, displayName: End to end }
  license:
    clientId: $LICENSE_CLIENT_ID
    apiUrl: http://$NODE:$LICENSE_API_PORT
    credentialsSecretRef: { name: e2e-license }
  version: $TAG
  publicUrl: http://pelita.e2e.test
  image: { registry: pelita, pullPolicy: Never }
  bootstrapAdmin: { secretRef: { name: e2e-admin } }
  # db-proxy refuses every host it is not given: the tenant database is on the node.
  databases: { allowedHosts: ['$NODE/32'] }
  services:
    http-proxy: { replicas: 1 }
    db-proxy: { replicas: 1 }
    user-service: { replicas: 1 }
    policy-sync: { replicas: 1 }
    summarizer: { replicas: 1 }
    core-backend: { enabled: true, replicas: 1 }
    # The document pipeline; a killed worker's task is taken over after CLAIM_IDLE_MS (60 s by
    # default; 15 s keeps the run short).
    ocr-service: { enabled: true, replicas: 1 }
    ocr-worker:
      enabled: true
      replicas: 1
      volume: { size: 1Gi }
      env: [{ name: CLAIM_IDLE_MS, value: '15000' }]
    office-converter: { enabled: true, replicas: 1 }
    ocr-engine: { enabled: true, replicas: 1 }
  dependencies:
    postgres:
      url: postgres://$NODE:55432/$DATABASE
      usernameSecretRef: { name: e2e-dependencies, key: postgres-username }
      passwordSecretRef: { name: e2e-dependencies, key: postgres-password }
    redis: { url: redis://$NODE:56379/$REDIS_DB }
    opensearch: { url: http://$NODE:59200 }
    s3:
      url: http://$NODE:59000
      bucket: pelita-e2e
      region: us-east-1
      forcePathStyle: true
      accessKeySecretRef: { name: e2e-dependencies, key: s3-access-key }
      secretKeySecretRef: { name: e2e-dependencies, key: s3-secret-key }
    llm:
      url: http://$NODE:$LLM_STUB_PORT/v1
      model: pelita-stub
      apiKeySecretRef: { name: e2e-dependencies, key: llm-api-key }
    smtp:
      url: smtp://$NODE:52525
      from: Pelita <no-reply@e2e.pelita.test>
  observability: { logLevel: info }
EOF

log "waiting for platforminstall/$INSTALL to be Ready"
kubectl wait -n "$NS" "platforminstall/$INSTALL" --for=condition=Ready --timeout 8m
kubectl get pods -n "$NS" -o wide

log 'driving the platform through its pods'
# Service IPs are reachable from this host: kube-proxy's rules cover local traffic too.
service_url() {
  kubectl get service -n "$NS" "$INSTALL-$1" \
    -o jsonpath='http://{.spec.clusterIP}:{.spec.ports[?(@.name=="http")].port}'
}
# What drive.mjs needs, for each of its phases (tools/kind-e2e/run.sh passes the same). Every OCR
# worker pod is deleted, so the one running the task is among them whatever the replica count,
# with a grace period of 1 s: the kubelet sends SIGTERM, then SIGKILL 2 s later (its minimum),
# well before the worker's own drain (SHUTDOWN_TIMEOUT_MS, 10 s) ends. `--force` would not kill
# sooner: the kubelet then gives the pod its full grace period (30 s) while a replacement starts,
# and the worker finishes its task in that time.
drive() {
  E2E_USER_SERVICE_URL=$(service_url user-service) \
    E2E_HTTP_PROXY_URL=$(service_url http-proxy) \
    E2E_DB_PROXY_URL=$(service_url db-proxy) \
    E2E_SUMMARIZER_URL=$(service_url summarizer) \
    E2E_CORE_BACKEND_URL=$(service_url core-backend) \
    E2E_OCR_SERVICE_URL=$(service_url ocr-service) \
    E2E_KILL_OCR_WORKER="$KUBECTL_BIN --kubeconfig $KUBECONFIG delete pod -n $NS -l app.kubernetes.io/instance=$INSTALL,app.kubernetes.io/name=ocr-worker --grace-period=1 --wait=false" \
    E2E_HTTP_PROXY_TOKEN=$(platform_key http-proxy-token) \
    E2E_DB_PROXY_TOKEN=$(platform_key db-proxy-token) \
    E2E_LLM_URL=http://$NODE:$LLM_STUB_PORT/v1 \
    E2E_POSTGRES_URL=postgres://pelita:pelita@$NODE:55432/$DATABASE \
    E2E_ADMIN_EMAIL=admin@e2e.pelita.test E2E_ADMIN_PASSWORD=e2e-admin-password \
    node tools/e2e/drive.mjs "$1"
}
platform_key() {
  kubectl get secret -n "$NS" "$INSTALL-platform" -o "jsonpath={.data.$1}" | base64 -d
}
drive platform

# The node's address is private, so refused above until the install lists it
# (spec.apis.allowedTargets, the proxy's ALLOWED_TARGETS): the operator rolls the proxy's pods.
log 'letting http-proxy reach the node (spec.apis.allowedTargets), then forwarding through it'
allow_http_proxy_target "$NODE"
drive http-proxy

log 'a document through core-backend and the document pipeline, then an OCR worker killed mid-task'
drive documents

log 'killing a pod: the Deployment replaces it and the platform answers again'
victim=$(kubectl get pods -n "$NS" -l app.kubernetes.io/name=user-service -o jsonpath='{.items[0].metadata.name}')
kubectl delete pod -n "$NS" "$victim" --grace-period=0 --force --wait=false
kubectl wait -n "$NS" "pod/$victim" --for=delete --timeout 1m
kubectl rollout status -n "$NS" "deployment/$INSTALL-user-service" --timeout 3m
kubectl wait -n "$NS" "platforminstall/$INSTALL" --for=condition=Ready --timeout 3m
drive login

attack_phase

if [[ ${KEEP:-0} != 1 ]]; then
  tenant_data_check_deletion
  log 'removing the install'
  helm uninstall "$RELEASE" --namespace "$OPERATOR_NS" --wait >/dev/null
  kubectl delete namespace "$NS" "$OPERATOR_NS" --wait --timeout=3m
  kubectl delete persistentvolume "$WORK_PV" --ignore-not-found --wait --timeout=1m
fi
log "e2e: passed in $((SECONDS - started)) s"
