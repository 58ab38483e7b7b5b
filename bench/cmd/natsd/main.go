// Command natsd runs an embedded NATS server for the benchmark's front door
// + worker setup, so the script needs no NATS installed.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func main() {
	port := flag.Int("port", 14222, "port to listen on (127.0.0.1)")
	store := flag.String("store", "", "JetStream's directory, kept when the server stops, so that a server killed and started again finds it; empty: a temporary one, removed on a clean stop")
	flag.Parse()
	dir := *store
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "natsd-*"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: *port, NoSigs: true,
		JetStream: true, StoreDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		log.Fatal("nats: not ready after 10s")
	}
	fmt.Fprintf(os.Stderr, "natsd listening on %s\n", ns.ClientURL())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	ns.Shutdown()
	ns.WaitForShutdown()
}
