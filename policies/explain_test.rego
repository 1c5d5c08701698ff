# Tests of pelita.authz.explain: `opa test policies/ --coverage`.
package pelita.authz_explain_test

import data.pelita.authz

grant(id, method, path, status) := {"id": id, "name": "g", "label": "G", "method": method, "path": path, "status": status}

users := {"ann": ["chat-user", "reader"], "cid": []}

grants := {
	"chat-user": [
		grant(1, "GET", "/api/v1/chat/*", true),
		grant(2, "POST", "/api/v1/chat/*", true),
		grant(3, "GET", "/api/v1/other", true),
	],
	"reader": [grant(4, "get", "/api/**", false)],
}

explained(user, method, path) := result if {
	result := authz.explain with input as {"user": user, "method": method, "path": path}
		with data.user_roles as users
		with data.role_grants as grants
}

test_names_the_grants_that_allow_and_those_switched_off if {
	explained("ann", "GET", "/api/v1/chat/7") == {
		"allowed": true,
		"user_known": true,
		"roles": ["chat-user", "reader"],
		"matching_grants": [
			{"role": "chat-user", "id": 1, "name": "g", "label": "G", "method": "GET", "path": "/api/v1/chat/*", "status": true},
			{"role": "reader", "id": 4, "name": "g", "label": "G", "method": "get", "path": "/api/**", "status": false},
		],
	}
}

test_a_denial_by_a_switched_off_grant_lists_it if {
	result := explained("ann", "GET", "/api/v2/x")
	result.allowed == false
	[grant.id | some grant in result.matching_grants] == [4]
}

test_a_denial_without_any_grant_lists_none if {
	result := explained("ann", "DELETE", "/api/v1/chat/7")
	result.allowed == false
	result.matching_grants == []
	result.user_known == true
}

test_a_user_without_roles_is_known if {
	explained("cid", "GET", "/api/v1/chat/7") == {"allowed": false, "user_known": true, "roles": [], "matching_grants": []}
}

test_an_unknown_user_is_said_so if {
	explained("eve", "GET", "/api/v1/chat/7") == {"allowed": false, "user_known": false, "roles": [], "matching_grants": []}
}

test_a_role_without_grants_and_a_grant_without_reference_fields if {
	result := authz.explain with input as {"user": "dan", "method": "GET", "path": "/x"}
		with data.user_roles as {"dan": ["bare", "ghost"]}
		with data.role_grants as {"bare": [{"method": "GET", "path": "/x"}]}
	result.matching_grants == [{"role": "bare", "id": null, "name": null, "label": null, "method": "GET", "path": "/x", "status": null}]
	result.allowed == false
}
