#!/usr/bin/env bash
# The attack phase of `make e2e`, sourced by tools/e2e/run.sh (which defines kubectl, log, NS,
# INSTALL, TAG, KUBECTL_BIN, NODE_SELECTOR, NODE_TAINT_KEY and NETWORK_POLICY_AGENT):
# tools/e2e/attack.mjs probes every port of the install from pods it starts, with the install's
# NetworkPolicies on, then off (spec.networkPolicy.enabled: false: the same probes get through,
# so the phase can fail), then on again.

# Another tenant's namespace: its pods are no caller of the install's.
ATTACK_NS=pelita-e2e-attacker

attack() {
  KUBECTL_BIN=$KUBECTL_BIN NS=$NS INSTALL=$INSTALL ATTACK_NS=$ATTACK_NS \
    PROBE_IMAGE=pelita/operator:$TAG NODE_SELECTOR=$NODE_SELECTOR NODE_TAINT_KEY=$NODE_TAINT_KEY \
    node tools/e2e/attack.mjs "$1"
}

install_network_policies() {
  kubectl get networkpolicies -n "$NS" -l "app.kubernetes.io/instance=$INSTALL" -o name | wc -l
}

# Sets spec.networkPolicy.enabled, then waits until the operator has applied (or removed) them all.
set_network_policy() {
  local enabled=$1 wanted=$2
  kubectl patch platforminstall -n "$NS" "$INSTALL" --type merge \
    --patch "{\"spec\": {\"networkPolicy\": {\"enabled\": $enabled}}}"
  for _ in $(seq 120); do
    [[ $(install_network_policies) -eq $wanted ]] && return 0
    sleep 0.5
  done
  echo "e2e: the install's NetworkPolicies did not reach $wanted after enabled=$enabled" >&2
  return 1
}

attack_phase() {
  local policies
  kubectl delete namespace "$ATTACK_NS" --ignore-not-found --wait --timeout=2m
  policies=$(install_network_policies)
  log "attack phase: $policies NetworkPolicies, enforced on the node by $NETWORK_POLICY_AGENT"
  attack enforced
  log 'attack phase: spec.networkPolicy.enabled false: the same probes get through'
  set_network_policy false 0
  attack open
  log 'attack phase: spec.networkPolicy.enabled true again: blocked again'
  set_network_policy true "$policies"
  attack enforced
  kubectl delete namespace "$ATTACK_NS" --wait=false
  # The admitted pod goes with the ConfigMap that owns it.
  kubectl delete pod,configmap -n "$NS" -l pelita.io/e2e=attack-probe --wait=false
}
