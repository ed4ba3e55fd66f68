// Package console serves the operator's web console at /console: one HTML page and
// small hand-written ES modules, embedded in the binary, that run in the browser
// and call the JSON API with the operator's key. Nothing is rendered on the server
// and nothing is loaded from another host; every stored text reaches the page as a
// DOM text node, never as markup. See README.md for the files.
package console

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

// Path is where the console is served.
const Path = "/console"

// securityPolicy lets the page run its own scripts and styles and call its own
// origin, and nothing else: even a text that slipped into markup could not run
// an inline handler or reach another host.
const securityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page at Path and at every path below it (the page reads its
// route from the address bar), and its files under Path/assets/. Register it for
// both "GET /console" and "GET /console/".
func Handler() http.Handler {
	var html bytes.Buffer
	if err := page.Execute(&html, struct{ Path string }{Path}); err != nil {
		panic("console: index.html: " + err.Error()) // the template is embedded: a bug, caught by the tests
	}
	assets, _ := fs.Sub(files, "assets")
	static := http.StripPrefix(Path+"/assets", http.FileServerFS(assets))
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Path+"/assets/", func(w http.ResponseWriter, r *http.Request) {
		secure(w)
		// The files change only with the binary, and a new binary should be seen
		// at once by an operator who reloads: revalidate, never cache blindly.
		w.Header().Set("Cache-Control", "no-cache")
		static.ServeHTTP(w, r)
	})
	servePage := func(w http.ResponseWriter, r *http.Request) {
		secure(w)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(html.Bytes()))
	}
	mux.HandleFunc("GET "+Path, servePage)
	mux.HandleFunc("GET "+Path+"/", servePage)
	return mux
}

func secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", securityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}
