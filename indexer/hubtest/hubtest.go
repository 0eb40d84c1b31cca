package hubtest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Release is one release the Hub serves.
type Release struct {
	ID          string `json:"id"`
	Version     int64  `json:"version"`
	Environment string `json:"environment"`
	CreatedAt   string `json:"createdAt"`
	Digest      string `json:"digest"`
	body        []byte
}

// Request records one request the Hub received.
type Request struct {
	Path          string // with the query
	Authorization string
	IfNoneMatch   string
	Status        int // what the Hub answered (0 when a Fault answered)
}

// Hub is an in-process Hub.
type Hub struct {
	server *httptest.Server
	// Token, when not "", is the bearer token every request must carry.
	Token string
	// Gzip makes the Hub send snapshots gzip-encoded to clients that accept it.
	Gzip bool
	// Fault, when set, sees every request first; when it returns true it has
	// answered the request itself. Tests use it to inject failures.
	Fault func(w http.ResponseWriter, r *http.Request) bool

	mu       sync.Mutex
	projects map[string][]*Release
	requests []Request
}

// New starts a Hub on a loopback port. Close it when done.
func New() *Hub {
	h := &Hub{projects: map[string][]*Release{}}
	h.server = httptest.NewServer(http.HandlerFunc(h.serve))
	return h
}

// URL returns the Hub's base URL.
func (h *Hub) URL() string { return h.server.URL }

// Close stops the Hub.
func (h *Hub) Close() { h.server.Close() }

// Add publishes a snapshot document. Its id, version, environment and
// createdAt are read from the document's release object; the digest is the
// sha256 of body. It returns the listing entry.
func (h *Hub) Add(project string, body []byte) Release {
	var doc struct {
		Release Release `json:"release"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		panic(fmt.Sprintf("hubtest: Add: %v", err))
	}
	r := doc.Release
	r.Digest = Digest(body)
	h.AddListed(project, r, body)
	return r
}

// AddListed publishes body under the listing entry r exactly as given, even
// when r does not match body (for tests of a lying Hub). A release with the
// same id is replaced.
func (h *Hub) AddListed(project string, r Release, body []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r.body = bytes.Clone(body)
	list := h.projects[project]
	for i, old := range list {
		if old.ID == r.ID {
			list[i] = &r
			return
		}
	}
	h.projects[project] = append(list, &r)
}

// Requests returns the requests received so far.
func (h *Hub) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.requests...)
}

// Downloads counts the snapshot bodies the Hub sent (200 answers to a
// snapshot request).
func (h *Hub) Downloads() int {
	n := 0
	for _, r := range h.Requests() {
		if strings.HasSuffix(strings.SplitN(r.Path, "?", 2)[0], "/snapshot") && r.Status == http.StatusOK {
			n++
		}
	}
	return n
}

// Digest returns "sha256:<hex>" of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
	rec := Request{Path: r.URL.RequestURI(), Authorization: r.Header.Get("Authorization"), IfNoneMatch: r.Header.Get("If-None-Match")}
	status := h.answer(w, r)
	rec.Status = status
	h.mu.Lock()
	h.requests = append(h.requests, rec)
	h.mu.Unlock()
}

func (h *Hub) answer(w http.ResponseWriter, r *http.Request) int {
	if h.Fault != nil && h.Fault(w, r) {
		return 0
	}
	if h.Token != "" && r.Header.Get("Authorization") != "Bearer "+h.Token {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return http.StatusUnauthorized
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method != http.MethodGet || len(parts) < 4 || parts[0] != "v1" || parts[1] != "projects" || parts[3] != "releases" {
		http.NotFound(w, r)
		return http.StatusNotFound
	}
	h.mu.Lock()
	list, ok := h.projects[parts[2]]
	h.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":"project not found"}`, http.StatusNotFound)
		return http.StatusNotFound
	}
	switch {
	case len(parts) == 4:
		env := r.URL.Query().Get("environment")
		out := struct {
			Releases []Release `json:"releases"`
		}{Releases: []Release{}}
		h.mu.Lock()
		for _, rel := range list {
			if env == "" || rel.Environment == env {
				out.Releases = append(out.Releases, *rel)
			}
		}
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
		return http.StatusOK
	case len(parts) == 6 && parts[5] == "snapshot":
		var rel *Release
		h.mu.Lock()
		for _, x := range list {
			if x.ID == parts[4] {
				rel = x
			}
		}
		h.mu.Unlock()
		if rel == nil {
			http.Error(w, `{"error":"release not found"}`, http.StatusNotFound)
			return http.StatusNotFound
		}
		etag := `"` + Digest(rel.body) + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return http.StatusNotModified
		}
		w.Header().Set("Content-Type", "application/json")
		if h.Gzip && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(rel.body)
			zw.Close()
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", fmt.Sprint(buf.Len()))
			w.Write(buf.Bytes())
			return http.StatusOK
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(rel.body)))
		w.Write(rel.body)
		return http.StatusOK
	}
	http.NotFound(w, r)
	return http.StatusNotFound
}
