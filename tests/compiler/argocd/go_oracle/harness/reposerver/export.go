package reposerver

import (
	"harness/resource"
	log "harness/logrus"
)

type Selected struct {
	Path string
}

// Walk runs the extracted getPotentiallyValidManifests (no size limit) and returns the paths.
func Walk(appPath, repoRoot string, recurse bool, include, exclude string) ([]string, error) {
	ms, err := getPotentiallyValidManifests(&log.Entry{}, appPath, repoRoot, recurse, false, include, exclude, resource.Quantity{})
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, m := range ms {
		out = append(out, m.path)
	}
	return out, nil
}
