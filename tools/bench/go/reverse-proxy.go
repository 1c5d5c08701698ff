// What a user could pick instead of a Node proxy: Go's standard-library reverse proxy in front of
// the benchmark's upstream. Built by tools/bench from this file alone (no module, no dependency).
// Listens on PORT (free when unset), forwards everything to UPSTREAM, prints {"port":N}.
package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	target, err := url.Parse(os.Getenv("UPSTREAM"))
	if err != nil {
		log.Fatal(err)
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "0"
	}
	listener, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{MaxIdleConnsPerHost: 100}
	// A load generator stopping mid-request is not worth a line per connection.
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	fmt.Printf("{\"port\":%d}\n", listener.Addr().(*net.TCPAddr).Port)
	log.Fatal(http.Serve(listener, proxy))
}
