#!/usr/bin/env bash
# The e2e install's data on the test servers, and `spec.deletionPolicy` checked on it both ways.
#
# Sourced by tools/e2e/run.sh, which defines `kubectl`, `log`, `drive`, ENV_FILE, NS, INSTALL,
# DATABASE, REDIS_DB, WORK_PV and WORK_CLAIM, then calls tenant_data_check_deletion at its
# uninstall end: the install deleted with Retain (every listing still holds something), applied
# again (Ready on the data it left, the bootstrap administrator and an earlier role found again),
# then patched to Delete and deleted (every listing empty).
#
# Run directly it lists what the e2e install has on each server (the servers of make testenv):
#   tools/e2e/tenant-data.sh
# Each listing reads the servers as their operator would, not through Pelita: OpenSearch indexes
# named for the install and its documents in the shared ones, Redis keys under its REDIS_KEY_PREFIX in its database, MinIO objects of
# its bucket (the services use no per-install prefix in it), PostgreSQL tables of its database.

TENANT_BUCKET=${TENANT_BUCKET:-pelita-e2e}

# A setting of the test servers' env file (run.sh has its own `setting`; this one is the same).
tenant_setting() {
  sed -n "s/^$1=//p" "${ENV_FILE:-${PELITA_TESTENV_DIR:-/tmp/pelita-testenv}/testenv.env}" | tail -n 1
}

# Its own indexes (spec.search.layout perInstall, or not yet moved) and, one line each, the indexes
# installs share that hold documents of its tenant (the `tenant` field the services write).
tenant_indexes() {
  local url index count
  url=$(tenant_setting OPENSEARCH_URL)
  curl -fsS "$url/_cat/indices/pelita-$NS-$INSTALL-*?h=index&expand_wildcards=all" | sort
  for index in $(curl -fsS "$url/_cat/indices/pelita-shared-*?h=index" | sort); do
    count=$(curl -fsS -H 'content-type: application/json' "$url/$index/_count" \
      -d "{\"query\": {\"term\": {\"tenant\": \"$NS/$INSTALL\"}}}" | jq .count)
    if [[ $count -gt 0 ]]; then echo "$index:$count"; fi
  done
}

tenant_keys() {
  local address
  address=$(tenant_setting REDIS_URL)
  address=${address#redis://}
  address=${address%%/*}
  redis-cli -h "${address%:*}" -p "${address##*:}" -n "$REDIS_DB" --scan --pattern "pelita:$NS/$INSTALL:*" |
    sort
}

# The bucket's keys (a first page of 1,000 is enough to tell empty from not); a missing bucket has none.
tenant_objects() {
  local body
  body=$(curl -sS --aws-sigv4 "aws:amz:$(tenant_setting S3_REGION):s3" \
    --user "$(tenant_setting S3_ACCESS_KEY):$(tenant_setting S3_SECRET_KEY)" \
    "$(tenant_setting S3_ENDPOINT)/$TENANT_BUCKET?list-type=2")
  if [[ $body == *'<Code>NoSuchBucket</Code>'* ]]; then return 0; fi
  if [[ $body != *'<ListBucketResult'* ]]; then
    echo "tenant-data: listing bucket $TENANT_BUCKET failed: ${body:0:300}" >&2
    return 1
  fi
  { grep -o '<Key>[^<]*</Key>' <<<"$body" || true; } | sed 's/<[^>]*>//g' | sort
}

tenant_tables() {
  local url
  url=$(tenant_setting POSTGRES_URL)
  psql "${url%/*}/$DATABASE" -v ON_ERROR_STOP=1 -Atq -c \
    "SELECT table_schema || '.' || table_name FROM information_schema.tables
     WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"
}

# Prints each listing's count and first names; answers 0 when every listing is `present`
# (non-empty) or every one is `absent` (empty), as asked.
tenant_data_expect() {
  local want=$1 what names count failed=0
  for what in indexes keys objects tables; do
    names=$("tenant_$what") || return 1
    count=$(grep -c . <<<"$names" || true)
    printf '  %-8s %5d  %s\n' "$what" "$count" "$(head -n 3 <<<"$names" | paste -sd ' ')"
    if [[ $want == present && $count -eq 0 ]] || [[ $want == absent && $count -ne 0 ]]; then
      echo "tenant-data: $what of $NS/$INSTALL should be $want" >&2
      failed=1
    fi
  done
  return "$failed"
}

# The Event the operator recorded about the install with REASON (the install may be gone).
tenant_event() {
  kubectl get events -n "$NS" --field-selector "involvedObject.name=$INSTALL,reason=$1" \
    -o jsonpath='{.items[*].message}'
}

tenant_data_check_deletion() {
  local manifest
  log "tenant data: what $NS/$INSTALL has on the test servers"
  tenant_data_expect present
  manifest=$(kubectl get platforminstall -n "$NS" "$INSTALL" -o json |
    jq '{apiVersion, kind, metadata: {name: .metadata.name, namespace: .metadata.namespace}, spec}')
  [[ $(jq -r .spec.deletionPolicy <<<"$manifest") == Retain ]] || {
    echo "tenant-data: the install's deletionPolicy should default to Retain" >&2
    return 1
  }

  log 'deleting the install (deletionPolicy Retain, the default): its data stays'
  kubectl delete platforminstall -n "$NS" "$INSTALL" --wait --timeout 3m
  tenant_event DataRetained | grep -qE "documents of tenant $NS/$INSTALL in OpenSearch index|pelita-$NS-$INSTALL-knowledge"
  tenant_data_expect present
  # The OCR worker's claim went with its StatefulSet; its hostPath volume (reclaim policy Retain)
  # remembers the old claim's uid until told to take a new one.
  if [[ -n ${WORK_PV:-} ]]; then
    kubectl delete pvc -n "$NS" "$WORK_CLAIM" --ignore-not-found --wait --timeout 2m
    kubectl patch persistentvolume "$WORK_PV" --type merge \
      --patch '{"spec": {"claimRef": {"uid": null, "resourceVersion": null}}}'
  fi

  log 'applying the same install again: Ready on the data it left'
  kubectl apply -f - <<<"$manifest"
  kubectl wait -n "$NS" "platforminstall/$INSTALL" --for=condition=Ready --timeout 8m
  if declare -F drive >/dev/null; then drive login; fi

  log 'deleting it with deletionPolicy Delete: nothing of it stays'
  kubectl patch platforminstall -n "$NS" "$INSTALL" --type merge \
    --patch '{"spec": {"deletionPolicy": "Delete"}}'
  kubectl delete platforminstall -n "$NS" "$INSTALL" --wait --timeout 5m
  tenant_event DataDeleted | grep -qE "documents of tenant $NS/$INSTALL in OpenSearch index|pelita-$NS-$INSTALL-knowledge"
  tenant_data_expect absent
}

# For a run's clean slate, before the operator is uninstalled: an install a previous run left
# (KEEP=1, a failure) carries the operator's finalizer, which would hold its namespace's deletion
# for ever once the operator is gone. Removing it deletes no data.
tenant_release_finalizers() {
  local install
  for install in $(kubectl get platforminstalls -n "$NS" -o name 2>/dev/null); do
    kubectl patch -n "$NS" "$install" --type json \
      --patch '[{"op": "remove", "path": "/metadata/finalizers"}]' >/dev/null 2>&1 || true
  done
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  NS=${NS:-pelita-e2e} INSTALL=${INSTALL:-e2e} DATABASE=${DATABASE:-pelita_e2e} REDIS_DB=${REDIS_DB:-7}
  tenant_data_expect "${1:-list}"
fi
