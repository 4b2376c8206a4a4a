package main

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/karmada-io/karmada/pkg/util/imageparser"
)

type req struct {
	Image     string `json:"image"`
	Component string `json:"component"`
	Operator  string `json:"operator"`
	Value     string `json:"value"`
}

type resp struct {
	Out string `json:"out"`
	Err string `json:"err"`
}

// overrideImage of pkg/util/overridemanager/imageoverride.go (v1.18.0)
func override(r req) (string, error) {
	c, err := imageparser.Parse(r.Image)
	if err != nil {
		return "", err
	}
	switch r.Component {
	case "Registry":
		switch r.Operator {
		case "add":
			c.SetHostname(c.Hostname() + r.Value)
		case "replace":
			c.SetHostname(r.Value)
		case "remove":
			c.RemoveHostname()
		}
		return c.String(), nil
	case "Repository":
		switch r.Operator {
		case "add":
			c.SetRepository(c.Repository() + r.Value)
		case "replace":
			c.SetRepository(r.Value)
		case "remove":
			c.RemoveRepository()
		}
		return c.String(), nil
	case "Tag":
		switch r.Operator {
		case "add":
			c.SetTagOrDigest(c.TagOrDigest() + r.Value)
		case "replace":
			c.SetTagOrDigest(r.Value)
		case "remove":
			c.RemoveTagOrDigest()
		}
		return c.String(), nil
	}
	return "", nil
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r req
		json.Unmarshal(in.Bytes(), &r)
		s, err := override(r)
		if err != nil {
			out.Encode(resp{Err: err.Error()})
		} else {
			out.Encode(resp{Out: s})
		}
	}
}
