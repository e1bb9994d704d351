// Verifies a running Agentry service's receipt log or registry log with Go's own implementation,
// golang.org/x/mod/sumdb/note and sumdb/tlog (Debian golang-golang-x-mod-dev):
// the checkpoint's signature, every hash tile against the signed root, every entry
// bundle against the level-0 tiles, an inclusion proof of every entry, and the
// service's consistency proof from an earlier size.
//
//	GOPATH=/usr/share/gocode GO111MODULE=off go run main.go <base URL> <verifier key> <earlier size> [receipts|registry]
package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

func fetch(url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		fail("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		fail("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

// tilePath writes a C2SP tlog-tiles path: N in 3-digit groups, all but the last prefixed with x.
func tilePath(level string, n int64, w int) string {
	groups := []string{fmt.Sprintf("%03d", n%1000)}
	for n >= 1000 {
		n /= 1000
		groups = append([]string{fmt.Sprintf("x%03d", n%1000)}, groups...)
	}
	p := "tile/" + level + "/" + strings.Join(groups, "/")
	if w < 1<<height {
		p += fmt.Sprintf(".p/%d", w)
	}
	return p
}

type tiles struct{ prefix string }

func (t tiles) Height() int { return height }
func (t tiles) ReadTiles(list []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(list))
	for i, tile := range list {
		out[i] = fetch(t.prefix + tilePath(strconv.Itoa(tile.L), tile.N, tile.W))
	}
	return out, nil
}
func (t tiles) SaveTiles([]tlog.Tile, [][]byte) {}

func main() {
	if len(os.Args) != 4 && len(os.Args) != 5 {
		fail("usage: tlog-verify <base URL> <verifier key> <earlier size> [receipts|registry]")
	}
	logName := "receipts"
	if len(os.Args) == 5 {
		logName = os.Args[4]
	}
	base, vkey := strings.TrimRight(os.Args[1], "/"), os.Args[2]
	earlier, _ := strconv.ParseInt(os.Args[3], 10, 64)
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		fail("verifier key: %v", err)
	}
	prefix := base + "/.tlog/" + logName + "/"
	msg := fetch(prefix + "checkpoint")
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		fail("checkpoint signature: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 {
		fail("checkpoint body %q", n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("checkpoint size %q", lines[1])
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		fail("checkpoint root %q", lines[2])
	}
	tree := tlog.Tree{N: size, Hash: root}
	// Tiles are checked against the signed root as they are read.
	hashes := tlog.TileHashReader(tree, tiles{prefix})
	th, err := tlog.TreeHash(size, hashes)
	if err != nil || th != root {
		fail("tree hash from tiles: %v %v", th, err)
	}
	for start := int64(0); start < size; start += 1 << height {
		w := int(size - start)
		if w > 1<<height {
			w = 1 << height
		}
		bundle := fetch(prefix + tilePath("entries", start>>height, w))
		for i := int64(0); i < int64(w); i++ {
			if len(bundle) < 2 {
				fail("entry bundle %d is short", start>>height)
			}
			length := int(binary.BigEndian.Uint16(bundle))
			entry := bundle[2 : 2+length]
			bundle = bundle[2+length:]
			leaf, err := hashes.ReadHashes([]int64{tlog.StoredHashIndex(0, start+i)})
			if err != nil || leaf[0] != tlog.RecordHash(entry) {
				fail("entry %d does not hash to its tile's leaf: %v", start+i, err)
			}
			var logged map[string]any
			if json.Unmarshal(entry, &logged) != nil {
				fail("entry %d is not JSON", start+i)
			}
			if logName == "receipts" && logged["receiptId"] == nil {
				fail("entry %d is not a receipt", start+i)
			}
			if logName == "registry" && (logged["agentId"] == nil || logged["event"] == nil || logged["values"] == nil || logged["time"] == nil || len(logged) != 4) {
				fail("entry %d is not a registry event", start+i)
			}
			proof, err := tlog.ProveRecord(size, start+i, hashes)
			if err != nil || tlog.CheckRecord(proof, size, root, start+i, tlog.RecordHash(entry)) != nil {
				fail("inclusion of entry %d: %v", start+i, err)
			}
		}
		if len(bundle) != 0 {
			fail("entry bundle %d has bytes left over", start>>height)
		}
	}
	if earlier > 0 {
		var answer struct {
			Data struct{ Proof []string } `json:"data"`
		}
		if err := json.Unmarshal(fetch(fmt.Sprintf("%s/v1/log/%s/consistency?from=%d&to=%d", base, logName, earlier, size)), &answer); err != nil {
			fail("consistency answer: %v", err)
		}
		var proof tlog.TreeProof
		for _, text := range answer.Data.Proof {
			raw, err := base64.StdEncoding.DecodeString(text)
			if err != nil || len(raw) != tlog.HashSize {
				fail("consistency hash %q", text)
			}
			var h tlog.Hash
			copy(h[:], raw)
			proof = append(proof, h)
		}
		old, err := tlog.TreeHash(earlier, hashes)
		if err != nil {
			fail("earlier root: %v", err)
		}
		if err := tlog.CheckTree(proof, size, root, earlier, old); err != nil {
			fail("consistency %d -> %d: %v", earlier, size, err)
		}
	}
	fmt.Printf("ok %s size %d\n", lines[0], size)
}
