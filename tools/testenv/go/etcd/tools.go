//go:build tools

package etcdbin

import _ "go.etcd.io/etcd/server/v3"
