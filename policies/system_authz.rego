# Who may use OPA's own API. OPA enforces it when started with `--authentication=token
# --authorization=basic` (as the operator runs the sidecar beside policy-sync): every request is
# checked against `data.system.authz.allow`, with the bearer token as `input.identity`.
#
# The policy-sync container in the same pod holds the install's OPA token and may do anything
# (push `data`, read its revision marker). Everyone else — the services asking for decisions, any
# other pod that reaches the port — may only ask for a decision, read health and read OPA's own
# Prometheus metrics: no writes to `data` or `/v1/policies`, no reading of `data` (who holds which
# role), no ad-hoc queries.
package system.authz

default allow := false

# The token comes from OPA's own environment (OPA_TOKEN, from the platform Secret), so it is in
# neither the policy nor a ConfigMap. Unset or empty, nobody is the writer.
writer_token := opa.runtime().env.OPA_TOKEN

allow if {
	is_string(writer_token)
	writer_token != ""
	is_string(input.identity)

	# Digests of equal length compared, so the time taken says nothing about a shared prefix.
	crypto.sha256(input.identity) == crypto.sha256(writer_token)
}

# The rules the services ask: `allow` (services/kit's opaDecision: input in, true or false out)
# and `explain` (the user service's GET /authz/explain: why `allow` says so for that input, with
# the grants that match it). Neither lists `data`: a caller learns only about the user, method
# and path it names, which probing `allow` would tell it too.
decision_rules := {"allow", "explain"}

allow if {
	input.method == "POST"
	some rule in decision_rules
	input.path == ["v1", "data", "pelita", "authz", rule]
}

# Liveness and readiness probes (`/health`, `/health?bundles`) carry no token.
allow if {
	input.method == "GET"
	input.path == ["health"]
}

# OPA's own Prometheus metrics, for the install's ServiceMonitor (issue 19): request counts and
# durations per OPA handler, Go runtime and process figures, never a value of `data`, a policy or
# an input. Prometheus scrapes without a token, as it scrapes every other service's /metrics.
allow if {
	input.method == "GET"
	input.path == ["metrics"]
}
