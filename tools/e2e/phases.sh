#!/usr/bin/env bash
# Steps both end-to-end paths run the same way between the drive's phases: sourced by
# tools/e2e/run.sh (the real node) and tools/kind-e2e/run.sh (kind in CI), which define
# `kubectl`, NS (the tenant's namespace) and INSTALL (its PlatformInstall).

# Lists ADDRESS in the install's spec.apis.allowedTargets (http-proxy's ALLOWED_TARGETS: a
# private address is refused until listed), then waits for the operator to roll the proxy's pods.
allow_http_proxy_target() {
  local address=$1 generation
  generation=$(kubectl get deployment -n "$NS" "$INSTALL-http-proxy" -o 'jsonpath={.metadata.generation}')
  kubectl patch platforminstall -n "$NS" "$INSTALL" --type merge \
    --patch "{\"spec\": {\"apis\": {\"allowedTargets\": [\"$address/32\"]}}}"
  for _ in $(seq 120); do
    [[ $(kubectl get deployment -n "$NS" "$INSTALL-http-proxy" -o 'jsonpath={.metadata.generation}') != "$generation" ]] && break
    sleep 0.5
  done
  kubectl rollout status -n "$NS" "deployment/$INSTALL-http-proxy" --timeout 2m
}
