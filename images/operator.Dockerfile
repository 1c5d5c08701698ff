# syntax=docker/dockerfile:1
# Image of the Kubernetes operator (operator/), with the OPA policies it serves to each install's
# policy-sync ConfigMap. Build from the repository root:
#   docker build -f images/operator.Dockerfile -t pelita/operator:dev .
# Same stages as service.Dockerfile; see the comments there.

FROM node:24-bookworm-slim AS base

FROM base AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . \( -name package.json -o -name package-lock.json -o -name .npmrc \) \
      -exec cp --parents {} /manifests/ \;

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

FROM base AS prod
WORKDIR /app
COPY --from=manifests /manifests ./
RUN --mount=type=cache,target=/root/.npm \
    npm pkg delete devDependencies --workspaces --include-workspace-root \
 && npm ci --omit=dev --ignore-scripts --workspace=operator
COPY --from=build /src/services/kit/dist services/kit/dist
COPY --from=build /src/operator/dist operator/dist

FROM base
RUN groupadd --gid 10001 pelita \
 && useradd --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin pelita \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn \
      /usr/local/bin/yarnpkg
ENV NODE_ENV=production HOME=/tmp POLICIES_DIR=/app/policies
COPY --from=prod /app/node_modules /app/node_modules
COPY --from=prod /app/services/kit /app/services/kit
COPY --from=prod /app/operator /app/operator
# The operator leaves *_test.rego out of the ConfigMap it builds from this folder.
COPY policies/*.rego /app/policies/
WORKDIR /app/operator
USER 10001:10001
# Last but the command: the revision changes with every commit, and every layer after it would
# be rebuilt.
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="pelita-operator" \
      org.opencontainers.image.description="Pelita Kubernetes operator: reconciles PlatformInstall resources" \
      org.opencontainers.image.vendor="Pelita" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# --max-semi-space-size=16 (MiB): Node 24 lets V8's young generation grow to 128 MiB under the
# cold start's allocation and keeps it committed for good; 16 keeps the operator's RSS near what it
# holds (operator/README.md, "Scale"). The bench starts the operator with these same flags.
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
