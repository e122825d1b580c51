package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/agenttools/agenttools/core/publish/local"
)

// publishFlags are mcp's flags of the local publisher.
type publishFlags struct {
	command string
	addr    string
	baseURL string
}

func (p *publishFlags) register(fl *flag.FlagSet) {
	p.command = fl.Name()
	fl.StringVar(&p.addr, "publish-addr", "", "offer the publish tool, serving the files it publishes over HTTP on this\nHOST:PORT (port 0 picks a free one; the address goes to stderr). Links are signed,\nlast what the call asks (at most 7 days) and die with the server")
	fl.StringVar(&p.baseURL, "publish-base-url", "", "with --publish-addr: the URL the links start with, for a proxy in front of it\n(default http://HOST:PORT of --publish-addr)")
}

// check is the usage error of the flags, if any.
func (p *publishFlags) check(readonly bool) error {
	if p.addr == "" {
		if p.baseURL != "" {
			return usagef(p.command, "--publish-base-url needs --publish-addr")
		}
		return nil
	}
	if readonly {
		return usagef(p.command, "--publish-addr: --readonly offers no publish tool")
	}
	host, _, err := net.SplitHostPort(p.addr)
	if err != nil {
		return usagef(p.command, "--publish-addr: want HOST:PORT, got %q", p.addr)
	}
	if p.baseURL == "" {
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			return usagef(p.command, "--publish-addr %s listens on every interface: give the URL links start with in --publish-base-url", p.addr)
		}
		return nil
	}
	if u, err := url.Parse(p.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return usagef(p.command, "--publish-base-url: want an http or https URL without a query, got %q", p.baseURL)
	}
	return nil
}

// publishServer is the local publisher and the HTTP server in front of
// it.
type publishServer struct {
	pub  *local.Publisher
	srv  *http.Server
	done chan struct{}
	// URL is where the links start.
	URL string
}

// start listens on the address and serves the publisher's links: nil
// without --publish-addr. Call check first.
func (p *publishFlags) start(stderr io.Writer) (*publishServer, error) {
	if p.addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return nil, fmt.Errorf("--publish-addr: %w", err)
	}
	base := p.baseURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	pub, err := local.New(local.Options{BaseURL: base})
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &publishServer{pub: pub, srv: &http.Server{Handler: pub, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{}), URL: base}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "agenttools %s: --publish-addr: %v\n", p.command, err)
		}
	}()
	where := "http://" + ln.Addr().String()
	if base != where {
		where += " (links start with " + base + ")"
	}
	fmt.Fprintf(stderr, "agenttools %s: publishing files on %s\n", p.command, where)
	return s, nil
}

// Close stops serving (downloads in flight get 2 s) and deletes the
// copies.
func (s *publishServer) Close() {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if s.srv.Shutdown(ctx) != nil {
		s.srv.Close()
	}
	<-s.done
	s.pub.Close()
}
