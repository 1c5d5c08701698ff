// CoreDNS with only the plugins the real node's Corefile uses (node-config.ts): the release's
// main imports every plugin (cloud DNS providers, etcd, dnstap...), about twice the build.
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/template"
)

func main() { coremain.Run() }
