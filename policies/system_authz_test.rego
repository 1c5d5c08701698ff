# Tests of system.authz: `opa test policies/ --coverage`.
package system.authz_test

import data.system.authz

token := "s3cret-opa-token"

runtime_with(env) := {"env": env}

allowed(identity, method, path) if {
	authz.allow with input as object.union({"method": method, "path": path}, identity)
		with opa.runtime as runtime_with({"OPA_TOKEN": token})
}

as_writer := {"identity": token}

anonymous := {}

test_the_writer_may_replace_data if {
	allowed(as_writer, "PUT", ["v1", "data"])
}

test_the_writer_may_write_and_read_its_marker if {
	allowed(as_writer, "PUT", ["v1", "data", "pelita_policy_sync"])
	allowed(as_writer, "GET", ["v1", "data", "pelita_policy_sync", "revision"])
}

test_nobody_else_may_write_data if {
	not allowed(anonymous, "PUT", ["v1", "data"])
	not allowed(anonymous, "PATCH", ["v1", "data"])
	not allowed(anonymous, "DELETE", ["v1", "data", "user_roles"])
	not allowed(anonymous, "PUT", ["v1", "data", "role_grants", "admin"])
	not allowed({"identity": "wrong"}, "PUT", ["v1", "data"])
	not allowed({"identity": concat("", [token, "x"])}, "PUT", ["v1", "data"])
}

test_nobody_else_may_write_or_delete_policies if {
	not allowed(anonymous, "PUT", ["v1", "policies", "pwn"])
	not allowed(anonymous, "DELETE", ["v1", "policies", "system_authz.rego"])
	not allowed({"identity": "wrong"}, "PUT", ["v1", "policies", "pwn"])
}

test_nobody_else_may_read_data_or_query if {
	not allowed(anonymous, "GET", ["v1", "data"])
	not allowed(anonymous, "GET", ["v1", "data", "user_roles"])
	not allowed(anonymous, "POST", ["v1", "data"])
	not allowed(anonymous, "POST", ["v1", "data", "pelita", "authz"])
	not allowed(anonymous, "GET", ["v1", "data", "pelita", "authz", "allow"])
	not allowed(anonymous, "POST", ["v1", "query"])
	not allowed(anonymous, "POST", ["v1", "compile"])
	not allowed(anonymous, "GET", ["v1", "policies"])
	not allowed(anonymous, "GET", ["v1", "config"])
}

test_anyone_may_ask_for_a_decision if {
	allowed(anonymous, "POST", ["v1", "data", "pelita", "authz", "allow"])
	allowed(anonymous, "POST", ["v1", "data", "pelita", "authz", "explain"])
	not allowed(anonymous, "POST", ["v1", "data", "pelita", "authz", "request_path"])
	allowed({"identity": "some-other-token"}, "POST", ["v1", "data", "pelita", "authz", "allow"])
}

test_anyone_may_read_health if {
	allowed(anonymous, "GET", ["health"])
	not allowed(anonymous, "GET", ["health", "plugins"])
}

test_anyone_may_read_metrics_only_by_get if {
	allowed(anonymous, "GET", ["metrics"])
	allowed({"identity": "some-other-token"}, "GET", ["metrics"])
	not allowed(anonymous, "POST", ["metrics"])
	not allowed(anonymous, "PUT", ["metrics"])
	not allowed(anonymous, "GET", ["metrics", "extra"])
	not allowed(anonymous, "GET", ["v1", "metrics"])
}

test_no_token_configured_means_no_writer if {
	not authz.allow with input as {"method": "PUT", "path": ["v1", "data"], "identity": ""}
		with opa.runtime as runtime_with({})
	not authz.allow with input as {"method": "PUT", "path": ["v1", "data"], "identity": ""}
		with opa.runtime as runtime_with({"OPA_TOKEN": ""})
	not authz.allow with input as {"method": "PUT", "path": ["v1", "data"]}
		with opa.runtime as runtime_with({"OPA_TOKEN": ""})
}

test_a_non_string_identity_is_nobody if {
	not authz.allow with input as {"method": "PUT", "path": ["v1", "data"], "identity": 1}
		with opa.runtime as runtime_with({"OPA_TOKEN": "1"})
}
