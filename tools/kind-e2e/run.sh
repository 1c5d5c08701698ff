#!/usr/bin/env bash
# End-to-end test in a kind cluster, as users run it in CI (.github/workflows/e2e-kind.yml) and as
# `make kind-e2e` runs it locally: builds the operator's and every existing service's image, loads
# them into a fresh kind cluster, installs the operator with its Helm chart, applies
# examples/platforminstall.yaml pointed at those images, at in-cluster stand-ins for its
# dependencies (dependencies.yaml) and at the LLM and license API stand-ins of make e2e (run on
# this host), waits for the install to be Ready, calls each service's /health through its Service,
# then runs the drive of make e2e (tools/e2e/drive.mjs: logins, OPA, the proxies, the summarizer,
# a document through core-backend and the document pipeline cited in a chat, an OCR worker and a
# user-service pod killed) through port-forwards. On failure it writes diagnostics to
# $ARTIFACTS_DIR.
#
# Needs docker, kind, kubectl, helm, node (20+) and curl on PATH, and the npm packages installed
# (npm ci: the LLM stand-in is built here). Settings (environment):
#   KIND_CLUSTER     cluster name (pelita-e2e); an existing cluster of that name is reused
#   KIND_NODE_IMAGE  node image (Kubernetes 1.34, built for kind v0.33.0)
#   KEEP_CLUSTER     1 keeps the cluster afterwards (default: deleted when this script created it)
#   ARTIFACTS_DIR    where diagnostics go on failure (/tmp/pelita-kind-e2e)
#   SKIP_BUILD       1 uses pelita/<name>:0.0.0-e2e images already in the local docker
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tools/e2e/phases.sh
source "$ROOT/tools/e2e/phases.sh"
cd "$ROOT"

CLUSTER=${KIND_CLUSTER:-pelita-e2e}
# The digest is what pins it: kind supports a node image only as built for its own release.
NODE_IMAGE=${KIND_NODE_IMAGE:-kindest/node:v1.34.11@sha256:44e222ee2132dab25ff87301682f89eb82c7880ea3a1bf543bfe9708fd08d67d}
KEEP_CLUSTER=${KEEP_CLUSTER:-0}
ARTIFACTS_DIR=${ARTIFACTS_DIR:-/tmp/pelita-kind-e2e}
SKIP_BUILD=${SKIP_BUILD:-0}

REGISTRY=pelita
# The install's spec.version is every image's tag, and the CRD wants a semantic version.
TAG=0.0.0-e2e
# The CRD's default OPA sidecar image; pulled here because the install's pullPolicy is Never.
OPA_IMAGE=openpolicyagent/opa:1.22.2-static
OPERATOR_NS=pelita-system
INSTALL=acme
NS=pelita-acme
# The stand-ins' ports on this host (as in make e2e), and the first of the drive's forwards.
LLM_STUB_PORT=58100
LICENSE_API_PORT=58101
FORWARD_PORT=58110
created_cluster=0
background_pids=()
forward_pids=()

log() { printf '\n== %s\n' "$*"; }

for tool in docker kind kubectl helm node curl; do
  command -v "$tool" >/dev/null || { echo "kind-e2e: $tool not found on PATH" >&2; exit 1; }
done

# Deployables: the operator and every service folder but the shared kit. Services not written
# yet have no folder, and the example keeps them disabled.
deployables=(operator)
for dir in services/*/; do
  name=$(basename "$dir")
  [[ $name != kit && -f $dir/package.json ]] && deployables+=("$name")
done

build_image() {
  local name=$1
  local args=(--tag "$REGISTRY/$name:$TAG" --build-arg "VERSION=$TAG"
    --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)")
  # A dedicated Dockerfile where the runtime layer differs, else the parametrised one.
  if [[ -f images/$name.Dockerfile ]]; then
    args+=(--file "images/$name.Dockerfile")
  else
    args+=(--file images/service.Dockerfile --build-arg "SERVICE=$name")
  fi
  docker build "${args[@]}" .
}

collect_diagnostics() {
  mkdir -p "$ARTIFACTS_DIR"
  log "collecting diagnostics in $ARTIFACTS_DIR"
  kubectl get all,platforminstalls,configmaps,pvc -A -o wide >"$ARTIFACTS_DIR/get-all.txt" 2>&1 || true
  kubectl get platforminstalls -A -o yaml >"$ARTIFACTS_DIR/platforminstalls.yaml" 2>&1 || true
  kubectl get events -A --sort-by=.lastTimestamp >"$ARTIFACTS_DIR/events.txt" 2>&1 || true
  for ns in "$OPERATOR_NS" "$NS"; do
    kubectl describe all -n "$ns" >"$ARTIFACTS_DIR/describe-$ns.txt" 2>&1 || true
    for pod in $(kubectl get pods -n "$ns" -o name 2>/dev/null); do
      kubectl logs -n "$ns" "$pod" --all-containers --prefix --timestamps \
        >"$ARTIFACTS_DIR/logs-$ns-${pod#pod/}.txt" 2>&1 || true
      kubectl logs -n "$ns" "$pod" --all-containers --prefix --timestamps --previous \
        >"$ARTIFACTS_DIR/logs-$ns-${pod#pod/}-previous.txt" 2>/dev/null || true
    done
  done
  kind export logs "$ARTIFACTS_DIR/kind" --name "$CLUSTER" >/dev/null 2>&1 || true
  # The operator's log is the first thing to read; print its end where CI shows it too.
  kubectl logs -n "$OPERATOR_NS" deployment/pelita-operator --tail=50 2>&1 || true
}

stop_background() {
  local pid
  for pid in "${forward_pids[@]}" "${background_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}

on_exit() {
  local status=$?
  if [[ $status -ne 0 ]]; then
    collect_diagnostics
    echo "kind-e2e: FAILED (exit $status); diagnostics in $ARTIFACTS_DIR" >&2
  fi
  stop_background
  if [[ $created_cluster -eq 1 && $KEEP_CLUSTER != 1 ]]; then
    kind delete cluster --name "$CLUSTER" || true
  fi
  exit "$status"
}
trap on_exit EXIT

if [[ $SKIP_BUILD != 1 ]]; then
  for name in "${deployables[@]}"; do
    log "building $REGISTRY/$name:$TAG"
    build_image "$name"
  done
fi
docker pull --quiet "$OPA_IMAGE"
# The LLM stand-in runs from its build (tools/llm-stub, a workspace of this repository).
[[ -f tools/llm-stub/dist/main.js ]] || npx tsc -b tools/llm-stub

if kind get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
  log "reusing kind cluster $CLUSTER"
else
  log "creating kind cluster $CLUSTER ($NODE_IMAGE)"
  created_cluster=1
  kind create cluster --name "$CLUSTER" --image "$NODE_IMAGE" --wait 2m
fi
kubectl config use-context "kind-$CLUSTER"

log 'loading images into the cluster'
images=("$OPA_IMAGE")
for name in "${deployables[@]}"; do images+=("$REGISTRY/$name:$TAG"); done
kind load docker-image --name "$CLUSTER" "${images[@]}"

log 'installing the operator chart'
helm upgrade --install pelita-operator charts/pelita-operator \
  --namespace "$OPERATOR_NS" --create-namespace \
  --set "image.repository=$REGISTRY/operator,image.tag=$TAG,image.pullPolicy=Never" \
  --wait --timeout 5m

kubectl wait --for=condition=Established crd/platforminstalls.pelita.io --timeout 1m

# The stand-ins of the LLM and the license API (the ones make e2e uses), on this host at the kind
# network's gateway: the pods' way out to the host. The address is private, so http-proxy refuses
# it until the install's spec.apis.allowedTargets lists it (as on the real node).
HOST_ADDRESS=$(docker network inspect kind \
  -f '{{range .IPAM.Config}}{{.Gateway}}{{"\n"}}{{end}}' | grep -E '^[0-9]+(\.[0-9]+){3}$' | head -n 1)
[[ -n $HOST_ADDRESS ]] || { echo 'kind-e2e: no IPv4 gateway on the kind network' >&2; exit 1; }
mkdir -p "$ARTIFACTS_DIR"
log "starting the LLM and license API stand-ins at $HOST_ADDRESS"
HOST=$HOST_ADDRESS PORT=$LLM_STUB_PORT node tools/llm-stub/dist/main.js >"$ARTIFACTS_DIR/llm-stub.log" 2>&1 &
background_pids+=($!)
HOST=$HOST_ADDRESS PORT=$LICENSE_API_PORT CLIENT_ID=acme-client-0001 USERNAME=acme \
  PASSWORD=change-me-license-password node tools/e2e/license-api.mjs >"$ARTIFACTS_DIR/license-api.log" 2>&1 &
background_pids+=($!)

log 'applying the example install, its dependencies and the e2e overrides'
kubectl apply -f examples/platforminstall.yaml
kubectl apply -f tools/kind-e2e/dependencies.yaml
# The images built above, the in-cluster dependencies and the host's stand-ins (the example's
# license client and credentials, answered by the stand-in); SMTP is optional for the services
# that exist, so it is removed (null) rather than run here, and so is the cloud OCR engine (the
# drive reads with the in-install one). The OCR results' public links point at the in-cluster
# MinIO too. A killed OCR worker's task is taken over after 15 s rather than 60 s, as in make e2e.
kubectl patch platforminstall "$INSTALL" -n "$NS" --type merge --patch "$(
  cat <<EOF
{"spec": {
  "version": "$TAG",
  "image": {"registry": "$REGISTRY", "pullPolicy": "Never", "opaImage": "$OPA_IMAGE"},
  "license": {"apiUrl": "http://$HOST_ADDRESS:$LICENSE_API_PORT"},
  "services": {"ocr-worker": {"env": [{"name": "CLAIM_IDLE_MS", "value": "15000"}]}},
  "databases": {"allowedHosts": ["e2e-postgres"]},
  "dependencies": {
    "postgres": {"url": "postgres://e2e-postgres:5432/pelita_acme"},
    "redis": {"url": "redis://e2e-redis:6379/0"},
    "llm": {"url": "http://$HOST_ADDRESS:$LLM_STUB_PORT/v1", "model": "pelita-stub"},
    "opensearch": {"url": "http://e2e-opensearch:9200"},
    "s3": {"url": "http://e2e-minio:9000", "publicUrl": "http://e2e-minio:9000/pelita-acme"},
    "ocrEngines": {"cloud": null},
    "smtp": null
  }
}}
EOF
)"
kubectl rollout status -n "$NS" deployment/e2e-postgres deployment/e2e-redis \
  deployment/e2e-opensearch deployment/e2e-minio --timeout 5m

log "waiting for platforminstall/$INSTALL to be Ready"
kubectl wait -n "$NS" "platforminstall/$INSTALL" --for=condition=Ready --timeout 10m
kubectl get platforminstall -n "$NS" "$INSTALL"
kubectl get pods -n "$NS" -o wide

log 'calling /health of every service through its Service'
mapfile -t urls < <(kubectl get services -n "$NS" \
  -l "app.kubernetes.io/instance=$INSTALL,app.kubernetes.io/managed-by=pelita-operator" \
  -o jsonpath='{range .items[*]}http://{.metadata.name}:{.spec.ports[?(@.name=="http")].port}/health{"\n"}{end}')
if [[ ${#urls[@]} -eq 0 ]]; then
  echo 'kind-e2e: the operator created no Services' >&2
  exit 1
fi
# From inside the cluster (DNS and Service routing included), with the node of a service image.
health_check='
(async () => {
  let failed = 0;
  for (const url of process.argv.slice(1)) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      console.log(res.status, url);
      if (!res.ok) failed += 1;
    } catch (err) {
      console.log("unreachable", url, err.message);
      failed += 1;
    }
  }
  process.exit(failed === 0 ? 0 : 1);
})();'
probe_from=$(kubectl get deployments -n "$NS" -l "app.kubernetes.io/instance=$INSTALL" -o name | head -n 1)
kubectl exec -n "$NS" "$probe_from" -- node -e "$health_check" "${urls[@]}"

# Service IPs are not reachable from this host: each Service the drive calls is forwarded to a
# local port. A forward follows one pod, so they are started again after a pod is replaced.
DRIVEN=(user-service http-proxy db-proxy summarizer core-backend ocr-service)
forward_services() {
  local pid i
  for pid in "${forward_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  forward_pids=()
  for i in "${!DRIVEN[@]}"; do
    kubectl port-forward -n "$NS" "service/$INSTALL-${DRIVEN[$i]}" "$((FORWARD_PORT + i)):http" \
      >>"$ARTIFACTS_DIR/port-forward.log" 2>&1 &
    forward_pids+=($!)
  done
  for i in "${!DRIVEN[@]}"; do
    for _ in $(seq 50); do
      curl -fs -o /dev/null "http://127.0.0.1:$((FORWARD_PORT + i))/health" && break
      sleep 0.2
    done
  done
}
local_url() {
  local i
  for i in "${!DRIVEN[@]}"; do
    [[ ${DRIVEN[$i]} == "$1" ]] && { echo "http://127.0.0.1:$((FORWARD_PORT + i))"; return; }
  done
  return 1
}
platform_key() {
  kubectl get secret -n "$NS" "$INSTALL-platform" -o "jsonpath={.data.$1}" | base64 -d
}
# The same drive as make e2e (tools/e2e/drive.mjs), with this cluster's addresses.
drive() {
  E2E_USER_SERVICE_URL=$(local_url user-service) \
    E2E_HTTP_PROXY_URL=$(local_url http-proxy) \
    E2E_DB_PROXY_URL=$(local_url db-proxy) \
    E2E_SUMMARIZER_URL=$(local_url summarizer) \
    E2E_CORE_BACKEND_URL=$(local_url core-backend) \
    E2E_OCR_SERVICE_URL=$(local_url ocr-service) \
    E2E_KILL_OCR_WORKER="kubectl delete pod -n $NS -l app.kubernetes.io/instance=$INSTALL,app.kubernetes.io/name=ocr-worker --grace-period=1 --wait=false" \
    E2E_HTTP_PROXY_TOKEN=$(platform_key http-proxy-token) \
    E2E_DB_PROXY_TOKEN=$(platform_key db-proxy-token) \
    E2E_LLM_URL=http://$HOST_ADDRESS:$LLM_STUB_PORT/v1 \
    E2E_POSTGRES_URL=postgres://pelita_acme:change-me-postgres-password@e2e-postgres:5432/pelita_acme \
    E2E_ADMIN_EMAIL=admin@acme.example.com E2E_ADMIN_PASSWORD=change-me-admin-password \
    node tools/e2e/drive.mjs "$1"
}

log 'driving the platform through its pods'
forward_services
drive platform

# spec.apis.allowedTargets is the proxy's ALLOWED_TARGETS: the operator rolls the proxy's pods.
log 'letting http-proxy reach the host (spec.apis.allowedTargets), then forwarding through it'
allow_http_proxy_target "$HOST_ADDRESS"
forward_services
drive http-proxy

log 'a document through core-backend and the document pipeline, then an OCR worker killed mid-task'
drive documents

log 'killing a pod: the Deployment replaces it and the platform answers again'
victim=$(kubectl get pods -n "$NS" -l "app.kubernetes.io/instance=$INSTALL,app.kubernetes.io/name=user-service" \
  -o jsonpath='{.items[0].metadata.name}')
kubectl delete pod -n "$NS" "$victim" --grace-period=0 --force --wait=false
kubectl wait -n "$NS" "pod/$victim" --for=delete --timeout 1m
kubectl rollout status -n "$NS" "deployment/$INSTALL-user-service" --timeout 3m
kubectl wait -n "$NS" "platforminstall/$INSTALL" --for=condition=Ready --timeout 3m
forward_services
drive login

log 'kind-e2e: passed'
