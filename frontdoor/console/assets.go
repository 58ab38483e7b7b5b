package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"time"
)

//go:embed assets
var assetFS embed.FS

// assetVersions maps each asset's name (under assets/) to the first 12
// hex digits of the SHA-256 of its content: pages link to
// /assets/<name>?v=<digest>, so a browser may keep an asset for a year
// and still fetches the new one the moment it changes.
var assetVersions = func() map[string]string {
	out := map[string]string{}
	fs.WalkDir(assetFS, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assetFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p[len("assets/"):]] = hex.EncodeToString(sum[:6])
		return nil
	})
	return out
}()

// assetURL is the versioned URL of the asset name ("console.css").
func assetURL(name string) string {
	return "/assets/" + name + "?v=" + assetVersions[name]
}

// assetHandler serves the embedded assets, with the path under /assets/
// stripped. A request naming the current version is cached for a year;
// any other is served but not kept, so an old page never pins a new file.
func assetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean(r.URL.Path)
		v, ok := assetVersions[name]
		if !ok || path.Ext(name) == ".md" {
			http.NotFound(w, r)
			return
		}
		b, _ := assetFS.ReadFile("assets/" + name)
		if r.URL.Query().Get("v") == v {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
		w.Header().Set("ETag", `"`+v+`"`)
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	})
}
