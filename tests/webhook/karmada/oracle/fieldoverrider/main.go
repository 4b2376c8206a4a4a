package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"sigs.k8s.io/yaml"
)

type option struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

type req struct {
	Mode string   `json:"mode"`
	Doc  string   `json:"doc"`
	Ops  []option `json:"ops"`
}

type resp struct {
	Out string `json:"out"`
	Err string `json:"err"`
}

func run(r req) ([]byte, error) {
	patchBytes, err := json.Marshal(r.Ops)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.DecodePatch(patchBytes)
	if err != nil {
		return nil, err
	}
	if r.Mode == "yaml" {
		raw, err := yaml.YAMLToJSON([]byte(r.Doc))
		if err != nil {
			return nil, err
		}
		raw, err = patch.Apply(raw)
		if err != nil {
			return nil, err
		}
		return yaml.JSONToYAML(raw)
	}
	return patch.Apply([]byte(r.Doc))
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r req
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		b, err := run(r)
		if err != nil {
			out.Encode(resp{Err: err.Error()})
		} else {
			out.Encode(resp{Out: string(b)})
		}
	}
}
