// Command podsecurity answers Kubernetes' Pod Security Standards with the code the API server
// runs: k8s.io/pod-security-admission at the version of the k8s modules the other oracles use
// (v0.35.3), its policy package's DefaultChecks evaluated at level baseline, version latest
// (what a namespace labelled pod-security.kubernetes.io/enforce=baseline gets on a 1.35 API
// server).
//
// One JSON pod a line on stdin: {"metadata": {...}, "spec": {...}} (a Pod's, or a template's),
// decoded as the API server decodes it (case-sensitive field names); one answer a line:
// {"allowed": bool, "checks": [ID, ...], "unknown": [...]} with the IDs of the baseline checks
// that fail (sorted) and the unknown or duplicate fields the decoder met (the API server drops
// unknown fields),
// or {"error": "..."} where the pod does not decode, or {"panic": "..."} where the Go code panics.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	kjson "sigs.k8s.io/json"
)

type pod struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     corev1.PodSpec    `json:"spec"`
}

type answer struct {
	Allowed bool     `json:"allowed"`
	Checks  []string `json:"checks"`
	Unknown []string `json:"unknown"`
	Error   string   `json:"error,omitempty"`
	Panic   string   `json:"panic,omitempty"`
}

type single struct {
	id        string
	evaluator policy.Evaluator
}

// one evaluator per baseline check, so that each failing result carries its check's ID
func evaluators() []single {
	var out []single
	for _, check := range policy.DefaultChecks() {
		if check.Level != api.LevelBaseline {
			continue
		}
		evaluator, err := policy.NewEvaluator([]policy.Check{check}, nil)
		if err != nil {
			panic(err)
		}
		out = append(out, single{string(check.ID), evaluator})
	}
	return out
}

func handle(checks []single, line []byte) (a answer) {
	defer func() {
		if p := recover(); p != nil {
			a = answer{Panic: fmt.Sprint(p)}
		}
	}()
	var p pod
	strict, err := kjson.UnmarshalStrict(line, &p)
	if err != nil {
		return answer{Error: err.Error()}
	}
	level := api.LevelVersion{Level: api.LevelBaseline, Version: api.LatestVersion()}
	a = answer{Allowed: true, Checks: []string{}, Unknown: []string{}}
	for _, e := range strict { // the API server drops unknown fields (or refuses them)
		a.Unknown = append(a.Unknown, e.Error())
	}
	for _, c := range checks {
		for _, result := range c.evaluator.EvaluatePod(level, &p.Metadata, &p.Spec) {
			if !result.Allowed {
				a.Allowed = false
				a.Checks = append(a.Checks, c.id)
			}
		}
	}
	sort.Strings(a.Checks)
	return a
}

func main() {
	checks := evaluators()
	if len(os.Args) > 1 && os.Args[1] == "checks" { // the baseline check IDs, one a line
		for _, c := range checks {
			fmt.Println(c.id)
		}
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		if err := out.Encode(handle(checks, in.Bytes())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
