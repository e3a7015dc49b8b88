// A small log shipper on the official Go Elasticsearch client (go-elasticsearch, the client the
// OpenTelemetry Collector's elasticsearch exporter builds on): it reads a log file and sends each line
// as {"message", "@timestamp"} through the client's BulkIndexer with Basic credentials. The client
// runs its product check (X-Elastic-Product) on the first answer and refuses a server that fails it.
// Usage: vigil-es-ship <url> <user> <password> <index> <file>
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esutil"
)

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: vigil-es-ship <url> <user> <password> <index> <file>")
		os.Exit(2)
	}
	url, user, password, index, path := os.Args[1], os.Args[2], os.Args[3], os.Args[4], os.Args[5]
	client, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{url}, Username: user, Password: password})
	if err != nil {
		fail("client", err)
	}
	info, err := client.Info()
	if err != nil {
		fail("info", err)
	}
	info.Body.Close()
	if info.IsError() {
		fail("info", fmt.Errorf("%s", info.Status()))
	}

	var failed atomic.Int64
	indexer, err := esutil.NewBulkIndexer(esutil.BulkIndexerConfig{Client: client, Index: index, FlushBytes: 64 * 1024, NumWorkers: 2})
	if err != nil {
		fail("indexer", err)
	}
	file, err := os.Open(path)
	if err != nil {
		fail("open", err)
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	for scanner.Scan() {
		doc, _ := json.Marshal(map[string]string{"message": scanner.Text(), "@timestamp": time.Now().UTC().Format(time.RFC3339Nano)})
		err := indexer.Add(context.Background(), esutil.BulkIndexerItem{
			Action: "create",
			Body:   bytes.NewReader(doc),
			OnFailure: func(_ context.Context, _ esutil.BulkIndexerItem, res esutil.BulkIndexerResponseItem, err error) {
				failed.Add(1)
				fmt.Fprintf(os.Stderr, "item failed: %d %s %v\n", res.Status, res.Error.Reason, err)
			},
		})
		if err != nil {
			fail("add", err)
		}
	}
	if err := indexer.Close(context.Background()); err != nil {
		fail("close", err)
	}
	stats := indexer.Stats()
	fmt.Printf("added=%d flushed=%d failed=%d requests=%d\n", stats.NumAdded, stats.NumFlushed, stats.NumFailed, stats.NumRequests)
	if stats.NumFailed > 0 || failed.Load() > 0 {
		os.Exit(1)
	}
}

func fail(step string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", step, err)
	os.Exit(1)
}
