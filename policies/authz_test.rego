# Tests of pelita.authz: `opa test policies/ --coverage`.
package pelita.authz_test

import data.pelita.authz

grant(method, path) := {"id": 1, "name": "g", "label": "G", "method": method, "path": path, "status": true}

inactive(method, path) := object.union(grant(method, path), {"status": false})

users := {"ann": ["chat-user"], "bob": ["viewer", "editor"], "cid": []}

allowed(user, method, path, grants) if {
	authz.allow with input as {"user": user, "method": method, "path": path}
		with data.user_roles as users
		with data.role_grants as grants
}

chat := {"chat-user": [grant("GET", "/api/v1/chat/*")]}

test_allows_a_matching_active_grant if {
	allowed("ann", "GET", "/api/v1/chat/123", chat)
}

test_compares_methods_case_insensitively if {
	allowed("ann", "get", "/api/v1/chat/123", chat)
	allowed("ann", "GET", "/api/v1/chat/123", {"chat-user": [grant("get", "/api/v1/chat/*")]})
}

test_denies_another_method if {
	not allowed("ann", "POST", "/api/v1/chat/123", chat)
}

test_denies_an_inactive_grant if {
	not allowed("ann", "GET", "/api/v1/chat/123", {"chat-user": [inactive("GET", "/api/v1/chat/*")]})
}

test_counts_only_the_boolean_true_status if {
	not_boolean := object.union(grant("GET", "/api/v1/chat/*"), {"status": "true"})
	not allowed("ann", "GET", "/api/v1/chat/123", {"chat-user": [not_boolean]})
}

test_star_matches_within_one_segment if {
	allowed("ann", "GET", "/api/v1/chat/abc-123", chat)
	not allowed("ann", "GET", "/api/v1/chat/123/messages", chat)
	not allowed("ann", "GET", "/api/v1/chat", chat)
	not allowed("ann", "GET", "/api/v1/chats/123", chat)
}

test_star_in_the_middle_of_a_path if {
	docs := {"chat-user": [grant("DELETE", "/api/v1/workspaces/*/documents/*")]}
	allowed("ann", "DELETE", "/api/v1/workspaces/w1/documents/d1", docs)
	not allowed("ann", "DELETE", "/api/v1/workspaces/w1/x/documents/d1", docs)
}

test_star_inside_a_segment if {
	prefixed := {"chat-user": [grant("GET", "/api/v1/report-*.pdf")]}
	allowed("ann", "GET", "/api/v1/report-2024.pdf", prefixed)
	not allowed("ann", "GET", "/api/v1/report-2024.csv", prefixed)
}

test_double_star_matches_across_segments if {
	deep := {"chat-user": [grant("GET", "/api/v1/chat/**")]}
	allowed("ann", "GET", "/api/v1/chat/123/messages/9", deep)
	not allowed("ann", "GET", "/api/v1/chat", deep)
}

test_grant_without_wildcard_matches_exactly if {
	exact := {"chat-user": [grant("GET", "/api/v1/chat")]}
	allowed("ann", "GET", "/api/v1/chat", exact)
	not allowed("ann", "GET", "/api/v1/chat/1", exact)
	not allowed("ann", "GET", "/api/v1/cha", exact)
}

test_regex_metacharacters_in_grants_match_literally if {
	dotted := {"chat-user": [grant("GET", "/api/v1.0/items")]}
	allowed("ann", "GET", "/api/v1.0/items", dotted)
	not allowed("ann", "GET", "/api/v1x0/items", dotted)
	odd := {"chat-user": [grant("GET", "/a/(b)|c/[d]+e/{1}$/^\\")]}
	allowed("ann", "GET", "/a/(b)|c/[d]+e/{1}$/^\\", odd)
	not allowed("ann", "GET", "/a/b", odd)

	# Unescaped, `?` would match any one character; the request path itself never holds a `?`.
	not allowed("ann", "GET", "/abxc", {"chat-user": [grant("GET", "/ab?c")]})
	alternatives := {"chat-user": [grant("GET", "/x/{a,b}/[cd]")]}
	not allowed("ann", "GET", "/x/a/c", alternatives)
	allowed("ann", "GET", "/x/{a,b}/[cd]", alternatives)
}

test_ignores_the_query_string if {
	allowed("ann", "GET", "/api/v1/chat/123?page=2", chat)
	not allowed("ann", "GET", "/api/v1/chat?x=/1", chat)
}

test_trailing_slashes_do_not_widen_a_grant if {
	not allowed("ann", "GET", "/api/v1/chat/", chat)
	allowed("ann", "GET", "/api/v1/chat/", {"chat-user": [grant("GET", "/api/v1/chat")]})
}

test_root_path if {
	allowed("ann", "GET", "/", {"chat-user": [grant("GET", "/")]})
	allowed("ann", "GET", "/?a=1", {"chat-user": [grant("GET", "/")]})
	not allowed("ann", "GET", "/x", {"chat-user": [grant("GET", "/")]})
}

test_any_role_of_the_user_suffices if {
	roles := {"viewer": [grant("GET", "/api/v1/docs/*")], "editor": [grant("PUT", "/api/v1/docs/*")]}
	allowed("bob", "GET", "/api/v1/docs/1", roles)
	allowed("bob", "PUT", "/api/v1/docs/1", roles)
	not allowed("bob", "DELETE", "/api/v1/docs/1", roles)
}

test_any_grant_of_a_role_suffices if {
	grants := {"chat-user": [inactive("GET", "/api/v1/chat/*"), grant("GET", "/api/v1/chat/*")]}
	allowed("ann", "GET", "/api/v1/chat/1", grants)
}

test_denies_unknown_users_users_without_roles_and_roles_without_grants if {
	not allowed("zoe", "GET", "/api/v1/chat/1", chat)
	not allowed("cid", "GET", "/api/v1/chat/1", chat)
	not allowed("bob", "GET", "/api/v1/chat/1", chat)
}

test_denies_when_input_is_incomplete if {
	not authz.allow with input as {"user": "ann", "method": "GET"}
		with data.user_roles as users
		with data.role_grants as chat
	not authz.allow with input as {"user": "ann", "path": "/api/v1/chat/1"}
		with data.user_roles as users
		with data.role_grants as chat
	not authz.allow with input as {"user": "ann", "method": "GET", "path": 7}
		with data.user_roles as users
		with data.role_grants as chat
}

test_denies_without_policy_data if {
	not authz.allow with input as {"user": "ann", "method": "GET", "path": "/api/v1/chat/1"}
}

test_denies_malformed_grants if {
	no_method := {"chat-user": [object.remove(grant("GET", "/api/v1/chat/*"), ["method"])]}
	not allowed("ann", "GET", "/api/v1/chat/1", no_method)
	numeric_path := {"chat-user": [object.union(grant("GET", "/x"), {"path": 5})]}
	not allowed("ann", "GET", "/api/v1/chat/1", numeric_path)
}
