// Command glob answers Argo CD's pattern matching with the code Argo CD runs:
// github.com/gobwas/glob at the version argo-cd's go.mod requires (v0.2.3), as Argo CD's
// util/glob.Match calls it (Compile with the separators, then Match; a compile error is no
// match), and Go's path/filepath.Match.
//
// One JSON request a line on stdin: {"op": "glob", "p": PATTERN, "t": TEXT, "sep": SEPARATORS}
// or {"op": "path", "p": PATTERN, "t": NAME}; one answer a line: {"m": bool, "err": "..."} or
// {"panic": "..."} where the Go code panics.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gobwas/glob"
)

type request struct {
	Op  string `json:"op"`
	P   string `json:"p"`
	T   string `json:"t"`
	Sep string `json:"sep"`
}

type answer struct {
	M     bool   `json:"m"`
	Err   string `json:"err,omitempty"`
	Panic string `json:"panic,omitempty"`
}

func handle(r request) (a answer) {
	defer func() {
		if p := recover(); p != nil {
			a = answer{Panic: fmt.Sprint(p)}
		}
	}()
	switch r.Op {
	case "glob":
		g, err := glob.Compile(r.P, []rune(r.Sep)...)
		if err != nil {
			return answer{Err: err.Error()}
		}
		return answer{M: g.Match(r.T)}
	case "path":
		ok, err := filepath.Match(r.P, r.T)
		if err != nil {
			return answer{Err: err.Error()}
		}
		return answer{M: ok}
	}
	return answer{Err: "unknown op " + r.Op}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			os.Exit(2)
		}
		out.Encode(handle(r))
	}
}
