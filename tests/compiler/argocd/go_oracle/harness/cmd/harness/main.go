// Command harness reads JSON lines of test inputs on stdin and writes one JSON line of answers
// per input, computed by the real gobwas/glob, Go's path/filepath.Match and net/url, and Argo
// CD's functions, which ../../generate.py extracts verbatim from an argo-cd checkout into the
// build directory (harness/v1alpha1, util/git, util/app/path, util/io/files, reposerver). The
// other packages here are small stand-ins written for this harness, not Argo CD code.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gobwas/glob"

	apppath "harness/util/app/path"
	"harness/reposerver"
	"harness/util/git"
	"harness/v1alpha1"
)

type req struct {
	ID   int    `json:"id"`
	Op   string `json:"op"`
	P    string `json:"p"`
	T    string `json:"t"`
	Sep  string `json:"sep"`
	Neg  bool   `json:"neg"`
	U    string `json:"u"`
	// permissions
	Spec       v1alpha1.AppProjectSpec `json:"spec"`
	Name       string                  `json:"name"`
	Server     string                  `json:"server"`
	NS         string                  `json:"ns"`
	Group      string                  `json:"g"`
	Kind       string                  `json:"k"`
	Namespaced bool                    `json:"namespaced"`
	// directory
	Files   []string `json:"files"`
	Path    string   `json:"path"`
	Recurse bool     `json:"recurse"`
	Include string   `json:"include"`
	Exclude string   `json:"exclude"`
}

type resp struct {
	ID    int      `json:"id"`
	M     *bool    `json:"m,omitempty"`
	Err   string   `json:"err,omitempty"`
	Panic string   `json:"panic,omitempty"`
	S     *string  `json:"s,omitempty"`
	Sel   []string `json:"sel,omitempty"`
}

func b(v bool) *bool { return &v }

var dirRoot string
var dirSeq int

func handle(r req) (out resp) {
	out.ID = r.ID
	defer func() {
		if p := recover(); p != nil {
			out.M = nil
			out.Panic = fmt.Sprint(p)
		}
	}()
	switch r.Op {
	case "glob":
		g, err := glob.Compile(r.P, []rune(r.Sep)...)
		if err != nil {
			out.Err = err.Error()
			out.M = b(false)
			return
		}
		out.M = b(g.Match(r.T))
	case "explain":
		g, err := glob.Compile(r.P, []rune(r.Sep)...)
		if err != nil {
			out.Err = err.Error()
			return
		}
		x := fmt.Sprint(g)
		out.S = &x
	case "path":
		ok, err := filepath.Match(r.P, r.T)
		if err != nil {
			out.Err = err.Error()
		}
		out.M = b(ok && err == nil)
	case "gm":
		out.M = b(v1alpha1.GlobMatch(r.P, r.T, r.Neg, []rune(r.Sep)...))
	case "norm":
		s := git.NormalizeGitURL(r.U)
		out.S = &s
	case "src":
		proj := v1alpha1.AppProject{Spec: r.Spec}
		out.M = b(proj.IsSourcePermitted(v1alpha1.ApplicationSource{RepoURL: r.U}))
	case "dest":
		proj := v1alpha1.AppProject{Spec: r.Spec}
		ok, err := proj.IsDestinationPermitted(&v1alpha1.Cluster{Name: r.Name, Server: r.Server}, r.NS, nil)
		if err != nil {
			out.Err = err.Error()
		}
		out.M = b(ok)
	case "gk":
		proj := v1alpha1.AppProject{Spec: r.Spec}
		out.M = b(proj.GroupKindNamePermitted(r.Group, r.Kind, r.Name, r.Namespaced))
	case "dir":
		dirSeq++
		root := filepath.Join(dirRoot, fmt.Sprint(dirSeq))
		defer os.RemoveAll(root)
		for _, f := range r.Files {
			full := filepath.Join(root, f)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				out.Err = "setup: " + err.Error()
				return
			}
			if err := os.WriteFile(full, []byte("kind: ConfigMap\n"), 0o644); err != nil {
				out.Err = "setup: " + err.Error()
				return
			}
		}
		os.MkdirAll(root, 0o755)
		appPath, err := apppath.Path(root, r.Path)
		if err != nil {
			out.Err = "path: " + strings.ReplaceAll(err.Error(), root, "<root>")
			out.Sel = []string{}
			return
		}
		paths, err := reposerver.Walk(appPath, root, r.Recurse, r.Include, r.Exclude)
		if err != nil {
			out.Err = "walk: " + strings.ReplaceAll(err.Error(), root, "<root>")
			out.Sel = []string{}
			return
		}
		sel := []string{}
		for _, p := range paths {
			rel, _ := filepath.Rel(root, p)
			sel = append(sel, rel)
		}
		sort.Strings(sel)
		out.Sel = sel
	default:
		out.Err = "unknown op " + r.Op
	}
	return
}

func main() {
	var err error
	dirRoot, err = os.MkdirTemp(os.Getenv("HARNESS_TMP"), "argocd-diff-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dirRoot)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	flush := os.Getenv("HARNESS_FLUSH") != ""
	for in.Scan() {
		var r req
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, "bad input:", err)
			os.Exit(2)
		}
		enc.Encode(handle(r))
		if flush {
			w.Flush()
		}
	}
}
