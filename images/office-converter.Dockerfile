# syntax=docker/dockerfile:1
# Image of services/office-converter: a Node service plus headless LibreOffice (the -nogui
# packages: no X11 libraries) and fonts, to turn office files into PDF, and pandoc, the second
# converter for what LibreOffice fails on (174 MB, no LaTeX: pdf-lib lays out its text).
# Build from the root:
#   docker build -f images/office-converter.Dockerfile -t pelita/office-converter:dev .
# Same stages as service.Dockerfile (see the comments there); only the runtime layer differs.
# LibreOffice keeps its user profile under $HOME, which is /tmp (the pod's writable emptyDir).

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
 && npm ci --omit=dev --ignore-scripts --workspace=services/office-converter
COPY --from=build /src/services/kit/dist services/kit/dist
COPY --from=build /src/services/office-converter/dist services/office-converter/dist

FROM base
# Debian package versions are not pinned: the base tag fixes the release, and its security
# updates replace older versions in the archive, so a pin would break the build.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui \
      fonts-liberation2 fonts-dejavu-core pandoc unzip \
 && rm -rf /var/lib/apt/lists/*
RUN groupadd --gid 10001 pelita \
 && useradd --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin pelita \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn \
      /usr/local/bin/yarnpkg
ENV NODE_ENV=production HOME=/tmp
COPY --from=prod /app/node_modules /app/node_modules
COPY --from=prod /app/services/kit /app/services/kit
COPY --from=prod /app/services/office-converter /app/services/office-converter
WORKDIR /app/services/office-converter
USER 10001:10001
# Last but the command: the revision changes with every commit, and every layer after it would
# be rebuilt.
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="pelita-office-converter" \
      org.opencontainers.image.description="Pelita office-converter service: office files to PDF with headless LibreOffice and pandoc" \
      org.opencontainers.image.vendor="Pelita" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
CMD ["node", "dist/main.js"]
