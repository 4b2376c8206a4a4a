// Command cel answers CEL expressions as a Kubernetes API server evaluates a
// ValidatingAdmissionPolicy's validations: k8s.io/apiserver's own compiler
// (pkg/admission/plugin/cel) over its base environment (pkg/cel/environment) at the
// compatibility version given by -version, with params and the authorizer declared, strict
// cost, the per-call cost limit and the stored-expressions environment the API server
// evaluates with.
//
// One JSON request a line on stdin, {"expr": "...", "vars": {"object": ..., "oldObject": ...,
// "params": ...}}; one JSON answer a line on stdout: {"value": V, "cost": N},
// {"error": "message", "cost": N} (evaluation failed) or {"compile": "message"} (refused, or
// cel-go panicked while planning the program). V is tagged
// with its CEL type: ["null"], ["bool", b], ["int", "digits"], ["uint", "digits"],
// ["double", "IEEE-754 bits in hex"], ["string", s], ["bytes", "base64"], ["list", [V...]],
// ["map", [[K, V]...]], ["type", name], ["opaque", type, text]. With "new": true, "new_compile" is the error of the same expression
// in the environment a new policy is validated with (none when it compiles there).
package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

type request struct {
	Expr string                     `json:"expr"`
	Vars map[string]json.RawMessage `json:"vars"`
	New  bool                       `json:"new"`
}

type answer struct {
	Value      any    `json:"value,omitempty"`
	Error      string `json:"error,omitempty"`
	Compile    string `json:"compile,omitempty"`
	NewCompile string `json:"new_compile,omitempty"`
	Cost       uint64 `json:"cost"`
}

type expression struct{ text string }

func (e expression) GetExpression() string    { return e.text }
func (e expression) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType} }

func tagged(v ref.Val) any {
	switch x := v.(type) {
	case types.Null:
		return []any{"null"}
	case types.Bool:
		return []any{"bool", bool(x)}
	case types.Int:
		return []any{"int", strconv.FormatInt(int64(x), 10)}
	case types.Uint:
		return []any{"uint", strconv.FormatUint(uint64(x), 10)}
	case types.Double:
		return []any{"double", strconv.FormatUint(math.Float64bits(float64(x)), 16)}
	case types.String:
		return []any{"string", string(x)}
	case types.Bytes:
		return []any{"bytes", base64.StdEncoding.EncodeToString([]byte(x))}
	case *types.Optional:
		if !x.HasValue() {
			return []any{"optional"}
		}
		return []any{"optional", tagged(x.GetValue())}
	case ref.Type:
		return []any{"type", x.TypeName()}
	}
	if l, ok := v.(traits.Lister); ok && v.Type() == types.ListType {
		items := []any{}
		for it := l.Iterator(); it.HasNext() == types.True; {
			items = append(items, tagged(it.Next()))
		}
		return []any{"list", items}
	}
	if m, ok := v.(traits.Mapper); ok && v.Type() == types.MapType {
		pairs := [][]any{}
		for it := m.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			pairs = append(pairs, []any{tagged(k), tagged(m.Get(k))})
		}
		sort.Slice(pairs, func(i, j int) bool {
			a, _ := json.Marshal(pairs[i][0])
			b, _ := json.Marshal(pairs[j][0])
			return string(a) < string(b)
		})
		return []any{"map", pairs}
	}
	return []any{"opaque", v.Type().TypeName(), fmt.Sprint(v.Value())}
}

func main() {
	versionFlag := flag.String("version", "1.34", "Kubernetes compatibility version of the environment")
	flag.Parse()
	compat := version.MustParse(*versionFlag)
	options := plugincel.OptionalVariableDeclarations{HasParams: true, HasAuthorizer: true, StrictCost: true}
	compiler := plugincel.NewCompiler(environment.MustBaseEnvSet(compat, true))

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			os.Exit(2)
		}
		out.Encode(evaluate(compiler, options, r))
	}
}

func evaluate(compiler plugincel.Compiler, options plugincel.OptionalVariableDeclarations, r request) (a answer) {
	defer func() {
		// cel-go panics on a few expressions (a map literal with a bytes key, folded by the
		// optimizer): the API server's handler recovers, the policy is not created
		if p := recover(); p != nil {
			a = answer{Compile: fmt.Sprint("panic: ", p)}
		}
	}()
	if r.New {
		if fresh := compiler.CompileCELExpression(expression{r.Expr}, options, environment.NewExpressions); fresh.Error != nil {
			a.NewCompile = fresh.Error.Error()
		}
	}
	compiled := compiler.CompileCELExpression(expression{r.Expr}, options, environment.StoredExpressions)
	if compiled.Error != nil {
		a.Compile = compiled.Error.Error()
		return a
	}
	activation := map[string]any{}
	for _, name := range []string{"object", "oldObject", "params"} {
		activation[name] = nil
		if raw, ok := r.Vars[name]; ok {
			var v any
			// as the API server decodes an object: integers as int64, other numbers as float64
			if err := utiljson.Unmarshal(raw, &v); err != nil {
				a.Error = "bad variable: " + err.Error()
				return a
			}
			activation[name] = v
		}
	}
	val, details, err := compiled.Program.ContextEval(context.Background(), activation)
	if details != nil && details.ActualCost() != nil {
		a.Cost = *details.ActualCost()
	}
	if err != nil {
		a.Error = err.Error()
		return a
	}
	a.Value = tagged(val)
	return a
}
