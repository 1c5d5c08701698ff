# syntax=docker/dockerfile:1
# Image of a plain Node service in services/<SERVICE> (every service but office-converter and
# ocr-engine, whose runtime layer adds system packages). Build from the repository root:
#   docker build -f images/service.Dockerfile --build-arg SERVICE=summarizer -t pelita/summarizer:dev .
# Runs with a read-only root filesystem: nothing is written outside /tmp (an emptyDir in the pod).

FROM node:24-bookworm-slim AS base

# Only the npm manifests, so the dependency layers below are rebuilt only when one of them changes.
FROM base AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . \( -name package.json -o -name package-lock.json -o -name .npmrc \) \
      -exec cp --parents {} /manifests/ \;

# `npm ci`: exactly the lock file's versions. No install scripts: no dependency needs one to
# build or run (none is native).
FROM base AS build
WORKDIR /src
COPY --from=manifests /manifests ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts
COPY . .
# One compile for every image (operator and all services): this layer is the same in every
# Dockerfile here, so a commit compiles once, not once per image. `web/` holds the pages a service
# serves as written (core-backend's chat page and widget), `migrations/` the SQL files a service
# applies at start; empty ones for the others, so the copies below are the same for every service.
RUN npx tsc -b operator services/*/ \
 && for dir in services/*/; do mkdir -p "${dir}web" "${dir}migrations"; done

# Production dependencies of this service and @pelita/kit only, at the lock file's versions.
# devDependencies are deleted first: with them, npm also links kit's dev-only workspaces
# (testenv, fuzz) and installs their test clients.
FROM base AS prod
WORKDIR /app
COPY --from=manifests /manifests ./
ARG SERVICE
RUN --mount=type=cache,target=/root/.npm \
    test -n "${SERVICE}" || { echo 'build with --build-arg SERVICE=<folder in services/>' >&2; exit 1; } \
 && npm pkg delete devDependencies --workspaces --include-workspace-root \
 && npm ci --omit=dev --ignore-scripts --workspace="services/${SERVICE}"
COPY --from=build /src/services/kit/dist services/kit/dist
COPY --from=build /src/services/${SERVICE}/dist services/${SERVICE}/dist
COPY --from=build /src/services/${SERVICE}/web services/${SERVICE}/web
COPY --from=build /src/services/${SERVICE}/migrations services/${SERVICE}/migrations

FROM base
ARG SERVICE
# A named account for the uid the operator runs pods as; npm, npx, corepack and yarn go: nothing
# runs them here.
RUN groupadd --gid 10001 pelita \
 && useradd --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin pelita \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn \
      /usr/local/bin/yarnpkg
ENV NODE_ENV=production HOME=/tmp
COPY --from=prod /app/node_modules /app/node_modules
COPY --from=prod /app/services/kit /app/services/kit
COPY --from=prod /app/services/${SERVICE} /app/services/${SERVICE}
WORKDIR /app/services/${SERVICE}
USER 10001:10001
# Last but the command: the revision changes with every commit, and every layer after it would
# be rebuilt.
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="pelita-${SERVICE}" \
      org.opencontainers.image.description="Pelita ${SERVICE} service" \
      org.opencontainers.image.vendor="Pelita" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
CMD ["node", "dist/main.js"]
