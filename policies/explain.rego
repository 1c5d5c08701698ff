# Why `allow` is what it is for one input: for an administrator asking which grant allowed or
# denied a request (the user service's `GET /authz/explain`). Same input as `allow`, and the
# same matching (the helpers of authz.rego), so the explanation cannot drift from the decision.
#
# `explain` answers `allowed`, whether the user is in `data.user_roles`, the user's roles, and
# every grant of those roles that names the request's method and matches its path — switched
# on or off — with the role holding it. Allowed: the grants with `status` true are why. Denied:
# no such grant, or every one switched off.
package pelita.authz

explain := {
	"allowed": allow,
	"user_known": user_known,
	"roles": user_role_names,
	"matching_grants": matching_grants,
}

default user_known := false

user_known if is_array(data.user_roles[input.user])

user_role_names := [role | some role in object.get(data.user_roles, [input.user], [])]

matching_grants := [explained |
	some role in user_role_names
	some grant in object.get(data.role_grants, [role], [])
	upper(grant.method) == request_method
	glob.match(path_pattern(grant.path), ["/"], request_path)
	explained := {
		"role": role,
		"id": object.get(grant, "id", null),
		"name": object.get(grant, "name", null),
		"label": object.get(grant, "label", null),
		"method": grant.method,
		"path": grant.path,
		"status": object.get(grant, "status", null),
	}
]
