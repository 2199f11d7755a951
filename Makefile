# The two commands: `make dev` runs all three services locally; `make test` runs the whole suite.
# Both create the virtual environment (.venv, from requirements/dev.lock) on first use.
# The first interpreter that really runs Python 3.13: python3.13 on PATH (a pyenv shim for an
# inactive version does not), then pyenv's and the usual install locations.
PYTHON ?= $(shell for p in python3.13 $$HOME/.pyenv/versions/3.13*/bin/python3.13 /usr/local/bin/python3.13 /usr/bin/python3.13 python3; do \
  $$p -c 'import sys; assert sys.version_info[:2] == (3, 13)' >/dev/null 2>&1 && { command -v $$p; break; }; done)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# pytest workers: `make test N=0` runs in one process.
N ?= auto
FN ?=
EVENT ?=
SVC ?=
QUICK ?=
# `make redrive QUEUE=campaigns/SendDLQ [STACK=...] [TO=...] [RATE=10] [DRY=1] [STATUS=1]` (docs/operations.md)
QUEUE ?=
STACK ?=
TO ?=
RATE ?=
DRY ?=
STATUS ?=
# `make base-url [STACK=...] [URL=...] [DRY=1]`: write the links' base URL into SSM (docs/operations.md)
URL ?=
# `make dev RATE_LIMITS=off`: lifts the per-address registration/login rate limits (local stage only).
RATE_LIMITS ?=
# `make demo`: fills a running `make dev` with a small data set through the API (tools/demo.py).
DEV_JSON ?= .local/dev.json
# `make fuzz LONG=1`: the long profile (>= 10,000 cases per service); FUZZ_MAX_EXAMPLES overrides.
LONG ?=
# services whose domain packages `make typecheck-domains` (and so `make check`) type-checks with mypy.
TYPED_SERVICES ?= campaigns exams internships

.PHONY: dev demo test faults venv check policy policy-lock rollback lint typecheck typecheck-domains architecture bench fuzz openapi invoke redrive account backfill-senders base-url lock lock-upgrade botodata validate build precompile ci clean

venv: $(STAMP)

$(STAMP): requirements/dev.lock
	$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 13), "Python 3.13 is required (set PYTHON=...)"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/dev.lock
	touch $(STAMP)

dev: $(STAMP)
	$(if $(RATE_LIMITS),LOCAL_RATE_LIMITS=$(RATE_LIMITS) )$(PY) -m local_runtime

demo: $(STAMP)
	$(PY) tools/demo.py --dev-json $(DEV_JSON)

test: $(STAMP)
	@$(PY) tools/ensure_apt.py
	$(PY) -m pytest -q $(if $(filter 0,$(N)),,-n $(N))

# Fault-injection suite, long profile (issue 23): every route case x DynamoDB fault at its
# first, a middle and the last data-layer call; ends with {"fault_cases", "violations", "routes"}.
# `make test` runs a sample of the same cases.
faults: $(STAMP)
	rm -f .local/faults/results.jsonl
	FAULTS_PROFILE=long $(PY) -m pytest -q -p no:cacheprovider $(if $(filter 0,$(N)),,-n $(N)) tests/faults/test_routes.py; \
	  $(PY) -m tests.faults.report

# Fire one function now in the running `make dev` (schedule event by default):
#   make invoke FN=DispatcherFunction   make invoke FN=CronFunction SVC=internships EVENT=events/x.json
invoke: $(STAMP)
	$(PY) -m local_runtime.control invoke $(FN) $(if $(SVC),--service $(SVC)) $(if $(EVENT),--event $(EVENT))

# Move a dead-letter queue's messages back to their source queue (SQS StartMessageMoveTask).
# `make account NAME=... PLAN=... ADDRESS=...` | `make account LIST=1` | `make account DISABLE=<id>` [STACK=] [TABLE=] (docs/operations.md)
NAME ?=
PLAN ?= pro
ADDRESS ?=
LIST ?=
DISABLE ?=
TABLE ?=
account: $(STAMP)
	@test -n "$(LIST)$(DISABLE)$(NAME)" || { echo "usage: make account NAME=<name> PLAN=<standard|pro|enterprise> ADDRESS=<postal address> | LIST=1 | DISABLE=<id> [STACK=] [TABLE=]"; exit 2; }
	$(PY) tools/account.py $(if $(LIST),--list) $(if $(DISABLE),--disable '$(DISABLE)') $(if $(NAME),--name '$(NAME)' --plan '$(PLAN)' --address '$(ADDRESS)') $(if $(STACK),--stack '$(STACK)') $(if $(TABLE),--table '$(TABLE)')

# `make backfill-senders [STACK=] [TABLE=] [DRY_RUN=1]`: sender domain-tree items for identities registered before issue 32 item 2 (docs/operations.md)
DRY_RUN ?=
backfill-senders: $(STAMP)
	$(PY) tools/backfill_senders.py $(if $(DRY_RUN),--dry-run) $(if $(STACK),--stack '$(STACK)') $(if $(TABLE),--table '$(TABLE)')

redrive: $(STAMP)
	@test -n "$(QUEUE)" || { echo "usage: make redrive QUEUE=<service>/<LogicalId>|<name>|<url>|<arn> [STACK=] [TO=] [RATE=] [DRY=1] [STATUS=1]"; exit 2; }
	$(PY) tools/redrive.py '$(QUEUE)' $(if $(STACK),--stack '$(STACK)') $(if $(TO),--to '$(TO)') $(if $(RATE),--rate $(RATE)) $(if $(DRY),--dry-run) $(if $(STATUS),--status)

# Write each service's public base URL (the stack's API URL, or URL=) into its SSM parameter (issue 33).
base-url: $(STAMP)
	$(PY) tools/base_url.py $(if $(STACK),--stack '$(STACK)') $(if $(URL),--url '$(URL)') $(if $(DRY),--dry-run)

check: lint typecheck typecheck-domains architecture policy

# Policy as code (issue 33): cfn-lint (all rules + cfn-lint-serverless) on the templates and checkov
# on the SAM-translated ones; every finding left is in tools/policy/suppressions.yaml with its
# reason, a new (or a stale) one fails. The tools live in .venv-policy (requirements/policy.in):
# checkov's pins conflict with aws-sam-cli's in .venv. Translation runs in .venv (sam's translator).
POLICY_VENV := .venv-policy
POLICY_STAMP := $(POLICY_VENV)/.installed

$(POLICY_STAMP): requirements/policy.lock
	$(PYTHON) -m venv $(POLICY_VENV)
	$(POLICY_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements/policy.lock
	touch $(POLICY_STAMP)

# Re-pin the policy tools: a fresh venv from requirements/policy.in, frozen into requirements/policy.lock.
policy-lock:
	rm -rf $(POLICY_VENV).lock && $(PYTHON) -m venv $(POLICY_VENV).lock
	$(POLICY_VENV).lock/bin/python -m pip install --quiet --disable-pip-version-check -r requirements/policy.in
	{ echo "# .venv-policy (make policy): pip freeze of requirements/policy.in. Re-pin: make policy-lock"; \
	  $(POLICY_VENV).lock/bin/python -m pip freeze --disable-pip-version-check; } > requirements/policy.lock
	rm -rf $(POLICY_VENV).lock

policy: $(STAMP) $(POLICY_STAMP)
	$(PY) tools/policy/check.py translate
	$(POLICY_VENV)/bin/python tools/policy/check.py

# Roll every function of a deployed stack back to its previous version (live aliases; stops a
# CodeDeploy deployment in progress with its rollback): `make rollback [STACK=] [FN=] [DRY=1]`.
rollback: $(STAMP)
	$(PY) tools/rollback.py $(if $(STACK),--stack '$(STACK)') $(if $(FN),--function '$(FN)') $(if $(DRY),--dry-run)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# mypy on each service's domain package (issue 12 item 5), one run per service (each is its own
# top-level package on its own path), with the [tool.mypy] settings of pyproject.toml.
typecheck-domains: $(STAMP)
	for s in $(TYPED_SERVICES); do MYPYPATH=layers/shared:functions/$$s $(VENV)/bin/mypy -p $$s || exit 1; done

# Each service's dependency order (issue 20): import-linter contracts in tools/importlinter/<service>.ini
# (no cycle between sibling packages or modules at any depth; the declared layers, lower never
# importing higher). docs/<service>-architecture.md explains each order.
architecture: $(STAMP)
	for s in campaigns exams internships; do PYTHONPATH=layers/shared:functions/$$s $(VENV)/bin/lint-imports --no-cache --config tools/importlinter/$$s.ini || exit 1; done

bench: $(STAMP)
	$(PY) bench/run.py $(if $(QUICK),--quick)

# schemathesis against every service's OpenAPI on the local runtime (started if none answers).
fuzz: $(STAMP)
	$(PY) -m fuzz $(if $(LONG),--profile long)

openapi: $(STAMP)
	$(PY) -m local_runtime.openapi --out docs/openapi
	$(PY) tools/endpoints.py

validate: $(STAMP)
	for t in template.yaml functions/*/template.yaml; do $(VENV)/bin/sam validate --lint --template-file $$t || exit 1; done

# `sam build`, then bytecode for every built function and layer (tools/precompile.py: Lambda's
# code folders are read-only, so without shipped .pyc every cold start compiles every module).
# sam build looks for `python3.13` on PATH (a pyenv shim of an inactive version fails): the venv's first.
build: $(STAMP)
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/sam build --template-file template.yaml
	$(PY) tools/precompile.py .aws-sam/build

precompile: $(STAMP)
	$(PY) tools/precompile.py .aws-sam/build

# Re-pin: keeps current versions; `make lock-upgrade` resolves everything afresh. Then
# `make botodata` re-cuts the layer's botocore data from the (re)installed botocore.
lock:
	$(PYTHON) tools/lock.py

lock-upgrade:
	$(PYTHON) tools/lock.py --upgrade

# layers/shared/lambdakit/botodata: botocore's data for the services we use only (cold starts;
# tests/platform/test_botodata.py fails while it is not a cut of the installed botocore).
botodata: $(STAMP)
	$(PY) tools/botodata.py

ci:
	.ci/run

clean:
	rm -rf .aws-sam .local .pytest_cache .mypy_cache .ruff_cache .venv-policy
