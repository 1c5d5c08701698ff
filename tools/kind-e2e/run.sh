#!/usr/bin/env bash
# End-to-end test in a kind cluster, as users run it in CI (.github/workflows/e2e-kind.yml) and as
# `make kind-e2e` runs it locally: builds the operator's and every existing service's image, loads
# them into a fresh kind cluster, installs the operator with its Helm chart, applies
# examples/platforminstall.yaml pointed at those images and at in-cluster stand-ins for its
# dependencies (dependencies.yaml), waits for the install to be Ready and calls each service's
# /health through its Service. On failure it writes diagnostics to $ARTIFACTS_DIR.
#
# Needs docker, kind, kubectl and helm on PATH. Settings (environment):
#   KIND_CLUSTER     cluster name (pelita-e2e); an existing cluster of that name is reused
#   KIND_NODE_IMAGE  node image (Kubernetes 1.34, built for kind v0.33.0)
#   KEEP_CLUSTER     1 keeps the cluster afterwards (default: deleted when this script created it)
#   ARTIFACTS_DIR    where diagnostics go on failure (/tmp/pelita-kind-e2e)
#   SKIP_BUILD       1 uses pelita/<name>:0.0.0-e2e images already in the local docker
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
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
created_cluster=0

log() { printf '\n== %s\n' "$*"; }

for tool in docker kind kubectl helm; do
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

on_exit() {
  local status=$?
  if [[ $status -ne 0 ]]; then
    collect_diagnostics
    echo "kind-e2e: FAILED (exit $status); diagnostics in $ARTIFACTS_DIR" >&2
  fi
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

log 'applying the example install, its dependencies and the e2e overrides'
kubectl apply -f examples/platforminstall.yaml
kubectl apply -f tools/kind-e2e/dependencies.yaml
# The images built above, and the in-cluster dependencies; SMTP is optional for the services that
# exist, so it is removed (null) rather than run here. The OCR results' public links point at the
# in-cluster MinIO too.
kubectl patch platforminstall "$INSTALL" -n "$NS" --type merge --patch "$(
  cat <<EOF
{"spec": {
  "version": "$TAG",
  "image": {"registry": "$REGISTRY", "pullPolicy": "Never", "opaImage": "$OPA_IMAGE"},
  "dependencies": {
    "postgres": {"url": "postgres://e2e-postgres:5432/pelita_acme"},
    "redis": {"url": "redis://e2e-redis:6379/0"},
    "llm": {"url": "http://e2e-llm:8080/v1"},
    "opensearch": {"url": "http://e2e-opensearch:9200"},
    "s3": {"url": "http://e2e-minio:9000", "publicUrl": "http://e2e-minio:9000/pelita-acme"},
    "smtp": null
  }
}}
EOF
)"
kubectl rollout status -n "$NS" deployment/e2e-postgres deployment/e2e-redis deployment/e2e-llm \
  deployment/e2e-opensearch deployment/e2e-minio --timeout 5m

log "waiting for platforminstall/$INSTALL to be Ready"
kubectl wait -n "$NS" "platforminstall/$INSTALL" --for=condition=Ready --timeout 10m
kubectl get platforminstall -n "$NS" "$INSTALL"

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

log 'kind-e2e: passed'
