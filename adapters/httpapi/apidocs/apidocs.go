// Package apidocs serves the API reference page at /docs from assets embedded in
// the binary (Stoplight Elements, see README.md), so the reference needs no network.
// It knows nothing of the API itself: the page reads the OpenAPI document from a URL.
package apidocs

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"time"
)

//go:embed index.html assets
var files embed.FS

var page = template.Must(template.ParseFS(files, "index.html"))

// Options say where the page and its document are.
type Options struct {
	Title  string // the page title, e.g. "engram"
	Path   string // where the page is served, e.g. "/docs"
	Spec   string // URL of the OpenAPI document, e.g. "/openapi.json"
	Assets string // URL prefix of the viewer's files; default Path + "/assets"
}

// Handler serves the page at opts.Path and the viewer's files under opts.Assets.
// Register it on a mux for both the page and the assets prefix.
func Handler(opts Options) http.Handler {
	if opts.Assets == "" {
		opts.Assets = opts.Path + "/assets"
	}
	var html bytes.Buffer
	if err := page.Execute(&html, opts); err != nil {
		panic("apidocs: index.html: " + err.Error()) // the template is embedded: a bug, caught by the tests
	}
	assets, _ := fs.Sub(files, "assets")
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+opts.Path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(html.Bytes()))
	})
	static := http.StripPrefix(opts.Assets, http.FileServerFS(assets))
	mux.Handle("GET "+opts.Assets+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The files change only with the binary; a day of caching spares reloads.
		w.Header().Set("Cache-Control", "public, max-age=86400")
		static.ServeHTTP(w, r)
	}))
	return mux
}
