# Authorisation of Pelita's protected requests: may `input.user` call `input.method` on `input.path`?
#
# Data (pushed by services/policy-sync): `data.user_roles` maps a user name to role names,
# `data.role_grants` maps a role name to grant records `{id, name, label, method, path, status}`.
package pelita.authz

default allow := false

# Allowed when some role of the user has a grant that is switched on (`status` exactly true),
# names the request's method (case-insensitively) and matches its path.
allow if {
	some role in data.user_roles[input.user]
	some grant in data.role_grants[role]
	grant.status == true
	upper(grant.method) == request_method
	glob.match(path_pattern(grant.path), ["/"], request_path)
}

request_method := upper(input.method)

# The request path compared with grants: without its query string (an enforcer may pass the
# request target as it came) and without trailing slashes (`/a/` and `/a` reach the same route,
# so `/a/*` must not grant `/a/` when it does not grant `/a`).
request_path := normalised_path(input.path)

normalised_path(path) := trimmed if {
	trimmed := trim_right(split(path, "?")[0], "/")
	trimmed != ""
}

normalised_path(path) := "/" if trim_right(split(path, "?")[0], "/") == ""

# Grant path → glob with `/` as the delimiter: `*` matches within one path segment (any
# characters but `/`), `**` across segments; every other character, glob metacharacters such as
# `?`, `[` or `{` included, matches itself.
path_pattern(grant_path) := concat("*", [glob.quote_meta(part) | some part in split(grant_path, "*")])
