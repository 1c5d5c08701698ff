//go:build tools

// kube-router's network policy controller for the real node (tools/testenv/src/cli/servers/network-policy.ts).
// go.mod raises its dependencies to versions with the reported security fixes (see the testenv README).
package tools

import _ "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router"
